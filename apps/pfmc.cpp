// pfmc: price option portfolios by Monte Carlo on the GPU (or the CPU reference backend).
// This file only parses arguments, calls the engine and prints; exit status 0 on success,
// 2 for bad usage or config, 1 for runtime failures.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>

#include "apps/report.hpp"
#include "apps/sweep_plot.hpp"
#include "apps/sweep_report.hpp"
#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "config/overrides.hpp"
#include "engine/core/atomic_file.hpp"
#include "engine/core/device_info.hpp"
#include "engine/plan/plan.hpp"
#include "engine/pricer.hpp"
#include "engine/tune/tuning.hpp"
#include "kernels/catalog.hpp"
#include "kernels/error.hpp"

#ifndef PFMC_VERSION
#define PFMC_VERSION "0.0.0"
#endif

namespace {

using namespace pfmc;

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

const std::string kVersion = std::string("pfmc ") + PFMC_VERSION;

/// One updating line on stderr while a long run goes on (only when stderr is a terminal).
class ProgressLine {
public:
  explicit ProgressLine(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO) != 0) {}
  ~ProgressLine() { clear(); }
  engine::ProgressFn callback() {
    if (!enabled_)
      return {};
    return [this](const engine::Progress& p) {
      std::fprintf(stderr, "\r\033[Kpricing: group %d/%d (%s), chunk %llu/%llu", p.group + 1,
                   p.groups, p.model.c_str(), static_cast<unsigned long long>(p.chunk),
                   static_cast<unsigned long long>(p.chunks));
      std::fflush(stderr);
      shown_ = true;
    };
  }
  void clear() {
    if (shown_)
      std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }

private:
  bool enabled_;
  bool shown_ = false;
};

struct RunOptions {
  std::string config_file;
  std::string tuning_cache;
  std::string device, backend, padding, precision, rng, paths, seed, max_device_memory,
      draw_batch_size;
  long long prefetch_distance = 0, block_size = 0, cpu_threads = 0;
  std::string format = "table";
  std::string output;
  bool quiet = false;
  std::string replicates, greeks;
  bool antithetic = false, control_variate = false;
};

/// Options that override the YAML, shared by the subcommands that run a config.
void add_override_options(CLI::App* app, RunOptions& o) {
  app->add_option("--device", o.device, "auto | gpu | cpu (overrides engine.device)");
  app->add_option("--backend", o.backend, "prefetch backend (see `pfmc backends`)");
  app->add_option("--prefetch-distance", o.prefetch_distance,
                  "steps ahead for prefetching backends: " + kernels::prefetch_distance_list());
  app->add_option("--padding", o.padding,
                  "shared-memory ring padding: auto | none | slot_major | N");
  app->add_option("--paths", o.paths, "number of Monte Carlo paths");
  app->add_option("--seed", o.seed, "random seed");
  app->add_option("--precision", o.precision, "double | float");
  app->add_option("--rng", o.rng, "philox | mrg32k3a | sobol | scrambled_sobol");
  app->add_option("--block-size", o.block_size, "threads per block: a power of two in 32..1024");
  app->add_option("--max-device-memory", o.max_device_memory,
                  "cap on device memory for draws and partial sums, e.g. 4GiB");
  app->add_option("--cpu-threads", o.cpu_threads, "CPU backend threads (0 = all)");
  app->add_option("--draw-batch-size", o.draw_batch_size,
                  "groups whose draws fit share a generation call and a launch up to this size "
                  "(e.g. 256MiB; 0: none)");
  app->add_option("--greeks", o.greeks,
                  "Greeks to report: comma-separated delta,gamma,vega,rho,theta, or none "
                  "(overrides simulation.greeks)");
  app->add_flag("--antithetic", o.antithetic, "antithetic pairs (z, -z); paths must be even");
  app->add_flag("--control-variate", o.control_variate,
                "control variates: geometric Asian for arithmetic Asians, discounted terminal "
                "spot for Europeans");
  app->add_option("--replicates", o.replicates,
                  "randomisations of a scrambled_sobol run, 1..1024 (paths must split evenly)");
}

