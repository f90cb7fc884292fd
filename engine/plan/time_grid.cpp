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

namespace {

/// make_time_grid on its own copy of the event times, merged in place (the event grid is that
/// array itself: a one-step group's grid costs one allocation).
std::vector<double> time_grid_of(double horizon, int steps_per_year, std::vector<double> events) {
  // Events inside (0, horizon], merged when closer than the tolerance.
  std::size_t kept = 0;
  for (double t : events) {
    if (t > kTimeTolerance && t <= horizon + kTimeTolerance)
      events[kept++] = std::min(t, horizon);
  }
  events.resize(kept);
  events.push_back(horizon);
  std::sort(events.begin(), events.end());
  std::size_t merged = 0;
  for (double t : events) {
    if (merged == 0 || t - events[merged - 1] > kTimeTolerance)
      events[merged++] = t;
  }
  events.resize(merged);
  if (steps_per_year <= 0) { // the event grid: 0, then the events (in the events' own array)
    events.insert(events.begin(), 0.0);
    return events;
  }
  // Uniform times that are not (within tolerance) an event; none on the event grid
  // (steps_per_year 0).
  const auto uniform_steps = static_cast<long long>(std::floor(horizon * steps_per_year));
  std::vector<double> grid;
  grid.reserve(events.size() + static_cast<std::size_t>(uniform_steps) + 1);
  grid.push_back(0.0);
  std::size_t e = 0;
  for (long long k = 1; k <= uniform_steps; ++k) {
    const double t = static_cast<double>(k) / steps_per_year;
    while (e < events.size() && events[e] < t - kTimeTolerance)
      grid.push_back(events[e++]);
    if (e < events.size() && events[e] <= t + kTimeTolerance)
      continue; // the event stands for it
    grid.push_back(t);
  }
  while (e < events.size())
    grid.push_back(events[e++]);
  return grid;
}

} // namespace

std::vector<double> make_time_grid(double horizon, int steps_per_year,
                                   const std::vector<double>& event_times) {
  std::vector<double> events;
  events.reserve(event_times.size() + 2); // and the horizon, and 0 on the event grid
  events.assign(event_times.begin(), event_times.end());
  return time_grid_of(horizon, steps_per_year, std::move(events));
}

namespace plan_detail {

int step_of(const PlanArray<double>& grid, double t) {
  const auto it = std::lower_bound(grid.begin(), grid.end(), t - kTimeTolerance);
  return static_cast<int>(it - grid.begin());
}

std::vector<int> steps_of(const PlanArray<double>& grid, const std::vector<double>& times) {
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
                                    Members instrument_indices) {
  double horizon = 0.0;
  std::vector<double> events;
  // A book repeats a few schedules over many instruments (daily monitoring to 6 or 12 months):
  // each distinct one is added once, or a group of 100 instruments sorts 6,000 times.
  std::vector<const config::Schedule*> added;
  events.reserve(instrument_indices.size() + 2); // each maturity, the horizon, 0 (event grid)
  const auto add_schedule = [&](const config::Schedule& times) {
    if (times.empty())
      return;
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
  std::vector<double> times =
      time_grid_of(horizon, config.simulation.steps_per_year, std::move(events));
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
