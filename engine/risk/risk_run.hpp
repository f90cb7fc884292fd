#pragma once
// A desk's risk run (issue 61): the book under every scenario of the config's `risk:` block —
// ladders, a grid of two ladders, named scenarios, historical days — on the base run's draws
// (common random numbers), so that each scenario's P&L has a standard error of its own, from
// the paths' paired differences (engine/plan/scenarios.cpp prices a pass of shifts beside the
// base market in one run); then historical VaR and expected shortfall.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "engine/core/execution.hpp"
#include "engine/core/pricing_types.hpp"

namespace pfmc::engine::risk {

/// A scenario as the report lists it.
struct LabelledShift {
  config::MarketShift shift;
  std::string set;                 ///< a ladder's name, "grid", "scenarios" or "historical"
  std::vector<double> coordinates; ///< a ladder's point as written (bp, days, ...); a grid's two
};

/// The config's `risk:` scenarios in report order: each ladder's points, the grid's, the named
/// scenarios, then the historical windows (the moves of `horizon` consecutive days summed,
/// overlapping; named by their last date).
std::vector<LabelledShift> expand_scenarios(const config::RunConfig& config);

struct ScenarioResult {
  std::string name;
  std::string set;
  std::vector<double> coordinates;
  /// Per instrument (config order): value under the scenario, P&L against the base and the
  /// P&L's standard error (paired on the same paths).
  std::vector<double> value, pnl, pnl_std_error;
  bool has_portfolio = false;
  double portfolio_value = 0.0;
  double portfolio_pnl = 0.0;
  /// An upper bound: the kernels reduce the portfolio's per-path value in the base market
  /// only, so the P&L's error is bounded by Σ|q|·SE within a model's paths (Cauchy-Schwarz),
  /// combined in quadrature across models (independent draws).
  double portfolio_pnl_std_error_bound = 0.0;
  /// The portfolio's P&L by risk factor (RiskResult::factors), each with its bound.
  std::vector<double> factor_pnl, factor_pnl_std_error_bound;
};

/// Historical VaR and expected shortfall of the portfolio at one level: with n windows and
/// k = ceil(n (1 - level)), VaR is the k-th largest loss (loss = -P&L) and ES the mean of the k
/// largest.
struct TailMeasure {
  double level = 0.0;
  double var = 0.0;
  double expected_shortfall = 0.0;
  int tail_scenarios = 0;
};

/// A spot ladder's Taylor line for the portfolio: P&L(x) ~ delta x + gamma x^2 / 2 in the
/// ladder's own unit x (a relative move: dS = x S of each moved spot; absolute: dS = x), from a
/// Greeks run on the same seed (delta and gamma per underlying; a basket's cross-gammas left out).
struct TaylorLine {
  std::string ladder;
  double delta = 0.0;
  double gamma = 0.0;
};

struct RiskResult {
  RunResult base; ///< the base market's prices (the first pass's)
  std::vector<ScenarioResult> scenarios;
  /// What the portfolio's P&L is split by: each position's model's underlying (a basket: its
  /// model's name), in order of first position.
  std::vector<std::string> factors;
  std::vector<TailMeasure> tail;  ///< with historical scenarios and a portfolio
  std::vector<TaylorLine> taylor; ///< each spot ladder's, with a portfolio
  int horizon = 0;
  int passes = 0; ///< runs of the engine (each the base and up to `per_pass` shifts)
  int per_pass = 0;
  double kernel_ms = 0.0; ///< over the passes
  double total_ms = 0.0;  ///< over the passes (price()'s total each)
  double wall_ms = 0.0;   ///< run_risk from its start to its end
  std::vector<std::string> notices;
};

/// Most scenarios one pass prices beside the base (models::kMaxGreeks estimates; fewer than
/// models::kMaxScenarios views).
inline constexpr std::size_t kMostShiftsPerPass = 14;

/// The passes that price `moving` (indices into `scenarios`, each moving the market): as many
/// as a pass holds (kMostShiftsPerPass), but no more markets' paths on any model than it carries
/// on one path (engine/risk/market_shift.hpp's shift_paths: a move of a model's spots alone needs
/// none of its own where its paths scale with the spot). Scenarios that share paths but for
/// their spots go together.
std::vector<std::vector<std::size_t>> plan_passes(const config::RunConfig& config,
                                                  const std::vector<LabelledShift>& scenarios,
                                                  std::vector<std::size_t> moving);

/// VaR and ES of the P&Ls at `levels` (definitions at TailMeasure).
std::vector<TailMeasure> tail_measures(const std::vector<double>& pnl,
                                       const std::vector<double>& levels);

/// Called after each pass: passes done, passes in all.
using PassProgress = std::function<void(int done, int passes)>;

/// Prices config.risk's scenarios. Throws config::ConfigError for a config without a risk block,
/// a scenario that moves a spot or a vol to <= 0, or what price() refuses.
RiskResult run_risk(const config::RunConfig& config, const PassProgress& progress = {},
                    const PriceOptions& options = {});

} // namespace pfmc::engine::risk
