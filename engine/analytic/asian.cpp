// Options on the geometric average under Black-Scholes: discrete fixings (price, Greeks and the
// moments of log G that control-variate means take) and Kemna-Vorst's continuous average.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "engine/analytic/analytic.hpp"
#include "engine/analytic/detail.hpp"
#include "engine/analytic/finite_difference.hpp"

namespace pfmc::analytic {
using namespace detail;

namespace {

/// Moments of log G over the fixing times, which the caller has checked (finite, >= 0).
LogMoments geometric_moments_unchecked(double spot, double r, double q, double sigma,
                                       std::vector<double> times) {
  std::sort(times.begin(), times.end());
  // sum_ij min(t_i, t_j) over sorted times: t_(k) is the smaller one of 2 (n - 1 - k) ordered
  // pairs plus the diagonal, so O(n log n) instead of O(n^2).
  const double n = static_cast<double>(times.size());
  double sum_times = 0.0;
  double sum_min = 0.0;
  for (std::size_t k = 0; k < times.size(); ++k) {
    sum_times += times[k];
    sum_min += times[k] * (2.0 * (n - 1.0 - static_cast<double>(k)) + 1.0);
  }
  const double mean_time = sum_times / n;
  return {std::log(spot) + (r - q - 0.5 * sigma * sigma) * mean_time,
          sigma * sigma * sum_min / (n * n)};
}

} // namespace

double geometric_asian_discrete(OptionKind kind, double spot, double strike, double r, double q,
                                double sigma, const std::vector<double>& fixing_times, double T) {
  require_market("geometric_asian_discrete", spot, strike, T, r, q, sigma);
  if (fixing_times.empty()) {
    fail("geometric_asian_discrete", "fixing_times must not be empty");
  }
  for (double t : fixing_times) {
    if (!(t >= 0.0 && t <= T)) {
      fail("geometric_asian_discrete", describe("fixing time", t) + ", must lie in [0, T]");
    }
  }
  const LogMoments moments = geometric_moments_unchecked(spot, r, q, sigma, fixing_times);
  const double forward = std::exp(moments.mean_log + 0.5 * moments.var_log);
  return black_forward(kind, forward, strike, std::sqrt(moments.var_log), std::exp(-r * T));
}

LogMoments geometric_average_log_moments(double spot, double r, double q, double sigma,
                                         const std::vector<double>& fixing_times) {
  const char* function = "geometric_average_log_moments";
  require_positive(function, "spot", spot);
  require_finite(function, "r", r);
  require_finite(function, "q", q);
  require_positive(function, "sigma", sigma);
  if (fixing_times.empty()) {
    fail(function, "fixing_times must not be empty");
  }
  for (double t : fixing_times) {
    require_non_negative(function, "fixing time", t);
  }
  return geometric_moments_unchecked(spot, r, q, sigma, fixing_times);
}

Greeks geometric_asian_discrete_greeks(OptionKind kind, double spot, double strike, double r,
                                       double q, double sigma,
                                       const std::vector<double>& fixing_times, double T) {
  // Checks every input, with the price's own messages.
  const double value = geometric_asian_discrete(kind, spot, strike, r, q, sigma, fixing_times, T);
  const double other_value =
      geometric_asian_discrete(other_kind(kind), spot, strike, r, q, sigma, fixing_times, T);
  const LogMoments moments = geometric_moments_unchecked(spot, r, q, sigma, fixing_times);
  // All fixings at 0: the average is the spot, known today; any positive scale does for the steps.
  const double stddev = moments.var_log > 0.0 ? std::sqrt(moments.var_log) : sigma * std::sqrt(T);
  // The schedule can move back by less than the first future fixing time (or T if there is none).
  double first_future_fixing = T;
  for (double t : fixing_times) {
    if (t > 0.0) {
      first_future_fixing = std::min(first_future_fixing, t);
    }
  }
  const GreekSteps steps =
      greek_steps(spot, moments.mean_log + 0.5 * moments.var_log - std::log(strike), stddev, sigma,
                  T, first_future_fixing);
  std::vector<double> shifted(fixing_times.size());
  const auto shift_schedule = [&](double elapsed) {
    for (std::size_t i = 0; i < fixing_times.size(); ++i) {
      shifted[i] = fixing_times[i] > 0.0 ? fixing_times[i] - elapsed : 0.0;
    }
  };
  // Differentiate the cheaper of call and put: in the money the price is mostly intrinsic value,
  // whose round-off would swamp gamma (1e-6 of its scale deep in the money). call - put is the
  // forward e^{-rT} (E[G] - K), smooth, with gamma 0 and delta e^{-rT} E[G] / S exactly.
  const bool use_other = value > other_value;
  const OptionKind differentiated = use_other ? other_kind(kind) : kind;
  Greeks greeks = finite_difference_greeks(
      [&](double spot_, double r_, double sigma_, double elapsed) {
        shift_schedule(elapsed);
        return geometric_asian_discrete(differentiated, spot_, strike, r_, q, sigma_, shifted,
                                        T - elapsed);
      },
      spot, r, sigma, steps);
  if (use_other) {
    Greeks forward = finite_difference_greeks(
        [&](double spot_, double r_, double sigma_, double elapsed) {
          shift_schedule(elapsed);
          const LogMoments m = geometric_moments_unchecked(spot_, r_, q, sigma_, shifted);
          return std::exp(-r_ * (T - elapsed)) * (std::exp(m.mean_log + 0.5 * m.var_log) - strike);
        },
        spot, r, sigma, steps);
    forward.delta = std::exp(-r * T + moments.mean_log + 0.5 * moments.var_log) / spot;
    forward.gamma = 0.0;
    // call = put + forward, put = call - forward.
    const double sign = kind == OptionKind::call ? 1.0 : -1.0;
    greeks.delta += sign * forward.delta;
    greeks.gamma += sign * forward.gamma;
    greeks.vega += sign * forward.vega;
    greeks.rho += sign * forward.rho;
    greeks.theta += sign * forward.theta;
  }
  return greeks;
}

double kemna_vorst(OptionKind kind, double spot, double strike, double T, double r, double q,
                   double sigma) {
  require_market("kemna_vorst", spot, strike, T, r, q, sigma);
  const double carry = r - q;
  const double forward = spot * std::exp(0.5 * (carry - sigma * sigma / 6.0) * T);
  return black_forward(kind, forward, strike, sigma * std::sqrt(T / 3.0), std::exp(-r * T));
}

} // namespace pfmc::analytic
