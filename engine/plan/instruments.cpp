// The group's instruments as the payoffs read them (models/payoff.cuh): one view per instrument and
// scenario, with the observations each reads and, with control variates, its control.
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/plan/plan_detail.hpp"

namespace pfmc::engine::plan_detail {

namespace {

/// What one instrument's view in one scenario is built from (scenario k observes assets
/// k·A .. k·A + A - 1).
struct ViewInputs {
  const config::RunConfig& config; ///< the base market
  const config::ModelConfig& model;
  const config::InstrumentConfig& instrument;
  const GroupPlan& group; ///< its grid and base step data
  const Scenario& scenario;
  int scenario_index;
  int first_asset;
  int maturity_step;
  /// Control variates on this view: the run asks for them and this is the base scenario.
  [[nodiscard]] bool controlled() const { return group.control_variate && scenario_index == 0; }
  [[nodiscard]] const config::Underlying& underlying() const {
    return config.market.underlyings[static_cast<std::size_t>(model.underlying_index)];
  }
};

/// The fields every payoff kind shares.
models::InstrumentView common_view(const ViewInputs& in, double quantity) {
  const auto& instrument = in.instrument;
  models::InstrumentView view{};
  view.is_call = instrument.option == config::OptionType::call ? 1 : 0;
  view.strike = instrument.strike;
  view.discount = discount_factor(in.scenario.config().market.zero_rates,
                                  instrument.maturity - in.scenario.time_shift);
  view.quantity = in.scenario_index == 0 ? quantity : 0.0;
  view.cash = instrument.cash;
  view.knock_observation = -1;
  view.control = models::ControlKind::none;
  view.control_observation = -1;
  for (int a = 0; a < models::kMaxBasketAssets; ++a) {
    for (int side = 0; side < 2; ++side) {
      view.moved_level[a][side] = -1;
      view.moved_knock[a][side] = -1;
    }
  }
  view.pathwise_delta = 0.0;
  if (in.group.pathwise())
    pathwise_discount_tangents(in.config, instrument.maturity, view.discount_tangent);
  // Pathwise delta where the payoff is Lipschitz (no knock) and the paths scale with the spot.
  if (in.scenario_index == 0 && !instrument.knock &&
      (in.model.type == config::ModelType::black_scholes ||
       in.model.type == config::ModelType::heston) &&
      (instrument.type == config::InstrumentType::european ||
       instrument.type == config::InstrumentType::asian)) {
    view.pathwise_delta = 1.0 / in.underlying().spot;
  }
  return view;
}

void set_european(const ViewInputs& in, int terminal, models::InstrumentView& view,
                  double& control_mean) {
  view.kind = models::PayoffKind::european;
  view.underlying_observation = terminal;
  if (in.controlled()) {
    view.control = models::ControlKind::terminal_spot;
    view.control_observation = terminal;
    control_mean = terminal_spot_control_mean(in.underlying(), in.instrument.maturity);
  }
}

void set_asian(const ViewInputs& in, ObservationSet& observations, models::InstrumentView& view,
               double& control_mean) {
  const auto& instrument = in.instrument;
  view.kind = models::PayoffKind::asian;
  const bool arithmetic = instrument.average == config::AverageType::arithmetic;
  view.underlying_observation = observations.add(
      arithmetic ? models::ObservationKind::arithmetic_sum : models::ObservationKind::log_sum,
      in.first_asset, instrument.fixing_times);
  // The geometric Asian controls an arithmetic one where log G is exactly normal (Black with
  // deterministic curves): its mean in closed form from the step data.
  if (in.controlled() && arithmetic && in.model.type == config::ModelType::black_scholes) {
    view.control = models::ControlKind::geometric_asian;
    view.control_observation =
        observations.add(models::ObservationKind::log_sum, in.first_asset, instrument.fixing_times);
    control_mean =
        geometric_asian_control_mean(in.group, observations.steps(instrument.fixing_times),
                                     view.is_call, instrument.strike, view.discount);
  }
}

/// A pathwise gamma's observations of a basket's level (as `kind` over `steps` takes it) on the
/// paths with a moved spot, into moved[a][side]: for each asset a that a gamma or cross-gamma of
/// the group moves (its PathwiseGreek::moved_spot: a delta's input is its asset), a's leg scaled
/// by 1 + kSpotBump (side 0) and 1 - kSpotBump (side 1), the spot's move (PathwiseGreek::move is
/// kSpotBump of it). For a level that is not linear in each spot (max, min) or its extreme over
/// dates (a knock): models::moved_spot_greek reads them.
void add_moved_levels(const ViewInputs& in, ObservationSet& observations,
                      models::ObservationKind kind, const std::vector<int>& steps,
                      const BasketLevel& level,
                      std::int16_t (&moved)[models::kMaxBasketAssets][2]) {
  for (const models::PathwiseGreek& g : in.group.pathwise_greeks) {
    if (g.moved_spot < 0 || moved[g.moved_spot][0] >= 0)
      continue;
    for (int side = 0; side < 2; ++side) {
      BasketLevel shifted = level;
      shifted.shifted_leg = g.moved_spot;
      shifted.leg_scale = side == 0 ? 1.0 + kSpotBump : 1.0 - kSpotBump;
      moved[g.moved_spot][side] =
          static_cast<std::int16_t>(observations.add(kind, in.first_asset, steps, shifted));
    }
  }
}

/// The knock of a knocked instrument: the running extreme of the spot (log space) or of the
/// basket's level (as its payoff combines the legs) over the monitoring dates.
void set_knock(const ViewInputs& in, ObservationSet& observations, models::InstrumentView& view) {
  const auto& instrument = in.instrument;
  const bool down = instrument.barrier_type == config::BarrierType::down_and_in ||
                    instrument.barrier_type == config::BarrierType::down_and_out;
  view.direction = down ? models::BarrierDirection::down : models::BarrierDirection::up;
  view.knock_in = instrument.barrier_type == config::BarrierType::down_and_in ||
                  instrument.barrier_type == config::BarrierType::up_and_in;
  view.rebate = instrument.rebate;
  if (view.kind == models::PayoffKind::basket) {
    view.knock_level = instrument.barrier;
    const auto kind =
        down ? models::ObservationKind::basket_min : models::ObservationKind::basket_max;
    const std::vector<int>& steps = observations.steps(instrument.monitoring_times);
    const BasketLevel level{view.basket,
                            std::vector<double>(view.weights, view.weights + view.basket_assets)};
    view.knock_observation = observations.add(kind, in.first_asset, steps, level);
    add_moved_levels(in, observations, kind, steps, level, view.moved_knock);
  } else {
    view.knock_level = std::log(instrument.barrier);
    view.knock_observation = observations.add(down ? models::ObservationKind::running_min
                                                   : models::ObservationKind::running_max,
                                              in.first_asset, instrument.monitoring_times);
  }
}

/// A basket reads one observation, its level at maturity (the legs combined as its payoff says:
/// models::basket_level), so that a basket costs one observation slot per scenario whatever its
/// number of legs (a 4-asset basket with every Greek: 20 scenarios, 20 slots, not 80).
void set_basket(const ViewInputs& in, ObservationSet& observations, models::InstrumentView& view) {
  const auto& instrument = in.instrument;
  view.kind = models::PayoffKind::basket;
  view.basket = instrument.basket == config::BasketPayoff::weighted ? models::BasketKind::weighted
                : instrument.basket == config::BasketPayoff::max    ? models::BasketKind::max
                                                                    : models::BasketKind::min;
  const int A = in.group.assets;
  view.basket_assets = A;
  for (int a = 0; a < A; ++a)
    view.weights[a] = instrument.weights[static_cast<std::size_t>(a)];
  // The maximum of the level over the one date of maturity is the level there.
  const std::vector<int> maturity{in.maturity_step};
  const BasketLevel level{view.basket, std::vector<double>(view.weights, view.weights + A)};
  view.underlying_observation =
      observations.add(models::ObservationKind::basket_max, in.first_asset, maturity, level);
  if (view.basket != models::BasketKind::weighted)
    add_moved_levels(in, observations, models::ObservationKind::basket_max, maturity, level,
                     view.moved_level);
}

/// One instrument's view in one scenario, its observations added to `observations`; on a
/// controlled view, `control_mean` is set to its control's mean.
models::InstrumentView instrument_view(const ViewInputs& in, double quantity,
                                       ObservationSet& observations, double& control_mean) {
  models::InstrumentView view = common_view(in, quantity);
  if (exercises_early(in.instrument)) {
    // Its cash flow, discounted to today where it was exercised, waits in a slot of its own
    // (plan_exercise numbers it); it reads no observation.
    view.kind = models::PayoffKind::exercised;
    view.underlying_observation = -1;
    view.discount = 1.0;
    view.pathwise_delta = 0.0;
    // Pathwise: the cash flow's tangents are the Greeks, its discount's included
    // (models/exercise.cuh, exercised_cash_flow). A call struck at 0 on it pays it (it is never
    // negative once the path is done) with slope 1 where it pays, and where it pays nothing its
    // tangents are 0: payoff_slope's vanilla case reads its tangents as they are, and the
    // pathwise kernels of every other payoff carry no branch for it (one added 208-320
    // instructions to each of them: docs/decisions.md#exercise-pathwise).
    view.is_call = 1;
    view.strike = 0.0;
    view.discount_tangent[0] = view.discount_tangent[1] = 0.0;
    return view;
  }
  if (in.instrument.type == config::InstrumentType::basket) {
    set_basket(in, observations, view);
    if (in.instrument.knock)
      set_knock(in, observations, view);
    return view;
  }
  const int terminal = observations.add(models::ObservationKind::terminal, in.first_asset,
                                        std::vector<int>{in.maturity_step});
  switch (in.instrument.type) {
  case config::InstrumentType::european:
  case config::InstrumentType::barrier: // a European with a knock
    set_european(in, terminal, view, control_mean);
    break;
  case config::InstrumentType::digital:
    view.kind = models::PayoffKind::digital;
    view.underlying_observation = terminal;
    break;
  case config::InstrumentType::asian:
    set_asian(in, observations, view, control_mean);
    break;
  case config::InstrumentType::basket:
    break; // above
  }
  if (in.instrument.knock) {
    set_knock(in, observations, view);
  }
  return view;
}

/// The view of a payoff on paths whose spots are all `scale` times those it reads: its strike
/// and knock in the read paths' units. A vanilla payoff (European, Asian, a weighted basket's) is
/// homogeneous of degree 1 in spot and strike, so its discount takes the scale (and a rebate,
/// cash, gives it back); a digital's cash is of degree 0.
void scale_view(double scale, models::InstrumentView& view) {
  view.strike /= scale;
  if (view.kind != models::PayoffKind::digital) {
    view.discount *= scale;
    view.rebate /= scale;
  }
  if (view.knock_observation >= 0) {
    if (view.kind == models::PayoffKind::basket) {
      view.knock_level /= scale; // the basket's level
    } else {
      view.knock_level -= std::log(scale); // the log-spot's extreme
    }
  }
}

} // namespace

void plan_instruments(const config::RunConfig& config, int model_index,
                      const std::vector<Scenario>& scenarios, Members instrument_indices,
                      const std::vector<double>& quantity, ObservationSet& observations,
                      GroupPlan& group) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  group.instruments.reserve(instrument_indices.size() * static_cast<std::size_t>(group.scenarios));
  group.control_mean.reserve(instrument_indices.size());
  group.instrument_config_index.reserve(instrument_indices.size());
  for (int i : instrument_indices) {
    const auto& instrument = config.instruments[static_cast<std::size_t>(i)];
    const int maturity_step = step_of(group.times, instrument.maturity);
    double control_mean = 0.0;
    for (int k = 0; k < group.scenarios; ++k) {
      const Scenario& scenario = scenarios[static_cast<std::size_t>(k)];
      const ViewInputs in{config,
                          model,
                          instrument,
                          group,
                          scenario,
                          k,
                          (scenario.copy >= 0 ? scenario.copy : k) * group.assets,
                          maturity_step};
      models::InstrumentView view =
          instrument_view(in, quantity[static_cast<std::size_t>(i)], observations, control_mean);
      if (scenario.spot_scale != 1.0)
        scale_view(scenario.spot_scale, view);
      if (group.pathwise())
        set_smoothing(view);
      group.portfolio = group.portfolio || view.quantity != 0.0;
      group.instruments.push_back(view);
    }
    group.control_mean.push_back(control_mean);
    group.instrument_config_index.push_back(i);
  }
}

} // namespace pfmc::engine::plan_detail
