#include "engine/market/dupire.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace pfmc::market {

config::LocalVolSurface dupire_grid(const SsviSurface& surface, double lowest_moneyness,
                                    double highest_moneyness) {
  config::LocalVolSurface grid;
  // Before the first expiry the smile scales with sqrt(t) (theta is linear from 0): the local
  // vol at a fixed k changes fastest as t -> 0, so the rows there halve towards 0.
  const double first = surface.expiries.front();
  for (int j = kShortRows; j >= 1; --j)
    grid.times.push_back(first * std::ldexp(1.0, -j));
  double start = 0.5 * first;
  for (const double expiry : surface.expiries) {
    for (int j = 0; j < kTimesPerSpan; ++j)
      grid.times.push_back(start + (j + 0.5) / kTimesPerSpan * (expiry - start));
    start = expiry;
  }
  const double width = highest_moneyness - lowest_moneyness;
  const double lo = std::min(lowest_moneyness - 0.25 * width, -1e-3);
  const double hi = std::max(highest_moneyness + 0.25 * width, 1e-3);
  // The knots crowd the money, where the short expiries' local vol turns over a few of their
  // standard deviations: k = side sinh(beta u) / sinh(beta), u even in [-1, 1], the side lo or
  // hi by u's sign, beta such that the knots beside the money lie a quarter of the first
  // expiry's at-the-money standard deviation apart (uniform where that is no closer).
  const int knots = config::kMaxSurfaceKnots;
  const double du = 2.0 / (knots - 1);
  const double t0 = surface.expiries.front();
  const double wanted = 0.25 * std::sqrt(surface.theta_at(t0));
  const double uniform = std::max(-lo, hi) * du;
  double beta = 1e-9; // beta / sinh(beta) = wanted / uniform, falling in beta
  if (wanted < uniform) {
    double a = 1e-9, b = 50.0;
    for (int i = 0; i < 200; ++i) {
      const double mid = 0.5 * (a + b);
      (mid / std::sinh(mid) > wanted / uniform ? a : b) = mid;
    }
    beta = 0.5 * (a + b);
  }
  for (int j = 0; j < knots; ++j) {
    const double u = -1.0 + j * du;
    const double stretch = beta > 1e-6 ? std::sinh(beta * u) / std::sinh(beta) : u;
    grid.log_moneyness.push_back(stretch < 0.0 ? -lo * stretch : hi * stretch);
  }
  for (const double t : grid.times) {
    std::vector<double> row;
    for (const double k : grid.log_moneyness) {
      const double vol = surface.local_vol(t, k);
      if (!std::isfinite(vol) || !(vol > 0.0)) {
        char text[128];
        std::snprintf(text, sizeof text,
                      "the local vol at time %g, log-moneyness %g is not a positive number", t, k);
        throw std::invalid_argument(text);
      }
      row.push_back(vol);
    }
    grid.vols.push_back(row);
  }
  return grid;
}

ImpliedLocalVol implied_local_vol(const config::ImpliedVols& quotes,
                                  const config::Underlying& underlying,
                                  const config::TermStructure& zero_rates) {
  const QuoteMarket market = quote_market(underlying, zero_rates);
  const std::vector<VolQuote> fitted_to = vol_quotes(quotes, market);
  double lowest = 1e300, highest = -1e300;
  for (const auto& q : fitted_to) {
    const double k = std::log(q.strike / forward_of(market, q.expiry));
    lowest = std::min(lowest, k);
    highest = std::max(highest, k);
  }
  ImpliedLocalVol out;
  out.fit = fit_ssvi(fitted_to, market);
  out.grid = dupire_grid(out.fit.surface, lowest, highest);
  char text[256];
  std::snprintf(text, sizeof text,
                "local vol of %s from %zu quotes: SSVI fit %.3g vol points root mean square "
                "(%.3g at most); Dupire grid %zu times x %zu log-moneyness in [%.3g, %.3g]",
                quotes.underlying.c_str(), fitted_to.size(), out.fit.rmse_vol_points,
                out.fit.max_error_vol_points, out.grid.times.size(), out.grid.log_moneyness.size(),
                out.grid.log_moneyness.front(), out.grid.log_moneyness.back());
  out.summary = text;
  return out;
}

} // namespace pfmc::market