config::Overrides overrides_from(CLI::App* app, const RunOptions& o) {
  config::Overrides ov;
  auto given = [&](const char* flag) { return app->get_option(flag)->count() > 0; };
  if (given("--device"))
    ov.device = o.device;
  if (given("--backend"))
    ov.backend = o.backend;
  if (given("--padding"))
    ov.padding = o.padding;
  if (given("--precision"))
    ov.precision = o.precision;
  if (given("--rng"))
    ov.rng = o.rng;
  if (given("--prefetch-distance"))
    ov.prefetch_distance = o.prefetch_distance;
  if (given("--block-size"))
    ov.block_size = o.block_size;
  if (given("--cpu-threads"))
    ov.cpu_threads = o.cpu_threads;
  if (given("--paths"))
    ov.paths = o.paths;
  if (given("--seed"))
    ov.seed = o.seed;
  if (given("--draw-batch-size"))
    ov.draw_batch_size = o.draw_batch_size;
  if (given("--max-device-memory"))
    ov.max_device_memory = o.max_device_memory;
  if (given("--replicates"))
    ov.replicates = o.replicates;
  if (given("--greeks"))
    ov.greeks = o.greeks;
  if (given("--antithetic"))
    ov.antithetic = true;
  if (given("--control-variate"))
    ov.control_variate = true;
  return ov;
}

apps::Format parse_format(const std::string& name) {
  if (name == "json")
    return apps::Format::json;
  if (name == "csv")
    return apps::Format::csv;
  return apps::Format::table;
}

int command_price(CLI::App* app, const RunOptions& o) {
  // The process's first CUDA call creates its context (on an H100, about a tenth of a second):
  // start it while the YAML is read, unless the run is on the CPU by the command line.
  std::thread device_start;
  double device_ms = 0.0; // the context's creation, in parallel with the YAML
  if (o.device != "cpu") {
    device_start = std::thread([&device_ms] {
      const auto start = std::chrono::steady_clock::now();
      (void)engine::query_device();
      device_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
    });
  }
  const auto join = [&] {
    if (device_start.joinable())
      device_start.join();
  };
  config::RunConfig config;
  const auto load_start = std::chrono::steady_clock::now();
  try {
    config = config::load_run_config(o.config_file);
    config::apply_overrides(config, overrides_from(app, o));
  } catch (...) {
    join();
    throw;
  }
  const double config_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
          .count();
  join();
  ProgressLine progress(!o.quiet);
  engine::PriceOptions options;
  options.tuning_cache = o.tuning_cache;
  engine::RunResult result = engine::price(config, progress.callback(), options);
  result.run.config_ms = config_ms;
  result.run.device_ms += device_ms;
  progress.clear();
  const std::string text = apps::render(result, parse_format(o.format), o.config_file);
  if (o.output.empty()) {
    std::cout << text;
  } else {
    engine::write_file_atomically(o.output, text);
    for (const auto& notice : result.run.notices)
      std::cerr << "note: " << notice << '\n';
  }
  return 0;
}

int command_validate(CLI::App* app, const RunOptions& o) {
  config::RunConfig config = config::load_run_config(o.config_file);
  config::apply_overrides(config, overrides_from(app, o));
  const engine::SimulationPlan plan = engine::make_plan(config);
  int max_steps = 0;
  for (const auto& g : plan.groups)
    max_steps = std::max(max_steps, g.steps());
  std::cout << o.config_file << ": ok: " << config.market.underlyings.size() << " underlyings, "
            << config.models.size() << " models, " << config.instruments.size() << " instruments, "
            << config.portfolio.size() << " positions; " << plan.groups.size()
            << " simulation group" << (plan.groups.size() == 1 ? "" : "s") << ", up to "
            << max_steps << " steps, " << apps::group_thousands(config.simulation.paths)
            << " paths\n";
  return 0;
}

