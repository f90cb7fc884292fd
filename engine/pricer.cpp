#include "engine/pricer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>

#include "config/config_error.hpp"
#include "config/overrides.hpp"
#include "kernels/catalog.hpp"
#include "engine/run/cpu_engine.hpp"
#include "engine/core/device_info.hpp"
#include "engine/draws/draw_plan.hpp"
#include "kernels/error.hpp"
#include "engine/run/gpu_engine.hpp"
#include "engine/draws/normal_source.hpp"
#include "engine/plan/plan.hpp"
#include "engine/tune/tuning.hpp"
#include "kernels/reduction_shape.cuh"

namespace pfmc::engine {

Estimate estimate(double sum, double sum_of_squares, std::uint64_t n) {
  Estimate e;
  if (n == 0)
    return e;
  const double count = static_cast<double>(n);
  e.mean = sum / count;
  if (n < 2)
    return e;
  e.variance = std::max(0.0, (sum_of_squares - sum * e.mean) / (count - 1.0));
  e.std_error = std::sqrt(e.variance / count);
  e.has_error = true;
  return e;
}

Estimate controlled_estimate(double sum_y, double sum_yy, double sum_c, double sum_cc,
                             double sum_yc, std::uint64_t n, double control_mean, double* beta) {
  Estimate e = estimate(sum_y, sum_yy, n);
  *beta = 0.0;
  if (n < 3)
    return e;
  const double count = static_cast<double>(n);
  const double mean_c = sum_c / count;
  const double var_c = (sum_cc - sum_c * mean_c) / (count - 1.0);
  const double cov = (sum_yc - sum_y * mean_c) / (count - 1.0);
  if (!(var_c > 0.0))
    return e; // a constant control carries no information
  *beta = cov / var_c;
  e.mean -= *beta * (mean_c - control_mean);
  // Residual variance of y - beta c; one more degree of freedom spent on beta.
  const double residual = std::max(
      0.0, (e.variance * (count - 1.0) - cov * cov / var_c * (count - 1.0)) / (count - 2.0));
  e.variance = residual;
  e.std_error = std::sqrt(residual / count);
  return e;
}

RunResult price(const config::RunConfig& config, const ProgressFn& progress,
                const PriceOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  RunResult result;
  RunInfo& run = result.run;

  // Device (the first CUDA call of a process creates its context: timed on its own).
  const auto device_start = std::chrono::steady_clock::now();
  const DeviceInfo device =
      config.engine.device == config::DeviceChoice::cpu ? DeviceInfo{} : query_device();
  run.device_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - device_start)
          .count();
  bool on_gpu = false;
  switch (config.engine.device) {
  case config::DeviceChoice::gpu:
    if (!device.available) {
      throw RuntimeError("no GPU to run on (" + device.unavailable_reason +
                         "); use --device cpu or engine.device: auto");
    }
    on_gpu = true;
    break;
  case config::DeviceChoice::automatic:
    on_gpu = device.available;
    if (!on_gpu) {
      run.notices.push_back("no GPU (" + device.unavailable_reason +
                            "): running on the CPU reference backend");
    }
    break;
  case config::DeviceChoice::cpu:
    break;
  }

  // Settings.
  ExecutionSettings settings;
  settings.precision = config.simulation.precision;
  settings.rng = config.simulation.rng;
  settings.seed = config.simulation.seed;
  settings.paths = config.simulation.paths;
  settings.backend = config.engine.backend;
  settings.prefetch_distance = config.engine.prefetch_distance;
  settings.padding = config.engine.padding;
  settings.block_size = config.engine.block_size;
  const unsigned hardware_threads = std::max(1u, std::thread::hardware_concurrency());
  settings.cpu_threads = config.engine.cpu_threads > 0 ? config.engine.cpu_threads
                                                       : static_cast<int>(hardware_threads);
  const bool automatic_backend = settings.backend == "auto";
  if (on_gpu && !automatic_backend) {
    const kernels::BackendInfo* backend = kernels::find_backend(settings.backend);
    if (backend == nullptr) {
      throw config::ConfigError(config.file, config.engine.backend_mark, "engine.backend",
                                "unknown backend '" + settings.backend +
                                    "' (known: " + kernels::backend_name_list() + ")");
    }
    const std::string refusal =
        kernels::why_backend_cannot_run(*backend, device.compute_capability, device.name);
    if (!refusal.empty()) {
      throw config::ConfigError(config.file, config.engine.backend_mark, "engine.backend", refusal);
    }
  }
  if (on_gpu) {
    settings.memory_cap = config.engine.max_device_memory > 0
                              ? config.engine.max_device_memory
                              : static_cast<std::uint64_t>(kDefaultMemoryFraction *
                                                           static_cast<double>(device.free_memory));
  } else {
    settings.memory_cap =
        config.engine.max_device_memory > 0
            ? std::min<std::uint64_t>(config.engine.max_device_memory, kCpuMemoryCap)
            : kCpuMemoryCap;
  }

