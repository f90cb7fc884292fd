#pragma once
// What the `pfmc` program's subcommands share: the exit statuses, the progress line, the options
// that override a config, and the commands that sweep backends (`bench`, `tune`;
// apps/sweep_commands.cpp). apps/pfmc.cpp declares the command line and runs the others.

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "config/overrides.hpp"
#include "config/run_config.hpp"
#include "engine/pricer.hpp"
#include "engine/risk/risk_run.hpp"

namespace pfmc::apps {

constexpr int kExitRuntime = 1; ///< the run failed (CUDA, memory, files)
constexpr int kExitUsage = 2;   ///< bad usage or config

/// One updating line on stderr while a long run goes on (only when stderr is a terminal).
class ProgressLine {
public:
  explicit ProgressLine(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO) != 0) {}
  ~ProgressLine() { clear(); }
  engine::ProgressFn callback() {
    if (!enabled_)
      return {};
    return [this](const engine::Progress& p) {
      const double percent =
          p.paths > 0 ? 100.0 * static_cast<double>(p.paths_done) / static_cast<double>(p.paths)
                      : 0.0;
      if (p.workers > 1) { // a split run: every worker's paths, summed
        std::fprintf(stderr, "\r\033[Kpricing: %.0f%% of the paths on %d workers", percent,
                     p.workers);
      } else {
        std::fprintf(
            stderr, "\r\033[Kpricing: %.0f%% of the paths: group %d/%d (%s), unit %llu/%llu",
            percent, p.group + 1, p.groups, p.model.c_str(),
            static_cast<unsigned long long>(p.chunk), static_cast<unsigned long long>(p.chunks));
      }
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

/// `pfmc calibrate`'s command line (apps/calibrate_command.cpp).
struct CalibrateOptions {
  std::string config_file;
  std::string model;            ///< the heston model to fit
  bool feller = false;          ///< impose 2 kappa theta >= xi^2
  std::string output;           ///< where the fitted model block goes (YAML); empty: nowhere
  std::string format = "table"; ///< table | json
  std::string plot;             ///< the PNG --plot writes ("": none)
};
int command_calibrate(const CalibrateOptions& options);
/// The calibration of `model` (a heston model of `config`) to its underlying's quotes, as
/// `pfmc calibrate --format json` prints it (and Python's pfmc.calibrate returns it): the quotes'
/// arbitrage, the parameters, Feller, the errors, each quote's, the fitted model block.
nlohmann::json calibration_report(const config::RunConfig& config, const std::string& model,
                                  bool feller);
/// Declares `pfmc calibrate` on `app`, its options read into `options`.
CLI::App* add_calibrate_command(CLI::App& app, CalibrateOptions& options, const char* config_help,
                                const char* version);

struct RunOptions {
  std::string config_file;
  std::string tuning_cache;
  /// The overrides' values by name (config::override_keys(): each an option of its own).
  std::map<std::string, std::string> values;
  std::map<std::string, bool> switches;
  std::string format = "table";
  std::string output;
  bool quiet = false;
  /// An override's value as given ("" where it was not).
  [[nodiscard]] std::string value(const std::string& name) const {
    const auto it = values.find(name);
    return it == values.end() ? std::string() : it->second;
  }
};

/// Adds the options that override the YAML, shared by the subcommands that run a config.
void add_override_options(CLI::App* app, RunOptions& o);
/// The overrides the command line gave (an option not given overrides nothing).
config::Overrides overrides_from(CLI::App* app, const RunOptions& o);

/// `pfmc risk` (apps/risk_command.cpp): declared on `app`, its options read into `o`.
struct RiskOptions {
  RunOptions run;
  bool per_instrument = false;
  std::string plot; ///< the PNG --plot writes ("": none)
};
CLI::App* add_risk_command(CLI::App& app, RiskOptions& o, const char* config_help,
                           const char* version);
int command_risk(CLI::App* app, const RiskOptions& o);
/// A risk run as `pfmc risk --format json` prints it (and Python's pfmc.risk reads it).
nlohmann::json risk_report(const config::RunConfig& config, const engine::risk::RiskResult& result,
                           bool per_instrument);

/// `pfmc schema` (apps/schema_command.cpp): the config reference as Markdown or a JSON Schema.
struct SchemaOptions {
  std::string format = "markdown"; ///< markdown | json-schema
  std::string output;              ///< the file to write; empty: standard output
};
CLI::App* add_schema_command(CLI::App& app, SchemaOptions& options, const char* version);
int command_schema(const SchemaOptions& options);

/// What `bench` and `tune` share: a GPU, the run's settings, and the sweep of every group.
struct SweepOptions {
  std::string backends = "all";
  std::string distances = "all";
  int repeat = 5;
  bool exhaustive = false;
  std::string csv, plot;
};

/// `pfmc bench`'s measurements of every group of `config`, as its CSV (sweep_report.hpp's
/// columns), without the tables; throws RuntimeError without a GPU.
std::string bench_csv(const config::RunConfig& config, const SweepOptions& s, bool quiet);

/// `pfmc kernels` (apps/kernel_commands.cpp).
struct KernelsOptions {
  std::string warm;  ///< a config file, `all`, or model-list entries
  std::string cache; ///< the cache folder (empty: the default)
  int arch = 0;      ///< compile for sm_<arch> (0: the GPU's)
  int jobs = 0;      ///< parallel compilations (0: the host's threads)
  bool clear = false, list = false, quiet = false, json = false;
};
/// Does what `o` asks (--clear, --warm, else the listing) and returns it as JSON: `cache`, and
/// `cleared`, `warmed` {arch, kernels, compiled, from_cache, seconds, failures} or the listing
/// (`kernel_set`, `entries` [{entry, built_in, on_first_use, cached}], `cached`,
/// `cached_bytes`, with --list `cached_kernels`). The Python package's pfmc.kernels too.
nlohmann::json kernels_report(const KernelsOptions& o);
int command_kernels(const KernelsOptions& o);
/// Declares `pfmc kernels` on `app`, its options read into `o`.
CLI::App* add_kernels_command(CLI::App& app, KernelsOptions& o, const char* version);

int command_tune(CLI::App* app, const RunOptions& o, const SweepOptions& s);
int command_bench(CLI::App* app, const RunOptions& o, const SweepOptions& s);

} // namespace pfmc::apps
