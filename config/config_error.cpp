#include "config/config_error.hpp"

namespace pfmc::config {

namespace {

// `FILE:LINE:COL: key.path: message`, leaving out each part that is not there.
std::string format_config_error(const std::string& file, SourceMark mark,
                                const std::string& key_path, const std::string& message) {
  std::string location = file;
  if (mark.line > 0) {
    if (!location.empty()) {
      location += ':';
    }
    location += std::to_string(mark.line);
    if (mark.column > 0) { // a whole line of a CSV file has no column
      location += ':' + std::to_string(mark.column);
    }
  }
  std::string text;
  if (!location.empty()) {
    text += location + ": ";
  }
  if (!key_path.empty()) {
    text += key_path + ": ";
  }
  return text + message;
}

} // namespace

ConfigError::ConfigError(const std::string& file, SourceMark mark, const std::string& key_path,
                         const std::string& message)
    : std::runtime_error(format_config_error(file, mark, key_path, message)), file_(file),
      mark_(mark), key_path_(key_path), message_(message) {}

} // namespace pfmc::config
