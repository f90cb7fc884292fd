#include "engine/plan.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
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

GroupPlan plan_group(const config::RunConfig& config, int model_index,
                     const std::vector<int>& instrument_indices,
                     const std::vector<double>& quantity) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  const auto& underlying =
      config.market.underlyings[static_cast<std::size_t>(model.underlying_index)];

  GroupPlan group;
  group.model_index = model_index;
  group.model_name = model.name;
  group.model_type = model.type;
  group.factors = 1;

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

  // Exact per-interval drift and diffusion from the curves.
  const int steps = group.steps();
  std::vector<double> drift(static_cast<std::size_t>(steps));
  std::vector<double> diffusion(static_cast<std::size_t>(steps));
  for (int s = 0; s < steps; ++s) {
    const double t0 = group.times[static_cast<std::size_t>(s)];
    const double t1 = group.times[static_cast<std::size_t>(s) + 1];
    const double rate = std::log(discount_factor(config.market.zero_rates, t0) /
                                 discount_factor(config.market.zero_rates, t1));
    const double variance =
        std::max(0.0, total_variance(model.volatility, t1) - total_variance(model.volatility, t0));
    drift[static_cast<std::size_t>(s)] =
        rate - underlying.dividend_yield * (t1 - t0) - 0.5 * variance;
    diffusion[static_cast<std::size_t>(s)] = std::sqrt(variance);
  }
  group.step_series = {std::move(drift), std::move(diffusion)};
  group.model_constants = {std::log(underlying.spot)};

  // Observations and instruments.
  ObservationSet observations;
  for (int i : instrument_indices) {
    const auto& in = config.instruments[static_cast<std::size_t>(i)];
    models::InstrumentView view{};
    view.is_call = in.option == config::OptionType::call ? 1 : 0;
    view.strike = in.strike;
    view.discount = discount_factor(config.market.zero_rates, in.maturity);
    view.quantity = quantity[static_cast<std::size_t>(i)];
    view.cash = in.cash;
    view.barrier_observation = -1;
    const int maturity_step = step_of(group.times, in.maturity);
    const int terminal =
        observations.add(models::ObservationKind::terminal, 0, std::vector<int>{maturity_step});
    switch (in.type) {
    case config::InstrumentType::european:
      view.kind = models::PayoffKind::european;
      view.underlying_observation = terminal;
      break;
    case config::InstrumentType::digital:
      view.kind = models::PayoffKind::digital;
      view.underlying_observation = terminal;
      break;
    case config::InstrumentType::asian:
      view.kind = models::PayoffKind::asian;
      view.underlying_observation = observations.add(in.average == config::AverageType::arithmetic
                                                         ? models::ObservationKind::arithmetic_sum
                                                         : models::ObservationKind::log_sum,
                                                     0, steps_of(group.times, in.fixing_times));
      break;
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
                                                  0, steps_of(group.times, in.monitoring_times));
      break;
    }
    }
    group.instruments.push_back(view);
    group.instrument_config_index.push_back(i);
  }
  // Asians that are not priced off the terminal spot leave an unused terminal observation;
  // drop observations nobody reads so the per-path state stays minimal.
  std::vector<int> used(observations.keys().size(), 0);
  for (const auto& v : group.instruments) {
    used[static_cast<std::size_t>(v.underlying_observation)] = 1;
    if (v.barrier_observation >= 0)
      used[static_cast<std::size_t>(v.barrier_observation)] = 1;
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
            " distinct observation schedules (maturities, fixing and monitoring schedules); at "
            "most " +
            std::to_string(models::kMaxObservations) + " are supported per model");
  }
  std::vector<int> renumber(used.size(), -1);
  for (std::size_t n = 0; n < order.size(); ++n)
    renumber[order[n]] = static_cast<int>(n);
  for (auto& v : group.instruments) {
    v.underlying_observation = renumber[static_cast<std::size_t>(v.underlying_observation)];
    if (v.barrier_observation >= 0) {
      v.barrier_observation = renumber[static_cast<std::size_t>(v.barrier_observation)];
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
  // Uniform times that are not (within tolerance) an event.
  std::vector<double> grid{0.0};
  grid.reserve(merged.size() + static_cast<std::size_t>(horizon * steps_per_year) + 2);
  const auto uniform_steps = static_cast<long long>(std::floor(horizon * steps_per_year));
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
  }
  return plan;
}

} // namespace pfmc::engine
