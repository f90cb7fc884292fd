#include "engine/draws/draw_plan.hpp"

#include <cstdlib>

#include "kernels/draw_layout.hpp"
#include "kernels/environment.hpp"

namespace pfmc::engine {

int parse_unit_groups(const char* text) {
  return kernels::parse_whole_number_variable("PFMC_UNIT_GROUPS", text, 0, 1'000'000,
                                              kComputingUnitGroups);
}

int computing_unit_groups() {
  static const int groups = parse_unit_groups(std::getenv("PFMC_UNIT_GROUPS"));
  return groups;
}

std::size_t group_draw_values(const GroupPlan& group, std::uint64_t paths) {
  return kernels::draw_tiles_for(paths) * static_cast<std::size_t>(group.rows()) *
         kernels::kDrawTilePaths;
}

bool same_kernel(const GroupPlan& a, const GroupPlan& b) {
  return a.model_type == b.model_type && a.assets == b.assets &&
         (a.scenarios > 1) == (b.scenarios > 1) && a.exercise.present() == b.exercise.present();
}

std::vector<DrawUnit> plan_draw_units(const SimulationPlan& plan, config::RngType rng,
                                      std::uint64_t paths, int real_bytes,
                                      std::uint64_t draw_batch_bytes,
                                      const std::vector<bool>& computes_draws) {
  return plan_draw_units(plan, rng, std::vector<std::uint64_t>(plan.groups.size(), paths),
                         real_bytes, draw_batch_bytes, computes_draws);
}

std::vector<DrawUnit> plan_draw_units(const SimulationPlan& plan, config::RngType rng,
                                      const std::vector<std::uint64_t>& group_paths, int real_bytes,
                                      std::uint64_t draw_batch_bytes,
                                      const std::vector<bool>& computes_draws) {
  const bool quasi = rng == config::RngType::sobol || rng == config::RngType::scrambled_sobol;
  const std::size_t most =
      computes_draws.empty() ? 0 : static_cast<std::size_t>(computing_unit_groups());
  std::vector<DrawUnit> units;
  for (int g = 0; g < static_cast<int>(plan.groups.size()); ++g) {
    const GroupPlan& group = plan.groups[static_cast<std::size_t>(g)];
    const std::uint64_t paths = group_paths[static_cast<std::size_t>(g)];
    if (paths == 0)
      continue;
    if (static_cast<std::size_t>(g) < computes_draws.size() &&
        computes_draws[static_cast<std::size_t>(g)]) {
      const bool joins =
          !units.empty() && units.back().computes_draws &&
          (most == 0 || units.back().groups.size() < most) &&
          same_kernel(plan.groups[static_cast<std::size_t>(units.back().groups.front())], group);
      if (!joins) {
        units.push_back(DrawUnit{});
        units.back().computes_draws = true;
      }
      units.back().groups.push_back(g);
      continue;
    }
    const std::size_t values = group_draw_values(group, paths);
    const bool batchable = !quasi && draw_batch_bytes > 0 &&
                           values * static_cast<std::uint64_t>(real_bytes) <= draw_batch_bytes;
    if (!batchable) {
      units.push_back(DrawUnit{false, false, {g}, {}, 0});
      continue;
    }
    const bool joins =
        !units.empty() && units.back().batched &&
        same_kernel(plan.groups[static_cast<std::size_t>(units.back().groups.front())], group) &&
        group_paths[static_cast<std::size_t>(units.back().groups.front())] == paths &&
        (units.back().values + values) * static_cast<std::uint64_t>(real_bytes) <= draw_batch_bytes;
    if (!joins)
      units.push_back(DrawUnit{true, false, {}, {}, 0});
    DrawUnit& unit = units.back();
    unit.groups.push_back(g);
    unit.offsets.push_back(unit.values);
    unit.values += values;
  }
  return units;
}

} // namespace pfmc::engine
