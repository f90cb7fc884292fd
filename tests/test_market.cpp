// Market data to models (engine/market/): implied vols and Heston calibration, against QuantLib's
// calibrations of the same quotes (tests/heston_calibration_references.hpp, written by
// tests/references/quantlib_heston_calibration.py).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "config/run_config.hpp"
#include "engine/analytic/analytic.hpp"
#include "engine/market/arbitrage.hpp"
#include "engine/market/dupire.hpp"
#include "engine/market/heston_calibration.hpp"
#include "engine/market/implied_vol.hpp"
#include "engine/market/ssvi.hpp"
#include "heston_calibration_references.hpp"
#include "local_vol_references.hpp"

namespace pfmc {
namespace {

using analytic::OptionKind;
namespace ref = testing::calibration;

TEST(ImpliedVol, InvertsBlackAcrossStrikesExpiriesAndVols) {
  // Black's price at a vol, then back: deep in and out of the money, short and long, low and
  // high vols, both kinds (the in-the-money side through parity).
  int checked = 0;
  for (const double T : {1.0 / 365, 0.1, 1.0, 10.0})
    for (const double vol : {0.02, 0.2, 1.5})
      for (const double moneyness : {-4.0, -1.0, 0.0, 0.5, 3.0}) {
        const double forward = 100.0, discount = 0.97;
        const double strike = forward * std::exp(moneyness * vol * std::sqrt(T));
        for (const OptionKind kind : {OptionKind::call, OptionKind::put}) {
          const double price = market::black_price(kind, forward, strike, T, vol, discount);
          const double otm =
              market::black_price(strike >= forward ? OptionKind::call : OptionKind::put, forward,
                                  strike, T, vol, discount);
          // Below a time value of 1e-12 of the forward no double carries the vol.
          if (otm < 1e-12 * forward)
            continue;
          // The price's rounding (an in-the-money price holds forward - strike beside its time
          // value) over the vega: where the vega is small the vol is held to less.
          const double rounding = 4e-16 * discount * (forward + strike + otm / discount);
          EXPECT_NEAR(market::implied_vol(kind, price, forward, strike, T, discount), vol,
                      1e-9 * vol + rounding / market::black_vega(forward, strike, T, vol, discount))
              << "T " << T << " vol " << vol << " strike " << strike;
          ++checked;
        }
      }
  EXPECT_GT(checked, 100);
  // Black with a discount and a forward is Black-Scholes-Merton.
  const double T = 0.7, r = 0.03, q = 0.01, spot = 100.0;
  EXPECT_NEAR(market::black_price(OptionKind::put, spot * std::exp((r - q) * T), 90.0, T, 0.25,
                                  std::exp(-r * T)),
              analytic::black_scholes(OptionKind::put, spot, 90.0, T, r, q, 0.25), 1e-12);
}

TEST(ImpliedVol, RefusesPricesOutsideTheArbitrageBounds) {
  const double forward = 100.0, discount = 0.9;
  // A call at or below its discounted intrinsic value, at or above the discounted forward.
  EXPECT_THROW(market::implied_vol(OptionKind::call, 0.9 * 20.0, forward, 80.0, 1.0, discount),
               std::invalid_argument);
  EXPECT_THROW(market::implied_vol(OptionKind::call, 90.0, forward, 80.0, 1.0, discount),
               std::invalid_argument);
  EXPECT_THROW(market::implied_vol(OptionKind::put, -1.0, forward, 80.0, 1.0, discount),
               std::invalid_argument);
  EXPECT_THROW(market::implied_vol(OptionKind::put, 1.0, forward, 80.0, 0.0, discount),
               std::invalid_argument);
}

TEST(HestonSmile, PricesEachStrikeAsHestonDoesAlone) {
  // analytic::heston_smile shares its quadrature points among the strikes; each price must stay
  // within heston()'s own error bound of the strike's price alone: 1e-13 sqrt(F K) / pi on the
  // integral's share, under 1e-11 for F, K <= 300.
  std::vector<analytic::OptionKind> kinds;
  std::vector<double> strikes;
  for (double strike = 40.0; strike <= 250.0; strike += 7.0) {
    kinds.push_back(strike >= 100.0 ? analytic::OptionKind::call : analytic::OptionKind::put);
    strikes.push_back(strike);
  }
  for (const double T : {0.01, 0.3, 2.0, 10.0}) {
    const auto smile =
        analytic::heston_smile(kinds, strikes, 100.0, T, 0.03, 0.01, 0.05, 2.0, 0.04, 0.9, -0.8);
    for (std::size_t j = 0; j < strikes.size(); ++j)
      EXPECT_NEAR(
          smile[j],
          analytic::heston(kinds[j], 100.0, strikes[j], T, 0.03, 0.01, 0.05, 2.0, 0.04, 0.9, -0.8),
          1e-11)
          << "T " << T << " strike " << strikes[j];
  }
}

market::QuoteMarket reference_market() {
  market::QuoteMarket m;
  m.spot = ref::kSpot;
  m.dividend_yield = ref::kDividend;
  m.zero_rates.values = {ref::kRate};
  return m;
}

std::vector<market::VolQuote> quotes_of(const std::vector<ref::CalibrationQuote>& table) {
  std::vector<market::VolQuote> quotes;
  for (const auto& q : table)
    quotes.push_back({q.days / 365.0, q.strike, q.vol});
  return quotes;
}

/// The start QuantLib's calibrations began from (tests/references/...: START).
market::HestonCalibrationOptions reference_start() {
  market::HestonCalibrationOptions o;
  o.start = {0.04, 1.5, 0.04, 0.6, -0.5, config::HestonScheme::qe};
  return o;
}

TEST(HestonCalibration, RecoversTheModelBehindItsOwnQuotes) {
  // 45 noiseless quotes (5 expiries x 9 strikes) of a Heston model priced by QuantLib: the
  // parameters within 1e-3 relative (issue 62), the fit within 0.05 vol points.
  const auto fit = market::calibrate_heston(quotes_of(ref::kHestonQuotes), reference_market(),
                                            reference_start());
  const double truth[5] = {ref::kTruth[0], ref::kTruth[1], ref::kTruth[2], ref::kTruth[3],
                           ref::kTruth[4]};
  const double got[5] = {fit.parameters.v0, fit.parameters.kappa, fit.parameters.theta,
                         fit.parameters.xi, fit.parameters.rho};
  for (int i = 0; i < 5; ++i)
    EXPECT_NEAR(got[i], truth[i], 1e-3 * std::abs(truth[i])) << "parameter " << i;
  EXPECT_LE(fit.rmse_vol_points, 0.05);
  EXPECT_LE(fit.rmse_vol_points, ref::kHestonQuantLibRmse + 0.01);
  EXPECT_EQ(fit.model_vols.size(), ref::kHestonQuotes.size());
  EXPECT_FALSE(fit.feller()); // 2 x 1.5 x 0.06 = 0.18 < 0.25
}

TEST(HestonCalibration, FitsAnSsviSmileNoWorseThanQuantLib) {
  // No Heston model fits an SSVI surface: the residual is the models' difference. pfmc's RMSE at
  // most 0.1% above QuantLib's on the same quotes: both stop where the RMSE changes in its 6th
  // digit, and a fit of the first-order (vega-weighted) errors alone ends 1.1% above it.
  const auto fit =
      market::calibrate_heston(quotes_of(ref::kSsviQuotes), reference_market(), reference_start());
  EXPECT_LE(fit.rmse_vol_points, ref::kSsviQuantLibRmse * 1.001);
  EXPECT_GT(fit.rmse_vol_points, 0.1); // the smile is not a Heston one
  // Each quote's error as reported: the model's implied vol minus the quote's.
  double squares = 0.0;
  for (std::size_t i = 0; i < fit.model_vols.size(); ++i) {
    const double error = 100.0 * (fit.model_vols[i] - ref::kSsviQuotes[i].vol);
    squares += error * error;
  }
  EXPECT_NEAR(std::sqrt(squares / fit.model_vols.size()), fit.rmse_vol_points, 1e-12);
}

TEST(QuoteCoordinates, LogMoneynessAndDeltasBecomeTheirStrikes) {
  // Each quote of the SSVI smile given again by its forward log-moneyness and by its forward
  // call delta (computed here from its strike, with the Black formula's d1): vol_quotes gives
  // back its strike, and the fits of the three sets agree.
  const market::QuoteMarket on = reference_market();
  const std::vector<market::VolQuote> strikes = quotes_of(ref::kSsviQuotes);
  config::ImpliedVols by_k, by_delta;
  by_k.coordinate = config::QuoteCoordinate::log_moneyness;
  by_delta.coordinate = config::QuoteCoordinate::delta;
  for (const auto& q : strikes) {
    const double F = market::forward_of(on, q.expiry);
    const double sd = q.vol * std::sqrt(q.expiry);
    const double d1 = (std::log(F / q.strike) + 0.5 * sd * sd) / sd;
    by_k.quotes.push_back({q.expiry, std::log(q.strike / F), q.vol, {}});
    by_delta.quotes.push_back({q.expiry, analytic::normal_cdf(d1), q.vol, {}});
  }
  const auto from_k = market::vol_quotes(by_k, on);
  const auto from_delta = market::vol_quotes(by_delta, on);
  ASSERT_EQ(from_k.size(), strikes.size());
  for (std::size_t i = 0; i < strikes.size(); ++i) {
    EXPECT_NEAR(from_k[i].strike, strikes[i].strike, 1e-12 * strikes[i].strike) << i;
    // A delta's round trip through N and Eigen's ndtri: both to about 1e-16, so a strike to
    // 1e-15 relative at these quotes' |d1| <= 3.9 (sd dK/K = d(d1) = dN / N'(d1), N' >= 2e-4).
    EXPECT_NEAR(from_delta[i].strike, strikes[i].strike, 1e-12 * strikes[i].strike) << i;
  }
  const auto fit = market::fit_ssvi(strikes, on);
  EXPECT_NEAR(market::fit_ssvi(from_k, on).rmse_vol_points, fit.rmse_vol_points, 1e-9);
  EXPECT_NEAR(market::fit_ssvi(from_delta, on).rmse_vol_points, fit.rmse_vol_points, 1e-9);
}

TEST(HestonCalibration, ImposesFellerOnlyWhenAsked) {
  auto options = reference_start();
  const auto free_fit =
      market::calibrate_heston(quotes_of(ref::kSsviQuotes), reference_market(), options);
  options.impose_feller = true;
  const auto feller_fit =
      market::calibrate_heston(quotes_of(ref::kSsviQuotes), reference_market(), options);
  EXPECT_FALSE(free_fit.feller());
  EXPECT_TRUE(feller_fit.feller());
  EXPECT_GE(feller_fit.rmse_vol_points, free_fit.rmse_vol_points);
}

TEST(HestonCalibration, RefusesTooFewOrBadQuotes) {
  auto quotes = quotes_of(ref::kHestonQuotes);
  quotes.resize(4);
  EXPECT_THROW(market::calibrate_heston(quotes, reference_market()), std::invalid_argument);
  quotes = quotes_of(ref::kHestonQuotes);
  quotes[3].vol = 0.0;
  EXPECT_THROW(market::calibrate_heston(quotes, reference_market()), std::invalid_argument);
}

TEST(Arbitrage, AnArbitrageFreeSurfaceHasNone) {
  // SSVI with eta (1 + |rho|) <= 2 is free of static arbitrage (Gatheral and Jacquier 2014,
  // Theorem 4.2), and a Heston model's smiles are: neither set of reference quotes has any.
  EXPECT_TRUE(market::find_arbitrage(quotes_of(ref::kSsviQuotes), reference_market()).empty());
  EXPECT_TRUE(market::find_arbitrage(quotes_of(ref::kHestonQuotes), reference_market()).empty());
}

TEST(Arbitrage, APlantedCalendarInversionIsNamed) {
  // The 30-day at-the-money vol raised until its total variance passes the 91-day one's.
  auto quotes = quotes_of(ref::kSsviQuotes);
  std::size_t planted = 0;
  for (std::size_t i = 0; i < quotes.size(); ++i) {
    if (ref::kSsviQuotes[i].days == 30 && quotes[i].strike == 100.0)
      planted = i;
  }
  quotes[planted].vol = 0.45; // w = 0.45^2 x 30/365 = 0.0166 > 0.22^2 x 91/365 = 0.0121
  const auto found = market::find_arbitrage(quotes, reference_market());
  bool named = false;
  for (const auto& v : found) {
    if (v.kind == market::ArbitrageViolation::Kind::calendar &&
        std::find(v.quotes.begin(), v.quotes.end(), planted) != v.quotes.end())
      named = true;
  }
  EXPECT_TRUE(named);
  for (const auto& v : found) // the dent a vol of 0.45 makes in its own smile is a butterfly too
    EXPECT_NE(std::find(v.quotes.begin(), v.quotes.end(), planted), v.quotes.end()) << v.what;
}

TEST(Arbitrage, APlantedButterflyDentIsNamed) {
  // One-year, strike 105: its vol raised 4 points above its neighbours' chord makes the call
  // price lie above the chord of the calls at 100 and 110.
  auto quotes = quotes_of(ref::kSsviQuotes);
  std::size_t planted = 0;
  for (std::size_t i = 0; i < quotes.size(); ++i) {
    if (ref::kSsviQuotes[i].days == 365 && quotes[i].strike == 105.0)
      planted = i;
  }
  quotes[planted].vol += 0.04;
  const auto found = market::find_arbitrage(quotes, reference_market());
  ASSERT_FALSE(found.empty());
  bool named = false;
  for (const auto& v : found) {
    if (v.kind == market::ArbitrageViolation::Kind::butterfly && v.quotes.size() == 3 &&
        v.quotes[1] == planted)
      named = true;
  }
  EXPECT_TRUE(named);
}

TEST(Ssvi, RecoversTheSurfaceBehindItsOwnQuotes) {
  // The reference's SSVI quotes (rho -0.6, eta 1.2, gamma 0.45; tests/references/...): the
  // fit is that surface, to the quotes' double precision.
  const auto fit = market::fit_ssvi(quotes_of(ref::kSsviQuotes), reference_market());
  EXPECT_NEAR(fit.surface.rho, -0.6, 1e-9);
  EXPECT_NEAR(fit.surface.eta, 1.2, 1e-9);
  EXPECT_NEAR(fit.surface.gamma, 0.45, 1e-9);
  EXPECT_LE(fit.rmse_vol_points, 1e-8);
}

TEST(Ssvi, AFitToAnotherModelsSmileStaysFreeOfArbitrage) {
  // Heston's smiles are not SSVI's: the fit keeps the parameters where SSVI has no static
  // arbitrage (theta rising, gamma <= 1/2, eta (1 + |rho|) <= 2), and a dense grid of its own
  // prices shows none to the checks.
  const auto fit = market::fit_ssvi(quotes_of(ref::kHestonQuotes), reference_market());
  const auto& s = fit.surface;
  EXPECT_LE(fit.rmse_vol_points, 1.0);
  EXPECT_GT(fit.rmse_vol_points, 0.01);
  EXPECT_LE(s.gamma, 0.5);
  EXPECT_LE(s.eta * (1.0 + std::abs(s.rho)), 2.0);
  for (std::size_t i = 1; i < s.theta.size(); ++i)
    EXPECT_GE(s.theta[i], s.theta[i - 1]);
  std::vector<market::VolQuote> dense;
  for (const double T : {0.05, 0.1, 0.3, 0.7, 1.0, 1.5, 2.0, 3.0})
    for (double strike = 50.0; strike <= 200.0; strike += 2.5)
      dense.push_back(
          {T, strike, s.vol(T, std::log(strike / market::forward_of(reference_market(), T)))});
  EXPECT_TRUE(market::find_arbitrage(dense, reference_market(), 1e-12).empty());
}

TEST(Dupire, LocalVolIsTheTotalVarianceFormulaOfTheSurfacesDifferences) {
  // SsviSurface::local_vol from its closed-form derivatives against the same formula on central
  // differences of the surface's vols alone (step 1e-4 in k and T: an error of about 1e-7).
  const auto fit = market::fit_ssvi(quotes_of(ref::kHestonQuotes), reference_market());
  const auto& s = fit.surface;
  const auto w = [&](double T, double k) { return s.vol(T, k) * s.vol(T, k) * T; };
  for (const double T : {0.05, 0.2, 0.6, 1.2, 1.9})
    for (const double k : {-0.4, -0.15, 0.0, 0.1, 0.3}) {
      const double h = 1e-4;
      const double w0 = w(T, k), wk = (w(T, k + h) - w(T, k - h)) / (2 * h);
      const double wkk = (w(T, k + h) - 2 * w0 + w(T, k - h)) / (h * h);
      const double wT = (w(T + h, k) - w(T - h, k)) / (2 * h);
      const double denominator =
          1.0 - k * wk / w0 + 0.25 * wk * wk * (-0.25 - 1.0 / w0 + k * k / (w0 * w0)) + 0.5 * wkk;
      EXPECT_NEAR(s.local_vol(T, k), std::sqrt(wT / denominator), 1e-5) << "T " << T << " k " << k;
    }
  // A flat surface's local vol is its vol: SSVI with eta -> 0 is flat in k.
  market::SsviSurface flat;
  flat.expiries = {1.0};
  flat.theta = {0.04};
  flat.eta = 1e-9;
  flat.gamma = 0.5;
  EXPECT_NEAR(flat.local_vol(0.5, 0.2), 0.2, 1e-7);
}

TEST(Dupire, LocalVolMatchesQuantLibsOnTheSameSurface) {
  // QuantLib's LocalVolSurface (finite differences of a dense bicubic Black variance surface) on
  // the SSVI surface the reference quotes come from, which the fit recovers (its parameters
  // within 1e-9). Allowance: twice the dense grid's difference from one twice as coarse (a
  // second-order grid's own error is about a quarter of that difference).
  const auto fit = market::fit_ssvi(quotes_of(ref::kSsviQuotes), reference_market());
  const double allowance = 2.0 * ref::kQuantLibGridSpread;
  for (const auto& p : ref::kQuantLibLocalVols)
    EXPECT_NEAR(fit.surface.local_vol(p.T, p.k), p.vol, allowance) << "T " << p.T << " k " << p.k;
}

TEST(Dupire, TheGridCoversTheQuotesAndKeepsItsKnotLimit) {
  const auto fit = market::fit_ssvi(quotes_of(ref::kSsviQuotes), reference_market());
  const auto grid = market::dupire_grid(fit.surface, -0.5, 0.3);
  EXPECT_EQ(grid.times.size(),
            market::kShortRows + fit.surface.expiries.size() * market::kTimesPerSpan);
  EXPECT_NEAR(grid.times.front(), fit.surface.expiries.front() / 64.0, 1e-15);
  for (std::size_t i = 1; i < grid.times.size(); ++i)
    EXPECT_GT(grid.times[i], grid.times[i - 1]);
  EXPECT_EQ(grid.log_moneyness.size(), static_cast<std::size_t>(config::kMaxSurfaceKnots));
  EXPECT_NEAR(grid.log_moneyness.front(), -0.7, 1e-12);
  EXPECT_NEAR(grid.log_moneyness.back(), 0.5, 1e-12);
  // Crowded at the money: the knots beside it a quarter of the first expiry's at-the-money
  // standard deviation apart (to the sinh map's curvature over one step), the outer ones wider.
  const double wanted = 0.25 * std::sqrt(fit.surface.theta.front());
  const std::size_t middle = grid.log_moneyness.size() / 2;
  const double inner = grid.log_moneyness[middle] - grid.log_moneyness[middle - 1];
  EXPECT_NEAR(inner, wanted, 0.2 * wanted);
  EXPECT_GT(grid.log_moneyness[1] - grid.log_moneyness[0], 4.0 * inner);
  for (std::size_t j = 1; j < grid.log_moneyness.size(); ++j)
    EXPECT_GT(grid.log_moneyness[j], grid.log_moneyness[j - 1]);
  EXPECT_LT(grid.times.back(), fit.surface.expiries.back());
  EXPECT_NEAR(grid.vols[4][10], fit.surface.local_vol(grid.times[4], grid.log_moneyness[10]),
              1e-15);
}

} // namespace
} // namespace pfmc
