#pragma once
// Heston's five parameters fitted to implied-vol quotes: Levenberg-Marquardt (Eigen's MINPACK
// port, unsupported/Eigen/NonLinearOptimization) on the semi-analytic Heston prices
// (engine/analytic/heston.cpp) of each quote's out-of-the-money option, each residual the price
// error over the quote's Black vega (a vol error, to first order: the vega weighting that keeps
// the wings from being ignored). The parameters are fitted through transforms that keep them
// valid (v0, kappa, theta, xi > 0 by their logs, |rho| < 1 by a tanh); the Feller condition
// 2 kappa theta >= xi^2 is reported, and imposed only when asked (then xi is fitted as a
// fraction of sqrt(2 kappa theta)).

#include <string>
#include <vector>

#include "config/run_config.hpp"

namespace pfmc::market {

/// One quote: the Black vol of the European option at (expiry, strike).
struct VolQuote {
  double expiry = 0.0; ///< years, > 0
  double strike = 0.0; ///< > 0
  double vol = 0.0;    ///< annual Black vol, > 0
};

/// std::invalid_argument unless the quote's expiry, strike and vol are all positive.
void check_quote(const VolQuote& quote);

/// A fit's implied vols at the quotes and its error there in vol points (100 x model - quote),
/// as the SSVI surface (engine/market/ssvi.hpp) and the Heston calibration report it.
struct VolFitError {
  std::vector<double> model_vols; ///< the fit's implied vol at each quote, in the quotes' order
  double rmse_vol_points = 0.0;   ///< root mean square of model - quote, in vol points
  double max_error_vol_points = 0.0;
};

/// The errors of `model_vols` (one a quote, in the quotes' order) against the quotes' vols.
VolFitError vol_fit_error(std::vector<double> model_vols, const std::vector<VolQuote>& quotes);

/// What the quotes are on: the underlying's spot and dividend yield and the zero curve.
struct QuoteMarket {
  double spot = 0.0;
  double dividend_yield = 0.0;
  config::TermStructure zero_rates; ///< the run's curve (flat, or pillars)
};

struct HestonCalibrationOptions {
  /// Where the search starts; v0 or theta at 0: the squared vol of the quote nearest the money of
  /// the first (v0) or last (theta) expiry.
  config::HestonParameters start{0.0, 1.5, 0.0, 0.6, -0.5, config::HestonScheme::qe};
  bool impose_feller = false;
  int max_evaluations = 4000; ///< of the residuals, the Jacobian's columns included
};

struct HestonCalibration : VolFitError { // the fitted model's vols at the quotes
  config::HestonParameters parameters;
  int evaluations = 0;
  std::string stop; ///< why the search stopped, in the words of MINPACK's status
  [[nodiscard]] bool feller() const {
    return 2.0 * parameters.kappa * parameters.theta >= parameters.xi * parameters.xi;
  }
};

/// std::invalid_argument for fewer than five quotes or a quote that is not positive.
HestonCalibration calibrate_heston(const std::vector<VolQuote>& quotes, const QuoteMarket& market,
                                   const HestonCalibrationOptions& options = {});

/// The market of an underlying's quotes in a run's config.
QuoteMarket quote_market(const config::Underlying& underlying,
                         const config::TermStructure& zero_rates);

/// The forward F(0, T) and discount factor to T of `market`.
double forward_of(const QuoteMarket& market, double T);
double discount_of(const QuoteMarket& market, double T);

/// A set's quotes at strikes, in order: a strike as given, a forward log-moneyness k at
/// F(T) e^k, a forward call delta at the strike whose N(d1) it is under the quote's own vol,
/// F(T) exp(-vol sqrt(T) N^-1(delta) + vol^2 T / 2) (N^-1: Eigen's ndtri).
std::vector<VolQuote> vol_quotes(const config::ImpliedVols& set, const QuoteMarket& market);

} // namespace pfmc::market
