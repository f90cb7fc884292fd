// Two-asset options under correlated Black-Scholes: Stulz's (1982) calls and puts on the max and
// min, and Margrabe's (1978) exchange option.
#include <algorithm>
#include <cmath>

#include "engine/analytic/analytic.hpp"
#include "engine/analytic/detail.hpp"

namespace pfmc::analytic {
using namespace detail;

namespace {

/// The two Stulz prices share every intermediate; `max_option` picks which one to return.
double stulz_call(bool max_option, double s1, double s2, double strike, double T, double r,
                  double q1, double q2, double sigma1, double sigma2, double rho) {
  const char* function = max_option ? "stulz_max_call" : "stulz_min_call";
  require_positive(function, "s1", s1);
  require_positive(function, "s2", s2);
  require_positive(function, "strike", strike);
  require_positive(function, "T", T);
  require_finite(function, "r", r);
  require_finite(function, "q1", q1);
  require_finite(function, "q2", q2);
  require_positive(function, "sigma1", sigma1);
  require_positive(function, "sigma2", sigma2);
  require_correlation(function, "rho", rho);

  const double spread_variance = sigma1 * sigma1 + sigma2 * sigma2 - 2.0 * rho * sigma1 * sigma2;
  const double asset1 = s1 * std::exp(-q1 * T); // prepaid forwards
  const double asset2 = s2 * std::exp(-q2 * T);
  if (spread_variance <= 1e-24 * (sigma1 * sigma1 + sigma2 * sigma2)) {
    // sigma1 == sigma2 and rho == 1: S1_T / S2_T = asset1 / asset2 for sure, so the max (min) is
    // the asset with the larger (smaller) prepaid forward and the option is a vanilla on it.
    const bool first_is_larger = asset1 >= asset2;
    const bool use_first = max_option ? first_is_larger : !first_is_larger;
    return use_first ? black_scholes_unchecked(OptionKind::call, s1, strike, T, r, q1, sigma1)
                     : black_scholes_unchecked(OptionKind::call, s2, strike, T, r, q2, sigma2);
  }
  const double sqrt_t = std::sqrt(T);
  const double spread_sigma = std::sqrt(spread_variance);
  const double spread_stddev = spread_sigma * sqrt_t;
  // d: log of the prepaid-forward ratio, standardised, as seen under asset 1's measure.
  const double d = (std::log(asset1 / asset2) + 0.5 * spread_variance * T) / spread_stddev;
  const double y1 =
      (std::log(s1 / strike) + (r - q1 + 0.5 * sigma1 * sigma1) * T) / (sigma1 * sqrt_t);
  const double y2 =
      (std::log(s2 / strike) + (r - q2 + 0.5 * sigma2 * sigma2) * T) / (sigma2 * sqrt_t);
  // Correlation of each asset's log with the log-ratio, clamped against round-off past +-1.
  const double rho1 = std::clamp((sigma1 - rho * sigma2) / spread_sigma, -1.0, 1.0);
  const double rho2 = std::clamp((sigma2 - rho * sigma1) / spread_sigma, -1.0, 1.0);
  const double cash = strike * std::exp(-r * T);
  if (max_option) {
    return asset1 * bivariate_normal_cdf(y1, d, rho1) +
           asset2 * bivariate_normal_cdf(y2, spread_stddev - d, rho2) -
           cash * (1.0 - bivariate_normal_cdf(sigma1 * sqrt_t - y1, sigma2 * sqrt_t - y2, rho));
  }
  return asset1 * bivariate_normal_cdf(y1, -d, -rho1) +
         asset2 * bivariate_normal_cdf(y2, d - spread_stddev, -rho2) -
         cash * bivariate_normal_cdf(y1 - sigma1 * sqrt_t, y2 - sigma2 * sqrt_t, rho);
}

} // namespace

double stulz_max_call(double s1, double s2, double strike, double T, double r, double q1, double q2,
                      double sigma1, double sigma2, double rho) {
  return stulz_call(true, s1, s2, strike, T, r, q1, q2, sigma1, sigma2, rho);
}

double stulz_min_call(double s1, double s2, double strike, double T, double r, double q1, double q2,
                      double sigma1, double sigma2, double rho) {
  return stulz_call(false, s1, s2, strike, T, r, q1, q2, sigma1, sigma2, rho);
}

double margrabe_exchange(double s1, double s2, double T, double q1, double q2, double sigma1,
                         double sigma2, double rho) {
  const char* function = "margrabe_exchange";
  require_positive(function, "s1", s1);
  require_positive(function, "s2", s2);
  require_positive(function, "T", T);
  require_finite(function, "q1", q1);
  require_finite(function, "q2", q2);
  require_positive(function, "sigma1", sigma1);
  require_positive(function, "sigma2", sigma2);
  require_correlation(function, "rho", rho);
  // Under asset 2's measure S1/S2 is lognormal with forward asset1/asset2: a Black call on the
  // ratio with strike 1, times asset2. Round-off can make the ratio variance a hair negative.
  const double ratio_variance =
      std::max(sigma1 * sigma1 + sigma2 * sigma2 - 2.0 * rho * sigma1 * sigma2, 0.0);
  const double asset1 = s1 * std::exp(-q1 * T);
  const double asset2 = s2 * std::exp(-q2 * T);
  return black_forward(OptionKind::call, asset1, asset2, std::sqrt(ratio_variance * T), 1.0);
}

double stulz_max_put(double s1, double s2, double strike, double T, double r, double q1, double q2,
                     double sigma1, double sigma2, double rho) {
  const double call = stulz_call(true, s1, s2, strike, T, r, q1, q2, sigma1, sigma2, rho);
  const double max_value =
      s2 * std::exp(-q2 * T) + margrabe_exchange(s1, s2, T, q1, q2, sigma1, sigma2, rho);
  return call - max_value + strike * std::exp(-r * T);
}

double stulz_min_put(double s1, double s2, double strike, double T, double r, double q1, double q2,
                     double sigma1, double sigma2, double rho) {
  const double call = stulz_call(false, s1, s2, strike, T, r, q1, q2, sigma1, sigma2, rho);
  const double min_value =
      s1 * std::exp(-q1 * T) - margrabe_exchange(s1, s2, T, q1, q2, sigma1, sigma2, rho);
  return call - min_value + strike * std::exp(-r * T);
}

} // namespace pfmc::analytic
