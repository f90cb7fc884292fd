// Each model's per-step market data over the group's grid, for every scenario: what the model's
// make_params() reads (models/*.cuh).
#include <algorithm>
#include <cmath>
#include <vector>

#include "config/config_error.hpp"
#include "engine/plan/plan_detail.hpp"

namespace pfmc::engine::plan_detail {

namespace {

/// The scenario's times: valuation moved forward by `shift`, market curves held as functions of
/// time from valuation.
struct ScenarioTimes {
  const PlanArray<double>& grid;
  const config::TermStructure& curve;
  double shift;

  [[nodiscard]] int steps() const { return static_cast<int>(grid.size()) - 1; }
  [[nodiscard]] double time(int k) const {
    return k == 0 ? 0.0 : grid[static_cast<std::size_t>(k)] - shift;
  }
  /// ∫ r dt over [t0, t1].
  [[nodiscard]] double rate_integral(double t0, double t1) const {
    return std::log(discount_factor(curve, t0) / discount_factor(curve, t1));
  }
};

const config::Underlying& underlying_of(const config::RunConfig& config, int index) {
  return config.market.underlyings[static_cast<std::size_t>(index)];
}

ModelData black_scholes_data(const config::RunConfig& config, const config::ModelConfig& model,
                             const ScenarioTimes& times) {
  const auto& u = underlying_of(config, model.underlying_index);
  const int steps = times.steps();
  ModelData out(2, steps, 0);
  for (int s = 0; s < steps; ++s) {
    const double t0 = times.time(s), t1 = times.time(s + 1);
    const double variance =
        std::max(0.0, total_variance(model.volatility, t1) - total_variance(model.volatility, t0));
    const auto at = static_cast<std::size_t>(s);
    out.at(0, at) = times.rate_integral(t0, t1) - u.dividend_yield * (t1 - t0) - 0.5 * variance;
    out.at(1, at) = std::sqrt(variance);
  }
  out.constants.assign(1, std::log(u.spot));
  return out;
}

ModelData heston_data(const config::RunConfig& config, const config::ModelConfig& model,
                      const ScenarioTimes& times) {
  const auto& u = underlying_of(config, model.underlying_index);
  const auto& h = model.heston;
  const int steps = times.steps();
  ModelData out(12, steps, 0);
  const double k_rho_xi = h.kappa * h.rho / h.xi - 0.5;
  for (int s = 0; s < steps; ++s) {
    const double t0 = times.time(s), t1 = times.time(s + 1), dt = t1 - t0;
    const double rq = times.rate_integral(t0, t1) - u.dividend_yield * dt;
    const double e = std::exp(-h.kappa * dt);
    const double k2 = 0.5 * dt * k_rho_xi + h.rho / h.xi;
    const double k4 = 0.5 * dt * (1.0 - h.rho * h.rho);
    const double values[12] = {rq,
                               0.5 * dt * k_rho_xi - h.rho / h.xi,
                               k2,
                               0.5 * dt * (1.0 - h.rho * h.rho),
                               k4,
                               e,
                               h.theta * (1.0 - e),
                               h.xi * h.xi * e * (1.0 - e) / h.kappa,
                               h.theta * h.xi * h.xi * (1.0 - e) * (1.0 - e) / (2.0 * h.kappa),
                               k2 + 0.5 * k4,
                               dt,
                               std::sqrt(dt)};
    for (std::size_t k = 0; k < 12; ++k)
      out.at(k, static_cast<std::size_t>(s)) = values[k];
  }
  out.constants = {std::log(u.spot),
                   h.v0,
                   h.kappa,
                   h.theta,
                   h.xi,
                   h.rho,
                   h.scheme == config::HestonScheme::full_truncation ? 1.0 : 0.0};
  return out;
}

ModelData local_vol_data(const config::RunConfig& config, const config::ModelConfig& model,
                         const ScenarioTimes& times) {
  const auto& u = underlying_of(config, model.underlying_index);
  const auto& surface = model.surface;
  const std::size_t knots = surface.log_moneyness.size();
  const int steps = times.steps();
  ModelData out(static_cast<int>(4 + knots), steps, knots);
  for (int s = 0; s < steps; ++s) {
    const double t0 = times.time(s), t1 = times.time(s + 1), dt = t1 - t0;
    const auto at = static_cast<std::size_t>(s);
    out.at(0, at) = times.rate_integral(t0, t1) - u.dividend_yield * dt;
    out.at(1, at) = dt;
    out.at(2, at) = std::sqrt(dt);
    out.at(3, at) =
        std::log(u.spot) - u.dividend_yield * t0 - std::log(discount_factor(times.curve, t0));
    // The surface's row at t0: linear in time between its rows, flat outside.
    const auto& ts = surface.times;
    std::size_t lo = 0, hi = 0;
    double w = 0.0;
    if (t0 >= ts.back()) {
      lo = hi = ts.size() - 1;
    } else if (t0 > ts.front()) {
      hi = static_cast<std::size_t>(std::upper_bound(ts.begin(), ts.end(), t0) - ts.begin());
      lo = hi - 1;
      w = (t0 - ts[lo]) / (ts[hi] - ts[lo]);
    }
    for (std::size_t j = 0; j < knots; ++j)
      out.at(4 + j, at) = surface.vols[lo][j] + w * (surface.vols[hi][j] - surface.vols[lo][j]);
  }
  std::copy(surface.log_moneyness.begin(), surface.log_moneyness.end(),
            out.values.end() - static_cast<std::ptrdiff_t>(knots));
  out.constants = {std::log(u.spot), static_cast<double>(knots), static_cast<double>(steps)};
  return out;
}

ModelData multi_black_scholes_data(const config::RunConfig& config,
                                   const config::ModelConfig& model, const ScenarioTimes& times) {
  const std::size_t assets = model.underlyings.size();
  const int steps = times.steps();
  ModelData out(static_cast<int>(2 * assets), steps, 0);
  for (int s = 0; s < steps; ++s) {
    const double t0 = times.time(s), t1 = times.time(s + 1), dt = t1 - t0;
    const double rate = times.rate_integral(t0, t1);
    for (std::size_t a = 0; a < assets; ++a) {
      const auto& u = underlying_of(config, model.underlying_indices[a]);
      const double sigma = model.volatilities[a];
      out.at(a, static_cast<std::size_t>(s)) =
          rate - u.dividend_yield * dt - 0.5 * sigma * sigma * dt;
      out.at(assets + a, static_cast<std::size_t>(s)) = sigma * std::sqrt(dt);
    }
  }
  for (std::size_t a = 0; a < assets; ++a)
    out.constants.push_back(std::log(underlying_of(config, model.underlying_indices[a]).spot));
  for (std::size_t i = 0; i < assets; ++i) {
    for (std::size_t j = 0; j <= i; ++j)
      out.constants.push_back(model.cholesky[i][j]);
  }
  return out;
}

} // namespace

ModelData model_data(const config::RunConfig& config, const config::ModelConfig& model,
                     const PlanArray<double>& grid, double shift) {
  const ScenarioTimes times{grid, config.market.zero_rates, shift};
  switch (model.type) {
  case config::ModelType::black_scholes:
    return black_scholes_data(config, model, times);
  case config::ModelType::heston:
    return heston_data(config, model, times);
  case config::ModelType::local_vol:
    return local_vol_data(config, model, times);
  case config::ModelType::multi_black_scholes:
    return multi_black_scholes_data(config, model, times);
  }
  return {};
}

/// The event grid (steps_per_year 0) steps straight from one date to the next, which is exact
/// only for a model whose step is exact over any interval: Black-Scholes and correlated
/// Black-Scholes step the log spot with the interval's integrated moments. Heston (QE or Euler)
/// and local vol (Euler) converge only as the steps shrink; over a year-long step they would
/// price with an error nobody asked for, so the run is refused rather than silently coarse.
void check_event_grid_is_exact(const config::RunConfig& config, const config::ModelConfig& model) {
  if (config.simulation.steps_per_year != 0 || model.type == config::ModelType::black_scholes ||
      model.type == config::ModelType::multi_black_scholes) {
    return;
  }
  throw config::ConfigError(
      config.file, config.simulation.steps_per_year_mark, "simulation.steps_per_year",
      "0 (event grid) is exact only for black_scholes and multi_black_scholes; model '" +
          model.name + "' (" + config::to_string(model.type) +
          ") needs a discretisation: set steps_per_year > 0");
}

void plan_model_data(const std::vector<Scenario>& copies, int model_index, GroupPlan& group) {
  const int S = static_cast<int>(copies.size());
  group.model_copies = S;
  std::vector<double> constants;
  for (int k = 0; k < S; ++k) {
    const Scenario& sc = copies[static_cast<std::size_t>(k)];
    ModelData data =
        model_data(sc.config(), sc.config().models[static_cast<std::size_t>(model_index)],
                   group.times, sc.time_shift);
    if (k == 0) // every scenario's block has the base's size
      group.step_series_count = data.series;
    if (S == 1) { // the block as it is
      group.model_data.assign(data.values.begin(), data.values.end());
      constants = std::move(data.constants);
      break;
    }
    if (k == 0)
      group.model_data.reserve(data.values.size() * static_cast<std::size_t>(S));
    group.model_data.insert(group.model_data.end(), data.values.begin(), data.values.end());
    constants.insert(constants.end(), data.constants.begin(), data.constants.end());
  }
  if (S == 1) {
    group.model_constants.assign(constants.begin(), constants.end());
    return;
  }
  const double block = static_cast<double>(group.model_data.size() / S);
  const double per = static_cast<double>(constants.size() / S);
  group.model_constants = {static_cast<double>(S), block, per};
  group.model_constants.insert(group.model_constants.end(), constants.begin(), constants.end());
}

} // namespace pfmc::engine::plan_detail
