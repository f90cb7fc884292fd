#include "engine/tune/tuning.hpp"

#include "engine/run/gpu_engine.hpp"
#include "engine/run/kernel_choice.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "base/error.hpp"
#include "config/overrides.hpp"
#include "engine/core/interrupt.hpp"
#include "engine/tune/kernel_bench.hpp"
#include "kernels/catalog.hpp"
#include "kernels/compile/compiled_kernels.hpp"
#include "kernels/reduction_shape.cuh"

namespace pfmc::engine {

namespace {

int log2_class(std::uint64_t n) {
  int k = 0;
  while ((std::uint64_t{1} << (k + 1)) <= n && k < 62)
    ++k;
  return k;
}

} // namespace

bool draws_fit_backend(const kernels::BackendInfo& backend, const ExecutionSettings& settings) {
  return kernels::why_backend_cannot_draw(backend, config::to_string(settings.rng)).empty() &&
         (backend.reads_draws || backend.bench_only || !settings.brownian_bridge);
}

std::string tuning_key(const DeviceInfo& device, const GroupPlan& group,
                       const ExecutionSettings& settings) {
  std::ostringstream key;
  key << device_key(device) << "|cuda " << device.runtime_version << "|"
      << config::to_string(group.model_type) << "|" << config::to_string(settings.precision) << "|"
      << group.factors << " factors|" << group.scenarios << " scenarios|"
      << config::to_string(settings.rng) << (settings.brownian_bridge ? " bridged" : "")
      << "|paths 2^" << log2_class(settings.paths) << "|steps 2^"
      << log2_class(static_cast<std::uint64_t>(group.steps()));
  return key.str();
}

BackendChoice default_backend_choice(config::RngType rng, bool brownian_bridge) {
  if (rng == config::RngType::philox && !brownian_bridge)
    return BackendChoice{"inline", 0, config::Padding{}};
  // Fastest on both reference workloads on an H100 (docs/decisions.md#default-backend): batched
  // loads hide the latency of the latency-bound kernel and keep the bandwidth-bound one at the
  // copy rate.
  return BackendChoice{"scalar_batched", 4, config::Padding{}};
}

std::uint64_t tune_sample_paths(std::uint64_t paths, int steps) {
  if (paths <= kTuneFullPaths)
    return paths;
  const std::uint64_t wanted = std::max<std::uint64_t>(
      kTuneFullPaths, kTuneSamplePathSteps / static_cast<std::uint64_t>(std::max(1, steps)));
  const std::uint64_t tiles = (wanted + kernels::kTilePaths - 1) / kernels::kTilePaths;
  return std::min(paths, tiles * kernels::kTilePaths);
}

namespace {

/// The settings of a measurement on `paths` paths of the group (one chunk's worth at most).
ExecutionSettings measured_settings(const GroupPlan& group, const ExecutionSettings& settings,
                                    std::uint64_t paths) {
  ExecutionSettings measured = settings;
  const int values = group.reduced_values();
  const int real_bytes = settings.precision == config::Precision::float32 ? 4 : 8;
  const ChunkPlan chunking =
      plan_chunks(paths, group.rows(), real_bytes, values, settings.memory_cap);
  PFMC_EXPECTS(chunking.chunk_paths > 0, "memory cap below one tile of paths");
  measured.paths = chunking.chunk_paths;
  // The run's launch, not the sample's, decides the kernels' register width: a sample of a
  // large run fits in one wave where the run does not.
  measured.launch_paths =
      plan_chunks(settings.paths, group.rows(), real_bytes, values, settings.memory_cap)
          .chunk_paths;
  return measured;
}

bool reads_draws(const std::string& backend) {
  const kernels::BackendInfo* info = kernels::find_backend(backend);
  return info == nullptr || info->reads_draws;
}

/// The configurations this device runs with these draws, restricted to the requested backends
/// and distances (`none` always: the baseline).
std::vector<BackendChoice> tune_candidates(const GroupPlan& group,
                                           const ExecutionSettings& settings,
                                           const TuneOptions& options, const DeviceInfo& device) {
  std::vector<BackendChoice> candidates;
  for (const auto& b : kernels::backend_catalog()) {
    if (!kernels::why_backend_cannot_run(b, device.compute_capability, device.name).empty())
      continue;
    if (b.bench_only && !options.ideal)
      continue;
    if (!draws_fit_backend(b, settings))
      continue;
    if (!options.backends.empty() &&
        std::find(options.backends.begin(), options.backends.end(), b.name) ==
            options.backends.end() &&
        std::string(b.name) != "none" && !b.bench_only) {
      continue;
    }
    std::vector<int> distances{0};
    if (b.uses_prefetch_distance) {
      // The distances the model lists (kernels/model_list.cuh), or any asked for (compiled on
      // first use where not built in).
      distances.clear();
      const bool listed_only = options.distances.empty();
      for (int d : listed_only ? kernels::prefetch_distances() : options.distances) {
        if (has_group_launcher(group, settings.precision, b.name, d, listed_only))
          distances.push_back(d);
      }
    }
    std::vector<config::Padding> paddings{config::Padding{}};
    if (b.uses_padding) {
      paddings = {config::Padding{}, config::Padding{config::Padding::Mode::none, 0},
                  config::Padding{config::Padding::Mode::slot_major, 0}};
    }
    // A backend the group's model has no kernel of (the baskets' Greeks: the common module's
    // alone) is not a candidate.
    if (!b.uses_prefetch_distance &&
        !has_group_launcher(group, settings.precision, b.name, settings.prefetch_distance, true))
      continue;
    for (int d : distances) {
      for (const auto& p : paddings)
        candidates.push_back(BackendChoice{b.name, d, p});
    }
  }
  return candidates;
}

/// The candidates the binary lacks, compiled (or read from the kernel cache) on the host's cores
/// before any is timed: the tuning's cost includes it.
void compile_candidates(const GroupPlan& group, const ExecutionSettings& settings,
                        const std::vector<BackendChoice>& candidates, const DeviceInfo& device) {
  std::vector<std::string> names;
  for (const auto& c : candidates) {
    for (const std::string* name :
         group_kernel_names(group, settings, c.backend, c.prefetch_distance))
      names.push_back(*name);
  }
  if (names.empty())
    return;
  const auto batch = kernels::compile::compile_all(names, device.compute_capability, 0, true);
  if (!batch.failures.empty())
    throw RuntimeError(batch.failures.front());
}

/// `finals` in screening order: the screened configurations first, so that a budget that runs
/// out keeps the ones that matter.
void order_by_screening(std::vector<BackendChoice>& finals,
                        const std::vector<Measurement>& screened) {
  std::stable_sort(
      finals.begin(), finals.end(), [&](const BackendChoice& a, const BackendChoice& b) {
        const auto rank = [&](const BackendChoice& c) {
          for (std::size_t k = 0; k < screened.size(); ++k) {
            const auto& s = screened[k].choice;
            if (s.backend == c.backend && s.prefetch_distance == c.prefetch_distance &&
                s.padding.mode == c.padding.mode && s.padding.amount == c.padding.amount)
              return k;
          }
          return screened.size();
        };
        return rank(a) < rank(b);
      });
}

/// The generation a backend that reads draws adds: the median of three, after a warm-up.
double median_generation_ms(KernelBench& bench) {
  bench.time_generation_ms();
  std::vector<double> g;
  for (int r = 0; r < 3; ++r)
    g.push_back(bench.time_generation_ms());
  std::sort(g.begin(), g.end());
  return g[1];
}

/// From `all`, fastest first: the best configuration that prices (never the bench's ideal),
/// `none`, and the ideal at its fastest distance where it was measured.
void pick_best_baseline_and_ideal(TuneResult& result) {
  bool have_best = false;
  for (const auto& m : result.all) {
    if (m.choice.backend == "none")
      result.baseline = m;
    const kernels::BackendInfo* info = kernels::find_backend(m.choice.backend);
    if (info != nullptr && info->bench_only) {
      if (!result.ideal)
        result.ideal = m;
    } else if (!have_best) {
      result.best = m;
      have_best = true;
    }
  }
}

} // namespace

Probe probe_group(const GroupPlan& group, const ExecutionSettings& settings,
                  const BackendChoice& choice) {
  const ExecutionSettings measured =
      measured_settings(group, settings, tune_sample_paths(settings.paths, group.steps()));
  KernelBench bench(group, measured);
  bench.time_launch_ms(choice.backend, choice.prefetch_distance, choice.padding); // warm-up
  double ms = bench.time_launch_ms(choice.backend, choice.prefetch_distance, choice.padding);
  if (reads_draws(choice.backend)) {
    bench.time_generation_ms();
    ms += bench.time_generation_ms();
  }
  return Probe{ms, measured.paths};
}

TuneResult tune_group(const GroupPlan& group, const ExecutionSettings& settings,
                      const TuneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const DeviceInfo device = query_device();
  PFMC_EXPECTS(device.available, "tuning needs a GPU");

  // Quick mode measures a sample of the paths; exhaustive mode one chunk's worth (all of them
  // when they fit).
  const bool quick = options.mode == TuneMode::quick;
  const ExecutionSettings measured = measured_settings(
      group, settings, quick ? tune_sample_paths(settings.paths, group.steps()) : settings.paths);
  KernelBench bench(group, measured);

  const std::vector<BackendChoice> candidates = tune_candidates(group, settings, options, device);
  compile_candidates(group, settings, candidates, device);

  TuneResult result;
  result.key = tuning_key(device, group, settings);
  result.bytes_per_launch = bench.bytes_per_launch();
  result.path_steps_per_launch = bench.path_steps_per_launch();
  result.paths = settings.paths;
  result.sample_paths = measured.paths;

  const double generation_ms =
      std::any_of(candidates.begin(), candidates.end(),
                  [](const BackendChoice& c) { return reads_draws(c.backend); })
          ? median_generation_ms(bench)
          : 0.0;
  const auto time = [&](const BackendChoice& c, int repeats) {
    throw_if_stopped(); // an interrupted tuning stores nothing
    bench.time_launch_ms(c.backend, c.prefetch_distance, c.padding); // warm-up
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
      ms.push_back(bench.time_launch_ms(c.backend, c.prefetch_distance, c.padding));
    }
    std::sort(ms.begin(), ms.end());
    return Measurement{c,
                       ms[ms.size() / 2],
                       ms.front(),
                       ms.back(),
                       reads_draws(c.backend) ? generation_ms : 0.0,
                       bench.launched_wide()};
  };
  const auto by_total = [](const Measurement& a, const Measurement& b) {
    return a.total_ms() < b.total_ms();
  };
  const auto over_budget = [&] {
    return quick && options.budget_seconds > 0.0 && elapsed() > options.budget_seconds;
  };

