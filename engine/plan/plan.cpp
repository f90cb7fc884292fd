#include "engine/plan/plan.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "config/config_error.hpp"

namespace pfmc::engine {

namespace {

constexpr double kTimeTolerance = 1e-10;

/// Linear interpolation of values[] at t with flat extrapolation; tenors strictly increasing.
double interpolate(const std::vector<double>& tenors, const std::vector<double>& values, double t) {
  if (t <= tenors.front())
    return values.front();
  if (t >= tenors.back())
    return values.back();
  const auto hi =
      static_cast<std::size_t>(std::upper_bound(tenors.begin(), tenors.end(), t) - tenors.begin());
  const std::size_t lo = hi - 1;
  const double w = (t - tenors[lo]) / (tenors[hi] - tenors[lo]);
  return values[lo] + w * (values[hi] - values[lo]);
}

/// Index of time t in the grid (t must be on it).
int step_of(const std::vector<double>& grid, double t) {
  const auto it = std::lower_bound(grid.begin(), grid.end(), t - kTimeTolerance);
  return static_cast<int>(it - grid.begin());
}

struct ObservationKey {
  models::ObservationKind kind;
  int asset;
  std::vector<int> steps; // grid indices (1-based: after kernel step s-1)
  bool operator<(const ObservationKey& o) const {
    return std::tie(kind, asset, steps) < std::tie(o.kind, o.asset, o.steps);
  }
};

class ObservationSet {
public:
  int add(models::ObservationKind kind, int asset, std::vector<int> steps) {
    ObservationKey key{kind, asset, std::move(steps)};
    const auto it = index_.find(key);
    if (it != index_.end())
      return it->second;
    const int id = static_cast<int>(keys_.size());
    index_.emplace(key, id);
    keys_.push_back(std::move(key));
    return id;
  }
  [[nodiscard]] const std::vector<ObservationKey>& keys() const { return keys_; }

private:
  std::map<ObservationKey, int> index_;
  std::vector<ObservationKey> keys_;
};

std::vector<int> steps_of(const std::vector<double>& grid, const std::vector<double>& times) {
  std::vector<int> steps;
  steps.reserve(times.size());
  for (double t : times)
    steps.push_back(step_of(grid, t));
  return steps;
}

/// One scenario's market: the config with a bump applied, and a shift of valuation time.
struct Scenario {
  /// The base market (no copy: a plan without Greeks copies nothing), or a bumped copy.
  std::shared_ptr<const config::RunConfig> bumped;
  const config::RunConfig* base = nullptr;
  double time_shift = 0.0; ///< theta: valuation moved forward by this (years)
  [[nodiscard]] const config::RunConfig& config() const { return bumped ? *bumped : *base; }
};

/// A model's per-step data over `times` (shifted by the scenario), interleaved per step, then its
/// tail; and its constants.
struct ModelData {
  std::vector<std::vector<double>> series;
  std::vector<double> tail;
  std::vector<double> constants;
};

ModelData model_data(const config::RunConfig& config, const config::ModelConfig& model,
                     const std::vector<double>& grid, double shift) {
  const auto& curve = config.market.zero_rates;
  const int steps = static_cast<int>(grid.size()) - 1;
  // The scenario's times: valuation moved forward by `shift`, market curves held as functions
  // of time from valuation.
  auto time = [&](int k) { return k == 0 ? 0.0 : grid[static_cast<std::size_t>(k)] - shift; };
  auto rate_integral = [&](double t0, double t1) {
    return std::log(discount_factor(curve, t0) / discount_factor(curve, t1));
  };
  ModelData out;
  const auto n = static_cast<std::size_t>(steps);
  switch (model.type) {
  case config::ModelType::black_scholes: {
    const auto& u = config.market.underlyings[static_cast<std::size_t>(model.underlying_index)];
    std::vector<double> drift(n), diffusion(n);
    for (int s = 0; s < steps; ++s) {
      const double t0 = time(s), t1 = time(s + 1);
      const double variance = std::max(0.0, total_variance(model.volatility, t1) -
                                                total_variance(model.volatility, t0));
      drift[s] = rate_integral(t0, t1) - u.dividend_yield * (t1 - t0) - 0.5 * variance;
      diffusion[s] = std::sqrt(variance);
    }
    out.series = {std::move(drift), std::move(diffusion)};
    out.constants = {std::log(u.spot)};
    break;
  }
  case config::ModelType::heston: {
    const auto& u = config.market.underlyings[static_cast<std::size_t>(model.underlying_index)];
    const auto& h = model.heston;
    out.series.assign(12, std::vector<double>(n));
    const double k_rho_xi = h.kappa * h.rho / h.xi - 0.5;
    for (int s = 0; s < steps; ++s) {
      const double t0 = time(s), t1 = time(s + 1), dt = t1 - t0;
      const double rq = rate_integral(t0, t1) - u.dividend_yield * dt;
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
      for (int k = 0; k < 12; ++k)
        out.series[static_cast<std::size_t>(k)][static_cast<std::size_t>(s)] = values[k];
    }
    out.constants = {std::log(u.spot),
                     h.v0,
                     h.kappa,
                     h.theta,
                     h.xi,
                     h.rho,
                     h.scheme == config::HestonScheme::full_truncation ? 1.0 : 0.0};
    break;
  }
  case config::ModelType::local_vol: {
    const auto& u = config.market.underlyings[static_cast<std::size_t>(model.underlying_index)];
    const auto& surface = model.surface;
    const std::size_t knots = surface.log_moneyness.size();
    out.series.assign(4 + knots, std::vector<double>(n));
    for (int s = 0; s < steps; ++s) {
      const double t0 = time(s), t1 = time(s + 1), dt = t1 - t0;
      out.series[0][static_cast<std::size_t>(s)] = rate_integral(t0, t1) - u.dividend_yield * dt;
      out.series[1][static_cast<std::size_t>(s)] = dt;
      out.series[2][static_cast<std::size_t>(s)] = std::sqrt(dt);
      out.series[3][static_cast<std::size_t>(s)] =
          std::log(u.spot) - u.dividend_yield * t0 - std::log(discount_factor(curve, t0));
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
      for (std::size_t j = 0; j < knots; ++j) {
        out.series[4 + j][static_cast<std::size_t>(s)] =
            surface.vols[lo][j] + w * (surface.vols[hi][j] - surface.vols[lo][j]);
      }
    }
    out.tail = surface.log_moneyness;
    out.constants = {std::log(u.spot), static_cast<double>(knots), static_cast<double>(steps)};
    break;
  }
  case config::ModelType::multi_black_scholes: {
    const std::size_t assets = model.underlyings.size();
    out.series.assign(2 * assets, std::vector<double>(n));
    for (int s = 0; s < steps; ++s) {
      const double t0 = time(s), t1 = time(s + 1), dt = t1 - t0;
      const double rate = rate_integral(t0, t1);
      for (std::size_t a = 0; a < assets; ++a) {
        const auto& u =
            config.market.underlyings[static_cast<std::size_t>(model.underlying_indices[a])];
        const double sigma = model.volatilities[a];
        out.series[a][static_cast<std::size_t>(s)] =
            rate - u.dividend_yield * dt - 0.5 * sigma * sigma * dt;
        out.series[assets + a][static_cast<std::size_t>(s)] = sigma * std::sqrt(dt);
      }
    }
    for (std::size_t a = 0; a < assets; ++a) {
      out.constants.push_back(std::log(
          config.market.underlyings[static_cast<std::size_t>(model.underlying_indices[a])].spot));
    }
    for (std::size_t i = 0; i < assets; ++i) {
      for (std::size_t j = 0; j <= i; ++j)
        out.constants.push_back(model.cholesky[i][j]);
    }
    break;
  }
  }
  return out;
}

void append_interleaved(std::vector<double>& out, const ModelData& data) {
  const std::size_t series = data.series.size();
  const std::size_t steps = series ? data.series[0].size() : 0;
  for (std::size_t s = 0; s < steps; ++s) {
    for (std::size_t k = 0; k < series; ++k)
      out.push_back(data.series[k][s]);
  }
  out.insert(out.end(), data.tail.begin(), data.tail.end());
}

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

/// Mean of the discounted payoff of an option on exp(X), X ~ N(mean, variance).
double lognormal_option(bool call, double mean, double variance, double strike, double discount) {
  const double forward = std::exp(mean + 0.5 * variance);
  if (variance <= 0.0) {
    const double g = std::exp(mean);
    return discount * (call ? std::max(g - strike, 0.0) : std::max(strike - g, 0.0));
  }
  const double sd = std::sqrt(variance);
  const double d1 = (std::log(forward / strike) + 0.5 * variance) / sd;
  const double d2 = d1 - sd;
  auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  return discount *
         (call ? forward * cdf(d1) - strike * cdf(d2) : strike * cdf(-d2) - forward * cdf(-d1));
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

GroupPlan plan_group(const config::RunConfig& config, int model_index,
                     const std::vector<int>& instrument_indices,
                     const std::vector<double>& quantity) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  check_event_grid_is_exact(config, model);

  GroupPlan group;
  group.model_index = model_index;
  group.model_name = model.name;
  group.model_type = model.type;
  group.assets = model.assets();
  group.factors = model.type == config::ModelType::heston ? 2 : group.assets;
  group.control_variate = config.simulation.control_variate;
  group.antithetic = config.simulation.antithetic;

  double horizon = 0.0;
  std::vector<double> events;
  for (int i : instrument_indices) {
    const auto& in = config.instruments[static_cast<std::size_t>(i)];
    horizon = std::max(horizon, in.maturity);
    events.push_back(in.maturity);
    events.insert(events.end(), in.fixing_times.begin(), in.fixing_times.end());
    events.insert(events.end(), in.monitoring_times.begin(), in.monitoring_times.end());
  }
  group.times = make_time_grid(horizon, config.simulation.steps_per_year, events);
  if (group.steps() > kMaxGroupSteps) {
    throw config::ConfigError(
        config.file, model.mark, "models[" + std::to_string(model_index) + "]",
        "its instruments need " + std::to_string(group.steps()) + " time steps; at most " +
            std::to_string(kMaxGroupSteps) + " are supported (lower simulation.steps_per_year)");
  }
  const int steps = group.steps();

  // Scenarios: the base, then the bumps the Greeks need (same draws, same grid).
  const auto& greeks = config.simulation.greeks;
  auto wants = [&](config::Greek g) {
    return std::find(greeks.begin(), greeks.end(), g) != greeks.end();
  };
  std::vector<Scenario> scenarios{{nullptr, &config, 0.0}};
  const auto bumped = [](config::RunConfig c) {
    return Scenario{std::make_shared<const config::RunConfig>(std::move(c)), nullptr, 0.0};
  };
  int spot_up = -1, vol_up = -1, rate_up = -1, time_fwd = -1;
  if (wants(config::Greek::delta) || wants(config::Greek::gamma)) {
    spot_up = static_cast<int>(scenarios.size());
    scenarios.push_back(bumped(bump_spot(config, model, kSpotBump)));
    scenarios.push_back(bumped(bump_spot(config, model, -kSpotBump)));
  }
  if (wants(config::Greek::vega)) {
    vol_up = static_cast<int>(scenarios.size());
    scenarios.push_back(bumped(bump_vol(config, model_index, kVolBump)));
    scenarios.push_back(bumped(bump_vol(config, model_index, -kVolBump)));
  }
  if (wants(config::Greek::rho)) {
    rate_up = static_cast<int>(scenarios.size());
    scenarios.push_back(bumped(bump_rates(config, kRateBump)));
    scenarios.push_back(bumped(bump_rates(config, -kRateBump)));
  }
  double time_bump = 0.0;
  if (wants(config::Greek::theta)) {
    time_fwd = static_cast<int>(scenarios.size());
    time_bump = std::min(kTimeBump, 0.5 * group.times[1]);
    scenarios.push_back({nullptr, &config, time_bump});
  }
  group.scenarios = static_cast<int>(scenarios.size());
  group.greeks = greeks;
  const int S = group.scenarios;
  // Bump sizes in the Greeks' units: a single-asset delta is dV/dS (h = 1% of S); a basket's
  // delta and gamma are per unit relative move of all its spots (h = 1%).
  const double spot_h =
      model.assets() == 1
          ? kSpotBump *
                config.market.underlyings[static_cast<std::size_t>(model.underlying_index)].spot
          : kSpotBump;
  for (config::Greek g : greeks) {
    std::vector<double> w(static_cast<std::size_t>(S), 0.0);
    switch (g) {
    case config::Greek::delta:
      w[spot_up] = 1.0 / (2 * spot_h);
      w[spot_up + 1] = -1.0 / (2 * spot_h);
      break;
    case config::Greek::gamma:
      w[spot_up] = 1.0 / (spot_h * spot_h);
      w[spot_up + 1] = 1.0 / (spot_h * spot_h);
      w[0] = -2.0 / (spot_h * spot_h);
      break;
    case config::Greek::vega:
      w[vol_up] = 1.0 / (2 * kVolBump);
      w[vol_up + 1] = -1.0 / (2 * kVolBump);
      break;
    case config::Greek::rho:
      w[rate_up] = 1.0 / (2 * kRateBump);
      w[rate_up + 1] = -1.0 / (2 * kRateBump);
      break;
    case config::Greek::theta: // calendar time passing: (V(t + h) - V(t)) / h
      w[time_fwd] = 1.0 / time_bump;
      w[0] = -1.0 / time_bump;
      break;
    }
    group.greek_weights.insert(group.greek_weights.end(), w.begin(), w.end());
  }

  // Model data of every scenario, one block each.
  std::vector<double> constants;
  for (int k = 0; k < S; ++k) {
    const Scenario& sc = scenarios[static_cast<std::size_t>(k)];
    const ModelData data =
        model_data(sc.config(), sc.config().models[static_cast<std::size_t>(model_index)],
                   group.times, sc.time_shift);
    if (k == 0)
      group.step_series = data.series;
    append_interleaved(group.model_data, data);
    constants.insert(constants.end(), data.constants.begin(), data.constants.end());
  }
  if (S > 1) {
    const double block = static_cast<double>(group.model_data.size() / S);
    const double per = static_cast<double>(constants.size() / S);
    group.model_constants = {static_cast<double>(S), block, per};
  }
  group.model_constants.insert(group.model_constants.end(), constants.begin(), constants.end());

  // Observations and instruments, per scenario (scenario k observes assets k·A .. k·A + A - 1).
  const int A = group.assets;
  ObservationSet observations;
  for (int i : instrument_indices) {
    const auto& in = config.instruments[static_cast<std::size_t>(i)];
    const int maturity_step = step_of(group.times, in.maturity);
    double control_mean = 0.0;
    for (int k = 0; k < S; ++k) {
      const Scenario& sc = scenarios[static_cast<std::size_t>(k)];
      const int a0 = k * A;
      models::InstrumentView view{};
      view.is_call = in.option == config::OptionType::call ? 1 : 0;
      view.strike = in.strike;
      view.discount = discount_factor(sc.config().market.zero_rates, in.maturity - sc.time_shift);
      view.quantity = k == 0 ? quantity[static_cast<std::size_t>(i)] : 0.0;
      group.portfolio = group.portfolio || view.quantity != 0.0;
      view.cash = in.cash;
      view.barrier_observation = -1;
      view.control = models::ControlKind::none;
      view.control_observation = -1;
      view.pathwise_delta = 0.0;
      // Pathwise delta where the payoff is Lipschitz and the paths scale with the spot.
      if (k == 0 &&
          (model.type == config::ModelType::black_scholes ||
           model.type == config::ModelType::heston) &&
          (in.type == config::InstrumentType::european ||
           in.type == config::InstrumentType::asian)) {
        view.pathwise_delta =
            1.0 / config.market.underlyings[static_cast<std::size_t>(model.underlying_index)].spot;
      }
      const int terminal =
          observations.add(models::ObservationKind::terminal, a0, std::vector<int>{maturity_step});
      switch (in.type) {
      case config::InstrumentType::european:
        view.kind = models::PayoffKind::european;
        view.underlying_observation = terminal;
        if (group.control_variate && k == 0) {
          const auto& u =
              config.market.underlyings[static_cast<std::size_t>(model.underlying_index)];
          view.control = models::ControlKind::terminal_spot;
          view.control_observation = terminal;
          control_mean = u.spot * std::exp(-u.dividend_yield * in.maturity);
        }
        break;
      case config::InstrumentType::digital:
        view.kind = models::PayoffKind::digital;
        view.underlying_observation = terminal;
        break;
      case config::InstrumentType::asian: {
        view.kind = models::PayoffKind::asian;
        const std::vector<int> fixings = steps_of(group.times, in.fixing_times);
        view.underlying_observation = observations.add(in.average == config::AverageType::arithmetic
                                                           ? models::ObservationKind::arithmetic_sum
                                                           : models::ObservationKind::log_sum,
                                                       a0, fixings);
        // The geometric Asian controls an arithmetic one where log G is exactly normal (Black
        // with deterministic curves): its mean in closed form from the step data.
        if (group.control_variate && k == 0 && in.average == config::AverageType::arithmetic &&
            model.type == config::ModelType::black_scholes) {
          view.control = models::ControlKind::geometric_asian;
          view.control_observation =
              observations.add(models::ObservationKind::log_sum, a0, fixings);
          const auto& drift = group.step_series[0];
          const auto& diffusion = group.step_series[1];
          const double n = static_cast<double>(fixings.size());
          double mean = 0.0, variance = 0.0, cumulative = 0.0;
          std::size_t f = 0;
          std::vector<int> after(static_cast<std::size_t>(steps), 0); // fixings after step s
          for (int fx : fixings) {
            for (int s = 0; s < fx; ++s)
              ++after[static_cast<std::size_t>(s)];
          }
          for (int s = 0; s < steps; ++s) {
            cumulative += drift[static_cast<std::size_t>(s)];
            while (f < fixings.size() && fixings[f] == s + 1) {
              mean += cumulative;
              ++f;
            }
            const double c = after[static_cast<std::size_t>(s)] / n;
            variance += c * c * diffusion[static_cast<std::size_t>(s)] *
                        diffusion[static_cast<std::size_t>(s)];
          }
          mean = group.model_constants[S > 1 ? 3 : 0] + mean / n;
          control_mean = lognormal_option(view.is_call, mean, variance, in.strike, view.discount);
        }
        break;
      }
      case config::InstrumentType::barrier: {
        view.kind = models::PayoffKind::barrier;
        view.underlying_observation = terminal;
        const bool down = in.barrier_type == config::BarrierType::down_and_in ||
                          in.barrier_type == config::BarrierType::down_and_out;
        view.direction = down ? models::BarrierDirection::down : models::BarrierDirection::up;
        view.knock_in = in.barrier_type == config::BarrierType::down_and_in ||
                        in.barrier_type == config::BarrierType::up_and_in;
        view.log_barrier = std::log(in.barrier);
        view.rebate = in.rebate;
        view.barrier_observation = observations.add(down ? models::ObservationKind::running_min
                                                         : models::ObservationKind::running_max,
                                                    a0, steps_of(group.times, in.monitoring_times));
        break;
      }
      case config::InstrumentType::basket: {
        view.kind = models::PayoffKind::basket;
        view.basket = in.basket == config::BasketPayoff::weighted ? models::BasketKind::weighted
                      : in.basket == config::BasketPayoff::max    ? models::BasketKind::max
                                                                  : models::BasketKind::min;
        view.basket_assets = A;
        for (int a = 0; a < A; ++a) {
          view.basket_observations[a] =
              a == 0 ? terminal
                     : observations.add(models::ObservationKind::terminal, a0 + a,
                                        std::vector<int>{maturity_step});
          view.weights[a] = in.weights[static_cast<std::size_t>(a)];
        }
        view.underlying_observation = terminal;
        break;
      }
      }
      group.instruments.push_back(view);
    }
    group.control_mean.push_back(control_mean);
    group.instrument_config_index.push_back(i);
  }
  // Asians that are not priced off the terminal spot leave an unused terminal observation;
  // drop observations nobody reads so the per-path state stays minimal.
  std::vector<int> used(observations.keys().size(), 0);
  for (const auto& v : group.instruments) {
    used[static_cast<std::size_t>(v.underlying_observation)] = 1;
    if (v.barrier_observation >= 0)
      used[static_cast<std::size_t>(v.barrier_observation)] = 1;
    if (v.control_observation >= 0)
      used[static_cast<std::size_t>(v.control_observation)] = 1;
    if (v.kind == models::PayoffKind::basket) {
      for (int a = 0; a < v.basket_assets; ++a)
        used[static_cast<std::size_t>(v.basket_observations[a])] = 1;
    }
  }
  // Number the observations in use, the most frequently observed first: they get the register
  // slots of models/path.cuh. Ties keep the order of first use.
  std::vector<std::size_t> order;
  for (std::size_t o = 0; o < used.size(); ++o) {
    if (used[o])
      order.push_back(o);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return observations.keys()[a].steps.size() > observations.keys()[b].steps.size();
  });
  const int kept = static_cast<int>(order.size());
  if (kept > models::kMaxObservations) {
    throw config::ConfigError(
        config.file, model.mark, "models[" + std::to_string(model_index) + "]",
        "its instruments need " + std::to_string(kept) +
            " distinct observation schedules (maturities, fixing and monitoring schedules" +
            (S > 1 ? ", for each of the " + std::to_string(S) + " scenarios of the Greeks" : "") +
            "); at most " + std::to_string(models::kMaxObservations) + " are supported per model");
  }
  std::vector<int> renumber(used.size(), -1);
  for (std::size_t n = 0; n < order.size(); ++n)
    renumber[order[n]] = static_cast<int>(n);
  for (auto& v : group.instruments) {
    v.underlying_observation = renumber[static_cast<std::size_t>(v.underlying_observation)];
    if (v.barrier_observation >= 0) {
      v.barrier_observation = renumber[static_cast<std::size_t>(v.barrier_observation)];
    }
    if (v.control_observation >= 0) {
      v.control_observation = renumber[static_cast<std::size_t>(v.control_observation)];
    }
    if (v.kind == models::PayoffKind::basket) {
      for (int a = 0; a < v.basket_assets; ++a) {
        v.basket_observations[a] = renumber[static_cast<std::size_t>(v.basket_observations[a])];
      }
    }
  }
  std::vector<std::vector<int>> events_at(static_cast<std::size_t>(steps) + 1);
  for (std::size_t o : order) {
    const auto& key = observations.keys()[o];
    group.observations.push_back(
        models::ObservationView{key.kind, key.asset, static_cast<int>(key.steps.size())});
    for (int s : key.steps)
      events_at[static_cast<std::size_t>(s)].push_back(renumber[o]);
  }
  // Kernel step s moves the path from times[s] to times[s + 1]; its observations are those at
  // grid index s + 1.
  // Consecutive steps with the same register-slot observations and none beyond the slots
  // merge into one run.
  for (int s = 0; s < steps; ++s) {
    const auto& at = events_at[static_cast<std::size_t>(s) + 1];
    if (at.empty())
      continue;
    models::ObservationRun run{s, s, 0u, -1};
    const int spill_begin = static_cast<int>(group.spill_events.size());
    for (int o : at) {
      const auto& view = group.observations[static_cast<std::size_t>(o)];
      if (o < models::kRegisterObservations) {
        run.masks |= 1u << (static_cast<int>(view.kind) * models::kRegisterObservations + o);
      } else {
        group.spill_events.push_back(models::EventCode{static_cast<unsigned char>(o),
                                                       static_cast<unsigned char>(view.kind),
                                                       static_cast<unsigned char>(view.asset), 0});
      }
    }
    const int spill_end = static_cast<int>(group.spill_events.size());
    if (spill_end > spill_begin) {
      run.spill = static_cast<int>(group.spill_ranges.size());
      group.spill_ranges.push_back(models::SpillRange{spill_begin, spill_end});
    }
    auto& runs = group.observation_runs;
    if (!runs.empty() && run.spill < 0 && runs.back().spill < 0 && runs.back().last == s - 1 &&
        runs.back().masks == run.masks) {
      runs.back().last = s;
    } else {
      runs.push_back(run);
    }
  }
  group.observation_runs.push_back(models::ObservationRun{INT_MAX, INT_MAX, 0u, -1});
  return group;
}

} // namespace

