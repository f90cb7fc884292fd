// pfmc: price option portfolios by Monte Carlo on the GPU (or the CPU reference backend).
// This file only parses arguments, calls the engine and prints; exit status 0 on success,
// 2 for bad usage or config, 1 for runtime failures, 128 + the signal when SIGINT or SIGTERM
// stopped the run.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "apps/cli.hpp"
#include "apps/report.hpp"
#include "apps/sweep_plot.hpp"
#include "apps/sweep_report.hpp"
#include "base/atomic_file.hpp"
#include "base/error.hpp"
#include "base/trace.hpp"
#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "config/overrides.hpp"
#include "config/setting_rules.hpp"
#include "engine/core/device_info.hpp"
#include "engine/core/interrupt.hpp"
#include "engine/device_start.hpp"
#include "engine/plan/plan.hpp"
#include "engine/pricer.hpp"
#include "engine/scale/communicator.hpp"
#include "engine/scale/device_threads.hpp"
#include "engine/scale/mpi_communicator.hpp"
#include "engine/tune/tuning.hpp"
#include "kernels/catalog.hpp"

#ifndef PFMC_VERSION
#define PFMC_VERSION "0.0.0"
#endif

namespace {

using namespace pfmc;
using namespace pfmc::apps;

const std::string kVersion = std::string("pfmc ") + PFMC_VERSION;
const char* const kConfigHelp = "YAML run description (- reads it from standard input)";
/// `pfmc price --help`'s footer: the environment a run reads.
const char* const kPriceEnvironment =
    "Environment: PFMC_TRACE=FILE writes where the run's time went, every thread's phases in "
    "Chrome's trace format (%p: the process id); CUDA starts only the GPUs the run uses "
    "(CUDA_VISIBLE_DEVICES narrowed; PFMC_NARROW_DEVICES=0 keeps every one); PFMC_KERNEL_CACHE: "
    "where kernels compiled on first use are kept (PFMC_KERNEL_LINEINFO=1 compiles them with line "
    "tables, for a profiler; PFMC_KERNEL_SOURCES=DIR compiles them from DIR's kernels/ and "
    "models/ instead of the binary's copies). The engine's kernel switches (the same bits "
    "whichever; the config's engine keys, each overridden by its variable): "
    "PFMC_TERMINAL_KERNELS=0|1 (engine.terminal_kernels: books of one-step Europeans in the "
    "kernel's terminal instantiation), PFMC_TERMINAL_BLOCKS_PER_CTA=auto|N "
    "(engine.terminal_blocks_per_cta: blocks of paths each thread block of a terminal kernel "
    "works through), PFMC_COMPILE_AT_RUNTIME=0|1 (engine.compile_at_runtime: every kernel "
    "compiled on first use, those built in too), PFMC_UNIT_GROUPS=N (engine.unit_groups: at most "
    "N groups of an inline run in one launch, the host staging the next while the GPU runs one; "
    "default 2048, 0: all in one).";

apps::Format parse_format(const std::string& name) {
  if (name == "json")
    return apps::Format::json;
  if (name == "csv")
    return apps::Format::csv;
  return apps::Format::table;
}

int price_config(CLI::App* app, const RunOptions& o, engine::Communicator* processes);

/// `pfmc price`. Under an MPI launcher (a build with PFMC_MPI) the ranks split the run: rank 0
/// prints and writes alone; a rank that fails still takes part in the one exchange (its error
/// goes to rank 0, which names it in one line and exits 1) and then exits 0 quietly: a non-zero
/// exit there would make the launcher kill rank 0 before it reports.
int command_price(CLI::App* app, const RunOptions& o) {
  const std::unique_ptr<engine::Communicator> processes = engine::mpi_communicator();
  if (processes == nullptr)
    return price_config(app, o, nullptr);
  try {
    return price_config(app, o, processes.get());
  } catch (const std::exception& e) {
    const bool usage = dynamic_cast<const config::ConfigError*>(&e) != nullptr;
    if (!processes->exchanged())
      (void)processes->gather(std::string(1, engine::kMessageError) + e.what());
    if (processes->rank() != 0)
      return 0; // rank 0 says what went wrong, and fails the job
    if (usage || dynamic_cast<const engine::Interrupted*>(&e) != nullptr)
      throw;
    const std::string what = e.what();
    // A failure on rank 0 itself, before or after the exchange, is named like any other rank's.
    throw RuntimeError(what.rfind("rank ", 0) == 0 ? what : "rank 0: " + what);
  }
}

int price_config(CLI::App* app, const RunOptions& o, engine::Communicator* processes) {
  const bool root = processes == nullptr || processes->rank() == 0;
  // The devices start while the YAML is read (engine/device_start.hpp), none for a run on the
  // CPU: this process makes one run, so CUDA is narrowed to the run's GPUs first.
  engine::DeviceStartOptions start;
  start.on_cpu = o.value("device").empty() ? config::peek_engine_on_cpu(o.config_file)
                                           : o.value("device") == "cpu";
  start.narrow = true;
  start.devices = o.value("devices");
  start.config_file = o.config_file;
  start.processes = processes;
  engine::DeviceStart devices(start);
  config::RunConfig config;
  const auto load_start = std::chrono::steady_clock::now();
  try {
    const base::TraceSpan span("config");
    config = config::load_run_config(o.config_file);
    config::apply_overrides(config, overrides_from(app, o));
  } catch (...) {
    devices.join();
    throw;
  }
  const double config_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
          .count();
  const double device_ms = devices.finish(config);
  ProgressLine progress(!o.quiet && root);
  engine::PriceOptions options;
  options.tuning_cache = o.tuning_cache;
  options.processes = processes;
  engine::ProgressFn callback = progress.callback();
  if (!root && !o.quiet) // an MPI rank's progress goes to rank 0's line (engine/scale/split_run)
    callback = [](const engine::Progress&) {};
  engine::RunResult result = engine::price(config, callback, options);
  if (!root)
    return 0; // rank 0 reports the job's results
  result.run.config_ms = config_ms;
  result.run.device_ms += device_ms;
  progress.clear();
  engine::throw_if_stopped(); // asked to stop after the last launch: still nothing is written
  const std::string text = apps::render(result, parse_format(o.format), config.file);
  // Standard output goes through the same writer as a file, so that a failed write (a full
  // disk behind `>`) is an error rather than a silent exit status 0.
  const bool to_standard_output = o.output.empty() || o.output == "-";
  base::write_file_atomically(to_standard_output ? "-" : o.output, text);
  if (!to_standard_output) {
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
  std::cout << config.file << ": ok: " << config.market.underlyings.size() << " underlyings, "
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
    std::cout << apps::backends_json(device).dump(2) << '\n';
    return 0;
  }
  std::cout << "device: "
            << (device.available
                    ? device.name + " (sm_" + std::to_string(device.compute_capability) + ", " +
                          std::to_string(device.multiprocessors) + " SMs)"
                    : "none (" + device.unavailable_reason + ")")
            << "\nprefetch distances: " << kernels::prefetch_distance_list() << "\n\n";
  for (const auto& b : kernels::backend_catalog()) {
    std::printf("%-20s %s\n%-20s requires %s; %s%s%s; runs here: %s\n", b.name, b.description, "",
                b.min_compute_capability > 0
                    ? ("sm_" + std::to_string(b.min_compute_capability)).c_str()
                    : "any CUDA GPU",
                b.uses_prefetch_distance ? "takes a prefetch distance" : "no prefetch distance",
                b.uses_padding ? ", takes a padding" : "",
                b.bench_only ? "; `pfmc bench` only" : "", runnable(b).c_str());
  }
  return 0;
}

int run(int argc, char** argv) {
  CLI::App app{"pfmc: GPU Monte Carlo pricing of option portfolios described in YAML", "pfmc"};
  app.footer("Exit status: 0 success, 1 runtime failure, 2 bad usage or config, 130 / 143 "
             "stopped by SIGINT (Ctrl-C) / SIGTERM (nothing written).");
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  app.fallthrough(false);

  RunOptions price_options;
  auto* price = app.add_subcommand("price", "price every instrument of a config");
  price->set_version_flag("--version", kVersion);
  price->footer(kPriceEnvironment);
  price->add_option("config", price_options.config_file, kConfigHelp)->required();
  add_override_options(price, price_options);
  price->add_option("--format", price_options.format, "table | json | csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  price->add_option("--output", price_options.output,
                    "write the results to FILE (- or none: stdout); a link is followed, a device "
                    "or FIFO written to directly, a file replaced whole");
  price->add_flag("--quiet", price_options.quiet, "no progress line on stderr");
  price->add_option("--tuning-cache", price_options.tuning_cache,
                    "tuning cache for backend auto (default: $PFMC_TUNING_CACHE, else "
                    "~/.cache/pfmc/tuning.json)");

  auto add_sweep_options = [](CLI::App* sub, RunOptions& o, SweepOptions& s) {
    sub->add_option("config", o.config_file, kConfigHelp)->required();
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
      "bench", "time the path kernel of every simulation group for every backend and distance, "
               "each against the bench-only `ideal` (the same loop with free draws)");
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
  validate->add_option("config", validate_options.config_file, kConfigHelp)->required();
  add_override_options(validate, validate_options);

  std::string backends_format = "table";
  auto* backends =
      app.add_subcommand("backends", "list the prefetch backends and whether this GPU runs them");
  backends->set_version_flag("--version", kVersion);
  backends->add_option("--format", backends_format, "table | json")
      ->check(CLI::IsMember({"table", "json"}));

  RiskOptions risk_options;
  auto* risk = add_risk_command(app, risk_options, kConfigHelp, kVersion.c_str());
  CalibrateOptions calibrate_options;
  auto* calibrate = add_calibrate_command(app, calibrate_options, kConfigHelp, kVersion.c_str());
  KernelsOptions kernels_options;
  auto* kernels_command = add_kernels_command(app, kernels_options, kVersion.c_str());
  SchemaOptions schema_options;
  auto* schema = add_schema_command(app, schema_options, kVersion.c_str());

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
  if (kernels_command->parsed())
    return command_kernels(kernels_options);
  if (risk->parsed())
    return command_risk(risk, risk_options);
  if (calibrate->parsed())
    return command_calibrate(calibrate_options);
  if (schema->parsed())
    return command_schema(schema_options);
  return kExitUsage;
}

/// SIGINT and SIGTERM ask the run to stop (engine/core/interrupt.hpp); a second one ends the
/// process at once (the handler resets itself to the default action).
extern "C" void on_stop_signal(int signal) {
  engine::request_stop(signal);
}

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

/// glibc's malloc, for a process that reads a book, plans it and exits: memory freed stays in
/// the heap for the next allocation (a 100,000-instrument CSV book's table, freed after its
/// rows are read, holds the plan's arrays) instead of going back to the system and faulting
/// in again, and blocks up to 256 MiB come from the heap rather than each from its own
/// mapping. Measured: `pfmc validate` of that book 0.409 -> 0.380 s
/// (docs/decisions.md#malloc-settings). Larger blocks (a GPU run's host buffers) are still mapped
/// apart and returned when freed.
void tune_malloc() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

} // namespace

int main(int argc, char** argv) {
  tune_malloc();
  install_stop_handlers();
  try {
    int status = 0;
    {
      const base::TraceSpan span("main");
      status = run(argc, argv);
    }
    return status;
  } catch (const engine::Interrupted& e) {
    std::cerr << "pfmc: " << e.what() << '\n';
    return 128 + e.signal();
  } catch (const config::ConfigError& e) {
    std::cerr << e.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "pfmc: error: " << e.what() << '\n';
    return kExitRuntime;
  }
}
