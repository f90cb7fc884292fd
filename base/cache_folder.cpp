#include "base/cache_folder.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace pfmc::base {

std::string cache_path(const char* variable, const std::string& name, const std::string& fallback) {
  if (const char* env = std::getenv(variable); env != nullptr && *env != '\0')
    return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return std::string(xdg) + "/pfmc/" + name;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::string(home) + "/.cache/pfmc/" + name;
  return fallback;
}

std::string set_aside(const std::string& path) {
  const std::string aside = path + ".corrupt";
  std::error_code error;
  std::filesystem::rename(path, aside, error);
  return error ? "it could not be set aside (" + error.message() + ")" : "set aside as " + aside;
}

} // namespace pfmc::base
