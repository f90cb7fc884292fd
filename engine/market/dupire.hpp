#pragma once
// Dupire's local vol from an implied-vol surface, on the engine's local-vol grid
// (config::LocalVolSurface: times x forward log-moneyness, bilinear, flat outside), so that the
// existing kernels price on it unchanged. `type: local_vol` with `surface: implied` builds its
// grid so from its underlying's quotes (market.implied_vols) when the run is planned.

#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "engine/market/ssvi.hpp"

namespace pfmc::market {

/// The grid: before the first expiry T1, times T1 / 2^j (j = kShortRows..1: there the local vol
/// at a fixed moneyness changes as sqrt(t) does, fastest near 0; rows a third of T1 apart made
/// 1-month quotes 20-60 bp too dear); then in each span between quoted expiries (from T1 / 2 to
/// T1, then between neighbours) kTimesPerSpan times at the centres of its equal parts (the
/// local vol of a surface whose at-the-money variance is linear between expiries jumps at
/// them: a time at an expiry would take one side), and config::kMaxSurfaceKnots log-moneyness
/// points over the quotes' own range widened by a quarter of its width on each side (beyond it the
/// paths see the edge's vol), crowded near the money (sinh-spaced: beside the money a quarter of
/// the first expiry's at-the-money standard deviation apart, where the short end's local vol turns;
/// even knots 0.05 apart missed it by up to 1.5 vol points). Each point's local vol by
/// SsviSurface::local_vol.
config::LocalVolSurface dupire_grid(const SsviSurface& surface, double lowest_moneyness,
                                    double highest_moneyness);
inline constexpr int kTimesPerSpan = 4;
inline constexpr int kShortRows = 6;

/// What building a model's grid from quotes did, for the run's notices.
struct ImpliedLocalVol {
  config::LocalVolSurface grid;
  SsviFit fit;
  std::string summary; ///< one line: the fit's error and the grid's shape
};

/// An underlying's quotes -> SSVI -> Dupire grid. std::invalid_argument as fit_ssvi, or when a
/// grid point's local vol is not a number.
ImpliedLocalVol implied_local_vol(const config::ImpliedVols& quotes,
                                  const config::Underlying& underlying,
                                  const config::TermStructure& zero_rates);

} // namespace pfmc::market