  std::vector<BackendChoice> finals;
  if (!quick) {
    finals = candidates;
  } else {
    // Screen every backend once at its likeliest distance (none and inline first: the baseline
    // and the default), then time the two fastest backends at every distance and padding.
    const auto likeliest = [](const BackendChoice& c) {
      if (c.padding.mode != config::Padding::Mode::automatic)
        return false;
      const kernels::BackendInfo* info = kernels::find_backend(c.backend);
      return !info->uses_prefetch_distance || kernels::is_winning_distance(c.prefetch_distance);
    };
    std::vector<BackendChoice> screen;
    for (const char* first : {"none", "inline"}) {
      for (const auto& c : candidates) {
        if (c.backend == first)
          screen.push_back(c);
      }
    }
    for (const auto& c : candidates) {
      if (c.backend != "none" && c.backend != "inline" && likeliest(c))
        screen.push_back(c);
    }
    std::vector<Measurement> screened;
    int done = 0;
    for (const auto& c : screen) {
      if (screened.size() >= 2 && over_budget()) {
        result.stopped_by_budget = true;
        break;
      }
      if (screened.size() >= 2)
        result.last_optional_start_seconds = elapsed();
      if (options.progress)
        options.progress(c, done++, 0);
      screened.push_back(time(c, 1));
    }
    std::sort(screened.begin(), screened.end(), by_total);
    std::vector<std::string> top;
    for (const auto& m : screened) {
      if (std::find(top.begin(), top.end(), m.choice.backend) == top.end())
        top.push_back(m.choice.backend);
      if (top.size() == 2)
        break;
    }
    for (const auto& c : candidates) {
      if (c.backend == "none" || std::find(top.begin(), top.end(), c.backend) != top.end()) {
        finals.push_back(c);
      }
    }
    order_by_screening(finals, screened);
  }
  int done = 0;
  for (const auto& c : finals) {
    if (result.all.size() >= 2 && over_budget()) {
      result.stopped_by_budget = true;
      break;
    }
    if (result.all.size() >= 2)
      result.last_optional_start_seconds = elapsed();
    if (options.progress)
      options.progress(c, done++, static_cast<int>(finals.size()));
    result.all.push_back(time(c, options.repeats));
  }
  std::sort(result.all.begin(), result.all.end(), by_total);
  pick_best_baseline_and_ideal(result);
  result.seconds = elapsed();
  return result;
}

} // namespace pfmc::engine
