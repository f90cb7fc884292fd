// Term structures and the time grid: the dates a group simulates through.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "config/config_error.hpp"
#include "engine/plan/plan.hpp"
#include "engine/plan/plan_detail.hpp"

namespace pfmc::engine {

namespace {

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

} // namespace

using plan_detail::kTimeTolerance;

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

namespace plan_detail {

int step_of(const std::vector<double>& grid, double t) {
  const auto it = std::lower_bound(grid.begin(), grid.end(), t - kTimeTolerance);
  return static_cast<int>(it - grid.begin());
}

std::vector<int> steps_of(const std::vector<double>& grid, const std::vector<double>& times) {
  // `times` increase: each search starts where the last one ended, a walk when the times are
  // dense on the grid (daily monitoring), a bisection when sparse (monthly fixings).
  std::vector<int> steps;
  steps.reserve(times.size());
  const bool dense = 4 * times.size() >= grid.size();
  auto at = grid.begin();
  for (double t : times) {
    const double from = t - kTimeTolerance;
    if (dense) {
      while (at != grid.end() && *at < from)
        ++at;
    } else {
      at = std::lower_bound(at, grid.end(), from);
    }
    steps.push_back(static_cast<int>(at - grid.begin()));
  }
  return steps;
}

std::vector<double> group_time_grid(const config::RunConfig& config, int model_index,
                                    const std::vector<int>& instrument_indices) {
  double horizon = 0.0;
  std::vector<double> events;
  // A book repeats a few schedules over many instruments (daily monitoring to 6 or 12 months):
  // each distinct one is added once, or a group of 100 instruments sorts 6,000 times.
  std::vector<const config::Schedule*> added;
  const auto add_schedule = [&](const config::Schedule& times) {
    for (const auto* seen : added) {
      if (*seen == times) // the same shared schedule at once, else its times compared
        return;
    }
    added.push_back(&times);
    events.insert(events.end(), times.begin(), times.end());
  };
  for (int i : instrument_indices) {
    const auto& in = config.instruments[static_cast<std::size_t>(i)];
    horizon = std::max(horizon, in.maturity);
    events.push_back(in.maturity);
    add_schedule(in.fixing_times);
    add_schedule(in.monitoring_times);
    add_schedule(in.exercise_times);
  }
  std::vector<double> times = make_time_grid(horizon, config.simulation.steps_per_year, events);
  const int steps = static_cast<int>(times.size()) - 1;
  if (steps > kMaxGroupSteps) {
    const auto& model = config.models[static_cast<std::size_t>(model_index)];
    throw config::ConfigError(
        config.file, model.mark, "models[" + std::to_string(model_index) + "]",
        "its instruments need " + std::to_string(steps) + " time steps; at most " +
            std::to_string(kMaxGroupSteps) + " are supported (lower simulation.steps_per_year)");
  }
  return times;
}

} // namespace plan_detail

} // namespace pfmc::engine
