// The scenarios of the Greeks: the base market and its bumps (bump-and-revalue on common random
// numbers), and the weights that turn their payoffs into Greeks.
#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "engine/plan/plan_detail.hpp"

namespace pfmc::engine::plan_detail {

namespace {

/// The spot of each asset of the model (for bump sizes and control means).
std::vector<int> model_underlyings(const config::ModelConfig& model) {
  if (model.type == config::ModelType::multi_black_scholes)
    return model.underlying_indices;
  return {model.underlying_index};
}

/// The config with every spot of the model moved by `relative` (of itself).
config::RunConfig bump_spot(config::RunConfig c, const config::ModelConfig& model,
                            double relative) {
  for (int u : model_underlyings(model))
    c.market.underlyings[static_cast<std::size_t>(u)].spot *= 1.0 + relative;
  return c;
}

/// The config with the model's volatility moved by `h` (absolute): every pillar of a Black
/// curve, every node of a local-vol surface, every vol of a basket; for Heston sqrt(v0) and
/// sqrt(theta) (the instantaneous and the long-run vol).
config::RunConfig bump_vol(config::RunConfig c, int model_index, double h) {
  auto& m = c.models[static_cast<std::size_t>(model_index)];
  switch (m.type) {
  case config::ModelType::black_scholes:
    for (double& v : m.volatility.values)
      v += h;
    break;
  case config::ModelType::heston: {
    const double vol0 = std::sqrt(m.heston.v0) + h;
    const double vol_inf = std::sqrt(m.heston.theta) + h;
    m.heston.v0 = vol0 * vol0;
    m.heston.theta = vol_inf * vol_inf;
    break;
  }
  case config::ModelType::local_vol:
    for (auto& row : m.surface.vols) {
      for (double& v : row)
        v += h;
    }
    break;
  case config::ModelType::multi_black_scholes:
    for (double& v : m.volatilities)
      v += h;
    break;
  }
  return c;
}

config::RunConfig bump_rates(config::RunConfig c, double h) {
  for (double& z : c.market.zero_rates.values)
    z += h;
  return c;
}

/// Where each bump's scenarios sit in the scenario list (-1: not simulated): the up move, then
/// the down move (theta: the forward move alone).
struct BumpIndex {
  int spot_up = -1;
  int vol_up = -1;
  int rate_up = -1;
  int time_forward = -1;
  double time_bump = 0.0; ///< theta's valuation shift (years)
};

/// Per-path estimate of Greek g = Σ_s weights[g * scenarios + s] · payoff of scenario s.
std::vector<double> greek_weights(const config::RunConfig& config, const config::ModelConfig& model,
                                  const BumpIndex& bumps, int scenarios) {
  // Bump sizes in the Greeks' units: a single-asset delta is dV/dS (h = 1% of S); a basket's
  // delta and gamma are per unit relative move of all its spots (h = 1%).
  const double spot_h =
      model.assets() == 1
          ? kSpotBump *
                config.market.underlyings[static_cast<std::size_t>(model.underlying_index)].spot
          : kSpotBump;
  std::vector<double> weights;
  for (config::Greek g : config.simulation.greeks) {
    std::vector<double> w(static_cast<std::size_t>(scenarios), 0.0);
    switch (g) {
    case config::Greek::delta:
      w[bumps.spot_up] = 1.0 / (2 * spot_h);
      w[bumps.spot_up + 1] = -1.0 / (2 * spot_h);
      break;
    case config::Greek::gamma:
      w[bumps.spot_up] = 1.0 / (spot_h * spot_h);
      w[bumps.spot_up + 1] = 1.0 / (spot_h * spot_h);
      w[0] = -2.0 / (spot_h * spot_h);
      break;
    case config::Greek::vega:
      w[bumps.vol_up] = 1.0 / (2 * kVolBump);
      w[bumps.vol_up + 1] = -1.0 / (2 * kVolBump);
      break;
    case config::Greek::rho:
      w[bumps.rate_up] = 1.0 / (2 * kRateBump);
      w[bumps.rate_up + 1] = -1.0 / (2 * kRateBump);
      break;
    case config::Greek::theta: // calendar time passing: (V(t + h) - V(t)) / h
      w[bumps.time_forward] = 1.0 / bumps.time_bump;
      w[0] = -1.0 / bumps.time_bump;
      break;
    }
    weights.insert(weights.end(), w.begin(), w.end());
  }
  return weights;
}

} // namespace

std::vector<Scenario> plan_scenarios(const config::RunConfig& config, int model_index,
                                     GroupPlan& group) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  std::vector<Scenario> scenarios{{nullptr, &config, 0.0}};
  if (!has_greek_kernels(model)) { // its instruments report no Greeks (make_plan says so)
    group.scenarios = 1;
    return scenarios;
  }
  const auto& greeks = config.simulation.greeks;
  auto wants = [&](config::Greek g) {
    return std::find(greeks.begin(), greeks.end(), g) != greeks.end();
  };
  const auto bumped = [](config::RunConfig c) {
    return Scenario{std::make_shared<const config::RunConfig>(std::move(c)), nullptr, 0.0};
  };
  BumpIndex bumps;
  if (wants(config::Greek::delta) || wants(config::Greek::gamma)) {
    bumps.spot_up = static_cast<int>(scenarios.size());
    scenarios.push_back(bumped(bump_spot(config, model, kSpotBump)));
    scenarios.push_back(bumped(bump_spot(config, model, -kSpotBump)));
  }
  if (wants(config::Greek::vega)) {
    bumps.vol_up = static_cast<int>(scenarios.size());
    scenarios.push_back(bumped(bump_vol(config, model_index, kVolBump)));
    scenarios.push_back(bumped(bump_vol(config, model_index, -kVolBump)));
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
  group.greeks = greeks;
  group.greek_weights = greek_weights(config, model, bumps, group.scenarios);
  return scenarios;
}

} // namespace pfmc::engine::plan_detail
