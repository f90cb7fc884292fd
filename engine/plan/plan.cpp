// The planning stage's entry point: groups the instruments by model and plans each group (the
// pieces live beside this file, engine/plan/plan_detail.hpp lists them).
#include "engine/plan/plan.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/parallel_ranges.hpp"
#include "base/trace.hpp"
#include "config/config_error.hpp"
#include "engine/market/dupire.hpp"
#include "engine/plan/plan_detail.hpp"

namespace pfmc::engine {

namespace {

/// Groups are planned in parallel from twice this many instruments. With each thread's groups
/// in an arena of their own, planning is no longer malloc-bound: the 8,192-option book planned
/// and freed on 1, 2, 4, 8 and 16 threads took 7.2, 4.6, 3.0, 2.5 and 2.5 ms (an H200 machine's 16
/// host cores: docs/decisions.md#planning-threads).
constexpr std::size_t kInstrumentsPerThread = 512;

/// A group's arena starts with this many bytes a group (a one-step European's arrays take
/// ~0.5 kB); it grows as a group needs.
constexpr std::size_t kArenaBytesPerGroup = 1'024;

/// Fills `group` (made with its arena) with the plan of model `model_index`'s instruments.
void plan_group(const config::RunConfig& config,
                const std::vector<plan_detail::ShiftedMarket>& shifted, int model_index,
                plan_detail::Members instrument_indices, const std::vector<double>& quantity,
                GroupPlan& group) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  plan_detail::check_event_grid_is_exact(config, model);

  group.model_index = model_index;
  group.model_name = model.name;
  group.model_type = model.type;
  group.assets = model.assets();
  group.factors = model.type == config::ModelType::heston ? 2 : group.assets;
  group.control_variate = config.simulation.control_variate;
  group.antithetic = config.simulation.antithetic;
  group.fast_math = config.simulation.math == config::MathProfile::fast;

  const std::vector<double> times =
      plan_detail::group_time_grid(config, model_index, instrument_indices);
  group.times.assign(times.begin(), times.end());
  // Pathwise Greeks: one scenario and the model's tangents; else the bumps' scenarios.
  const bool pathwise = plan_detail::takes_pathwise(config, model_index, instrument_indices);
  const auto& first = config.instruments[static_cast<std::size_t>(instrument_indices.front())];
  const bool early = plan_detail::exercises_early(first); // a group's all do, or none
  std::vector<plan_detail::Scenario> copies;              // the markets whose paths it simulates
  const std::vector<plan_detail::Scenario> scenarios =
      pathwise ? plan_detail::plan_pathwise(config, model_index, group)
      : shifted.empty()
          ? plan_detail::plan_scenarios(config, model_index, group)
          : plan_detail::plan_shifted_scenarios(config, shifted, model_index, early, group, copies);
  if (pathwise) {
    plan_detail::plan_pathwise_model_data(config, model_index, group);
  } else {
    plan_detail::plan_model_data(shifted.empty() ? scenarios : copies, model_index, group);
  }
  plan_detail::ObservationSet observations(group.times);
  plan_detail::plan_instruments(config, model_index, scenarios, instrument_indices, quantity,
                                observations, group);
  const std::vector<const std::vector<int>*> observation_steps =
      plan_detail::number_observations(config, model_index, observations, group);
  plan_detail::plan_observation_runs(observation_steps, group);
  if (early)
    plan_detail::plan_exercise(config, model_index, scenarios, group);
}

} // namespace

namespace {

SimulationPlan plan_models(const config::RunConfig& config, unsigned threads);

/// The config with each `surface: implied` local-vol model's grid built from its underlying's
/// quotes (engine/market/dupire.hpp), and a notice for each.
config::RunConfig with_implied_surfaces(const config::RunConfig& config,
                                        std::vector<std::string>& notices) {
  config::RunConfig completed = config;
  for (config::ModelConfig& model : completed.models) {
    if (!model.surface_from_quotes)
      continue;
    const auto quotes = std::find_if(
        config.market.implied_vols.begin(), config.market.implied_vols.end(),
        [&](const config::ImpliedVols& q) { return q.underlying == model.underlying; });
    try {
      market::ImpliedLocalVol built = market::implied_local_vol(
          *quotes, config.market.underlyings[static_cast<std::size_t>(model.underlying_index)],
          config.market.zero_rates);
      model.surface = std::move(built.grid);
      notices.push_back("model " + model.name + ": " + built.summary);
    } catch (const std::invalid_argument& e) {
      throw config::ConfigError(config.file, model.mark, "models." + model.name + ".surface",
                                std::string("cannot build the local vol from the quotes: ") +
                                    e.what());
    }
  }
  return completed;
}

} // namespace