int command_backends(const std::string& format) {
  const engine::DeviceInfo device = engine::query_device();
  auto runnable = [&](const kernels::BackendInfo& b) -> std::string {
    if (!device.available)
      return "no GPU (" + device.unavailable_reason + ")";
    const std::string why =
        kernels::why_backend_cannot_run(b, device.compute_capability, device.name);
    return why.empty() ? "yes" : "no: " + why;
  };

  if (format == "json") {
    nlohmann::json j;
    j["device"] = device.available ? nlohmann::json(device.name) : nlohmann::json(nullptr);
    j["prefetch_distances"] = kernels::prefetch_distances();
    for (const auto& b : kernels::backend_catalog()) {
      j["backends"].push_back({{"name", b.name},
                               {"description", b.description},
                               {"requires", b.min_compute_capability > 0
                                                ? "sm_" + std::to_string(b.min_compute_capability)
                                                : std::string("any CUDA GPU")},
                               {"uses_prefetch_distance", b.uses_prefetch_distance},
                               {"uses_padding", b.uses_padding},
                               {"runs_here", runnable(b) == "yes"}});
    }
    std::cout << j.dump(2) << '\n';
    return 0;
  }
  std::cout << "device: "
            << (device.available
                    ? device.name + " (sm_" + std::to_string(device.compute_capability) + ", " +
                          std::to_string(device.multiprocessors) + " SMs)"
                    : "none (" + device.unavailable_reason + ")")
            << "\nprefetch distances: " << kernels::prefetch_distance_list() << "\n\n";
  for (const auto& b : kernels::backend_catalog()) {
    std::printf("%-20s %s\n%-20s requires %s; %s%s; runs here: %s\n", b.name, b.description, "",
                b.min_compute_capability > 0
                    ? ("sm_" + std::to_string(b.min_compute_capability)).c_str()
                    : "any CUDA GPU",
                b.uses_prefetch_distance ? "takes a prefetch distance" : "no prefetch distance",
                b.uses_padding ? ", takes a padding" : "", runnable(b).c_str());
  }
  return 0;
}

/// What `bench` and `tune` share: a GPU, the run's settings, and the sweep of every group.
struct SweepOptions {
  std::string backends = "all";
  std::string distances = "all";
  int repeat = 5;
  bool exhaustive = false;
  std::string csv, plot;
};

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

/// Sweeps every simulation group of the config on the GPU.
std::vector<apps::GroupSweep> sweep_groups(const config::RunConfig& config,
                                           const engine::SimulationPlan& plan,
                                           const engine::TuneOptions& options, bool quiet) {
  const engine::DeviceInfo device = engine::query_device();
  if (!device.available) {
    throw RuntimeError("benchmarking and tuning need a GPU (" + device.unavailable_reason + ")");
  }
  engine::ExecutionSettings settings;
  settings.precision = config.simulation.precision;
  settings.rng = config.simulation.rng;
  settings.seed = config.simulation.seed;
  settings.paths = config.simulation.paths;
  settings.block_size = config.engine.block_size;
  settings.antithetic = config.simulation.antithetic;
  settings.brownian_bridge = config.simulation.uses_brownian_bridge();
  settings.memory_cap = config.engine.max_device_memory > 0
                            ? config.engine.max_device_memory
                            : static_cast<std::uint64_t>(engine::kDefaultMemoryFraction *
                                                         static_cast<double>(device.free_memory));
  const bool show = !quiet && ::isatty(STDERR_FILENO) != 0;
  std::vector<apps::GroupSweep> sweeps;
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
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
  return sweeps;
}

