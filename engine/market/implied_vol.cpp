#include "engine/market/implied_vol.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace pfmc::market {

namespace {

void require_positive(const char* what, double value) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw std::invalid_argument(std::string("implied vol: ") + what +
                                " must be positive and "
                                "finite, got " +
                                std::to_string(value));
}

/// The out-of-the-money (or at-the-money) option's undiscounted price at `vol`.
double otm_undiscounted(bool call, double forward, double strike, double T, double vol) {
  const double s = vol * std::sqrt(T);
  const double d1 = std::log(forward / strike) / s + 0.5 * s;
  const double d2 = d1 - s;
  if (call)
    return forward * analytic::normal_cdf(d1) - strike * analytic::normal_cdf(d2);
  return strike * analytic::normal_cdf(-d2) - forward * analytic::normal_cdf(-d1);
}

} // namespace

double black_price(OptionKind kind, double forward, double strike, double T, double vol,
                   double discount) {
  require_positive("forward", forward);
  require_positive("strike", strike);
  require_positive("expiry", T);
  require_positive("vol", vol);
  require_positive("discount", discount);
  const bool call = kind == OptionKind::call;
  const bool otm_call = strike >= forward;
  // The out-of-the-money side, exact in its tail; the other by parity C - P = F - K.
  double undiscounted = otm_undiscounted(otm_call, forward, strike, T, vol);
  if (call != otm_call)
    undiscounted += call ? forward - strike : strike - forward;
  return discount * undiscounted;
}

double black_vega(double forward, double strike, double T, double vol, double discount) {
  require_positive("forward", forward);
  require_positive("strike", strike);
  require_positive("expiry", T);
  require_positive("vol", vol);
  const double s = vol * std::sqrt(T);
  const double d1 = std::log(forward / strike) / s + 0.5 * s;
  return discount * forward * analytic::normal_pdf(d1) * std::sqrt(T);
}

double implied_vol(OptionKind kind, double price, double forward, double strike, double T,
                   double discount) {
  require_positive("forward", forward);
  require_positive("strike", strike);
  require_positive("expiry", T);
  require_positive("discount", discount);
  if (!std::isfinite(price))
    throw std::invalid_argument("implied vol: the price is not a number");
  const bool call = kind == OptionKind::call;
  const bool otm_call = strike >= forward;
  // The out-of-the-money option's undiscounted value: its time value.
  double target = price / discount;
  if (call != otm_call)
    target -= call ? forward - strike : strike - forward;
  const double upper = otm_call ? forward : strike; // its value as the vol goes to infinity
  if (!(target > 0.0) || !(target < upper))
    throw std::invalid_argument(
        "implied vol: price " + std::to_string(price) + " is outside the arbitrage bounds (" +
        std::to_string(discount * std::max(0.0, call ? forward - strike : strike - forward)) +
        ", " + std::to_string(discount * (call ? forward : strike)) + ") for strike " +
        std::to_string(strike) + ", expiry " + std::to_string(T));
  // The value rises with the vol: bracket [lo, hi] shrinks around the root while Newton's
  // steps (on the undiscounted value) stay inside it, else bisection.
  double lo = 0.0, hi = 1.0;
  while (otm_undiscounted(otm_call, forward, strike, T, hi) < target) {
    lo = hi;
    hi *= 2.0;
    if (hi > 1e4)
      throw std::invalid_argument("implied vol: no vol below 10,000 reaches the price");
  }
  double vol = 0.5 * (lo + hi);
  const double root_t = std::sqrt(T);
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double value = otm_undiscounted(otm_call, forward, strike, T, vol);
    const double error = value - target;
    if (std::abs(error) <= 1e-14 * std::max(target, 1e-300) || hi - lo <= 1e-15 * hi)
      return vol;
    (error > 0.0 ? hi : lo) = vol;
    const double s = vol * root_t;
    const double d1 = std::log(forward / strike) / s + 0.5 * s;
    const double vega = forward * analytic::normal_pdf(d1) * root_t;
    double next = vega > 0.0 ? vol - error / vega : 0.5 * (lo + hi);
    if (!(next > lo && next < hi))
      next = 0.5 * (lo + hi);
    vol = next;
  }
  return vol;
}

} // namespace pfmc::market
