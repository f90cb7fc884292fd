#pragma once
// Closed-form and semi-analytic prices, host-only. They are the references the Monte Carlo tests
// compare with, and the planner's control-variate means (engine/plan/controls.cpp), so each
// function says which published formula and convention it implements. One file per topic:
// normal.cpp (the normal distributions), black_scholes.cpp (Black-Scholes, Black, digitals),
// asian.cpp (geometric averages), barrier.cpp, heston.cpp, two_asset.cpp (Stulz, Margrabe).
//
// Conventions shared by every function below:
//   - rates r and q are continuously compounded and flat; cost of carry b = r - q (Haug's b);
//   - T is the time to expiry in years, sigma the annual lognormal volatility;
//   - prices are present values at t = 0.
// Inputs that make no sense (T <= 0, sigma <= 0, spot/strike/barrier <= 0, |rho| > 1, NaN...)
// throw std::invalid_argument with a message that names the input.

#include <vector>

namespace pfmc::analytic {

enum class OptionKind { call, put };
enum class BarrierKind { down_and_in, down_and_out, up_and_in, up_and_out };

/// Standard normal cumulative distribution, through erfc so that the lower tail keeps its
/// relative accuracy (1 - 0.5 erfc would lose it below about -8).
double normal_cdf(double x);

/// Standard normal density.
double normal_pdf(double x);

/// P(X < a, Y < b) for standard normals with correlation rho in [-1, 1], to about 1e-14 absolute.
/// Integrates Plackett's identity dPhi2/drho = phi2 over theta = asin(rho) with adaptive
/// Gauss-Legendre quadrature, which stays accurate as |rho| -> 1 (where fixed rules fail).
double bivariate_normal_cdf(double a, double b, double rho);

/// Black-Scholes-Merton European price with continuous dividend yield q.
double black_scholes(OptionKind kind, double spot, double strike, double T, double r, double q,
                     double sigma);

/// Black-Scholes-Merton sensitivities, in the units Hull uses:
/// vega = dV/dsigma per unit of volatility (1.0 = 100 vol points), rho = dV/dr per unit of rate,
/// theta = dV/dt per year with the calendar moving forward, i.e. -dV/dT.
struct Greeks {
  double delta;
  double gamma;
  double vega;
  double rho;
  double theta;
};
Greeks black_scholes_greeks(OptionKind kind, double spot, double strike, double T, double r,
                            double q, double sigma);

/// Cash-or-nothing digital (Reiner-Rubinstein 1991, as in Haug's Complete Guide): pays `cash` at T
/// when S_T > strike (call) or S_T < strike (put).
double cash_or_nothing(OptionKind kind, double spot, double strike, double T, double r, double q,
                       double sigma, double cash);

/// Greeks of cash_or_nothing, same units as black_scholes_greeks. Computed by Richardson-
/// extrapolated central differences of cash_or_nothing (error O(h^4)), each step a fixed fraction
/// of the input's natural scale (spot: S sigma sqrt(T); sigma: sigma; r: sigma/sqrt(T) capped by
/// 1/T; T: T), shrunk away from the money, and always on the cheaper of call and put (the other
/// follows from call + put = cash e^{-rT}). Against the closed-form derivatives over S = 60..150,
/// K = 100, T = 0.02..5, sigma = 0.1..0.6 the worst error is 2e-10 of each Greek's natural scale
/// (delta: cash / (S sigma sqrt T), gamma: that / (S sigma sqrt T), vega: cash / sigma, rho:
/// cash T, theta: cash / T). A reference for Monte Carlo Greeks, not for a loop (21 prices a call).
Greeks cash_or_nothing_greeks(OptionKind kind, double spot, double strike, double T, double r,
                              double q, double sigma, double cash);

/// discount * E[(phi (e^X - strike))^+] for X ~ N(mean_log, var_log): Black's formula on a
/// lognormal given the moments of its log. var_log == 0 gives discount * (phi (e^mean_log - K))^+.
/// Black-Scholes is mean_log = log S + (r - q - sigma^2/2) T, var_log = sigma^2 T,
/// discount = e^{-rT}; a discrete geometric average takes geometric_average_log_moments.
double black_lognormal(OptionKind kind, double mean_log, double var_log, double strike,
                       double discount);

/// Option on the geometric average of S over the given fixing times (0 <= t_i <= T, any order,
/// repeats allowed), paid at T. Exact under Black-Scholes: log G is normal with mean
/// log S + (r - q - sigma^2/2) * mean(t_i) and variance sigma^2/n^2 * sum_ij min(t_i, t_j).
/// One fixing at T gives black_scholes; many equally spaced fixings tend to kemna_vorst.
double geometric_asian_discrete(OptionKind kind, double spot, double strike, double r, double q,
                                double sigma, const std::vector<double>& fixing_times, double T);

/// Mean and variance of log G, G the geometric average of S over the fixing times (each >= 0, any
/// order, repeats allowed), under Black-Scholes: the moments geometric_asian_discrete prices with,
/// and what black_lognormal needs for a control-variate mean, E[G] = exp(mean_log + var_log / 2).
struct LogMoments {
  double mean_log;
  double var_log;
};
LogMoments geometric_average_log_moments(double spot, double r, double q, double sigma,
                                         const std::vector<double>& fixing_times);

/// Greeks of geometric_asian_discrete, by Richardson-extrapolated central differences of it as for
/// cash_or_nothing_greeks, on the cheaper of call and put (call - put is the forward
/// e^{-rT} (E[G] - K)). Against the closed-form derivatives over the same grid (monthly fixings)
/// the worst error is 5e-9 of each Greek's natural scale (delta: K e^{-rT} / S, gamma: that /
/// (S stddev(log G)), vega: K e^{-rT}, rho: K e^{-rT} T, theta: K e^{-rT} / T).
/// theta is d/dt with the fixing schedule fixed in calendar time: T and every fixing time after
/// today shrink together, while a fixing at 0 (today, already known and equal to the unchanged
/// spot) stays at 0. With one fixing at T this is the Black-Scholes theta.
Greeks geometric_asian_discrete_greeks(OptionKind kind, double spot, double strike, double r,
                                       double q, double sigma,
                                       const std::vector<double>& fixing_times, double T);

/// Kemna-Vorst (1990): option on the continuous geometric average over [0, T]. Equals Black-
/// Scholes with volatility sigma/sqrt(3) and carry (b - sigma^2/6)/2, as Haug's Complete Guide
/// writes it.
double kemna_vorst(OptionKind kind, double spot, double strike, double T, double r, double q,
                   double sigma);

/// Reiner-Rubinstein (1991) continuously monitored single barrier with a cash rebate, in the form
/// Haug's Complete Guide tabulates (terms A..F). Published rebate convention: an out option pays
/// the rebate at the moment the barrier is hit; an in option that never knocks in pays it at T. A
/// spot already on or beyond the barrier has crossed it: out -> rebate now, in -> vanilla.
/// The rebate-at-hit term needs mu^2 + 2r/sigma^2 >= 0 (mu = (b - sigma^2/2)/sigma^2); a rate
/// negative enough to break that, with a rebate on an out option, throws std::invalid_argument.
double reiner_rubinstein(OptionKind kind, BarrierKind barrier_kind, double spot, double strike,
                         double barrier, double rebate, double T, double r, double q, double sigma);

/// Same as reiner_rubinstein, except that every rebate (in or out) is paid at T: this is what
/// pfmc's discretely monitored barrier pays, and it makes in + out = vanilla + rebate e^{-rT}.
/// A spot already beyond the barrier: out -> rebate e^{-rT}, in -> vanilla.
double reiner_rubinstein_rebate_at_expiry(OptionKind kind, BarrierKind barrier_kind, double spot,
                                          double strike, double barrier, double rebate, double T,
                                          double r, double q, double sigma);

/// Broadie-Glasserman-Kou (1997) continuity correction: a barrier monitored every dt prices like
/// a continuous barrier moved away from the spot by exp(0.5826 sigma sqrt(dt)), up for up barriers
/// and down for down barriers. 0.5826 = -zeta(1/2)/sqrt(2 pi), rounded as the paper prints it.
double bgk_shifted_barrier(BarrierKind barrier_kind, double barrier, double sigma, double dt);

/// Heston (1993) European option, semi-analytic. The call comes from Lewis's (2001) single
/// integral over the characteristic function of log(S_T / F), written in the "little Heston trap"
/// form of Albrecher et al. (2007) (continuous in u, no branch-cut jumps); the put from parity.
/// xi is the volatility of variance, rho the spot/variance correlation; all of v0, theta >= 0,
/// kappa, xi > 0. Absolute accuracy about 1e-10 for ordinary parameters.
double heston(OptionKind kind, double spot, double strike, double T, double r, double q, double v0,
              double kappa, double theta, double xi, double rho);

/// heston() at several strikes of one expiry (kinds[j] at strikes[j]), at the cost of about one:
/// the integrals share their quadrature points (adapted to all of them together), so the
/// characteristic function is evaluated once a point. `tolerance` bounds the integral's error
/// as heston()'s 1e-13 does (its price error at most tolerance sqrt(F K) / pi): the default is
/// heston()'s accuracy; the calibrations ask for 1e-10 (engine/market/heston_calibration.cpp).
std::vector<double> heston_smile(const std::vector<OptionKind>& kinds,
                                 const std::vector<double>& strikes, double spot, double T,
                                 double r, double q, double v0, double kappa, double theta,
                                 double xi, double rho, double tolerance = 1e-13);

/// Stulz (1982) European call on max(S1, S2), in the bivariate-normal form of Haug's Complete
/// Guide.
double stulz_max_call(double s1, double s2, double strike, double T, double r, double q1, double q2,
                      double sigma1, double sigma2, double rho);

/// Stulz (1982) European call on min(S1, S2). max_call + min_call = call(S1) + call(S2).
double stulz_min_call(double s1, double s2, double strike, double T, double r, double q1, double q2,
                      double sigma1, double sigma2, double rho);

/// Margrabe (1978) option to exchange S2 for S1 at T, pays (S1_T - S2_T)^+: the rate cancels, only
/// the dividend yields and the volatility of S1/S2, sigma1^2 + sigma2^2 - 2 rho sigma1 sigma2,
/// enter.
double margrabe_exchange(double s1, double s2, double T, double q1, double q2, double sigma1,
                         double sigma2, double rho);

/// Stulz (1982) European put on max(S1, S2), from parity: max_call - max_put = PV(max) - K e^{-rT},
/// with PV(max(S1, S2)) = S2 e^{-q2 T} + margrabe_exchange.
double stulz_max_put(double s1, double s2, double strike, double T, double r, double q1, double q2,
                     double sigma1, double sigma2, double rho);

/// Stulz (1982) European put on min(S1, S2), from parity: min_call - min_put = PV(min) - K e^{-rT},
/// with PV(min(S1, S2)) = S1 e^{-q1 T} - margrabe_exchange.
double stulz_min_put(double s1, double s2, double strike, double T, double r, double q1, double q2,
                     double sigma1, double sigma2, double rho);

} // namespace pfmc::analytic
