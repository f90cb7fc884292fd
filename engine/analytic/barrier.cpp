// Single barriers under Black-Scholes: Reiner-Rubinstein's continuously monitored prices (rebate
// at the hit, or at expiry as pfmc pays it) and the Broadie-Glasserman-Kou shift for discrete
// monitoring.
#include <cmath>

#include "engine/analytic/analytic.hpp"
#include "engine/analytic/detail.hpp"

namespace pfmc::analytic {
using namespace detail;

namespace {

bool is_down(BarrierKind kind) {
  return kind == BarrierKind::down_and_in || kind == BarrierKind::down_and_out;
}

bool is_knock_in(BarrierKind kind) {
  return kind == BarrierKind::down_and_in || kind == BarrierKind::up_and_in;
}

/// Haug's Reiner-Rubinstein terms with the rebate factored out. core_in / core_out combine his
/// A..D per case; no_hit_probability = P(barrier not touched on [0, T]) is his E without the
/// discounted rebate; the rest is what hit_time_discount (his F without the rebate) needs.
struct BarrierTerms {
  double core_in;  // in option, no rebate
  double core_out; // out option, no rebate
  double no_hit_probability;
  double mu; // (b - sigma^2/2) / sigma^2
  double log_barrier_over_spot;
  double stddev; // sigma sqrt(T)
  double eta;    // +1 down, -1 up
};

BarrierTerms barrier_terms(OptionKind kind, BarrierKind barrier_kind, double spot, double strike,
                           double barrier, double T, double r, double q, double sigma) {
  const double phi = sign_of(kind);
  const double eta = is_down(barrier_kind) ? 1.0 : -1.0;
  const double carry = r - q;
  const double stddev = sigma * std::sqrt(T);
  const double mu = (carry - 0.5 * sigma * sigma) / (sigma * sigma);
  const double drift_term = (1.0 + mu) * stddev;
  const double log_h_over_s = std::log(barrier / spot);
  const double x1 = std::log(spot / strike) / stddev + drift_term;
  const double x2 = -log_h_over_s / stddev + drift_term;
  const double y1 = std::log(barrier * barrier / (spot * strike)) / stddev + drift_term;
  const double y2 = log_h_over_s / stddev + drift_term;
  const double spot_growth = spot * std::exp((carry - r) * T);
  const double strike_discounted = strike * std::exp(-r * T);
  // (H/S)^{2(mu+1)} and (H/S)^{2 mu}, through the log so that neither overflows separately.
  const double reflect_asset = std::exp(2.0 * (mu + 1.0) * log_h_over_s);
  const double reflect_cash = std::exp(2.0 * mu * log_h_over_s);

  const double A = phi * spot_growth * normal_cdf(phi * x1) -
                   phi * strike_discounted * normal_cdf(phi * x1 - phi * stddev);
  const double B = phi * spot_growth * normal_cdf(phi * x2) -
                   phi * strike_discounted * normal_cdf(phi * x2 - phi * stddev);
  const double C = phi * spot_growth * reflect_asset * normal_cdf(eta * y1) -
                   phi * strike_discounted * reflect_cash * normal_cdf(eta * y1 - eta * stddev);
  const double D = phi * spot_growth * reflect_asset * normal_cdf(eta * y2) -
                   phi * strike_discounted * reflect_cash * normal_cdf(eta * y2 - eta * stddev);

  // Haug's table, case by case (X = strike, H = barrier). At X == H both branches agree.
  const bool strike_above = strike >= barrier;
  const bool call = kind == OptionKind::call;
  double core_in = 0.0;
  double core_out = 0.0;
  if (eta > 0.0 && call) { // down, call
    core_in = strike_above ? C : A - B + D;
    core_out = strike_above ? A - C : B - D;
  } else if (eta < 0.0 && call) { // up, call
    core_in = strike_above ? A : B - C + D;
    core_out = strike_above ? 0.0 : A - B + C - D;
  } else if (eta > 0.0) { // down, put
    core_in = strike_above ? B - C + D : A;
    core_out = strike_above ? A - B + C - D : 0.0;
  } else { // up, put
    core_in = strike_above ? A - B + D : C;
    core_out = strike_above ? B - D : A - C;
  }

  BarrierTerms terms{};
  terms.core_in = core_in;
  terms.core_out = core_out;
  terms.no_hit_probability =
      normal_cdf(eta * x2 - eta * stddev) - reflect_cash * normal_cdf(eta * y2 - eta * stddev);
  terms.mu = mu;
  terms.log_barrier_over_spot = log_h_over_s;
  terms.stddev = stddev;
  terms.eta = eta;
  return terms;
}

/// E[e^{-r tau}; tau <= T] for the first hitting time tau of the barrier (Haug's F / rebate).
double hit_time_discount(const BarrierTerms& terms, double r, double sigma) {
  const double lambda_squared = terms.mu * terms.mu + 2.0 * r / (sigma * sigma);
  if (lambda_squared < 0.0) {
    fail("reiner_rubinstein",
         "a rebate paid at the hit needs mu^2 + 2r/sigma^2 >= 0 (a negative rate this large is "
         "not supported); use reiner_rubinstein_rebate_at_expiry");
  }
  const double lambda = std::sqrt(lambda_squared);
  const double z = terms.log_barrier_over_spot / terms.stddev + lambda * terms.stddev;
  const double eta = terms.eta;
  return std::exp((terms.mu + lambda) * terms.log_barrier_over_spot) * normal_cdf(eta * z) +
         std::exp((terms.mu - lambda) * terms.log_barrier_over_spot) *
             normal_cdf(eta * z - 2.0 * eta * lambda * terms.stddev);
}

void require_barrier_inputs(const char* function, double spot, double strike, double barrier,
                            double rebate, double T, double r, double q, double sigma) {
  require_market(function, spot, strike, T, r, q, sigma);
  require_positive(function, "barrier", barrier);
  require_non_negative(function, "rebate", rebate);
}

bool barrier_already_crossed(BarrierKind kind, double spot, double barrier) {
  return is_down(kind) ? spot <= barrier : spot >= barrier;
}

} // namespace

double reiner_rubinstein(OptionKind kind, BarrierKind barrier_kind, double spot, double strike,
                         double barrier, double rebate, double T, double r, double q,
                         double sigma) {
  require_barrier_inputs("reiner_rubinstein", spot, strike, barrier, rebate, T, r, q, sigma);
  if (barrier_already_crossed(barrier_kind, spot, barrier)) {
    return is_knock_in(barrier_kind) ? black_scholes_unchecked(kind, spot, strike, T, r, q, sigma)
                                     : rebate;
  }
  const BarrierTerms terms =
      barrier_terms(kind, barrier_kind, spot, strike, barrier, T, r, q, sigma);
  if (is_knock_in(barrier_kind)) {
    return terms.core_in + rebate * std::exp(-r * T) * terms.no_hit_probability;
  }
  const double rebate_value = rebate > 0.0 ? rebate * hit_time_discount(terms, r, sigma) : 0.0;
  return terms.core_out + rebate_value;
}

double reiner_rubinstein_rebate_at_expiry(OptionKind kind, BarrierKind barrier_kind, double spot,
                                          double strike, double barrier, double rebate, double T,
                                          double r, double q, double sigma) {
  require_barrier_inputs("reiner_rubinstein_rebate_at_expiry", spot, strike, barrier, rebate, T, r,
                         q, sigma);
  const double rebate_discounted = rebate * std::exp(-r * T);
  if (barrier_already_crossed(barrier_kind, spot, barrier)) {
    return is_knock_in(barrier_kind) ? black_scholes_unchecked(kind, spot, strike, T, r, q, sigma)
                                     : rebate_discounted;
  }
  const BarrierTerms terms =
      barrier_terms(kind, barrier_kind, spot, strike, barrier, T, r, q, sigma);
  if (is_knock_in(barrier_kind)) {
    return terms.core_in + rebate_discounted * terms.no_hit_probability;
  }
  return terms.core_out + rebate_discounted * (1.0 - terms.no_hit_probability);
}

double bgk_shifted_barrier(BarrierKind barrier_kind, double barrier, double sigma, double dt) {
  require_positive("bgk_shifted_barrier", "barrier", barrier);
  require_positive("bgk_shifted_barrier", "sigma", sigma);
  require_positive("bgk_shifted_barrier", "dt", dt);
  // Broadie, Glasserman & Kou (1997), beta = -zeta(1/2)/sqrt(2 pi) = 0.5825971..., printed there
  // (and used by everyone after) as 0.5826.
  constexpr double bgk_beta = 0.5826;
  const double shift = bgk_beta * sigma * std::sqrt(dt);
  return barrier * std::exp(is_down(barrier_kind) ? -shift : shift);
}

} // namespace pfmc::analytic
