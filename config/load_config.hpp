#pragma once
// YAML -> validated RunConfig (the schema is DESIGN.md's config contract).

#include <string>

#include "config/config_error.hpp"
#include "config/run_config.hpp"

namespace pfmc::config {

/// What errors (and RunConfig::file) call a config read from standard input.
inline constexpr const char* kStandardInputName = "<stdin>";

/// Reads and validates the run described by the YAML file at `path`, or by standard input when
/// `path` is `-` (named kStandardInputName; nothing in a config is a path, so nothing is resolved
/// against the file's folder). Throws ConfigError, and only ConfigError, for anything wrong with
/// the file: it cannot be read, it is not YAML, a key is unknown, missing or repeated, a value is
/// out of range or refers to something that does not exist. The error names the file, the
/// 1-based line and column, and the key path.
RunConfig load_run_config(const std::string& path);

/// The same, from text already in memory; `file_name` is what errors (and RunConfig::file) call
/// it.
RunConfig parse_run_config(const std::string& yaml_text, const std::string& file_name);

} // namespace pfmc::config
