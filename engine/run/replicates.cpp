#include "engine/run/replicates.hpp"

#include <algorithm>
#include <exception>
#include <string>

#include "base/parallel_ranges.hpp"
#include "base/trace.hpp"
#include "config/config_error.hpp"
#include "engine/run/cpu_engine.hpp"
#include "engine/run/gpu_engine.hpp"
#include "engine/run/unit_stream.hpp"

namespace pfmc::engine {

namespace {

void add_outcome_costs(const SimulationPlan& plan, const std::vector<GroupOutcome>& outcomes,
                       RunInfo& run) {
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    const GroupOutcome& outcome = outcomes[g];
    run.kernel_ms += outcome.kernel_ms;
    run.rng_ms += outcome.rng_ms;
    run.regression_ms += outcome.regression_ms;
    run.regression_path_steps += static_cast<double>(outcome.regression_path_steps);
    run.path_steps += static_cast<double>(outcome.path_steps);
    run.bytes_loaded += outcome.bytes_loaded;
    run.chunks += outcome.chunks;
    run.steps = std::max(run.steps, plan.groups[g].steps());
  }
}

/// Base instrument j of the group from the replicates.
InstrumentResult instrument_result(const config::RunConfig& config, const GroupPlan& group, int j,
                                   const ReplicatePlan& replicates,
                                   const std::vector<ReplicateSample>& samples) {
  const auto index = static_cast<std::size_t>(group.instrument_config_index[j]);
  const auto& in = config.instruments[index];
  const models::InstrumentView& base = group.base_instrument(j);
  const Estimate e = combine_replicates(samples, replicates.plain_sobol,
                                        [&](const ReplicateSample& s) { return s.price[index]; });
  InstrumentResult r;
  r.id = in.id;
  r.type = config::to_string(in.type);
  r.price = e.mean;
  r.has_std_error = e.has_error;
  r.std_error = e.std_error;
  r.ci95_low = r.has_std_error ? e.mean - 1.96 * e.std_error : e.mean;
  r.ci95_high = r.has_std_error ? e.mean + 1.96 * e.std_error : e.mean;
  r.paths = replicates.paths * static_cast<std::uint64_t>(replicates.replicates);
  if (group.exercise.present()) {
    r.exercise = config::to_string(in.exercise);
    for (int d = 0; d < group.exercise.dates(); ++d)
      r.exercise_dates +=
          group.exercise.allowed[static_cast<std::size_t>(j) * group.exercise.dates() + d];
    r.regression_paths = group.exercise.regression_paths;
  }
  r.has_control = group.has_control(j);
  if (r.has_control) {
    double beta = 0.0;
    for (const ReplicateSample& s : samples)
      beta += s.beta[index];
    r.control_beta = beta / replicates.replicates;
  }
  for (std::size_t k = 0; k < group.greeks.size(); ++k) {
    const Estimate ge =
        combine_replicates(samples, replicates.plain_sobol,
                           [&](const ReplicateSample& s) { return s.greeks[index][k]; });
    const bool pathwise = group.pathwise() || (static_cast<int>(k) == group.delta_greek() &&
                                               base.pathwise_delta != 0.0);
    GreekResult greek{group.greeks[k], ge.mean, ge.std_error, ge.has_error, pathwise, {}};
    const int asset = group.greek_assets[k];
    if (group.greeks[k] == config::Greek::scenario_pnl) {
      greek.scenario = asset - 1; // greek_assets: its scenario (the base is 0)
    } else if (asset >= 0) {
      const auto& model = config.models[static_cast<std::size_t>(group.model_index)];
      greek.underlying = model.underlyings[static_cast<std::size_t>(asset)];
      // A cross-gamma's pair: "A,B" (the model's order).
      if (const int other = group.greek_pair_assets[k]; other >= 0)
        greek.underlying += "," + model.underlyings[static_cast<std::size_t>(other)];
    }
    r.greeks.push_back(std::move(greek));
  }
  return r;
}

} // namespace

ReplicatePlan plan_replicates(const config::RunConfig& config, const ExecutionSettings& settings) {
  ReplicatePlan plan;
  const bool scrambled = settings.rng == config::RngType::scrambled_sobol;
  plan.replicates = scrambled ? (config.simulation.replicates > 0 ? config.simulation.replicates
                                                                  : kDefaultReplicates)
                              : 1;
  plan.paths = settings.paths / static_cast<std::uint64_t>(plan.replicates);
  if (config.simulation.antithetic)
    plan.paths -= plan.paths % 2; // whole pairs in every replicate
  if (plan.replicates > 1 && plan.paths < 2) {
    throw config::ConfigError(config.file, {}, "simulation.paths",
                              "each of the " + std::to_string(plan.replicates) +
                                  " replicates needs at least 2 paths");
  }
  plan.plain_sobol = settings.rng == config::RngType::sobol;
  return plan;
}

