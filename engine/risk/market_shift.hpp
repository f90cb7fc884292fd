#pragma once
// A risk scenario's market (issue 61): today's config with a scenario's moves applied — spots,
// vols (each model's vol as the Greeks' vega moves it: every pillar of a Black curve, every node
// of a local-vol surface, each asset of a basket, Heston's sqrt(v0) and sqrt(theta)), every zero
// rate, valuation time — refused where a spot or a vol would not stay positive.

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "config/run_config.hpp"

namespace pfmc::engine::risk {

/// Each vol of `model` through `move` (asset -1: every asset of a basket, else that one): every
/// pillar of a Black curve, every node of a local-vol surface, a basket asset's vol, Heston's
/// sqrt(v0) and sqrt(theta) — the vol the Greeks' vega moves.
void move_model_vols(config::ModelConfig& model, int asset,
                     const std::function<double(double)>& move);

/// The config under `shift`, and the valuation time it moves forward (years) in `time_forward`
/// (the planner applies that to the grid: engine/plan/scenarios.cpp). Throws
/// config::ConfigError naming the scenario and where it was written when a spot or a vol would
/// be <= 0.
config::RunConfig shifted_market(const config::RunConfig& config, const config::MarketShift& shift,
                                 double& time_forward);

/// A market update as a desk gives it (Python's `book.price(market=...)`): new spot levels by
/// underlying, new flat Black vols by black_scholes model, vol moves by model as the Greeks'
/// vega moves them (any model: added to each of its vols), and a new flat zero rate.
struct MarketUpdate {
  std::map<std::string, double> spots;
  std::map<std::string, double> vols;
  std::map<std::string, double> vol_moves;
  std::optional<double> zero_rate;
};

/// The config with today's market replaced by `update`. Throws config::ConfigError (file
/// "<market>", key `market.spot.NAME` and so on) for an unknown name, a spot <= 0, a vol
/// outside (0, 5], a level for a model whose vol is not one number (a term structure, Heston,
/// local vol, a basket: move it with vol_moves), or a zero rate outside [-1, 1].
config::RunConfig updated_market(const config::RunConfig& config, const MarketUpdate& update);

/// The paths a scenario needs on one model: `key` names them ("" for the base market's), and
/// `spot_scale` is the scenario's spots over those paths' (1 but for a scaled view). On a model
/// whose paths scale with the spot (black_scholes, heston, multi_black_scholes: log-spot moves by
/// a constant whatever the path) a move of its spots all by one factor needs no paths of its own:
/// its payoffs are read on the paths of the scenario's other moves with strikes and knocks
/// scaled (engine/plan/instruments.cpp). Elsewhere (local vol, early exercise, a basket's spots
/// moved apart) the key names the moved spots too.
struct ShiftPaths {
  std::string key;
  double spot_scale = 1.0;
};
ShiftPaths shift_paths(const config::RunConfig& config, const config::MarketShift& shift,
                       int model_index, bool early_exercise);

/// What a shift does, as text: two shifts of one key move the market alike (a grid's point at
/// a zero of one ladder is the other ladder's point; moves of 0 are left out).
std::string market_key(const config::MarketShift& shift);

/// The shift without its spot moves.
config::MarketShift without_spot_moves(const config::MarketShift& shift);

} // namespace pfmc::engine::risk