int command_tune(CLI::App* app, const RunOptions& o, const SweepOptions& s) {
  config::RunConfig config = config::load_run_config(o.config_file);
  config::apply_overrides(config, overrides_from(app, o));
  const engine::SimulationPlan plan = engine::make_plan(config);
  const auto options =
      tune_options_from(s, s.exhaustive ? engine::TuneMode::exhaustive : engine::TuneMode::quick);
  const auto sweeps = sweep_groups(config, plan, options, o.quiet);
  engine::TuningCache cache(engine::tuning_cache_path(o.tuning_cache));
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
  const auto sweeps =
      sweep_groups(config, plan, tune_options_from(s, engine::TuneMode::exhaustive), o.quiet);
  engine::TuningCache cache(engine::tuning_cache_path(o.tuning_cache));
  const engine::DeviceInfo device = engine::query_device();
  const double copy_gbps = engine::device_copy_bandwidth(device, &cache);
  std::printf("%s: %s, measured copy bandwidth %.0f GB/s (read + write)\n\n", o.config_file.c_str(),
              device.name.c_str(), copy_gbps);
  for (const auto& sweep : sweeps)
    std::printf("%s\n", apps::sweep_table(sweep, copy_gbps).c_str());
  const std::string csv = apps::sweep_csv(sweeps, copy_gbps);
  if (!s.csv.empty())
    engine::write_file_atomically(s.csv, csv);
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

int run(int argc, char** argv) {
  CLI::App app{"pfmc: GPU Monte Carlo pricing of option portfolios described in YAML", "pfmc"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  RunOptions price_options;
  auto* price = app.add_subcommand("price", "price every instrument of a config");
  price->set_version_flag("--version", kVersion);
  price->add_option("config", price_options.config_file, "YAML run description")->required();
  add_override_options(price, price_options);
  price->add_option("--format", price_options.format, "table | json | csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  price->add_option("--output", price_options.output, "write the results to FILE (else stdout)");
  price->add_flag("--quiet", price_options.quiet, "no progress line on stderr");
  price->add_option("--tuning-cache", price_options.tuning_cache,
                    "tuning cache for backend auto (default: $PFMC_TUNING_CACHE, else "
                    "~/.cache/pfmc/tuning.json)");

  auto add_sweep_options = [](CLI::App* sub, RunOptions& o, SweepOptions& s) {
    sub->add_option("config", o.config_file, "YAML run description")->required();
    add_override_options(sub, o);
    sub->add_option("--backends", s.backends, "backends to measure, comma-separated, or all");
    sub->add_option("--distances", s.distances,
                    "prefetch distances, comma-separated, or all (" +
                        kernels::prefetch_distance_list() + ")");
    sub->add_option("--repeat", s.repeat, "timed launches per configuration (median reported)");
    sub->add_option("--tuning-cache", o.tuning_cache, "tuning cache file");
    sub->add_flag("--quiet", o.quiet, "no progress line on stderr");
  };

  RunOptions bench_options;
  SweepOptions bench_sweep;
  auto* bench = app.add_subcommand(
      "bench", "time the path kernel of every simulation group for every backend and distance");
  bench->set_version_flag("--version", kVersion);
  add_sweep_options(bench, bench_options, bench_sweep);
  bench->add_option("--csv", bench_sweep.csv, "write every measurement to FILE as CSV");
  bench->add_option("--plot", bench_sweep.plot,
                    "write a PNG of speedup over none against prefetch distance, drawn by "
                    "bench/plot_sweep.py with matplotlib (without it: the table and CSV, a line "
                    "saying how to get it, exit status 1)");

  RunOptions tune_run_options;
  SweepOptions tune_sweep;
  auto* tune = app.add_subcommand(
      "tune", "find and cache the fastest backend, distance and padding of every group");
  tune->set_version_flag("--version", kVersion);
  add_sweep_options(tune, tune_run_options, tune_sweep);
  tune->add_flag("--exhaustive", tune_sweep.exhaustive,
                 "time every configuration (default: screen, then time the best three backends)");

  RunOptions validate_options;
  auto* validate = app.add_subcommand("validate", "check a config and its plan without pricing");
  validate->set_version_flag("--version", kVersion);
  validate->add_option("config", validate_options.config_file, "YAML run description")->required();
  add_override_options(validate, validate_options);

  std::string backends_format = "table";
  auto* backends =
      app.add_subcommand("backends", "list the prefetch backends and whether this GPU runs them");
  backends->set_version_flag("--version", kVersion);
  backends->add_option("--format", backends_format, "table | json")
      ->check(CLI::IsMember({"table", "json"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  if (price->parsed())
    return command_price(price, price_options);
  if (validate->parsed())
    return command_validate(validate, validate_options);
  if (backends->parsed())
    return command_backends(backends_format);
  if (bench->parsed())
    return command_bench(bench, bench_options, bench_sweep);
  if (tune->parsed())
    return command_tune(tune, tune_run_options, tune_sweep);
  return kExitUsage;
}

} // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const config::ConfigError& e) {
    std::cerr << e.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "pfmc: error: " << e.what() << '\n';
    return kExitRuntime;
  }
}
