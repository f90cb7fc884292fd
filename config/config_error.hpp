#pragma once
// Errors in a run's configuration: one line that names file, line, column and key path.

#include <stdexcept>
#include <string>

#include "config/run_config.hpp"

namespace pfmc::config {

/// A configuration the user must fix. what() is `FILE:LINE:COL: key.path: what is wrong`
/// (the location is left out when there is none, e.g. for a command-line flag).
class ConfigError : public std::runtime_error {
public:
  ConfigError(const std::string& file, SourceMark mark, const std::string& key_path,
              const std::string& message);

  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] SourceMark mark() const { return mark_; }
  [[nodiscard]] const std::string& key_path() const { return key_path_; }
  [[nodiscard]] const std::string& message() const { return message_; }

private:
  std::string file_;
  SourceMark mark_;
  std::string key_path_;
  std::string message_;
};

} // namespace pfmc::config
