// Black-Scholes-Merton and Black (1976): vanilla prices and Greeks, Black on a lognormal given
// the moments of its log, and the cash-or-nothing digital.
#include <algorithm>
#include <cmath>

#include "engine/analytic/analytic.hpp"
#include "engine/analytic/detail.hpp"
#include "engine/analytic/finite_difference.hpp"

namespace pfmc::analytic {

namespace detail {

double sign_of(OptionKind kind) {
  return kind == OptionKind::call ? 1.0 : -1.0;
}

double black_forward(OptionKind kind, double forward, double strike, double stddev,
                     double discount) {
  const double phi = sign_of(kind);
  if (stddev <= 0.0) {
    return discount * std::max(phi * (forward - strike), 0.0);
  }
  const double d1 = (std::log(forward / strike) + 0.5 * stddev * stddev) / stddev;
  const double d2 = d1 - stddev;
  return discount * phi * (forward * normal_cdf(phi * d1) - strike * normal_cdf(phi * d2));
}

double black_scholes_unchecked(OptionKind kind, double spot, double strike, double T, double r,
                               double q, double sigma) {
  return black_forward(kind, spot * std::exp((r - q) * T), strike, sigma * std::sqrt(T),
                       std::exp(-r * T));
}

OptionKind other_kind(OptionKind kind) {
  return kind == OptionKind::call ? OptionKind::put : OptionKind::call;
}

} // namespace detail

using namespace detail;

double black_scholes(OptionKind kind, double spot, double strike, double T, double r, double q,
                     double sigma) {
  require_market("black_scholes", spot, strike, T, r, q, sigma);
  return black_scholes_unchecked(kind, spot, strike, T, r, q, sigma);
}

Greeks black_scholes_greeks(OptionKind kind, double spot, double strike, double T, double r,
                            double q, double sigma) {
  require_market("black_scholes_greeks", spot, strike, T, r, q, sigma);
  const double phi = sign_of(kind);
  const double sqrt_t = std::sqrt(T);
  const double stddev = sigma * sqrt_t;
  const double d1 = (std::log(spot / strike) + (r - q + 0.5 * sigma * sigma) * T) / stddev;
  const double d2 = d1 - stddev;
  const double dividend_discount = std::exp(-q * T);
  const double rate_discount = std::exp(-r * T);
  const double density = normal_pdf(d1);
  const double n_d1 = normal_cdf(phi * d1);
  const double n_d2 = normal_cdf(phi * d2);

  Greeks greeks{};
  greeks.delta = phi * dividend_discount * n_d1;
  greeks.gamma = dividend_discount * density / (spot * stddev);
  greeks.vega = spot * dividend_discount * density * sqrt_t;
  greeks.rho = phi * strike * T * rate_discount * n_d2;
  greeks.theta = -spot * dividend_discount * density * sigma / (2.0 * sqrt_t) -
                 phi * r * strike * rate_discount * n_d2 +
                 phi * q * spot * dividend_discount * n_d1;
  return greeks;
}

double cash_or_nothing(OptionKind kind, double spot, double strike, double T, double r, double q,
                       double sigma, double cash) {
  require_market("cash_or_nothing", spot, strike, T, r, q, sigma);
  require_finite("cash_or_nothing", "cash", cash);
  const double stddev = sigma * std::sqrt(T);
  const double d2 = (std::log(spot / strike) + (r - q - 0.5 * sigma * sigma) * T) / stddev;
  return cash * std::exp(-r * T) * normal_cdf(sign_of(kind) * d2);
}

Greeks cash_or_nothing_greeks(OptionKind kind, double spot, double strike, double T, double r,
                              double q, double sigma, double cash) {
  const double value = cash_or_nothing(kind, spot, strike, T, r, q, sigma, cash); // checks inputs
  const double stddev = sigma * std::sqrt(T);
  const GreekSteps steps =
      greek_steps(spot, std::log(spot / strike) + (r - q) * T, stddev, sigma, T, T);
  // Differentiate the cheaper of call and put: in the money the price is mostly the discounted
  // cash, and its round-off would swamp the small Greeks. call + put = cash e^{-rT}, whose only
  // Greeks are rho = -T cash e^{-rT} and theta = r cash e^{-rT}.
  const double discounted_cash = cash * std::exp(-r * T);
  const bool use_complement = std::abs(value) > 0.5 * std::abs(discounted_cash);
  const OptionKind differentiated = use_complement ? other_kind(kind) : kind;
  Greeks greeks = finite_difference_greeks(
      [&](double spot_, double r_, double sigma_, double elapsed) {
        return cash_or_nothing(differentiated, spot_, strike, T - elapsed, r_, q, sigma_, cash);
      },
      spot, r, sigma, steps);
  if (use_complement) {
    greeks.delta = -greeks.delta;
    greeks.gamma = -greeks.gamma;
    greeks.vega = -greeks.vega;
    greeks.rho = -T * discounted_cash - greeks.rho;
    greeks.theta = r * discounted_cash - greeks.theta;
  }
  return greeks;
}

double black_lognormal(OptionKind kind, double mean_log, double var_log, double strike,
                       double discount) {
  const char* function = "black_lognormal";
  require_finite(function, "mean_log", mean_log);
  require_non_negative(function, "var_log", var_log);
  require_positive(function, "strike", strike);
  require_positive(function, "discount", discount);
  return black_forward(kind, std::exp(mean_log + 0.5 * var_log), strike, std::sqrt(var_log),
                       discount);
}

} // namespace pfmc::analytic
