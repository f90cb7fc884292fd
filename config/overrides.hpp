#pragma once
// Command-line overrides of a loaded RunConfig. They are judged by the value rules they share with
// the YAML loader (config/setting_rules.hpp, included here for the callers of both): a setting is
// accepted (or refused, with the same words) whether it was written in the file or on the command
// line.

#include <cstdlib>
#include <optional>
#include <string>

#include "config/run_config.hpp"
#include "config/setting_rules.hpp"

namespace pfmc::config {

/// What reads an environment variable (the process's, process_environment; tests pass their own).
using Environment = const char* (*)(const char* name);
inline const char* process_environment(const char* name) {
  return std::getenv(name);
}

/// Flags given on the command line; an empty optional leaves the YAML (or default) value alone.
/// Sizes and counts that users type in many spellings ("1e6", "4GiB") stay strings so that
/// they are judged by the same rules as the YAML.
struct Overrides {
  std::optional<std::string> device, devices, backend, padding, precision, rng;
  std::optional<std::string> math;          ///< `--math accurate|fast`
  std::optional<std::string> greeks_method; ///< `--greeks-method auto|bump|pathwise`
  std::optional<long long> prefetch_distance, block_size, cpu_threads;
  std::optional<std::string> paths, seed, max_device_memory, draw_batch_size;
  std::optional<std::string> replicates;       ///< `--replicates N`
  std::optional<std::string> regression_paths; ///< `--regression-paths N`
  /// `--greeks delta,vega` (a comma-separated list of to_string(Greek) spellings) or `none`.
  std::optional<std::string> greeks;
  std::optional<bool> antithetic, control_variate; ///< `--antithetic`, `--control-variate`
};

/// Validates every given override, then applies them all (or none: on error `config` is left as
/// it was). Throws ConfigError with no file and no mark, the flag as key path and the same
/// message the YAML loader would give, e.g. `--paths: must be >= 1`. The rules that tie
/// simulation settings together (detail::check_simulation) are judged on the result, and a
/// broken one names a flag that was given: `--paths: antithetic pairs need an even number of
/// paths`. Overriding the backend clears `engine.backend_mark`: the name no longer comes from the
/// file. The environment's overrides (apply_environment) come first, the flags' over them: the
/// one way in of the front ends (the CLI, Python).
void apply_overrides(RunConfig& config, const Overrides& overrides,
                     Environment environment = process_environment);

/// The environment's overrides of the engine's kernel switches, which a front end (the CLI,
/// Python) reads once, after the YAML and before its own flags: PFMC_TERMINAL_KERNELS (0 or 1:
/// engine.terminal_kernels), PFMC_TERMINAL_BLOCKS_PER_CTA (auto or 1..4096),
/// PFMC_COMPILE_AT_RUNTIME (0 or 1) and PFMC_UNIT_GROUPS (0..1,000,000). Unset or empty: the
/// config's value. A bad value throws ConfigError naming the variable and the rule, with nothing
/// applied.
void apply_environment(RunConfig& config, Environment environment);

} // namespace pfmc::config
