#pragma once
// An arbitrage-free implied-vol surface fitted to quotes: SSVI (Gatheral and Jacquier 2014),
//   w(k, theta) = theta / 2 (1 + rho phi k + sqrt((phi k + rho)^2 + 1 - rho^2)),
//   phi(theta) = eta theta^-gamma,
// the total implied variance w = vol^2 T at forward log-moneyness k = ln(K / F(T)), theta_T the
// at-the-money total variance. Why SSVI rather than a slice of SVI an expiry: one surface whose
// absence of static arbitrage is a condition on its parameters, not a check after the fit —
// calendar arbitrage is absent when theta_T does not fall (fitted as increments), butterfly
// arbitrage when gamma is in (0, 1/2] and eta (1 + |rho|) <= 2 (the paper's Remark 4.4, the
// power-law phi) — with 3 + (one a expiry) parameters, where SVI has 5 an expiry and needs its
// no-arbitrage constraints imposed slice by slice and between slices. Its price: one skew shape
// (rho) for every expiry, which an index's term structure of skew strains (the fit's error says
// by how much). Between the quoted expiries theta is linear in T (from 0 at T = 0), beyond the
// last it goes on at the last slope.

#include <vector>

#include "engine/market/heston_calibration.hpp"

namespace pfmc::market {

struct SsviSurface {
  std::vector<double> expiries; ///< the quotes' expiries, increasing
  std::vector<double> theta;    ///< the at-the-money total variance at each, non-decreasing
  double rho = 0.0;
  double eta = 0.0;
  double gamma = 0.0;

  [[nodiscard]] double theta_at(double T) const;
  [[nodiscard]] double theta_slope_at(double T) const; ///< d theta / dT (right derivative)
  /// w(k, theta_T) and its derivatives in k (w_k, w_kk) and in T (w_T).
  struct Slice {
    double w, w_k, w_kk, w_T;
  };
  [[nodiscard]] Slice at(double T, double k) const;
  [[nodiscard]] double vol(double T, double k) const; ///< sqrt(w / T)
  /// Dupire's local vol at (T, k) in total-variance form (Gatheral's 1.10):
  ///   sigma^2 = w_T / (1 - k w_k / w + w_k^2 (-1/4 - 1/w + k^2 / w^2) / 4 + w_kk / 2)
  /// NaN where the denominator is not positive (a density that is not: SSVI's conditions keep
  /// it positive).
  [[nodiscard]] double local_vol(double T, double k) const;
};

struct SsviFit : VolFitError { // the surface's vols at the quotes
  SsviSurface surface;
  int evaluations = 0;
};

/// The SSVI surface nearest the quotes in vol (least squares, Eigen's Levenberg-Marquardt), its
/// parameters kept where the surface is free of static arbitrage. std::invalid_argument for
/// fewer quotes than parameters or a quote that is not positive.
SsviFit fit_ssvi(const std::vector<VolQuote>& quotes, const QuoteMarket& market);

} // namespace pfmc::market