  settings.draw_batch_bytes = config.engine.draw_batch_size;
  settings.antithetic = config.simulation.antithetic;
  settings.brownian_bridge = config.simulation.uses_brownian_bridge();
  if (on_gpu && !automatic_backend) {
    // A backend that computes its draws in the step loop computes Philox's, one step at a time.
    const kernels::BackendInfo& backend = *kernels::find_backend(settings.backend);
    const std::string refusal = kernels::why_backend_cannot_draw(backend, config::to_string(settings.rng));
    if (!refusal.empty())
      throw config::ConfigError(config.file, config.engine.backend_mark, "engine.backend", refusal);
    if (!backend.reads_draws && settings.brownian_bridge) {
      throw config::ConfigError(
          config.file, config.engine.backend_mark, "engine.backend",
          "backend '" + settings.backend +
              "' computes each step's draws in the loop; a Brownian bridge needs each path's "
              "draws together: set simulation.brownian_bridge: false, or choose another backend");
    }
  }
  const auto plan_start = std::chrono::steady_clock::now();
  const SimulationPlan plan = make_plan(config);
  run.plan_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - plan_start)
          .count();
  // Checks that need the plan, before anything runs.
  const bool quasi =
      settings.rng == config::RngType::sobol || settings.rng == config::RngType::scrambled_sobol;
  for (const auto& group : plan.groups) {
    if (group.scenarios > 1 && settings.precision == config::Precision::float32) {
      throw config::ConfigError(config.file, {}, "simulation.greeks",
                                "Greeks need simulation.precision: double (their bumped "
                                "scenarios are instantiated in double only)");
    }
    if (group.scenarios > 1 && group.assets > 1) {
      throw config::ConfigError(config.file, {}, "simulation.greeks",
                                "Greeks are not available for multi_black_scholes model '" +
                                    group.model_name + "' (single-asset models only)");
    }
    if (quasi && group.rows() > kMaxSobolDimensions) {
      throw config::ConfigError(config.file, {}, "simulation.rng",
                                std::string(config::to_string(settings.rng)) +
                                    " supports at most " + std::to_string(kMaxSobolDimensions) +
                                    " dimensions (steps x factors); model '" + group.model_name +
                                    "' needs " + std::to_string(group.rows()));
    }
    const int values = group.reduced_values();
    const int real_bytes = settings.precision == config::Precision::float32 ? 4 : 8;
    // The GPU keeps two draw buffers (the next chunk is generated while one is read); the CPU
    // computes Philox draws block by block and keeps none.
    const bool buffers = on_gpu || settings.rng != config::RngType::philox;
    const std::uint64_t chunk_cap = on_gpu ? settings.memory_cap / 2 : settings.memory_cap;
    const int rows = buffers ? group.rows() : 0;
    const ChunkPlan chunking = plan_chunks(settings.paths, rows, real_bytes, values, chunk_cap);
    if (chunking.chunk_paths == 0) {
      throw config::ConfigError(
          config.file, {}, "engine.max_device_memory",
          std::to_string(settings.memory_cap) + " bytes is too small: " +
              (on_gpu ? "two draw buffers of one tile of " : "one tile of ") +
              std::to_string(kernels::kTilePaths) + " paths of model '" + group.model_name +
              "' needs " +
              std::to_string(plan_chunks(kernels::kTilePaths, rows, real_bytes, values, ~0ull)
                                 .bytes_per_chunk));
    }
  }

  // The tuning cache: `auto` reads (and fills) it, and it keeps the device's copy bandwidth.
  std::optional<TuningCache> cache;
  bool cache_changed = false;
  if (on_gpu) {
    cache.emplace(tuning_cache_path(options.tuning_cache));
    const bool had_bandwidth = cache->copy_bandwidth(device).has_value();
    run.copy_bandwidth_gbps = device_copy_bandwidth(device, &*cache);
    cache_changed = !had_bandwidth;
  }

  // Each group's backend (`auto`: the tuning cache, or tune now when the run repays it, or the
  // default). Groups of one shape share a cache key, a probe and a tuning.
  const int groups = static_cast<int>(plan.groups.size());
  std::vector<ExecutionSettings> group_settings(plan.groups.size(), settings);
  std::map<std::string, int> groups_of_key;
  std::map<std::string, GroupBackend> untuned; ///< shapes not worth tuning in this run
  if (on_gpu && automatic_backend) {
    for (const GroupPlan& group : plan.groups)
      ++groups_of_key[tuning_key(device, group, settings.precision, settings.paths)];
  }
  for (int g = 0; on_gpu && g < groups; ++g) {
    const GroupPlan& group = plan.groups[static_cast<std::size_t>(g)];
    GroupBackend chosen{group.model_name, settings.backend, settings.prefetch_distance,
                        config::to_string(settings.padding), "engine.backend"};
    if (automatic_backend) {
      const std::string key = tuning_key(device, group, settings.precision, settings.paths);
      const BackendChoice fallback = default_backend_choice(settings.rng, settings.brownian_bridge);
      if (const auto cached = cache->find(key)) {
        chosen = {group.model_name, cached->backend, cached->prefetch_distance,
                  config::to_string(cached->padding), "tuning cache " + cache->path()};
      } else if (const auto known = untuned.find(key); known != untuned.end()) {
        chosen = known->second;
        chosen.model = group.model_name;
      } else if (options.tune_when_missing) {
        // Worth tuning? The default's generation + kernel time on the tuning sample, scaled to
        // this run's groups of this shape.
        const Probe probe = probe_group(group, settings, fallback);
        const double estimate_s = probe.total_ms * 1e-3 * static_cast<double>(settings.paths) /
                                  static_cast<double>(probe.sample_paths) * groups_of_key[key];
        char why[256];
        if (estimate_s < options.tune_worth_seconds) {
          std::snprintf(why, sizeof why,
                        "default: this run's %d group%s of this shape take about %.0f ms with it, "
                        "less than tuning would cost (up to %.1f s; `pfmc tune` tunes ahead)",
                        groups_of_key[key], groups_of_key[key] > 1 ? "s" : "", estimate_s * 1e3,
                        kTuneBudgetSeconds);
          chosen = {group.model_name, fallback.backend, fallback.prefetch_distance,
                    config::to_string(fallback.padding), why};
          untuned[key] = chosen;
        } else {
          TuneOptions quick;
          quick.budget_seconds = kTuneBudgetSeconds;
          const TuneResult tuned = tune_group(group, settings, quick);
          cache->store(tuned);
          cache_changed = true;
          std::snprintf(why, sizeof why,
                        "tuned now in %.2f s on %llu of %llu paths (%zu configurations; "
                        "generation + kernel %.3f ms, none %.3f ms), cached in ",
                        tuned.seconds, static_cast<unsigned long long>(tuned.sample_paths),
                        static_cast<unsigned long long>(settings.paths), tuned.all.size(),
                        tuned.best.total_ms(), tuned.baseline.total_ms());
          chosen = {group.model_name, tuned.best.choice.backend,
                    tuned.best.choice.prefetch_distance,
                    config::to_string(tuned.best.choice.padding), why + cache->path()};
        }
      } else {
        chosen = {group.model_name, fallback.backend, fallback.prefetch_distance,
                  config::to_string(fallback.padding), "default (no tuning cache entry)"};
      }
      const auto padding = config::parse_padding(chosen.padding);
      ExecutionSettings& s = group_settings[static_cast<std::size_t>(g)];
      s.backend = chosen.backend;
      s.prefetch_distance = chosen.prefetch_distance;
      s.padding = padding ? *padding : config::Padding{};
    }
    if (!has_group_launcher(group, settings.precision, chosen.backend, chosen.prefetch_distance)) {
      std::string have;
      for (int d : kernels::prefetch_distances()) {
        if (has_group_launcher(group, settings.precision, chosen.backend, d))
          have += (have.empty() ? "" : ", ") + std::to_string(d);
      }
      throw config::ConfigError(
          config.file, {}, "engine.prefetch_distance",
          "model '" + group.model_name + "' (" + config::to_string(group.model_type) +
              (group.scenarios > 1 ? ", with Greeks" : "") + ") has " + chosen.backend +
              " kernels at prefetch distance " + (have.empty() ? "none" : have) + " only, not " +
              std::to_string(chosen.prefetch_distance));
    }
    run.group_backends.push_back(chosen);
  }
  if (automatic_backend && on_gpu) {
    // One line per distinct choice, not one per group (a run may have thousands).
    std::map<std::string, int> lines;
    for (const auto& b : run.group_backends) {
      const kernels::BackendInfo* info = kernels::find_backend(b.backend);
      std::string label = b.backend;
      if (info != nullptr && info->uses_prefetch_distance)
        label += " (distance " + std::to_string(b.prefetch_distance) +
                 (info->uses_padding ? ", padding " + b.padding : "") + ")";
      ++lines["backend auto: " + label + " from " + b.source];
    }
    for (const auto& [line, count] : lines) {
      run.notices.push_back(line + (groups > 1 ? " for " + std::to_string(count) + " of " +
                                                     std::to_string(groups) + " groups"
                                               : ""));
    }
  }

  // Draw batches must fit under the cap twice (generation overlaps the kernels); groups whose
  // backend computes its draws, and the CPU's Philox draws, need no buffer.
  {
    const int real_bytes = settings.precision == config::Precision::float32 ? 4 : 8;
    std::vector<bool> computes(plan.groups.size(),
                               !on_gpu && settings.rng == config::RngType::philox);
    for (std::size_t g = 0; on_gpu && g < plan.groups.size(); ++g) {
      const kernels::BackendInfo* info = kernels::find_backend(group_settings[g].backend);
      computes[g] = info != nullptr && !info->reads_draws;
    }
    for (const DrawUnit& unit : plan_draw_units(plan, settings.rng, settings.paths, real_bytes,
                                                settings.draw_batch_bytes, computes)) {
      const std::uint64_t need =
          unit.values * static_cast<std::uint64_t>(real_bytes) * (on_gpu ? 2 : 1);
      if (unit.batched && need > settings.memory_cap) {
        throw config::ConfigError(
            config.file, {}, "engine.max_device_memory",
            std::to_string(settings.memory_cap) + " bytes cannot hold " +
                (on_gpu ? "two draw batches" : "a draw batch") + " of " +
                std::to_string(unit.values * static_cast<std::uint64_t>(real_bytes)) +
                " bytes: raise it, or lower engine.draw_batch_size (0: no batches)");
      }
    }
  }

  // Run: once, or once per randomisation of a scrambled Sobol run (each replicate an
  // independent, unbiased estimate; the standard error from their spread).
  const bool scrambled = settings.rng == config::RngType::scrambled_sobol;
  const int replicates =
      scrambled
          ? (config.simulation.replicates > 0 ? config.simulation.replicates : kDefaultReplicates)
          : 1;
  std::uint64_t replicate_paths = settings.paths / static_cast<std::uint64_t>(replicates);
  if (config.simulation.antithetic)
    replicate_paths -= replicate_paths % 2; // whole pairs in every replicate
  if (replicates > 1 && replicate_paths < 2) {
    throw config::ConfigError(config.file, {}, "simulation.paths",
                              "each of the " + std::to_string(replicates) +
                                  " replicates needs at least 2 paths");
  }
  const bool plain_sobol = settings.rng == config::RngType::sobol;
  const std::size_t instrument_count = config.instruments.size();
  // Per replicate: each instrument's price, control beta and Greeks, and the portfolio value.
  struct Sample {
    std::vector<Estimate> price;
    std::vector<double> beta;
    std::vector<std::vector<Estimate>> greeks;
    Estimate portfolio;
  };
  std::vector<Sample> samples;
  PlanStats stats;
  for (int r = 0; r < replicates; ++r) {
    for (auto& s : group_settings) {
      s.paths = replicate_paths;
      s.replicate = r;
    }
    ExecutionSettings cpu_settings = settings;
    cpu_settings.paths = replicate_paths;
    cpu_settings.replicate = r;
    PlanStats replicate_stats;
    const std::vector<GroupOutcome> outcomes =
        on_gpu ? run_plan_on_gpu(plan, group_settings, progress, &replicate_stats)
               : run_plan_on_cpu(plan, cpu_settings, progress, &replicate_stats);
    stats.draw_units += replicate_stats.draw_units;
    stats.kernel_launches += replicate_stats.kernel_launches;
    stats.generation_calls += replicate_stats.generation_calls;
    stats.host_syncs += replicate_stats.host_syncs;
    stats.kernel_load_ms += replicate_stats.kernel_load_ms;
    Sample sample;
    sample.price.resize(instrument_count);
    sample.beta.resize(instrument_count);
    sample.greeks.resize(instrument_count);
    double portfolio_value = 0.0;
    double portfolio_variance_of_mean = 0.0;
    bool portfolio_has_error = true;
    for (int g = 0; g < groups; ++g) {
      const GroupPlan& group = plan.groups[static_cast<std::size_t>(g)];
      const GroupOutcome& outcome = outcomes[static_cast<std::size_t>(g)];
      // Antithetic runs reduce pair means: their count is the sample size.
      const std::uint64_t n = group.antithetic ? outcome.paths / 2 : outcome.paths;
      const int K = group.values_per_instrument();
      const int g_at = group.control_variate ? 5 : 2;
      for (int j = 0; j < group.base_instruments(); ++j) {
        const double* t = outcome.totals.data() + static_cast<std::size_t>(j) * K;
        const auto index = static_cast<std::size_t>(group.instrument_config_index[j]);
        Estimate e = estimate(t[0], t[1], n);
        if (group.control_variate &&
            group.instruments[static_cast<std::size_t>(j) * group.scenarios].control !=
                models::ControlKind::none) {
          e = controlled_estimate(t[0], t[1], t[2], t[3], t[4], n,
                                  group.control_mean[static_cast<std::size_t>(j)],
                                  &sample.beta[index]);
        }
        sample.price[index] = e;
        for (std::size_t k = 0; k < group.greeks.size(); ++k) {
          sample.greeks[index].push_back(estimate(t[g_at + 2 * k], t[g_at + 2 * k + 1], n));
        }
      }
      if (group.portfolio) { // a group without positions adds exactly 0
        const std::size_t p = static_cast<std::size_t>(K) * group.base_instruments();
        const Estimate e = estimate(outcome.totals[p], outcome.totals[p + 1], n);
        portfolio_value += e.mean;
        // Groups draw from independent streams.
        portfolio_variance_of_mean += e.std_error * e.std_error;
        portfolio_has_error = portfolio_has_error && e.has_error;
      }

      run.kernel_ms += outcome.kernel_ms;
      run.rng_ms += outcome.rng_ms;
      run.path_steps += static_cast<double>(outcome.path_steps);
      run.bytes_loaded += outcome.bytes_loaded;
      run.chunks += outcome.chunks;
      run.steps = std::max(run.steps, group.steps());
    }
    sample.portfolio.mean = portfolio_value;
    sample.portfolio.std_error = std::sqrt(portfolio_variance_of_mean);
    sample.portfolio.has_error = portfolio_has_error;
    samples.push_back(std::move(sample));
  }
  run.plan_stats = stats;

  // One estimate from the replicates: the within-run one for a single run, else the mean of
  // the replicates and the standard error of that mean from their spread.
  const auto combine = [&](auto get) {
    if (replicates == 1) {
      Estimate e = get(samples.front());
      e.has_error = e.has_error && !plain_sobol;
      if (!e.has_error)
        e.std_error = 0.0;
      return e;
    }
    double sum = 0.0, sum_of_squares = 0.0;
    for (const Sample& s : samples) {
      const double x = get(s).mean;
      sum += x;
      sum_of_squares += x * x;
    }
    return estimate(sum, sum_of_squares, static_cast<std::uint64_t>(replicates));
  };
  result.instruments.resize(instrument_count);
  for (const GroupPlan& group : plan.groups) {
    for (int j = 0; j < group.base_instruments(); ++j) {
      const auto index = static_cast<std::size_t>(group.instrument_config_index[j]);
      const auto& in = config.instruments[index];
      const Estimate e = combine([&](const Sample& s) { return s.price[index]; });
      InstrumentResult& r = result.instruments[index];
      r.id = in.id;
      r.type = config::to_string(in.type);
      r.price = e.mean;
      r.has_std_error = e.has_error;
      r.std_error = e.std_error;
      r.ci95_low = r.has_std_error ? e.mean - 1.96 * e.std_error : e.mean;
      r.ci95_high = r.has_std_error ? e.mean + 1.96 * e.std_error : e.mean;
      r.paths = replicate_paths * static_cast<std::uint64_t>(replicates);
      r.has_control = group.control_variate &&
                      group.instruments[static_cast<std::size_t>(j) * group.scenarios].control !=
                          models::ControlKind::none;
      if (r.has_control) {
        double beta = 0.0;
        for (const Sample& s : samples)
          beta += s.beta[index];
        r.control_beta = beta / replicates;
      }
      for (std::size_t k = 0; k < group.greeks.size(); ++k) {
        const Estimate ge = combine([&](const Sample& s) { return s.greeks[index][k]; });
        const bool pathwise =
            static_cast<int>(k) == group.delta_greek() &&
            group.instruments[static_cast<std::size_t>(j) * group.scenarios].pathwise_delta != 0.0;
        r.greeks.push_back(
            GreekResult{group.greeks[k], ge.mean, ge.std_error, ge.has_error, pathwise});
      }
    }
  }
  if (!config.portfolio.empty()) {
    const Estimate e = combine([&](const Sample& s) { return s.portfolio; });
    result.portfolio.present = true;
    result.portfolio.value = e.mean;
    result.portfolio.has_std_error = e.has_error;
    result.portfolio.std_error = e.std_error;
  }
  if (plain_sobol) {
    run.notices.push_back("sobol draws are quasi-random and not randomised: no standard error is "
                          "estimated (rng: scrambled_sobol gives one from independent "
                          "replicates)");
  }
  if (replicates > 1) {
    run.notices.push_back("scrambled_sobol: " + std::to_string(replicates) +
                          " independent random digital shifts of " +
                          std::to_string(replicate_paths) +
                          " points each; standard errors from their spread");
  }
  run.replicates = replicates;
  run.antithetic = config.simulation.antithetic;
  run.control_variate = config.simulation.control_variate;
  run.brownian_bridge = settings.brownian_bridge;
  for (const GroupPlan& group : plan.groups)
    run.scenarios = std::max(run.scenarios, group.scenarios);

  if (cache && cache_changed) {
    try {
      cache->save();
    } catch (const std::exception& e) {
      run.notices.push_back(std::string("tuning cache not saved: ") + e.what());
    }
  }

  run.on_gpu = on_gpu;
  run.device = on_gpu ? device.name : "CPU (" + std::to_string(settings.cpu_threads) + " threads)";
  run.backend = on_gpu ? settings.backend : "cpu";
  run.padding = "none";
  if (on_gpu && !run.group_backends.empty()) {
    // The backend the groups ran with (`auto` resolves per group; one line when they agree).
    const GroupBackend& first = run.group_backends.front();
    const bool same = std::all_of(
        run.group_backends.begin(), run.group_backends.end(), [&](const GroupBackend& b) {
          return b.backend == first.backend && b.prefetch_distance == first.prefetch_distance &&
                 b.padding == first.padding;
        });
    run.backend = same ? first.backend : "auto (per group)";
    const kernels::BackendInfo* backend = kernels::find_backend(first.backend);
    run.prefetch_distance =
        same && backend != nullptr && backend->uses_prefetch_distance ? first.prefetch_distance : 0;
    run.padding = same && backend != nullptr && backend->uses_padding ? first.padding : "none";
  }
  run.precision = config::to_string(settings.precision);
  run.rng = config::to_string(settings.rng);
  run.seed = settings.seed;
  run.paths = settings.paths;
  run.groups = groups;
  run.block_size = settings.block_size;
  run.threads = on_gpu ? 0 : settings.cpu_threads;
  run.total_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (run.kernel_ms > 0.0) {
    run.path_steps_per_second = run.path_steps / (run.kernel_ms * 1e-3);
    run.achieved_gbps = run.bytes_loaded / (run.kernel_ms * 1e-3) * 1e-9;
    if (run.copy_bandwidth_gbps > 0.0) {
      run.copy_bandwidth_fraction = run.achieved_gbps / run.copy_bandwidth_gbps;
    }
  }
  return result;
}

} // namespace pfmc::engine
