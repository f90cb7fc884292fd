// The scenarios of the Greeks: the base market and its bumps (bump-and-revalue on common random
// numbers), and the weights that turn their payoffs into Greeks.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "config/config_error.hpp"
#include "engine/plan/plan_detail.hpp"
#include "engine/risk/market_shift.hpp"
#include "models/scenarios.cuh"

namespace pfmc::engine::plan_detail {

namespace {

/// The spot of each asset of the model (for bump sizes and control means).
std::vector<int> model_underlyings(const config::ModelConfig& model) {
  if (model.type == config::ModelType::multi_black_scholes)
    return model.underlying_indices;
  return {model.underlying_index};
}

/// Where each bump's scenarios sit in the scenario list (-1: not simulated): per asset its up
/// move then its down move (theta: the forward move alone).
struct BumpIndex {
  int spot_up = -1; ///< asset a's up move at spot_up + 2a
  int vol_up = -1;  ///< likewise
  int rate_up = -1;
  int time_forward = -1;
  double time_bump = 0.0; ///< theta's valuation shift (years)
};

/// One Greek's per-path weights over the scenarios, on asset `a` of the model.
std::vector<double> weights_of(const config::RunConfig& config, const config::ModelConfig& model,
                               const BumpIndex& bumps, int scenarios, config::Greek g, int a) {
  // Bump sizes in the Greeks' units: delta and gamma per unit of the asset's spot (h = 1% of
  // it), vega per unit of its volatility.
  const std::vector<int> underlyings = model_underlyings(model);
  const double spot_h =
      kSpotBump *
      config.market.underlyings[static_cast<std::size_t>(underlyings[static_cast<std::size_t>(a)])]
          .spot;
  std::vector<double> w(static_cast<std::size_t>(scenarios), 0.0);
  switch (g) {
  case config::Greek::delta:
    w[bumps.spot_up + 2 * a] = 1.0 / (2 * spot_h);
    w[bumps.spot_up + 2 * a + 1] = -1.0 / (2 * spot_h);
    break;
  case config::Greek::gamma:
    w[bumps.spot_up + 2 * a] = 1.0 / (spot_h * spot_h);
    w[bumps.spot_up + 2 * a + 1] = 1.0 / (spot_h * spot_h);
    w[0] = -2.0 / (spot_h * spot_h);
    break;
  case config::Greek::vega:
    w[bumps.vol_up + 2 * a] = 1.0 / (2 * kVolBump);
    w[bumps.vol_up + 2 * a + 1] = -1.0 / (2 * kVolBump);
    break;
  case config::Greek::rho:
    w[bumps.rate_up] = 1.0 / (2 * kRateBump);
    w[bumps.rate_up + 1] = -1.0 / (2 * kRateBump);
    break;
  case config::Greek::theta: // calendar time passing: (V(t + h) - V(t)) / h
    w[bumps.time_forward] = 1.0 / bumps.time_bump;
    w[0] = -1.0 / bumps.time_bump;
    break;
  case config::Greek::cross_gamma:  // pathwise only (plan_greeks never asks)
  case config::Greek::scenario_pnl: // a priced shift's (plan_shifted_scenarios)
    break;
  }
  return w;
}

/// Delta, gamma and vega are per underlying on a basket's model.
bool per_asset(config::Greek g) {
  return g == config::Greek::delta || g == config::Greek::gamma || g == config::Greek::vega;
}

/// group.greeks, group.greek_assets and group.greek_weights (Greek k's estimate per path is
/// Σ_s weights[k * scenarios + s] · payoff of scenario s).
void plan_greeks(const config::RunConfig& config, const config::ModelConfig& model,
                 const BumpIndex& bumps, GroupPlan& group) {
  const int assets = model.assets();
  for (config::Greek g : config.simulation.greeks) {
    if (g == config::Greek::cross_gamma) {
      if (assets > 1) {
        throw config::ConfigError(
            config.file, config.simulation.greeks_mark, "simulation.greeks",
            "cross_gamma is taken pathwise only, and model '" + model.name +
                "' (a basket's) takes its Greeks by bumps here: ask for greeks_method: pathwise "
                "or auto on a black_scholes or multi_black_scholes basket whose level is linear "
                "in each spot (weighted, no knock), or leave cross_gamma out");
      }
      continue; // one underlying: no pair
    }
    const bool each = assets > 1 && per_asset(g);
    for (int a = 0; a < (each ? assets : 1); ++a) {
      const std::vector<double> w = weights_of(config, model, bumps, group.scenarios, g, a);
      group.greeks.push_back(g);
      group.greek_assets.push_back(each ? a : -1);
      group.greek_pair_assets.push_back(-1);
      group.greek_weights.insert(group.greek_weights.end(), w.begin(), w.end());
    }
  }
}

} // namespace

/// The config with the spot of the model's asset `asset` (every asset: -1) moved by `relative`
/// (of itself).
config::RunConfig bump_spot(config::RunConfig c, const config::ModelConfig& model, int asset,
                            double relative) {
  const std::vector<int> underlyings = model_underlyings(model);
  for (std::size_t a = 0; a < underlyings.size(); ++a) {
    if (asset < 0 || static_cast<int>(a) == asset)
      c.market.underlyings[static_cast<std::size_t>(underlyings[a])].spot *= 1.0 + relative;
  }
  return c;
}

/// The config with the model's volatility moved by `h` (absolute): every pillar of a Black
/// curve, every node of a local-vol surface, the vol of a basket's asset `asset`; for Heston
/// sqrt(v0) and sqrt(theta) (the instantaneous and the long-run vol).
config::RunConfig bump_vol(config::RunConfig c, int model_index, int asset, double h) {
  risk::move_model_vols(c.models[static_cast<std::size_t>(model_index)], asset,
                        [h](double v) { return v + h; });
  return c;
}

config::RunConfig bump_rates(config::RunConfig c, double h) {
  for (double& z : c.market.zero_rates.values)
    z += h;
  return c;
}

std::vector<Scenario> plan_scenarios(const config::RunConfig& config, int model_index,
                                     GroupPlan& group) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  std::vector<Scenario> scenarios{{nullptr, &config, 0.0}};
  const auto& greeks = config.simulation.greeks;
  auto wants = [&](config::Greek g) {
    return std::find(greeks.begin(), greeks.end(), g) != greeks.end();
  };
  const auto bumped = [](config::RunConfig c) {
    return Scenario{std::make_shared<const config::RunConfig>(std::move(c)), nullptr, 0.0};
  };
  // A single-asset model's spot and vol move as one; a basket's each apart.
  const int assets = model.assets();
  BumpIndex bumps;
  if (wants(config::Greek::delta) || wants(config::Greek::gamma)) {
    bumps.spot_up = static_cast<int>(scenarios.size());
    for (int a = 0; a < assets; ++a) {
      scenarios.push_back(bumped(bump_spot(config, model, assets > 1 ? a : -1, kSpotBump)));
      scenarios.push_back(bumped(bump_spot(config, model, assets > 1 ? a : -1, -kSpotBump)));
    }
  }
  if (wants(config::Greek::vega)) {
    bumps.vol_up = static_cast<int>(scenarios.size());
    for (int a = 0; a < assets; ++a) {
      scenarios.push_back(bumped(bump_vol(config, model_index, a, kVolBump)));
      scenarios.push_back(bumped(bump_vol(config, model_index, a, -kVolBump)));
    }
  }
  if (wants(config::Greek::rho)) {
    bumps.rate_up = static_cast<int>(scenarios.size());
    scenarios.push_back(bumped(bump_rates(config, kRateBump)));
    scenarios.push_back(bumped(bump_rates(config, -kRateBump)));
  }
  if (wants(config::Greek::theta)) {
    bumps.time_forward = static_cast<int>(scenarios.size());
    bumps.time_bump = std::min(kTimeBump, 0.5 * group.times[1]);
    scenarios.push_back({nullptr, &config, bumps.time_bump});
  }
  group.scenarios = static_cast<int>(scenarios.size());
  if (group.scenarios > 1 || wants(config::Greek::cross_gamma))
    plan_greeks(config, model, bumps, group); // cross_gamma alone: refused on a basket
  return scenarios;
}

