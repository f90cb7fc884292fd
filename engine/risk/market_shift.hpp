#pragma once
// A risk scenario's market (issue 61): today's config with a scenario's moves applied — spots,
// vols (each model's vol as the Greeks' vega moves it: every pillar of a Black curve, every node
// of a local-vol surface, each asset of a basket, Heston's sqrt(v0) and sqrt(theta)), every zero
// rate, valuation time — refused where a spot or a vol would not stay positive.

#include "config/run_config.hpp"

namespace pfmc::engine::risk {

/// The config under `shift`, and the valuation time it moves forward (years) in `time_forward`
/// (the planner applies that to the grid: engine/plan/scenarios.cpp). Throws
/// config::ConfigError naming the scenario and where it was written when a spot or a vol would
/// be <= 0.
config::RunConfig shifted_market(const config::RunConfig& config, const config::MarketShift& shift,
                                 double& time_forward);

} // namespace pfmc::engine::risk
