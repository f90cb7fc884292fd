#pragma once
// Run planning: which instruments simulate together, on which time grid, with which per-step
// market data, observations and payoffs. Host-only and device-agnostic: the GPU and CPU
// backends both execute a SimulationPlan.

#include <cstdint>
#include <memory>
#include <memory_resource>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "kernels/value_layout.cuh"
#include "models/exercise.cuh"
#include "models/path.cuh"
#include "models/payoff.cuh"

namespace pfmc::engine {

/// Hard limits of one simulation group, checked at planning with a config error.
inline constexpr int kMaxGroupSteps = 1'000'000;

/// At most this many early-exercise instruments share a simulation group (each keeps a cash flow
/// per scenario in an observation slot; the planner starts another group past it).
inline constexpr int kMaxExerciseRules = 8;

/// A group's early-exercise instruments (Longstaff-Schwartz, models/exercise.cuh): every base
/// instrument of such a group is one. Rule r is base instrument r.
struct ExercisePlan {
  std::vector<int> steps;                  ///< grid indices of the exercise dates, increasing
  std::vector<models::ExerciseView> views; ///< [rule][scenario]
  std::vector<unsigned char> allowed;      ///< [rule][date]
  std::vector<double> discounts;           ///< [view][date]: to today, in the view's scenario
  /// Pathwise Greeks' groups: [view][date][2], each discount's tangents by the rate and valuation
  /// time (models::ExerciseTable::discount_tangents); empty otherwise.
  std::vector<double> discount_tangents;
  models::RegressionBasis basis{3, 0};
  double variance_scale = 1.0; ///< Heston: the long-run variance
  int rules = 0;               ///< the group's base instruments
  int scenarios = 1;           ///< views per rule (the Greeks' scenarios)
  int levels = 0;              ///< distinct levels the regression pass records
  std::uint64_t regression_paths = 0;

  [[nodiscard]] bool present() const { return !views.empty(); }
  [[nodiscard]] int dates() const { return static_cast<int>(steps.size()); }
  [[nodiscard]] const double* discount_tangents_or_null() const {
    return discount_tangents.empty() ? nullptr : discount_tangents.data();
  }
  /// Values of the regression pass's records: levels, then variances (two-variable basis).
  [[nodiscard]] std::uint64_t record_values() const {
    return (static_cast<std::uint64_t>(levels) + (basis.two_variables ? 1 : 0)) *
           static_cast<std::uint64_t>(dates()) * regression_paths;
  }
};

/// A group's arrays: allocated from its plan's arena (SimulationPlan::memory) when the planner
/// makes them, so that planning a book of 8,192 groups is not ~140,000 mallocs and its free not
/// as many frees (docs/decisions.md#plan-arenas); from the heap when a GroupPlan is made or copied
/// elsewhere. A group moved out of its plan keeps the arena's arrays: copy it to outlive the plan.
template <class T>
using PlanArray = std::pmr::vector<T>;

/// One model and the instruments priced on its paths (every instrument of the group sees the
/// same paths, so the portfolio's per-path value is exact within the group).
struct GroupPlan {
  GroupPlan() = default;
  /// Its arrays allocated from `memory` (which must outlive the group).
  explicit GroupPlan(std::pmr::memory_resource* memory)
      : times(memory), model_data(memory), model_constants(memory), greeks(memory),
        greek_assets(memory), greek_pair_assets(memory), greek_weights(memory),
        pathwise_greeks(memory), control_mean(memory), observations(memory),
        observation_runs(memory), spill_ranges(memory), spill_events(memory), instruments(memory),
        instrument_config_index(memory) {}

  int index = 0; ///< the group's place in SimulationPlan::groups (the draws' group index)
  int model_index = -1;
  std::string model_name;
  config::ModelType model_type = config::ModelType::black_scholes;
  int factors = 1; ///< normals per step
  int assets = 1;  ///< assets of the model (multi_black_scholes: 2..4)
  /// simulation.math is `fast` (models/math.cuh's Fast profile: the `_fast` entries of
  /// kernels/model_list.cuh, Philox4x32-7 draws).
  bool fast_math = false;

  PlanArray<double> times; ///< [steps + 1], times[0] = 0, times.back() = horizon

  /// Series per step of the base scenario's market data: the first steps() × step_series_count
  /// values of model_data ([step][series], in the order of the model's Step).
  int step_series_count = 0;
  /// What the model's make_params() reads: every scenario's per-step data interleaved per step
  /// ([step][series], then any tail such as a surface's knots), scenario after scenario;
  /// converted to the run's precision when uploaded.
  PlanArray<double> model_data;
  /// The model's constants (with Greeks: the Scenarios header, then each scenario's).
  PlanArray<double> model_constants;

