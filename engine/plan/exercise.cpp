// Early exercise: the dates a group's American and Bermudan instruments may exercise on, the
// levels their regression records, and each instrument's view in each scenario
// (models/exercise.cuh).
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "config/config_error.hpp"
#include "engine/plan/plan_detail.hpp"

namespace pfmc::engine::plan_detail {

namespace {

/// The grid indices instrument `in` may exercise at: every step up to its maturity (american),
/// or its schedule's (bermudan, the maturity last).
std::vector<int> exercise_steps(const config::InstrumentConfig& in, const GroupPlan& group) {
  const int maturity = step_of(group.times, in.maturity);
  if (in.exercise == config::ExerciseStyle::american) {
    std::vector<int> steps;
    for (int s = 1; s <= maturity; ++s)
      steps.push_back(s);
    return steps;
  }
  return steps_of(group.times, in.exercise_times);
}

/// What a regression records of a base instrument: its spot, or its basket's level (legs from
/// the model's first asset).
struct LevelKey {
  int legs;
  models::BasketKind basket;
  std::vector<double> weights;
  bool operator<(const LevelKey& o) const {
    return std::tie(legs, basket, weights) < std::tie(o.legs, o.basket, o.weights);
  }
};

LevelKey level_key(const config::InstrumentConfig& in, int assets) {
  if (in.type != config::InstrumentType::basket)
    return {1, models::BasketKind::weighted, {}};
  const models::BasketKind kind =
      in.basket == config::BasketPayoff::weighted ? models::BasketKind::weighted
      : in.basket == config::BasketPayoff::max    ? models::BasketKind::max
                                                  : models::BasketKind::min;
  return {assets, kind, in.weights};
}

void refuse_american_on_event_grid(const config::RunConfig& config,
                                   const config::InstrumentConfig& in) {
  if (in.exercise == config::ExerciseStyle::american && config.simulation.steps_per_year == 0) {
    throw config::ConfigError(
        config.file, config.simulation.steps_per_year_mark, "simulation.steps_per_year",
        "instrument '" + in.id +
            "' is american (exercisable at every step of the grid): the event grid "
            "(steps_per_year 0) has no steps between its dates; give steps_per_year > 0, or make "
            "it bermudan with its exercise dates");
  }
}

} // namespace

void plan_exercise(const config::RunConfig& config, int model_index,
                   const std::vector<Scenario>& scenarios, GroupPlan& group) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  ExercisePlan& plan = group.exercise;
  const int rules = group.base_instruments();
  const int S = group.scenarios;
  const int A = group.assets;

  // The union of the instruments' dates.
  std::vector<std::vector<int>> steps_of_rule;
  for (int j = 0; j < rules; ++j) {
    const auto& in = config.instruments[static_cast<std::size_t>(group.instrument_config_index[j])];
    refuse_american_on_event_grid(config, in);
    steps_of_rule.push_back(exercise_steps(in, group));
    plan.steps.insert(plan.steps.end(), steps_of_rule.back().begin(), steps_of_rule.back().end());
  }
  std::sort(plan.steps.begin(), plan.steps.end());
  plan.steps.erase(std::unique(plan.steps.begin(), plan.steps.end()), plan.steps.end());
  const int dates = plan.dates();
  const auto date_of = [&](int step) {
    return static_cast<int>(std::lower_bound(plan.steps.begin(), plan.steps.end(), step) -
                            plan.steps.begin());
  };

  plan.basis = models::RegressionBasis{config.simulation.regression_degree,
                                       model.type == config::ModelType::heston ? 1 : 0};
  plan.variance_scale = model.type == config::ModelType::heston ? model.heston.theta : 1.0;
  plan.regression_paths = config.simulation.resolved_regression_paths();
  plan.rules = rules;
  plan.scenarios = S;
  plan.allowed.assign(static_cast<std::size_t>(rules) * dates, 0);
  std::map<LevelKey, int> levels;
  const int first_slot = static_cast<int>(group.observations.size());
  for (int j = 0; j < rules; ++j) {
    const auto& in = config.instruments[static_cast<std::size_t>(group.instrument_config_index[j])];
    for (int step : steps_of_rule[static_cast<std::size_t>(j)])
      plan.allowed[static_cast<std::size_t>(j) * dates + date_of(step)] = 1;
    LevelKey key = level_key(in, A);
    const int level = levels.emplace(key, static_cast<int>(levels.size())).first->second;
    for (int s = 0; s < S; ++s) {
      const int v = j * S + s;
      models::ExerciseView view{};
      view.slot = first_slot + v;
      view.rule = j;
      view.level = level;
      view.is_call = in.option == config::OptionType::call ? 1 : 0;
      view.strike = in.strike;
      view.asset = s * A;
      view.legs = key.legs;
      view.basket = key.basket;
      for (std::size_t a = 0; a < key.weights.size(); ++a)
        view.weights[a] = key.weights[a];
      view.variance_asset = s * A;
      view.discounts = v * dates;
      view.maturity_date = date_of(step_of(group.times, in.maturity));
      view.shifted_leg = -1;
      view.leg_scale = 1.0;
      plan.views.push_back(view);
      const Scenario& scenario = scenarios[static_cast<std::size_t>(s)];
      for (int step : plan.steps) {
        const double t = group.times[static_cast<std::size_t>(step)] - scenario.time_shift;
        plan.discounts.push_back(discount_factor(scenario.config().market.zero_rates, t));
        if (group.pathwise()) { // one scenario: the rule held fixed, its cash flows' tangents
          double tangents[2];
          pathwise_discount_tangents(config, t, tangents);
          plan.discount_tangents.insert(plan.discount_tangents.end(), tangents, tangents + 2);
        }
      }
      group.instruments[static_cast<std::size_t>(v)].underlying_observation = view.slot;
    }
  }
  plan.levels = static_cast<int>(levels.size());
  if (first_slot + rules * S > models::kMaxObservations) { // kMaxExerciseRules keeps it under
    throw config::ConfigError(config.file, model.mark,
                              "models[" + std::to_string(model_index) + "]",
                              "too many early-exercise instruments in one group");
  }
}

} // namespace pfmc::engine::plan_detail
