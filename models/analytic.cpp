#include "models/analytic.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace pfmc::analytic {
namespace {

constexpr double pi = 3.14159265358979323846;

// ---- argument checks -----------------------------------------------------------------------

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

/// The checks every Black-Scholes-style function needs.
void require_market(const char* function, double spot, double strike, double T, double r, double q,
                    double sigma) {
  require_positive(function, "spot", spot);
  require_positive(function, "strike", strike);
  require_positive(function, "T", T);
  require_finite(function, "r", r);
  require_finite(function, "q", q);
  require_positive(function, "sigma", sigma);
}

// ---- quadrature ----------------------------------------------------------------------------

/// Gauss-Legendre nodes and weights on [-1, 1], found by Newton's method on the three-term
/// recurrence of P_n (converges in a few steps from the Tricomi-style cosine first guess).
struct GaussLegendreRule {
  std::vector<double> nodes;
  std::vector<double> weights;
};

GaussLegendreRule make_gauss_legendre(int order) {
  GaussLegendreRule rule;
  rule.nodes.resize(order);
  rule.weights.resize(order);
  for (int root = 0; root < (order + 1) / 2; ++root) {
    double x = std::cos(pi * (root + 0.75) / (order + 0.5));
    double derivative = 0.0;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p_previous = 1.0;
      double p_current = x;
      for (int degree = 2; degree <= order; ++degree) {
        const double p_next =
            ((2.0 * degree - 1.0) * x * p_current - (degree - 1.0) * p_previous) / degree;
        p_previous = p_current;
        p_current = p_next;
      }
      derivative = order * (x * p_current - p_previous) / (x * x - 1.0);
      const double step = p_current / derivative;
      x -= step;
      if (std::abs(step) < 1e-16) {
        break;
      }
    }
    const double weight = 2.0 / ((1.0 - x * x) * derivative * derivative);
    rule.nodes[root] = -x;
    rule.nodes[order - 1 - root] = x;
    rule.weights[root] = weight;
    rule.weights[order - 1 - root] = weight;
  }
  return rule;
}

template <class Integrand>
double apply_rule(const GaussLegendreRule& rule, const Integrand& f, double lo, double hi) {
  const double half_width = 0.5 * (hi - lo);
  const double middle = 0.5 * (hi + lo);
  double sum = 0.0;
  for (std::size_t i = 0; i < rule.nodes.size(); ++i) {
    sum += rule.weights[i] * f(middle + half_width * rule.nodes[i]);
  }
  return sum * half_width;
}

/// Adaptive Gauss-Legendre on [lo, hi]: an interval is accepted when its 10- and 20-point rules
/// agree within its share of `tolerance` (absolute), otherwise it is halved. The 20-point value is
/// kept, so the real error is far below the estimate for the smooth integrands used here (it is
/// exact for polynomials of degree 39). Only interior points are evaluated, so integrands may be
/// singular-looking (but bounded) at the ends, e.g. the Heston integrand mapped onto [0, 1).
template <class Integrand>
double integrate_adaptive(const Integrand& f, double lo, double hi, double tolerance) {
  static const GaussLegendreRule coarse = make_gauss_legendre(10);
  static const GaussLegendreRule fine = make_gauss_legendre(20);
  // 2^-45 of the domain is far below what any integrand here needs; the cap stops an integrand
  // with a kink or round-off noise from being halved without end.
  constexpr int max_depth = 45;
  struct Interval {
    double lo;
    double hi;
    int depth;
  };
  std::vector<Interval> pending{{lo, hi, 0}};
  double total = 0.0;
  while (!pending.empty()) {
    const Interval interval = pending.back();
    pending.pop_back();
    const double rough = apply_rule(coarse, f, interval.lo, interval.hi);
    const double accurate = apply_rule(fine, f, interval.lo, interval.hi);
    const double allowed =
        std::max(tolerance * (interval.hi - interval.lo) / (hi - lo),
                 64.0 * std::numeric_limits<double>::epsilon() * std::abs(accurate));
    if (std::abs(accurate - rough) <= allowed || interval.depth >= max_depth) {
      total += accurate;
    } else {
      const double middle = 0.5 * (interval.lo + interval.hi);
      pending.push_back({interval.lo, middle, interval.depth + 1});
      pending.push_back({middle, interval.hi, interval.depth + 1});
    }
  }
  return total;
}

// ---- Black-Scholes building blocks ---------------------------------------------------------

double sign_of(OptionKind kind) {
  return kind == OptionKind::call ? 1.0 : -1.0;
}

/// Black (1976) on a forward: discount * E[(phi (X - K))^+] for lognormal X with mean `forward`
/// and log standard deviation `stddev`. stddev == 0 gives the discounted intrinsic value.
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

// ---- Greeks by finite differences ----------------------------------------------------------

/// Relative step of the finite-difference Greeks, in units of each input's natural scale. With
/// Richardson extrapolation the truncation error is about step^4 / 480 times the fifth derivative
/// in those units, and round-off about 1e-16 / step (first derivatives) or 1e-16 / step^2
/// (gamma), times price / Greek: 5e-3 keeps the first derivatives near 1e-10 of their scale.
constexpr double greek_step = 5e-3;
/// Gamma's second difference is more exposed to round-off than a first difference, so it takes
/// a step twice as long: over a grid of spots, maturities and vols this halved the worst gamma
/// error of cash_or_nothing_greeks against the closed-form derivative (factors 1, 2, 4, 8 gave
/// 1.1e-9, 1.9e-10, 8.9e-10, 1.4e-8 of cash / (S sigma sqrt T)^2).
constexpr double gamma_step_factor = 2.0;

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

GreekSteps greek_steps(double spot, double log_forward_over_strike, double stddev, double sigma,
                       double T, double time_scale) {
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

OptionKind other_kind(OptionKind kind) {
  return kind == OptionKind::call ? OptionKind::put : OptionKind::call;
}

// ---- barriers ------------------------------------------------------------------------------

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

// ---- Heston --------------------------------------------------------------------------------

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

} // namespace

// ---- public functions ----------------------------------------------------------------------

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

double kemna_vorst(OptionKind kind, double spot, double strike, double T, double r, double q,
                   double sigma) {
  require_market("kemna_vorst", spot, strike, T, r, q, sigma);
  const double carry = r - q;
  const double forward = spot * std::exp(0.5 * (carry - sigma * sigma / 6.0) * T);
  return black_forward(kind, forward, strike, sigma * std::sqrt(T / 3.0), std::exp(-r * T));
}

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

double heston(OptionKind kind, double spot, double strike, double T, double r, double q, double v0,
              double kappa, double theta, double xi, double rho) {
  const char* function = "heston";
  require_positive(function, "spot", spot);
  require_positive(function, "strike", strike);
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
