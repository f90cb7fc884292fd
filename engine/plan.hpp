#pragma once
// Run planning: which instruments simulate together, on which time grid, with which per-step
// market data, observations and payoffs. Host-only and device-agnostic: the GPU and CPU
// backends both execute a SimulationPlan.

#include <cstdint>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "models/path.cuh"
#include "models/payoff.cuh"

namespace pfmc::engine {

/// Hard limits of one simulation group, checked at planning with a config error.
inline constexpr int kMaxGroupSteps = 1'000'000;

/// One model and the instruments priced on its paths (every instrument of the group sees the
/// same paths, so the portfolio's per-path value is exact within the group).
struct GroupPlan {
  int model_index = -1;
  std::string model_name;
  config::ModelType model_type = config::ModelType::black_scholes;
  int factors = 1; ///< normals per step

  std::vector<double> times; ///< [steps + 1], times[0] = 0, times.back() = horizon

  // The model's per-step market data (each series [steps], in the order the model's
  // make_params() reads them; converted to the run's precision when uploaded) and constants.
  std::vector<std::vector<double>> step_series;
  std::vector<double> model_constants;

  /// Observations, the most frequently observed first (they get the register slots of
  /// models/path.cuh).
  std::vector<models::ObservationView> observations;
  /// Runs of steps with the same observations, in order, ending with a sentinel
  /// (models::ObservationRun).
  std::vector<models::ObservationRun> observation_runs;
  std::vector<models::SpillRange> spill_ranges; ///< of the runs with observations beyond slots
  std::vector<models::EventCode> spill_events;  ///< observations beyond the register slots

  std::vector<models::InstrumentView> instruments;
  std::vector<int> instrument_config_index; ///< into RunConfig::instruments

  [[nodiscard]] int steps() const { return static_cast<int>(times.size()) - 1; }
  [[nodiscard]] int rows() const { return steps() * factors; } ///< normals per path
};

/// The group's step series interleaved per step ([step][series]) in precision Real: what a
/// model's make_params() takes.
template <class Real>
std::vector<Real> interleaved_step_series(const GroupPlan& group) {
  const std::size_t steps = static_cast<std::size_t>(group.steps());
  const std::size_t series = group.step_series.size();
  std::vector<Real> out(steps * series);
  for (std::size_t k = 0; k < series; ++k) {
    for (std::size_t s = 0; s < steps; ++s) {
      out[s * series + k] = static_cast<Real>(group.step_series[k][s]);
    }
  }
  return out;
}

struct SimulationPlan {
  std::vector<GroupPlan> groups;
  std::uint64_t paths = 0;
};

/// Throws config::ConfigError when a group exceeds a limit (steps, observations).
SimulationPlan make_plan(const config::RunConfig& config);

// --- term structures (exposed for tests and analytic references) -------------------------------

/// exp(-z(t) t), z linearly interpolated between pillars, flat outside.
double discount_factor(const config::TermStructure& zero_rates, double t);
/// σ(t)² t, linear in total variance between pillars, flat vol outside.
double total_variance(const config::TermStructure& vols, double t);

/// 0, the uniform steps k/steps_per_year below the horizon, and every event time, merged
/// (times closer than 1e-10 are one; the event time wins). The last time is the horizon.
std::vector<double> make_time_grid(double horizon, int steps_per_year,
                                   const std::vector<double>& event_times);

} // namespace pfmc::engine
