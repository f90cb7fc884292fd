// Heston (1993) European options by Lewis's (2001) single Fourier integral.
#include <algorithm>
#include <cmath>
#include <complex>

#include "engine/analytic/analytic.hpp"
#include "engine/analytic/detail.hpp"
#include "engine/analytic/quadrature.hpp"

namespace pfmc::analytic {
using namespace detail;

namespace {

using complex = std::complex<double>;

/// log(1 + z) without losing the relative accuracy of small z (std::log(1.0 + z) would).
complex log1p_complex(complex z) {
  const double x = z.real();
  const double y = z.imag();
  return {0.5 * std::log1p(x * (2.0 + x) + y * y), std::atan2(y, 1.0 + x)};
}

struct HestonParameters {
  double T;
  double v0;
  double kappa;
  double theta;
  double xi;
  double rho;
};

/// E[exp(i w X)], X = log(S_T / F_T), for complex w, in Albrecher et al.'s (2007) form:
///   beta = kappa - rho xi i w,  d = sqrt(beta^2 + xi^2 (i w + w^2)),  g = (beta - d)/(beta + d),
///   log psi = kappa theta / xi^2 [(beta - d) T - 2 log((1 - g e^{-dT}) / (1 - g))]
///             + v0 (beta - d)/xi^2 (1 - e^{-dT}) / (1 - g e^{-dT}).
/// beta - d is evaluated as -xi^2 (i w + w^2) / (beta + d) and the log through log1p, so that the
/// 1/xi^2 factors cancel analytically: small xi stays accurate (xi -> 0 tends to Black-Scholes).
complex heston_log_return_cf(complex w, const HestonParameters& p) {
  const complex i(0.0, 1.0);
  const complex iw = i * w;
  const complex iw_plus_w2 = iw + w * w;
  const complex beta = p.kappa - p.rho * p.xi * iw;
  const double xi2 = p.xi * p.xi;
  const complex d = std::sqrt(beta * beta + xi2 * iw_plus_w2);
  const complex beta_plus_d = beta + d;
  const complex beta_minus_d_over_xi2 = -iw_plus_w2 / beta_plus_d;
  const complex g = xi2 * beta_minus_d_over_xi2 / beta_plus_d;
  const complex decay = std::exp(-d * p.T);
  const complex log_ratio = log1p_complex(g * (1.0 - decay) / (1.0 - g));
  const complex log_psi =
      p.kappa * p.theta * (beta_minus_d_over_xi2 * p.T - 2.0 * log_ratio / xi2) +
      p.v0 * beta_minus_d_over_xi2 * (1.0 - decay) / (1.0 - g * decay);
  return std::exp(log_psi);
}

/// Expected total variance int_0^T E[v_t] dt: the Black-Scholes variance the model tends to as
/// xi -> 0, and the natural scale of the Fourier integrand.
double heston_mean_total_variance(double T, double v0, double kappa, double theta) {
  return theta * T + (v0 - theta) * (-std::expm1(-kappa * T)) / kappa;
}

/// The checks heston() and heston_smile() share: the expiry, the rates and the model's five.
void check_model(const char* function, double T, double r, double q, double v0, double kappa,
                 double theta, double xi, double rho) {
  require_positive(function, "T", T);
  require_finite(function, "r", r);
  require_finite(function, "q", q);
  require_non_negative(function, "v0", v0);
  require_positive(function, "kappa", kappa);
  require_non_negative(function, "theta", theta);
  require_positive(function, "xi", xi);
  require_correlation(function, "rho", rho);
  if (!(v0 + theta > 0.0)) {
    fail(function, "v0 and theta are both 0: the variance never leaves 0");
  }
}

} // namespace

double heston(OptionKind kind, double spot, double strike, double T, double r, double q, double v0,
              double kappa, double theta, double xi, double rho) {
  const char* function = "heston";
  require_positive(function, "spot", spot);
  require_positive(function, "strike", strike);
  check_model(function, T, r, q, v0, kappa, theta, xi, rho);
  const HestonParameters parameters{T, v0, kappa, theta, xi, rho};
  const double forward = spot * std::exp((r - q) * T);
  const double log_moneyness = std::log(strike / forward); // k = log(K / F)

  // Lewis (2001): C = e^{-rT} [F - sqrt(F K) / pi * I],
  //   I = int_0^inf Re[e^{-i u k} psi(u - i/2)] / (u^2 + 1/4) du,
  // with psi the characteristic function of log(S_T / F). The 1/(u^2 + 1/4) factor makes the
  // integrand decay at least like 1/u^2 on top of the characteristic function's own decay, and
  // there is no pole at u = 0, unlike the two-integral P1/P2 form.
  const auto lewis_integrand = [&](double u) {
    const complex w(u, -0.5);
    const complex value =
        std::exp(complex(0.0, -u * log_moneyness)) * heston_log_return_cf(w, parameters);
    return value.real() / (u * u + 0.25);
  };
  // Map [0, inf) onto [0, 1) with u = scale * t / (1 - t) and integrate adaptively: the mapped
  // integrand is bounded and goes to 0 at t = 1, and the adaptive rule puts its points where the
  // oscillation and decay need them, for short and long maturities alike (a fixed truncation plus
  // fixed rule would need tuning per maturity). scale = 1/sqrt(total variance) is where a
  // Black-Scholes-like integrand has fallen by e^{-1/2}, so half of [0, 1) covers the bulk.
  const double total_variance = std::max(heston_mean_total_variance(T, v0, kappa, theta), 1e-8);
  const double scale = 1.0 / std::sqrt(total_variance);
  const auto mapped = [&](double t) {
    const double one_minus_t = 1.0 - t;
    const double u = scale * t / one_minus_t;
    return lewis_integrand(u) * scale / (one_minus_t * one_minus_t);
  };
  // I = pi (F - C e^{rT}) / sqrt(F K) lies in [0, pi] (no-arbitrage bounds on C), so 1e-13 on I
  // is at most 1e-13 sqrt(F K) / pi on the price: 3e-12 at S = K = 100.
  const double integral = integrate_adaptive(mapped, 0.0, 1.0, 1e-13);
  const double rate_discount = std::exp(-r * T);
  const double call = rate_discount * (forward - std::sqrt(forward * strike) / pi * integral);
  if (kind == OptionKind::call) {
    return call;
  }
  return call - spot * std::exp(-q * T) + strike * rate_discount;
}

std::vector<double> heston_smile(const std::vector<OptionKind>& kinds,
                                 const std::vector<double>& strikes, double spot, double T,
                                 double r, double q, double v0, double kappa, double theta,
                                 double xi, double rho, double tolerance) {
  const char* function = "heston_smile";
  if (kinds.size() != strikes.size())
    fail(function, "one kind a strike");
  require_positive(function, "spot", spot);
  check_model(function, T, r, q, v0, kappa, theta, xi, rho);
  for (const double strike : strikes)
    require_positive(function, "strike", strike);
  const HestonParameters parameters{T, v0, kappa, theta, xi, rho};
  const double forward = spot * std::exp((r - q) * T);
  std::vector<double> log_moneyness;
  for (const double strike : strikes)
    log_moneyness.push_back(std::log(strike / forward));
  // heston()'s integral, every strike's at the same points: the characteristic function once a
  // point, each strike's phase e^{-i u k} beside it.
  const double total_variance = std::max(heston_mean_total_variance(T, v0, kappa, theta), 1e-8);
  const double scale = 1.0 / std::sqrt(total_variance);
  const auto mapped = [&](double t, double* values) {
    const double one_minus_t = 1.0 - t;
    const double u = scale * t / one_minus_t;
    const complex psi = heston_log_return_cf(complex(u, -0.5), parameters);
    const double factor = scale / ((one_minus_t * one_minus_t) * (u * u + 0.25));
    for (std::size_t j = 0; j < log_moneyness.size(); ++j)
      values[j] = (std::exp(complex(0.0, -u * log_moneyness[j])) * psi).real() * factor;
  };
  const std::vector<double> integrals =
      integrate_adaptive_together(mapped, strikes.size(), 0.0, 1.0, tolerance);
  const double rate_discount = std::exp(-r * T);
  std::vector<double> prices;
  for (std::size_t j = 0; j < strikes.size(); ++j) {
    const double call =
        rate_discount * (forward - std::sqrt(forward * strikes[j]) / pi * integrals[j]);
    prices.push_back(kinds[j] == OptionKind::call
                         ? call
                         : call - spot * std::exp(-q * T) + strikes[j] * rate_discount);
  }
  return prices;
}

} // namespace pfmc::analytic