double discount_factor(const config::TermStructure& zero_rates, double t) {
  const double z = zero_rates.is_flat() ? zero_rates.values.front()
                                        : interpolate(zero_rates.tenors, zero_rates.values, t);
  return std::exp(-z * t);
}

double total_variance(const config::TermStructure& vols, double t) {
  if (vols.is_flat())
    return vols.values.front() * vols.values.front() * t;
  const auto& tenors = vols.tenors;
  const auto& v = vols.values;
  if (t <= tenors.front())
    return v.front() * v.front() * t;
  if (t >= tenors.back())
    return v.back() * v.back() * t;
  std::vector<double> w(tenors.size());
  for (std::size_t i = 0; i < tenors.size(); ++i)
    w[i] = v[i] * v[i] * tenors[i];
  return interpolate(tenors, w, t);
}

std::vector<double> make_time_grid(double horizon, int steps_per_year,
                                   const std::vector<double>& event_times) {
  // Events inside (0, horizon], merged when closer than the tolerance.
  std::vector<double> events{horizon};
  for (double t : event_times) {
    if (t > kTimeTolerance && t <= horizon + kTimeTolerance)
      events.push_back(std::min(t, horizon));
  }
  std::sort(events.begin(), events.end());
  std::vector<double> merged;
  for (double t : events) {
    if (merged.empty() || t - merged.back() > kTimeTolerance)
      merged.push_back(t);
  }
  // Uniform times that are not (within tolerance) an event; none on the event grid
  // (steps_per_year 0).
  std::vector<double> grid{0.0};
  grid.reserve(merged.size() + static_cast<std::size_t>(horizon * steps_per_year) + 2);
  const auto uniform_steps =
      steps_per_year > 0 ? static_cast<long long>(std::floor(horizon * steps_per_year)) : 0;
  std::size_t e = 0;
  for (long long k = 1; k <= uniform_steps; ++k) {
    const double t = static_cast<double>(k) / steps_per_year;
    while (e < merged.size() && merged[e] < t - kTimeTolerance)
      grid.push_back(merged[e++]);
    if (e < merged.size() && merged[e] <= t + kTimeTolerance)
      continue; // the event stands for it
    grid.push_back(t);
  }
  while (e < merged.size())
    grid.push_back(merged[e++]);
  return grid;
}

