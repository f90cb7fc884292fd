#include "engine/draws/draw_plan.hpp"

#include "kernels/draw_layout.hpp"

namespace pfmc::engine {

std::vector<std::size_t> unit_sizes(std::size_t n, std::size_t most) {
  std::vector<std::size_t> sizes;
  const auto even = [&sizes](std::size_t groups, std::size_t limit) {
    const std::size_t units = (groups + limit - 1) / limit;
    for (std::size_t u = 0; u < units; ++u)
      sizes.push_back(groups / units + (u < groups % units ? 1 : 0));
  };
  if (most == 0 || n <= most) {
    sizes.push_back(n);
  } else if (n < 3 * most || most < 4) {
    even(n, most);
  } else {
    const std::size_t quarter = most / 4, half = most / 2;
    sizes = {quarter, half};
    even(n - 2 * (quarter + half), most);
    sizes.push_back(half);
    sizes.push_back(quarter);
  }
  return sizes;
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
                                      const std::vector<bool>& computes_draws, int unit_groups) {
  return plan_draw_units(plan, rng, std::vector<std::uint64_t>(plan.groups.size(), paths),
                         real_bytes, draw_batch_bytes, computes_draws, unit_groups);
}

std::vector<DrawUnit> plan_draw_units(const SimulationPlan& plan, config::RngType rng,
                                      const std::vector<std::uint64_t>& group_paths, int real_bytes,
                                      std::uint64_t draw_batch_bytes,
                                      const std::vector<bool>& computes_draws, int unit_groups) {
  const bool quasi = rng == config::RngType::sobol || rng == config::RngType::scrambled_sobol;
  const std::size_t most = computes_draws.empty() ? 0 : static_cast<std::size_t>(unit_groups);
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
  // Each run of groups that compute their draws, cut into units of at most `most`.
  std::vector<DrawUnit> cut;
  cut.reserve(units.size());
  for (DrawUnit& unit : units) {
    if (!unit.computes_draws || most == 0 || unit.groups.size() <= most) {
      cut.push_back(std::move(unit));
      continue;
    }
    std::size_t next = 0;
    for (std::size_t size : unit_sizes(unit.groups.size(), most)) {
      DrawUnit& part = cut.emplace_back();
      part.computes_draws = true;
      part.groups.assign(unit.groups.begin() + static_cast<std::ptrdiff_t>(next),
                         unit.groups.begin() + static_cast<std::ptrdiff_t>(next + size));
      next += size;
    }
  }
  return cut;
}

} // namespace pfmc::engine
