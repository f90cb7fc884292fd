// The standard normal distribution: density, cumulative, and the bivariate cumulative.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/analytic/analytic.hpp"
#include "engine/analytic/detail.hpp"
#include "engine/analytic/quadrature.hpp"

namespace pfmc::analytic {
using namespace detail;

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

double normal_pdf(double x) {
  return std::exp(-0.5 * x * x) / std::sqrt(2.0 * pi);
}

double bivariate_normal_cdf(double a, double b, double rho) {
  if (std::isnan(a) || std::isnan(b)) {
    fail("bivariate_normal_cdf", "a and b must not be NaN");
  }
  require_correlation("bivariate_normal_cdf", "rho", rho);
  constexpr double infinity = std::numeric_limits<double>::infinity();
  if (a == -infinity || b == -infinity) {
    return 0.0;
  }
  if (a == infinity) {
    return normal_cdf(b);
  }
  if (b == infinity) {
    return normal_cdf(a);
  }
  // The perfectly (anti-)correlated limits, which anchor the integral for |rho| near 1.
  const double at_plus_one = normal_cdf(std::min(a, b));
  const double at_minus_one = std::max(0.0, normal_cdf(a) - normal_cdf(-b));
  if (rho == 1.0) {
    return at_plus_one;
  }
  if (rho == -1.0) {
    return at_minus_one;
  }
  // Plackett: dPhi2/drho = phi2(a, b; rho). With rho = sin(t) the density times drho becomes
  // exp(-(a^2 + b^2 - 2ab sin t) / (2 cos^2 t)) dt / (2 pi), bounded by 1/(2 pi) for all t.
  // The exponent is split so that it has no cancellation near t = +-pi/2:
  //   t >= 0: (a - b)^2 / (2 cos^2 t) + ab / (1 + sin t)
  //   t <  0: (a + b)^2 / (2 cos^2 t) - ab / (1 - sin t)
  const auto density = [a, b](double t) {
    const double s = std::sin(t);
    const double c = std::cos(t);
    const double exponent = t >= 0.0 ? (a - b) * (a - b) / (2.0 * c * c) + a * b / (1.0 + s)
                                     : (a + b) * (a + b) / (2.0 * c * c) - a * b / (1.0 - s);
    return std::exp(-exponent);
  };
  // Integrate from the nearest anchor (rho = 0, 1 or -1) so the interval stays short. The
  // integrand is at most 1 and the integral is divided by 2 pi, so this is 1e-15 on the result.
  constexpr double tolerance = 1e-15 * 2.0 * pi;
  const double t_end = std::asin(rho);
  double result = 0.0;
  if (rho > 0.5) {
    result = at_plus_one - integrate_adaptive(density, t_end, 0.5 * pi, tolerance) / (2.0 * pi);
  } else if (rho < -0.5) {
    result = at_minus_one + integrate_adaptive(density, -0.5 * pi, t_end, tolerance) / (2.0 * pi);
  } else if (rho == 0.0) {
    result = normal_cdf(a) * normal_cdf(b);
  } else {
    const double signed_integral = t_end > 0.0
                                       ? integrate_adaptive(density, 0.0, t_end, tolerance)
                                       : -integrate_adaptive(density, t_end, 0.0, tolerance);
    result = normal_cdf(a) * normal_cdf(b) + signed_integral / (2.0 * pi);
  }
  // Round-off can leave a result a few ulps outside [0, 1] or the Frechet bounds.
  return std::clamp(result, at_minus_one, at_plus_one);
}

} // namespace pfmc::analytic