SimulationPlan make_plan(const config::RunConfig& config) {
  SimulationPlan plan;
  plan.paths = config.simulation.paths;
  // Groups in order of first use by an instrument; instruments keep their config order.
  std::vector<int> group_of_model(config.models.size(), -1);
  std::vector<std::vector<int>> members;
  std::vector<int> models_in_order;
  for (std::size_t i = 0; i < config.instruments.size(); ++i) {
    const int m = config.instruments[i].model_index;
    if (group_of_model[static_cast<std::size_t>(m)] < 0) {
      group_of_model[static_cast<std::size_t>(m)] = static_cast<int>(members.size());
      members.emplace_back();
      models_in_order.push_back(m);
    }
    members[static_cast<std::size_t>(group_of_model[static_cast<std::size_t>(m)])].push_back(
        static_cast<int>(i));
  }
  // Portfolio quantity of each instrument (0 when not held), once for all groups.
  std::vector<double> quantity(config.instruments.size(), 0.0);
  for (const auto& position : config.portfolio) {
    quantity[static_cast<std::size_t>(position.instrument_index)] += position.quantity;
  }
  for (std::size_t g = 0; g < members.size(); ++g) {
    plan.groups.push_back(plan_group(config, models_in_order[g], members[g], quantity));
    plan.groups.back().index = static_cast<int>(g);
  }
  return plan;
}

} // namespace pfmc::engine