SimulationPlan make_plan(const config::RunConfig& config, unsigned threads) {
  if (std::none_of(config.models.begin(), config.models.end(),
                   [](const config::ModelConfig& m) { return m.surface_from_quotes; }))
    return plan_models(config, threads);
  // A copy of the config (of its models' surfaces: the plan keeps nothing of the config).
  std::vector<std::string> notices;
  const config::RunConfig completed = with_implied_surfaces(config, notices);
  SimulationPlan plan = plan_models(completed, threads);
  plan.notices.insert(plan.notices.begin(), notices.begin(), notices.end());
  return plan;
}

namespace {

SimulationPlan plan_models(const config::RunConfig& config, unsigned threads) {
  SimulationPlan plan;
  plan.paths = config.simulation.paths;
  base::TraceSpan members_span("plan: members");
  // Groups in order of first use by an instrument; instruments keep their config order. A
  // model's early-exercise instruments simulate apart from its others (their groups run a
  // regression first), up to kMaxExerciseRules a group.
  std::vector<int> group_of_model(2 * config.models.size(), -1); // [model][early exercise]
  std::vector<int> group_of(config.instruments.size());          // each instrument's group
  std::vector<std::size_t> first_member{0}; // group g's members start here, counts
  std::vector<int> models_in_order;
  for (std::size_t i = 0; i < config.instruments.size(); ++i) {
    const int m = config.instruments[i].model_index;
    const bool early = plan_detail::exercises_early(config.instruments[i]);
    int& g = group_of_model[2 * static_cast<std::size_t>(m) + (early ? 1 : 0)];
    if (g < 0 || (early && first_member[static_cast<std::size_t>(g) + 1] >=
                               static_cast<std::size_t>(kMaxExerciseRules))) {
      g = static_cast<int>(models_in_order.size());
      models_in_order.push_back(m);
      first_member.push_back(0);
    }
    group_of[i] = g;
    ++first_member[static_cast<std::size_t>(g) + 1];
  }
  // Every group's members in one array, each group's in config order (a counting sort).
  for (std::size_t g = 1; g < first_member.size(); ++g)
    first_member[g] += first_member[g - 1];
  std::vector<int> members(config.instruments.size());
  {
    std::vector<std::size_t> next(first_member.begin(), first_member.end() - 1);
    for (std::size_t i = 0; i < group_of.size(); ++i)
      members[next[static_cast<std::size_t>(group_of[i])]++] = static_cast<int>(i);
  }
  const auto members_of = [&](std::size_t g) {
    return plan_detail::Members{members.data() + first_member[g],
                                first_member[g + 1] - first_member[g]};
  };
  // Portfolio quantity of each instrument (0 when not held), once for all groups.
  std::vector<double> quantity(config.instruments.size(), 0.0);
  for (const auto& position : config.portfolio) {
    quantity[static_cast<std::size_t>(position.instrument_index)] += position.quantity;
  }
  // Groups are planned on every core (each reads the config only); the error is the first
  // group's that failed, as in one loop over them.
  // Threads by instruments (the work), at most one per group (parallel_ranges caps the ranges).
  if (threads == 0)
    threads = base::threads_for(config.instruments.size(), kInstrumentsPerThread);
  // Each thread's groups allocate from an arena of their own (one thread allocates from it).
  const std::size_t groups = models_in_order.size();
  const std::size_t ranges = base::range_count(groups, threads);
  members_span.end();
  base::TraceSpan make_span("plan: arenas");
  for (std::size_t r = 0; r < ranges; ++r) {
    const std::size_t begin = base::range_begin(groups, ranges, r);
    const std::size_t end = base::range_begin(groups, ranges, r + 1);
    plan.memory.push_back(
        std::make_shared<std::pmr::monotonic_buffer_resource>((end - begin) * kArenaBytesPerGroup));
  }
  plan.groups = GroupPlans(groups, ranges);
  const std::vector<plan_detail::ShiftedMarket> shifted = plan_detail::shifted_markets(config);
  make_span.end();
  base::TraceSpan parallel_span("plan: groups on threads");
  const base::FirstFailure failed =
      base::parallel_ranges(groups, threads, [&](std::size_t g, std::size_t r) {
        if (g == base::range_begin(groups, ranges, r)) // the range's groups, made by its thread
          plan.groups.make_range(r, plan.memory[r].get());
        plan_group(config, shifted, models_in_order[g], members_of(g), quantity, plan.groups[g]);
        plan.groups[g].index = static_cast<int>(g);
      });
  parallel_span.end();
  if (failed.error)
    std::rethrow_exception(failed.error);
  return plan;
}

} // namespace

} // namespace pfmc::engine
