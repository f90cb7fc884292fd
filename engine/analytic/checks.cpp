#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "engine/analytic/detail.hpp"

namespace pfmc::analytic::detail {

[[noreturn]] void fail(const char* function, const std::string& message) {
  throw std::invalid_argument(std::string("pfmc::analytic::") + function + ": " + message);
}

std::string describe(const char* name, double value) {
  std::ostringstream text;
  text.precision(17);
  text << name << " = " << value;
  return text.str();
}

void require_positive(const char* function, const char* name, double value) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    fail(function, describe(name, value) + ", must be finite and > 0");
  }
}

void require_non_negative(const char* function, const char* name, double value) {
  if (!(value >= 0.0) || !std::isfinite(value)) {
    fail(function, describe(name, value) + ", must be finite and >= 0");
  }
}

void require_finite(const char* function, const char* name, double value) {
  if (!std::isfinite(value)) {
    fail(function, describe(name, value) + ", must be finite");
  }
}

void require_correlation(const char* function, const char* name, double value) {
  if (!(value >= -1.0 && value <= 1.0)) {
    fail(function, describe(name, value) + ", must lie in [-1, 1]");
  }
}

void require_market(const char* function, double spot, double strike, double T, double r, double q,
                    double sigma) {
  require_positive(function, "spot", spot);
  require_positive(function, "strike", strike);
  require_positive(function, "T", T);
  require_finite(function, "r", r);
  require_finite(function, "q", q);
  require_positive(function, "sigma", sigma);
}

} // namespace pfmc::analytic::detail
