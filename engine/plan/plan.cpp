// The planning stage's entry point: groups the instruments by model and plans each group (the
// pieces live beside this file, engine/plan/plan_detail.hpp lists them).
#include "engine/plan/plan.hpp"

#include <string>
#include <vector>

#include "engine/plan/plan_detail.hpp"

namespace pfmc::engine {

namespace {

GroupPlan plan_group(const config::RunConfig& config, int model_index,
                     const std::vector<int>& instrument_indices,
                     const std::vector<double>& quantity) {
  const auto& model = config.models[static_cast<std::size_t>(model_index)];
  plan_detail::check_event_grid_is_exact(config, model);

  GroupPlan group;
  group.model_index = model_index;
  group.model_name = model.name;
  group.model_type = model.type;
  group.assets = model.assets();
  group.factors = model.type == config::ModelType::heston ? 2 : group.assets;
  group.control_variate = config.simulation.control_variate;
  group.antithetic = config.simulation.antithetic;

  group.times = plan_detail::group_time_grid(config, model_index, instrument_indices);
  const std::vector<plan_detail::Scenario> scenarios =
      plan_detail::plan_scenarios(config, model_index, group);
  plan_detail::plan_model_data(scenarios, model_index, group);
  plan_detail::ObservationSet observations;
  plan_detail::plan_instruments(config, model_index, scenarios, instrument_indices, quantity,
                                observations, group);
  const std::vector<std::vector<int>> observation_steps =
      plan_detail::number_observations(config, model_index, observations, group);
  plan_detail::plan_observation_runs(observation_steps, group);
  return group;
}

} // namespace

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
    const auto& model = config.models[static_cast<std::size_t>(models_in_order[g])];
    if (!config.simulation.greeks.empty() && !plan_detail::has_greek_kernels(model)) {
      const std::size_t n = members[g].size();
      plan.notices.push_back("no Greeks for the " + std::to_string(n) + " instrument" +
                             (n == 1 ? "" : "s") + " on " + config::to_string(model.type) +
                             " model '" + model.name +
                             "' (per-underlying basket Greeks are not built yet); the rest of "
                             "the book has them");
    }
  }
  return plan;
}

} // namespace pfmc::engine
