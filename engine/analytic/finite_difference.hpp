#pragma once
// Greeks by Richardson-extrapolated central differences, for the analytic prices that have no
// closed-form Greeks here (cash_or_nothing, geometric_asian_discrete); not part of the library's
// interface.

#include <algorithm>
#include <cmath>

#include "engine/analytic/analytic.hpp"

namespace pfmc::analytic::detail {

/// Relative step of the finite-difference Greeks, in units of each input's natural scale. With
/// Richardson extrapolation the truncation error is about step^4 / 480 times the fifth derivative
/// in those units, and round-off about 1e-16 / step (first derivatives) or 1e-16 / step^2
/// (gamma), times price / Greek: 5e-3 keeps the first derivatives near 1e-10 of their scale.
inline constexpr double greek_step = 5e-3;
/// Gamma's second difference is more exposed to round-off than a first difference, so it takes
/// a step twice as long: over a grid of spots, maturities and vols this halved the worst gamma
/// error of cash_or_nothing_greeks against the closed-form derivative (factors 1, 2, 4, 8 gave
/// 1.1e-9, 1.9e-10, 8.9e-10, 1.4e-8 of cash / (S sigma sqrt T)^2).
inline constexpr double gamma_step_factor = 2.0;

/// (4 D(h/2) - D(h)) / 3 for the central difference D(h) = (f(x + h) - f(x - h)) / 2h: D's error
/// is c2 h^2 + c4 h^4 + ..., so the combination leaves O(h^4).
template <class Price>
double richardson_first_derivative(const Price& price, double x, double h) {
  const auto central = [&](double step) {
    return (price(x + step) - price(x - step)) / (2.0 * step);
  };
  return (4.0 * central(0.5 * h) - central(h)) / 3.0;
}

/// Same extrapolation for the second difference (f(x + h) - 2 f(x) + f(x - h)) / h^2.
template <class Price>
double richardson_second_derivative(const Price& price, double x, double h) {
  const double centre = price(x);
  const auto central = [&](double step) {
    return (price(x + step) - 2.0 * centre + price(x - step)) / (step * step);
  };
  return (4.0 * central(0.5 * h) - central(h)) / 3.0;
}

/// The steps for a price that depends on its inputs through d = (log(F/K) +- stddev^2/2) / stddev
/// and e^{-rT}. Away from the money n(d) changes by a factor e^{-d dd}, so the steps shrink with
/// moneyness = 1 + |log(F/K)| / stddev (about |d|): once for spot and r, whose effect on d is
/// linear, and twice for sigma and T, whose effect on d grows with d itself.
struct GreekSteps {
  double spot;
  double sigma;
  double rate;
  double time;
};

inline GreekSteps greek_steps(double spot, double log_forward_over_strike, double stddev,
                              double sigma, double T, double time_scale) {
  const double moneyness = 1.0 + std::abs(log_forward_over_strike) / stddev;
  GreekSteps steps{};
  steps.spot = greek_step * spot * std::min(stddev, 1.0) / moneyness;
  steps.sigma = greek_step * sigma / (moneyness * moneyness);
  steps.rate = greek_step * std::min(stddev, 1.0) / (T * moneyness);
  steps.time = greek_step * time_scale / (moneyness * moneyness);
  return steps;
}

/// The five Greeks of price(spot, r, sigma, elapsed), where `elapsed` is calendar time that has
/// passed (theta = d price / d elapsed).
template <class Price>
Greeks finite_difference_greeks(const Price& price, double spot, double r, double sigma,
                                const GreekSteps& steps) {
  Greeks greeks{};
  const auto of_spot = [&](double x) { return price(x, r, sigma, 0.0); };
  greeks.delta = richardson_first_derivative(of_spot, spot, steps.spot);
  greeks.gamma = richardson_second_derivative(of_spot, spot, gamma_step_factor * steps.spot);
  greeks.vega = richardson_first_derivative([&](double x) { return price(spot, r, x, 0.0); }, sigma,
                                            steps.sigma);
  greeks.rho = richardson_first_derivative([&](double x) { return price(spot, x, sigma, 0.0); }, r,
                                           steps.rate);
  greeks.theta = richardson_first_derivative(
      [&](double elapsed) { return price(spot, r, sigma, elapsed); }, 0.0, steps.time);
  return greeks;
}

} // namespace pfmc::analytic::detail