  /// Scenarios simulated on the same draws: 1, or with Greeks the base and its bumps
  /// (models/scenarios.cuh). Instruments are stored [base instrument][scenario].
  int scenarios = 1;
  /// Copies of the model simulated on each path (models::Scenarios' count; 1: the model alone):
  /// the scenarios, but for a risk pass's scenarios read on another's paths with scaled spots.
  int model_copies = 1;
  /// The Greeks, in config::Greek order; on a basket's model delta, gamma and vega once per
  /// underlying, greek_assets saying which (the model's asset), -1 for the whole model.
  PlanArray<config::Greek> greeks;
  PlanArray<int> greek_assets;
  /// cross_gamma (pathwise only): the pair's second asset b (greek_assets holding a, a < b); -1
  /// for every other Greek.
  PlanArray<int> greek_pair_assets;
  /// Per-path estimate of Greek g = Σ_s greek_weights[g * scenarios + s] · payoff of scenario s.
  PlanArray<double> greek_weights;
  /// The Greeks taken pathwise ([greek]; engine/plan/pathwise.cpp): the group simulates the
  /// pathwise model's tangents (models/pathwise.cuh) in one scenario, and greek_weights is
  /// empty. Empty for bumped Greeks.
  PlanArray<models::PathwiseGreek> pathwise_greeks;
  /// The moved inputs whose tangents the group's pathwise model carries (models/pathwise.cuh):
  /// kMovedInputs, or kSpotAndVolInputs for single-asset Black-Scholes without rho and theta
  /// (the `pathwise_spot_vol_` kernels); 0 without pathwise Greeks (pathwise() false).
  int pathwise_moved_inputs = 0;
  /// Per base instrument: the closed-form mean of its control variate (0 without one).
  PlanArray<double> control_mean;
  bool control_variate = false;
  bool antithetic = false; ///< paths in pairs: statistics over pair averages
  /// The group holds positions of the portfolio: the portfolio's per-path value is reduced too.
  bool portfolio = false;

  /// Observations, the most frequently observed first (they get the register slots of
  /// models/path.cuh).
  PlanArray<models::ObservationView> observations;
  /// Runs of steps with the same observations, in order, ending with a sentinel
  /// (models::ObservationRun).
  PlanArray<models::ObservationRun> observation_runs;
  PlanArray<models::SpillRange> spill_ranges; ///< of the runs with observations beyond slots
  PlanArray<models::EventCode> spill_events;  ///< observations beyond the register slots

  PlanArray<models::InstrumentView> instruments;
  PlanArray<int> instrument_config_index; ///< into RunConfig::instruments

  /// Early exercise: present() when the group's instruments are American or Bermudan.
  ExercisePlan exercise;

  [[nodiscard]] int steps() const { return static_cast<int>(times.size()) - 1; }
  /// The base scenario's per-step series k ([steps]), from model_data: for inspection, tests
  /// and the control variates' means.
  [[nodiscard]] std::vector<double> step_series(int k) const {
    std::vector<double> series(static_cast<std::size_t>(steps()));
    for (std::size_t s = 0; s < series.size(); ++s)
      series[s] =
          model_data[s * static_cast<std::size_t>(step_series_count) + static_cast<std::size_t>(k)];
    return series;
  }
  /// The group's Greeks are pathwise (its model the pathwise one).
  [[nodiscard]] bool pathwise() const { return !pathwise_greeks.empty(); }
  [[nodiscard]] int rows() const { return steps() * factors; } ///< normals per path
  /// Index of delta among the Greeks, or -1.
  [[nodiscard]] int delta_greek() const {
    for (std::size_t k = 0; k < greeks.size(); ++k) {
      if (greeks[k] == config::Greek::delta)
        return static_cast<int>(k);
    }
    return -1;
  }
  [[nodiscard]] int base_instruments() const {
    return static_cast<int>(instruments.size()) / scenarios;
  }
  /// Base instrument j (its base scenario) as the payoff code sees it.
  [[nodiscard]] const models::InstrumentView& base_instrument(int j) const {
    return instruments[static_cast<std::size_t>(j) * static_cast<std::size_t>(scenarios)];
  }
  /// Base instrument j is priced with a control variate.
  [[nodiscard]] bool has_control(int j) const {
    return control_variate && base_instrument(j).control != models::ControlKind::none;
  }
  /// Where each reduced value of the group lives (kernels/value_layout.cuh: per base instrument
  /// Σy, Σy², its control's and Greeks' sums, then the portfolio's).
  [[nodiscard]] kernels::ValueLayout value_layout() const {
    return kernels::ValueLayout{base_instruments(), control_variate ? 1 : 0,
                                static_cast<int>(greeks.size()), portfolio ? 1 : 0};
  }
  /// The EstimateSpec of the group's base instruments (greek_weights in host memory).
  [[nodiscard]] models::EstimateSpec estimate_spec() const {
    return models::EstimateSpec{
        scenarios,     control_variate ? 1 : 0, static_cast<int>(greeks.size()),
        delta_greek(), greek_weights.data(),    pathwise() ? pathwise_greeks.data() : nullptr};
  }
  /// Reduced values per base instrument, and of the whole group.
  [[nodiscard]] int values_per_instrument() const { return value_layout().per_instrument(); }
  [[nodiscard]] int reduced_values() const { return value_layout().size(); }
};

/// The group's step series interleaved per step ([step][series]) in precision Real: what a
/// model's make_params() takes.
template <class Real>
std::vector<Real> interleaved_step_series(const GroupPlan& group) {
  return std::vector<Real>(group.model_data.begin(), group.model_data.end());
}

/// The plan's groups, read like a vector. The planner makes them on its threads, each range of
/// groups (config::range_begin's) on the thread that plans it, and they are freed on a few
/// threads: made and freed one after another, the 8,192 groups of 576 bytes of the
/// MonteCarloMultiGPU book took ~0.5 ms each way (the planner 0.4-0.9 ms faster so:
/// docs/decisions.md#planning-threads). Moves only.
class GroupPlans {
public:
  GroupPlans() = default;
  /// `count` groups with heap arrays (tests, benches).
  explicit GroupPlans(std::size_t count);
  /// Room for `count` groups in `ranges` ranges, none made: make_range makes each.
  GroupPlans(std::size_t count, std::size_t ranges);
  GroupPlans(GroupPlans&& other) noexcept { *this = std::move(other); }
  GroupPlans& operator=(GroupPlans&& other) noexcept;
  GroupPlans(const GroupPlans&) = delete;
  GroupPlans& operator=(const GroupPlans&) = delete;
  ~GroupPlans() { destroy(); }

