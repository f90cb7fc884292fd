#pragma once
// Command-line overrides of a loaded RunConfig. They are judged by the value rules they share with
// the YAML loader (config/setting_rules.hpp, included here for the callers of both): a setting is
// accepted (or refused, with the same words) whether it was written in the file or on the command
// line.

#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/run_config.hpp"
#include "config/setting_rules.hpp"

namespace pfmc::config {

/// What reads an environment variable (the process's, process_environment; tests pass their own).
using Environment = const char* (*)(const char* name);
inline const char* process_environment(const char* name) {
  return std::getenv(name);
}

/// One setting a front end may override: the one list from which the command line's options
/// (apps/cli_options.cpp), Python's keyword arguments (pfmc.OVERRIDES, price()'s kwargs) and the
/// fuzzer's lines are made, and by which apply_overrides judges each value.
struct OverrideKey {
  const char* name;    ///< Python's keyword; the flag is "--" and the name with '-' for '_'
  const char* setting; ///< the config key it overrides, e.g. "engine.device"
  bool is_switch;      ///< a flag without a value (--antithetic): "true" or "false"
  std::string help;    ///< the option's help line
  [[nodiscard]] std::string flag() const; ///< "--prefetch-distance"
};
/// Every override, in the order the CLI's help lists them.
const std::vector<OverrideKey>& override_keys();
/// The key named `name` (Python's keyword), or null.
const OverrideKey* find_override(std::string_view name);

/// The overrides a front end was given: name (override_keys()) to the value's text, judged by
/// the same rules as the YAML ("1e6", "4GiB", a switch's "true"); a name not given leaves the
/// YAML's (or the default) value alone.
struct Overrides {
  std::map<std::string, std::string> values;
};

/// Validates every given override, then applies them all (or none: on error `config` is left as
/// it was). Throws ConfigError with no file and no mark, the flag as key path and the same
/// message the YAML loader would give, e.g. `--paths: must be >= 1` (a name override_keys() does
/// not list: pfmc::LogicError, the front ends check names first). The rules that tie
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