std::vector<ReplicateSample>
run_replicates(const SimulationPlan& plan, const ExecutionSettings& settings,
               std::vector<ExecutionSettings> group_settings, bool on_gpu,
               const Placement& placement, const ReplicatePlan& replicates,
               std::size_t instrument_count, const ProgressFn& progress,
               const GroupEstimated& estimated, RunInfo& run) {
  std::vector<ReplicateSample> samples;
  PlanStats stats;
  // A single run on one worker: each group sampled and estimated as its outcome comes (into the
  // one sample, made beforehand: `samples` does not move while the run's threads use it).
  const bool streamed = replicates.replicates == 1 && !placement.split(on_gpu);
  const OutcomeSink sink = [&](std::size_t g, const GroupOutcome& outcome) {
    sample_group(plan, g, outcome, samples.front());
    estimated(g, samples);
  };
  if (streamed)
    samples.push_back(empty_sample(plan, instrument_count));
  for (int r = 0; r < replicates.replicates; ++r) {
    for (auto& s : group_settings) {
      s.paths = replicates.paths;
      s.replicate = r;
    }
    ExecutionSettings cpu_settings = settings;
    cpu_settings.paths = replicates.paths;
    cpu_settings.replicate = r;
    PlanStats replicate_stats;
    const bool split = placement.split(on_gpu);
    const std::vector<GroupOutcome> outcomes =
        split    ? run_split(plan, cpu_settings, group_settings, on_gpu, placement, progress,
                             replicate_stats, run)
        : on_gpu ? run_plan_on_gpu(plan, group_settings, progress, &replicate_stats, nullptr, 0,
                                   nullptr, streamed ? &sink : nullptr)
                 : run_plan_on_cpu(plan, cpu_settings, progress, &replicate_stats, nullptr,
                                   streamed ? &sink : nullptr);
    add_plan_stats(stats, replicate_stats);
    if (outcomes.empty())
      continue; // an MPI rank other than 0: its sums went to rank 0
    base::TraceSpan sample_span("replicate's sample");
    if (streamed)
      finish_sample(samples.front());
    else
      samples.push_back(sample_replicate(plan, outcomes, instrument_count));
    sample_span.end();
    base::TraceSpan costs_span("replicate's costs");
    add_outcome_costs(plan, outcomes, run);
    costs_span.end();
    if (split) { // the workers ran side by side: the slowest one's kernels
      double slowest = 0.0;
      for (const WorkerInfo& w : run.workers)
        slowest = std::max(slowest, w.kernel_ms);
      run.kernel_ms = slowest;
    }
  }
  run.plan_stats = stats;
  if (!streamed && !samples.empty()) {
    // Each group's estimates apart, on a few threads.
    const std::size_t groups = plan.groups.size();
    const base::FirstFailure failed =
        base::parallel_ranges(groups, base::threads_for(groups, kFinishItemsPerThread),
                              [&](std::size_t g, std::size_t) { estimated(g, samples); });
    if (failed.error)
      std::rethrow_exception(failed.error);
  }
  return samples;
}

void fill_group_results(const config::RunConfig& config, const SimulationPlan& plan, std::size_t g,
                        const ReplicatePlan& replicates,
                        const std::vector<ReplicateSample>& samples, RunResult& result) {
  const GroupPlan& group = plan.groups[g];
  for (int j = 0; j < group.base_instruments(); ++j) {
    result.instruments[static_cast<std::size_t>(group.instrument_config_index[j])] =
        instrument_result(config, group, j, replicates, samples);
  }
}

void fill_results(const config::RunConfig& config, const ReplicatePlan& replicates,
                  const std::vector<ReplicateSample>& samples, RunResult& result) {
  if (!config.portfolio.empty()) {
    const Estimate e = combine_replicates(samples, replicates.plain_sobol,
                                          [](const ReplicateSample& s) { return s.portfolio; });
    result.portfolio.present = true;
    result.portfolio.value = e.mean;
    result.portfolio.has_std_error = e.has_error;
    result.portfolio.std_error = e.std_error;
  }
  RunInfo& run = result.run;
  if (replicates.plain_sobol) {
    run.notices.push_back("sobol draws are quasi-random and not randomised: no standard error is "
                          "estimated (rng: scrambled_sobol gives one from independent "
                          "replicates)");
  }
  if (replicates.replicates > 1) {
    run.notices.push_back("scrambled_sobol: " + std::to_string(replicates.replicates) +
                          " independent random digital shifts of " +
                          std::to_string(replicates.paths) +
                          " points each; standard errors from their spread");
  }
}

} // namespace pfmc::engine
