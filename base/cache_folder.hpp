#pragma once
// Where pfmc keeps what it caches between runs (compiled kernels, the tuning cache), by one rule,
// and what it does with a cache file it cannot read.

#include <string>

namespace pfmc::base {

/// The path of the cache `name` ("kernels", "tuning.json"): the environment variable `variable`
/// when set and not empty, else $XDG_CACHE_HOME/pfmc/NAME, else $HOME/.cache/pfmc/NAME, else
/// `fallback` (relative to the working folder).
std::string cache_path(const char* variable, const std::string& name, const std::string& fallback);

/// Renames an unusable cache file to PATH.corrupt (once: the next run finds no file there) and
/// returns how it went, for the one notice that says so: "set aside as PATH.corrupt", or "it
/// could not be set aside (REASON)".
std::string set_aside(const std::string& path);

} // namespace pfmc::base