std::vector<ShiftedMarket> shifted_markets(const config::RunConfig& config) {
  std::vector<ShiftedMarket> shifted;
  const auto market = [&](const config::MarketShift& shift) {
    double time_forward = 0.0;
    config::RunConfig moved = risk::shifted_market(config, shift, time_forward);
    return Scenario{std::make_shared<const config::RunConfig>(std::move(moved)), nullptr,
                    time_forward};
  };
  for (const config::MarketShift& shift : config.priced_shifts)
    shifted.push_back({market(shift), market(risk::without_spot_moves(shift))});
  return shifted;
}

namespace {

/// Refuses a valuation moved forward by not less than the group's first step.
void check_time_move(const config::RunConfig& config, const config::ModelConfig& model,
                     const std::string& name, double time_shift, const GroupPlan& group) {
  if (time_shift > 0.0 && !(time_shift < group.times[1]))
    throw config::ConfigError(
        config.file, config.simulation.steps_per_year_mark, "risk",
        "scenario '" + name + "' moves valuation " + std::to_string(time_shift * 365.0) +
            " days forward, not less than model '" + model.name + "''s first step (" +
            std::to_string(group.times[1] * 365.0) +
            " days), which the shifted paths start in: move time by less, or take fewer "
            "steps_per_year");
}

} // namespace

