#include "base/environment.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace pfmc::base {

int parse_whole_number_variable(const char* name, const char* text, long low, long high,
                                int unset) {
  if (text == nullptr || *text == '\0')
    return unset;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < low || value > high) {
    throw std::invalid_argument(std::string(name) + " must be a whole number from " +
                                std::to_string(low) + " to " + std::to_string(high) + ", not '" +
                                text + "'");
  }
  return static_cast<int>(value);
}

} // namespace pfmc::base