  /// Makes range r's groups, their arrays from `memory` (which must outlive them); once a range,
  /// on any thread. A range not made (its planning thread stopped early) is not freed.
  void make_range(std::size_t r, std::pmr::memory_resource* memory) noexcept;

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] GroupPlan& operator[](std::size_t g) { return groups_[g]; }
  [[nodiscard]] const GroupPlan& operator[](std::size_t g) const { return groups_[g]; }
  [[nodiscard]] GroupPlan* begin() { return groups_; }
  [[nodiscard]] GroupPlan* end() { return groups_ + size_; }
  [[nodiscard]] const GroupPlan* begin() const { return groups_; }
  [[nodiscard]] const GroupPlan* end() const { return groups_ + size_; }
  [[nodiscard]] const GroupPlan& front() const { return groups_[0]; }
  [[nodiscard]] const GroupPlan& back() const { return groups_[size_ - 1]; }

private:
  void destroy() noexcept;
  void destroy_range(std::size_t r) noexcept;

  GroupPlan* groups_ = nullptr; ///< storage for size_ groups
  std::size_t size_ = 0;
  std::vector<unsigned char> made_; ///< per range: its groups are made (each written by one thread)
};

struct SimulationPlan {
  SimulationPlan() = default;
  SimulationPlan(SimulationPlan&&) = default;
  /// Frees the groups before the arenas their arrays came from.
  SimulationPlan& operator=(SimulationPlan&& other) noexcept {
    groups = GroupPlans();
    memory = std::move(other.memory);
    groups = std::move(other.groups);
    paths = other.paths;
    notices = std::move(other.notices);
    return *this;
  }
  /// The groups' arenas, one per planning thread (declared first: freed after the groups).
  std::vector<std::shared_ptr<std::pmr::monotonic_buffer_resource>> memory;
  GroupPlans groups;
  std::uint64_t paths = 0;
  /// One-line remarks for the run's notices: what the plan leaves out that the config asked
  /// for (e.g. Greeks on a model that cannot have them yet).
  std::vector<std::string> notices;
};

/// Bump sizes of the Greeks (bump-and-revalue on common random numbers).
inline constexpr double kSpotBump = 0.01;      ///< relative: h = 1% of each spot
inline constexpr double kVolBump = 0.01;       ///< absolute: one vol point
inline constexpr double kRateBump = 0.001;     ///< absolute: 10 bp parallel zero-rate shift
inline constexpr double kTimeBump = 1.0 / 365; ///< one day (less when the first step is shorter)

/// Throws config::ConfigError when a group exceeds a limit (steps, observations), or asks for
/// the event grid (steps_per_year 0) on a model that needs a discretisation (heston, local_vol).
/// `threads`: the planning threads (0: this host's hardware threads, at most one per 512
/// instruments; benchmarks sweep it).
SimulationPlan make_plan(const config::RunConfig& config, unsigned threads = 0);

// --- term structures (exposed for tests and analytic references) -------------------------------

/// exp(-z(t) t), z linearly interpolated between pillars, flat outside.
double discount_factor(const config::TermStructure& zero_rates, double t);
/// σ(t)² t, linear in total variance between pillars, flat vol outside.
double total_variance(const config::TermStructure& vols, double t);

/// 0, the uniform steps k/steps_per_year below the horizon, and every event time, merged
/// (times closer than 1e-10 are one; the event time wins). The last time is the horizon.
/// steps_per_year 0 is the event grid: {0, the merged events in (0, horizon], the horizon}.
std::vector<double> make_time_grid(double horizon, int steps_per_year,
                                   const std::vector<double>& event_times);

} // namespace pfmc::engine