std::vector<Scenario> plan_shifted_scenarios(const config::RunConfig& config,
                                             const std::vector<ShiftedMarket>& shifted,
                                             int model_index, bool early_exercise, GroupPlan& group,
                                             std::vector<Scenario>& copies) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  const int most_copies = models::scenarios_for_assets(model.assets());
  const int most_views = std::min(models::kMaxScenarios, models::kMaxGreeks + 1);
  if (static_cast<int>(shifted.size()) + 1 > most_views)
    throw config::ConfigError(
        config.file, model.mark, "risk",
        std::to_string(shifted.size()) + " scenarios on the paths of model '" + model.name +
            "': at most " + std::to_string(most_views - 1) + " beside the base");
  copies = {{nullptr, &config, 0.0}};
  std::vector<Scenario> scenarios{{nullptr, &config, 0.0, 0, 1.0}};
  std::map<std::string, int> copy_of{{"", 0}}; // the paths' key: risk::shift_paths
  for (std::size_t s = 0; s < shifted.size(); ++s) {
    const risk::ShiftPaths paths =
        risk::shift_paths(config, config.priced_shifts[s], model_index, early_exercise);
    const Scenario& market = paths.spot_scale != 1.0 ? shifted[s].unspotted : shifted[s].whole;
    const auto [at, added] = copy_of.emplace(paths.key, static_cast<int>(copies.size()));
    if (added) {
      check_time_move(config, model, config.priced_shifts[s].name, market.time_shift, group);
      copies.push_back(market);
    }
    Scenario scenario = market;
    scenario.copy = at->second;
    scenario.spot_scale = paths.spot_scale;
    scenarios.push_back(scenario);
  }
  if (static_cast<int>(copies.size()) > most_copies)
    throw config::ConfigError(config.file, model.mark, "risk",
                              std::to_string(copies.size()) + " markets' paths on model '" +
                                  model.name + "': it carries at most " +
                                  std::to_string(most_copies) + " on one path");
  group.scenarios = static_cast<int>(scenarios.size());
  for (int s = 1; s < group.scenarios; ++s) { // P&L of s: its payoff less the base's, per path
    std::vector<double> w(static_cast<std::size_t>(group.scenarios), 0.0);
    w[0] = -1.0;
    w[static_cast<std::size_t>(s)] = 1.0;
    group.greeks.push_back(config::Greek::scenario_pnl);
    group.greek_assets.push_back(s);
    group.greek_pair_assets.push_back(-1);
    group.greek_weights.insert(group.greek_weights.end(), w.begin(), w.end());
  }
  return scenarios;
}

} // namespace pfmc::engine::plan_detail
