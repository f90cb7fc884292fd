// pfmc: price option portfolios by Monte Carlo on the GPU (or the CPU reference backend).
// This file only parses arguments, calls the engine and prints; exit status 0 on success,
// 2 for bad usage or config, 1 for runtime failures.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "apps/report.hpp"
#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "config/overrides.hpp"
#include "engine/backend_catalog.hpp"
#include "engine/device_info.hpp"
#include "engine/error.hpp"
#include "engine/plan.hpp"
#include "engine/pricer.hpp"

#ifndef PFMC_VERSION
#define PFMC_VERSION "0.0.0"
#endif

namespace {

using namespace pfmc;

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

const std::string kVersion = std::string("pfmc ") + PFMC_VERSION;

/// Writes `text` to `path` through a temporary file and a rename, so a failed run never leaves a
/// half-written file behind.
void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out)
      throw RuntimeError("cannot write " + path + ": cannot create " + temporary);
    out << text;
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      throw RuntimeError("cannot write " + path);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw RuntimeError("cannot write " + path + ": rename failed");
  }
}

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
  std::string device, backend, padding, precision, rng, paths, seed, max_device_memory;
  long long prefetch_distance = 0, block_size = 0, cpu_threads = 0;
  std::string format = "table";
  std::string output;
  bool quiet = false;
};

/// Options that override the YAML, shared by the subcommands that run a config.
void add_override_options(CLI::App* app, RunOptions& o) {
  app->add_option("--device", o.device, "auto | gpu | cpu (overrides engine.device)");
  app->add_option("--backend", o.backend, "prefetch backend (see `pfmc backends`)");
  app->add_option("--prefetch-distance", o.prefetch_distance,
                  "steps ahead for prefetching backends: " + engine::prefetch_distance_list());
  app->add_option("--padding", o.padding,
                  "shared-memory ring padding: auto | none | slot_major | N");
  app->add_option("--paths", o.paths, "number of Monte Carlo paths");
  app->add_option("--seed", o.seed, "random seed");
  app->add_option("--precision", o.precision, "double | float");
  app->add_option("--rng", o.rng, "philox | mrg32k3a | sobol | scrambled_sobol");
  app->add_option("--block-size", o.block_size, "threads per block (multiple of 32, 32..1024)");
  app->add_option("--max-device-memory", o.max_device_memory,
                  "cap on device memory for draws and partial sums, e.g. 4GiB");
  app->add_option("--cpu-threads", o.cpu_threads, "CPU backend threads (0 = all)");
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
  if (given("--max-device-memory"))
    ov.max_device_memory = o.max_device_memory;
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
  config::RunConfig config = config::load_run_config(o.config_file);
  config::apply_overrides(config, overrides_from(app, o));
  ProgressLine progress(!o.quiet);
  const engine::RunResult result = engine::price(config, progress.callback());
  progress.clear();
  const std::string text = apps::render(result, parse_format(o.format), o.config_file);
  if (o.output.empty()) {
    std::cout << text;
  } else {
    write_file_atomically(o.output, text);
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
  auto runnable = [&](const engine::BackendInfo& b) -> std::string {
    if (!device.available)
      return "no GPU (" + device.unavailable_reason + ")";
    const std::string why =
        engine::why_backend_cannot_run(b, device.compute_capability, device.name);
    return why.empty() ? "yes" : "no: " + why;
  };

  if (format == "json") {
    nlohmann::json j;
    j["device"] = device.available ? nlohmann::json(device.name) : nlohmann::json(nullptr);
    j["prefetch_distances"] = engine::prefetch_distances();
    for (const auto& b : engine::backend_catalog()) {
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
            << "\nprefetch distances: " << engine::prefetch_distance_list() << "\n\n";
  for (const auto& b : engine::backend_catalog()) {
    std::printf("%-20s %s\n%-20s requires %s; %s%s; runs here: %s\n", b.name, b.description, "",
                b.min_compute_capability > 0
                    ? ("sm_" + std::to_string(b.min_compute_capability)).c_str()
                    : "any CUDA GPU",
                b.uses_prefetch_distance ? "takes a prefetch distance" : "no prefetch distance",
                b.uses_padding ? ", takes a padding" : "", runnable(b).c_str());
  }
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
