#pragma once
// The planning stage's pieces, in the order plan_group (plan.cpp) runs them: the time grid, the
// scenarios of the Greeks, the models' per-step data, the instruments with their observations and
// control means, then the observations' numbering and runs. Not part of the stage's interface
// (engine/plan/plan.hpp is).

#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "config/run_config.hpp"
#include "engine/plan/plan.hpp"
#include "models/path.cuh"
#include "models/payoff.cuh"

namespace pfmc::engine::plan_detail {

/// Times closer than this are one time of the grid.
inline constexpr double kTimeTolerance = 1e-10;

/// A group's instruments: indices into RunConfig::instruments, increasing (a view into
/// make_plan's one array of every group's members, not a vector a group).
struct Members {
  const int* first = nullptr;
  std::size_t count = 0;
  [[nodiscard]] const int* begin() const { return first; }
  [[nodiscard]] const int* end() const { return first + count; }
  [[nodiscard]] std::size_t size() const { return count; }
  [[nodiscard]] int front() const { return *first; }
};

// ---- time grid (time_grid.cpp) -------------------------------------------------------------

/// Index of time t in the grid (t must be on it).
int step_of(const PlanArray<double>& grid, double t);
/// step_of of each time.
std::vector<int> steps_of(const PlanArray<double>& grid, const std::vector<double>& times);

/// The group's grid: make_time_grid up to its last maturity, through every maturity, fixing and
/// monitoring time of its instruments. Throws config::ConfigError past kMaxGroupSteps.
std::vector<double> group_time_grid(const config::RunConfig& config, int model_index,
                                    Members instrument_indices);

// ---- scenarios of the Greeks (scenarios.cpp) -----------------------------------------------

/// One scenario's market: the config with a bump applied, and a shift of valuation time.
struct Scenario {
  /// The base market (no copy: a plan without Greeks copies nothing), or a bumped copy.
  std::shared_ptr<const config::RunConfig> bumped;
  const config::RunConfig* base = nullptr;
  double time_shift = 0.0; ///< theta: valuation moved forward by this (years)
  /// A risk scenario read on another scenario's paths (engine/risk/market_shift.hpp's
  /// ShiftPaths): the model copy whose paths it reads (-1: its own, at its own index) and its
  /// spots over that copy's; config() is then the copy's market.
  int copy = -1;
  double spot_scale = 1.0;
  [[nodiscard]] const config::RunConfig& config() const { return bumped ? *bumped : *base; }
};

/// The base scenario, then the bumps the run's Greeks need (same draws, same grid as
/// group.times): on a basket's model each underlying's spot and vol apart (per-underlying delta,
/// gamma and vega). Sets group.scenarios, group.greeks, group.greek_assets and
/// group.greek_weights.
std::vector<Scenario> plan_scenarios(const config::RunConfig& config, int model_index,
                                     GroupPlan& group);

/// A priced shift's markets, made once for every group: the whole of it, and without its spot
/// moves (the paths of a model whose paths scale with the spot).
struct ShiftedMarket {
  Scenario whole;
  Scenario unspotted;
};
/// The markets of the run's priced shifts (RunConfig::priced_shifts, a risk run's pass); empty
/// without them.
std::vector<ShiftedMarket> shifted_markets(const config::RunConfig& config);

/// The base scenario and the priced shifts' scenarios (each shift's P&L against the base an
/// estimate of the group: config::Greek::scenario_pnl, greek_assets its scenario), and in
/// `copies` the markets whose paths the group simulates (the base first): a shift that moves
/// only the spots of a model whose paths scale with them reads another copy's paths
/// (Scenario::copy). Throws config::ConfigError where the model cannot carry that many copies
/// or scenarios on one path, or a time move is not shorter than the group's first step.
std::vector<Scenario> plan_shifted_scenarios(const config::RunConfig& config,
                                             const std::vector<ShiftedMarket>& shifted,
                                             int model_index, bool early_exercise, GroupPlan& group,
                                             std::vector<Scenario>& copies);

// ---- per-step model data (step_data.cpp) ---------------------------------------------------

/// A model's per-step data over a grid (shifted by a scenario), interleaved per step
/// ([step][series]) and followed by its tail (a surface's knots), and its constants: what a
/// model's make_params() reads. One array, not one per series: a book of 8,192 one-step groups
/// allocated each series apart.
struct ModelData {
  ModelData() = default;
  ModelData(int series_per_step, int step_count, std::size_t tail)
      : series(series_per_step), steps(static_cast<std::size_t>(step_count)),
        values(static_cast<std::size_t>(series_per_step) * steps + tail) {}
  int series = 0;
  std::size_t steps = 0;
  std::vector<double> values;
  std::vector<double> constants;
  /// Series k at step s.
  double& at(std::size_t k, std::size_t s) {
    return values[s * static_cast<std::size_t>(series) + k];
  }
  [[nodiscard]] double at(std::size_t k, std::size_t s) const {
    return values[s * static_cast<std::size_t>(series) + k];
  }
};

/// The model's data over `grid` under `config`'s market, valuation moved forward by `shift`.
ModelData model_data(const config::RunConfig& config, const config::ModelConfig& model,
                     const PlanArray<double>& grid, double shift);

/// Throws config::ConfigError when the event grid (steps_per_year 0) is asked of a model whose
/// step is not exact over any interval.
void check_event_grid_is_exact(const config::RunConfig& config, const config::ModelConfig& model);

/// group.step_series_count, group.model_data and group.model_constants (every
/// scenario's, one block each) over group.times.
void plan_model_data(const std::vector<Scenario>& copies, int model_index, GroupPlan& group);

// ---- bumps of the market (scenarios.cpp) --------------------------------------------------

/// The config with the spot of the model's asset `asset` (every asset: -1) moved by `relative`.
config::RunConfig bump_spot(config::RunConfig c, const config::ModelConfig& model, int asset,
                            double relative);
/// The config with the model's volatility moved by `h` (absolute): every pillar of a Black curve,
/// every node of a local-vol surface, the vol of a basket's asset `asset`; for Heston sqrt(v0)
/// and sqrt(theta).
config::RunConfig bump_vol(config::RunConfig c, int model_index, int asset, double h);
/// The config with every zero rate moved by `h` (absolute).
config::RunConfig bump_rates(config::RunConfig c, double h);

// ---- pathwise Greeks (pathwise.cpp) ------------------------------------------------------------

/// Whether the group's Greeks are taken pathwise: simulation.greeks_method and what its model and
/// instruments allow (auto: pathwise where all of them do). Throws config::ConfigError for
/// greeks_method: pathwise on a group that cannot have them, naming the instrument and why.
bool takes_pathwise(const config::RunConfig& config, int model_index, Members instrument_indices);

/// The scenarios of a pathwise group (the base alone) with group.greeks, group.greek_assets and
/// group.pathwise_greeks.
std::vector<Scenario> plan_pathwise(const config::RunConfig& config, int model_index,
                                    GroupPlan& group);

/// group.step_series_count, group.model_data and group.model_constants of a pathwise group: the
/// base steps, then each step's derivatives by the moved inputs (models::PathwiseBlackScholes).
void plan_pathwise_model_data(const config::RunConfig& config, int model_index, GroupPlan& group);

/// The kernels' half-widths of an instrument's jumps (InstrumentView::payoff_smoothing and
/// knock_smoothing), after its knock is set.
void set_smoothing(models::InstrumentView& view);

/// d discount(T) / d rate and d discount(T) / d valuation time (InstrumentView::discount_tangent).
void pathwise_discount_tangents(const config::RunConfig& config, double maturity,
                                double (&tangents)[2]);

// ---- control-variate means (controls.cpp) --------------------------------------------------

/// Mean of the discounted terminal spot, the control of a European: the prepaid forward.
double terminal_spot_control_mean(const config::Underlying& underlying, double maturity);

/// Mean of a geometric Asian option on the group's base scenario (Black-Scholes step data, where
/// log G is exactly normal), the control of an arithmetic Asian with the same fixings (grid
/// indices) and strike.
double geometric_asian_control_mean(const GroupPlan& group, const std::vector<int>& fixings,
                                    bool call, double strike, double discount);

// ---- observations (observations.cpp) -------------------------------------------------------

/// How a basket-level observation combines its legs (empty weights: not a basket level).
struct BasketLevel {
  models::BasketKind basket = models::BasketKind::weighted;
  std::vector<double> weights; ///< one per leg, from the observation's asset on
  int shifted_leg = -1;        ///< a pathwise gamma's moved level (models::ObservationView)
  double leg_scale = 1.0;
  bool operator<(const BasketLevel& o) const {
    return std::tie(basket, weights, shifted_leg, leg_scale) <
           std::tie(o.basket, o.weights, o.shifted_leg, o.leg_scale);
  }
};

struct ObservationKey {
  models::ObservationKind kind;
  int asset;
  std::vector<int> steps; // grid indices (1-based: after kernel step s-1)
  BasketLevel level;      // basket_min / basket_max only
  bool operator<(const ObservationKey& o) const {
    return std::tie(kind, asset, steps, level) < std::tie(o.kind, o.asset, o.steps, o.level);
  }
};

/// The distinct observations the instruments ask for, numbered in order of first use.
class ObservationSet {
public:
  /// The observations of one group: schedules become steps on its grid.
  explicit ObservationSet(const PlanArray<double>& grid) : grid_(&grid) {}
  int add(models::ObservationKind kind, int asset, std::vector<int> steps, BasketLevel level = {});
  /// add() of a schedule's steps on the grid: each (kind, asset, shared schedule) is worked out
  /// once (a group of 100 barriers shares two or three monitoring schedules).
  int add(models::ObservationKind kind, int asset, const config::Schedule& times);
  /// The grid steps of a schedule's times (steps_of), once per shared schedule.
  const std::vector<int>& steps(const config::Schedule& times);
  /// The distinct observations, in order of first use (each the set's own key).
  [[nodiscard]] const std::vector<const ObservationKey*>& keys() const { return keys_; }

private:
  const PlanArray<double>* grid_;
  std::map<ObservationKey, int> index_;
  std::vector<const ObservationKey*> keys_; // into index_ (a map's keys stay put)
  std::map<const void*, std::vector<int>> steps_;
  std::map<std::tuple<models::ObservationKind, int, const void*>, int> scheduled_;
};

/// Keeps the observations some instrument reads, numbered the most frequently observed first
/// (they get the register slots of models/path.cuh), renumbers the instruments' references and
/// fills group.observations. Throws config::ConfigError past models::kMaxObservations.
/// Returns, per kept observation (new number), its grid indices (the set's own).
std::vector<const std::vector<int>*> number_observations(const config::RunConfig& config,
                                                         int model_index,
                                                         const ObservationSet& observations,
                                                         GroupPlan& group);

/// group.observation_runs and the spills, from each kept observation's grid indices.
void plan_observation_runs(const std::vector<const std::vector<int>*>& observation_steps,
                           GroupPlan& group);

// ---- instruments (instruments.cpp) ---------------------------------------------------------

/// Every instrument's view in every scenario ([base instrument][scenario]), its observations added
/// to `observations`; group.control_mean, group.instrument_config_index and group.portfolio.
void plan_instruments(const config::RunConfig& config, int model_index,
                      const std::vector<Scenario>& scenarios, Members instrument_indices,
                      const std::vector<double>& quantity, ObservationSet& observations,
                      GroupPlan& group);

// ---- early exercise (exercise.cpp) ----------------------------------------------------------

/// Whether an instrument is priced by Longstaff-Schwartz (in a group of its own kind).
inline bool exercises_early(const config::InstrumentConfig& instrument) {
  return instrument.exercise != config::ExerciseStyle::european;
}

/// group.exercise for a group of early-exercise instruments (after its observations are
/// numbered: each view's cash flow takes the slot after them), and their views' slots. Throws
/// config::ConfigError for an american option on the event grid.
void plan_exercise(const config::RunConfig& config, int model_index,
                   const std::vector<Scenario>& scenarios, GroupPlan& group);

} // namespace pfmc::engine::plan_detail
