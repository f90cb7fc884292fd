// `pfmc bench` and `pfmc tune`: sweep every simulation group over backends, distances and
// paddings on the GPU; print the tables, write the CSV and the plot, or store the tuning cache.
#include <iostream>
#include <string>
#include <vector>

#include "apps/cli.hpp"
#include "apps/sweep_plot.hpp"
#include "apps/sweep_report.hpp"
#include "base/atomic_file.hpp"
#include "base/error.hpp"
#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "engine/core/device_info.hpp"
#include "engine/core/interrupt.hpp"
#include "engine/plan/plan.hpp"
#include "engine/run/run_setup.hpp"
#include "engine/tune/tuning.hpp"
#include "kernels/catalog.hpp"

namespace pfmc::apps {

namespace {

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  std::string item;
  for (char c : list + ",") {
    if (c == ',') {
      if (!item.empty())
        items.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return items;
}

engine::TuneOptions tune_options_from(const SweepOptions& s, engine::TuneMode mode) {
  engine::TuneOptions t;
  t.mode = mode;
  t.repeats = s.repeat;
  if (s.backends != "all") {
    for (const auto& b : split_list(s.backends)) {
      if (kernels::find_backend(b) == nullptr) {
        throw config::ConfigError("", {}, "--backends",
                                  "unknown backend '" + b +
                                      "' (known: " + kernels::backend_name_list() + ")");
      }
      t.backends.push_back(b);
    }
  }
  if (s.distances != "all") {
    for (const auto& d : split_list(s.distances)) {
      int value = -1;
      try {
        std::size_t used = 0;
        value = std::stoi(d, &used);
        if (used != d.size())
          value = -1;
      } catch (const std::exception&) {
        value = -1;
      }
      if (!kernels::is_prefetch_distance(value)) {
        throw config::ConfigError("", {}, "--distances",
                                  "'" + d + "' is not an instantiated distance (valid: " +
                                      kernels::prefetch_distance_list() + ")");
      }
      t.distances.push_back(value);
    }
  }
  if (s.repeat < 1 || s.repeat > 1000) {
    throw config::ConfigError("", {}, "--repeat", "must be in 1..1000");
  }
  return t;
}

/// `pfmc bench` measures every configuration and the `ideal` (free draws) it reports them
/// against; `pfmc tune` never measures the ideal.
engine::TuneOptions bench_options_from(const SweepOptions& s) {
  engine::TuneOptions t = tune_options_from(s, engine::TuneMode::exhaustive);
  t.ideal = true;
  return t;
}

/// Sweeps every simulation group of the config on the GPU.
std::vector<apps::GroupSweep> sweep_groups(const config::RunConfig& config,
                                           const engine::SimulationPlan& plan,
                                           const engine::TuneOptions& options, bool quiet) {
  const engine::DeviceInfo device = engine::query_device();
  if (!device.available) {
    throw pfmc::RuntimeError("benchmarking and tuning need a GPU (" + device.unavailable_reason +
                             ")");
  }
  // The run's settings as `price` makes them (one home: engine::make_settings); the sweep
  // measures every backend, so the config's own engine.backend is not checked here.
  config::RunConfig swept = config;
  swept.engine.backend = "auto";
  const engine::ExecutionSettings settings =
      engine::make_settings(swept, engine::RunDevice{device, true});
  const bool show = !quiet && ::isatty(STDERR_FILENO) != 0;
  std::vector<apps::GroupSweep> sweeps;
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    if (plan.groups[g].exercise.present()) {
      if (!quiet) {
        std::fprintf(stderr,
                     "group %zu/%zu (%s): early exercise, not swept (its own kernel, "
                     "inline draws)\n",
                     g + 1, plan.groups.size(), plan.groups[g].model_name.c_str());
      }
      continue;
    }
    engine::TuneOptions t = options;
    if (show) {
      t.progress = [&](const engine::BackendChoice& c, int done, int total) {
        const std::string count = total > 0
                                      ? " " + std::to_string(done + 1) + "/" + std::to_string(total)
                                      : " (screening)";
        std::fprintf(stderr, "\r\033[Kgroup %zu/%zu (%s): %s%s", g + 1, plan.groups.size(),
                     plan.groups[g].model_name.c_str(), apps::choice_label(c).c_str(),
                     count.c_str());
        std::fflush(stderr);
      };
    }
    sweeps.push_back({&plan.groups[g], engine::tune_group(plan.groups[g], settings, t)});
  }
  if (show)
    std::fprintf(stderr, "\r\033[K");
  if (sweeps.empty()) {
    throw pfmc::RuntimeError("nothing to sweep: every group of the config exercises early, and "
                             "early exercise runs its own kernel");
  }
  return sweeps;
}

} // namespace

std::string bench_csv(const config::RunConfig& config, const SweepOptions& s, bool quiet) {
  const engine::SimulationPlan plan = engine::make_plan(config);
  const auto sweeps = sweep_groups(config, plan, bench_options_from(s), quiet);
  engine::throw_if_stopped();
  engine::TuningCache cache(engine::tuning_cache_path(""));
  return apps::sweep_csv(sweeps, engine::device_copy_bandwidth(engine::query_device(), &cache));
}

int command_tune(CLI::App* app, const RunOptions& o, const SweepOptions& s) {
  config::RunConfig config = config::load_run_config(o.config_file);
  config::apply_overrides(config, overrides_from(app, o));
  const engine::SimulationPlan plan = engine::make_plan(config);
  const auto options =
      tune_options_from(s, s.exhaustive ? engine::TuneMode::exhaustive : engine::TuneMode::quick);
  for (const auto& b : options.backends) {
    if (kernels::find_backend(b)->bench_only) {
      throw config::ConfigError("", {}, "--backends",
                                "'" + b + "' is measured by `pfmc bench` only, never chosen");
    }
  }
  const auto sweeps = sweep_groups(config, plan, options, o.quiet);
  engine::throw_if_stopped(); // an interrupted tuning leaves the cache as it was
  engine::TuningCache cache(engine::tuning_cache_path(o.tuning_cache));
  if (!cache.recovered().empty())
    std::cerr << "note: " << cache.recovered() << '\n';
  const engine::DeviceInfo device = engine::query_device();
  const double copy_gbps = engine::device_copy_bandwidth(device, &cache);
  for (const auto& sweep : sweeps) {
    cache.store(sweep.result);
    const auto& best = sweep.result.best;
    std::printf("model '%s': %s, generation + kernel %.4f ms (none %.4f ms, %.2fx; kernel "
                "%.4f ms); %zu configurations on %llu of %llu paths in %.1f s\n",
                sweep.group->model_name.c_str(), apps::choice_label(best.choice).c_str(),
                best.total_ms(), sweep.result.baseline.total_ms(),
                sweep.result.baseline.total_ms() / best.total_ms(), best.median_ms,
                sweep.result.all.size(), static_cast<unsigned long long>(sweep.result.sample_paths),
                static_cast<unsigned long long>(sweep.result.paths), sweep.result.seconds);
  }
  (void)copy_gbps;
  cache.save();
  std::printf("tuning cache: %s\n", cache.path().c_str());
  return 0;
}

int command_bench(CLI::App* app, const RunOptions& o, const SweepOptions& s) {
  config::RunConfig config = config::load_run_config(o.config_file);
  config::apply_overrides(config, overrides_from(app, o));
  const engine::SimulationPlan plan = engine::make_plan(config);
  const auto sweeps = sweep_groups(config, plan, bench_options_from(s), o.quiet);
  engine::throw_if_stopped();
  engine::TuningCache cache(engine::tuning_cache_path(o.tuning_cache));
  if (!cache.recovered().empty())
    std::cerr << "note: " << cache.recovered() << '\n';
  const engine::DeviceInfo device = engine::query_device();
  const double copy_gbps = engine::device_copy_bandwidth(device, &cache);
  std::printf("%s: %s, measured copy bandwidth %.0f GB/s (read + write)\n\n", config.file.c_str(),
              device.name.c_str(), copy_gbps);
  for (const auto& sweep : sweeps)
    std::printf("%s\n", apps::sweep_table(sweep, copy_gbps).c_str());
  const std::string csv = apps::sweep_csv(sweeps, copy_gbps);
  if (!s.csv.empty())
    base::write_file_atomically(s.csv, csv);
  if (s.plot.empty())
    return 0;
  // The table and the CSV are out; a plot that cannot be drawn is a failure of the run (exit 1)
  // so that a script asking for it notices, with one line that says how to get it drawn.
  const auto python = apps::find_plot_python();
  if (!python) {
    std::fflush(stdout);
    std::cerr << "pfmc: no plot written to " << s.plot << ": no Python with matplotlib (tried "
              << apps::kPlotPythons << "): " << apps::kPlotInstallHint << '\n';
    return kExitRuntime;
  }
  apps::draw_sweep_plot(*python, s.plot, s.csv, csv);
  return 0;
}

} // namespace pfmc::apps
