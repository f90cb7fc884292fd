#pragma once
// How a run's draws are produced: the order of the generation calls, shared by the GPU and CPU
// backends so that both see the same draws.
//
// Philox draws are counter-based (kernels/counter_draws.cuh): a draw depends on its indices
// alone, so units only decide how many groups share a generation launch and a kernel launch;
// groups whose backend computes its draws (`inline`) need neither buffer nor generation and run
// consecutive groups of one kernel in one launch. The other pseudo-random generators (cuRAND's
// MRG32k3a) have one generator, seeded with the run's seed, and the simulation groups take its
// output in plan order:
//  - a *draw batch* is a run of consecutive groups of one kernel (same_kernel) whose draws (their
//  paths'
//    draw tiles, kernels/draw_layout.hpp) add up to at most `draw_batch_bytes`: one generation
//    call for the whole batch, one kernel launch for all its groups;
//  - a group larger than that is *tiled*: one call per draw tile, so it can be cut into chunks
//    under the memory cap without changing a bit.
// The batches depend on the config alone (draw_batch_bytes is a setting, never the memory cap),
// so the chunking still cannot change a result. Quasi-random runs (Sobol) give every group its
// own generator over the group's dimensions; their groups are always tiled.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "config/run_config.hpp"
#include "engine/plan/plan.hpp"

namespace pfmc::engine {

/// The default of engine.draw_batch_size.
inline constexpr std::uint64_t kDefaultDrawBatchBytes = std::uint64_t(256) << 20;

struct DrawUnit {
  bool batched = false;
  /// The groups' backend computes its draws in the step loop (`inline`): no buffer, no
  /// generation; the unit is a run of consecutive groups of one kernel, launched together.
  bool computes_draws = false;
  std::vector<int> groups; ///< batch: consecutive groups; tiled: one group
  /// Batch: where each group's draws start in the batch's buffer (in values), and the size of
  /// the batch's one generation call.
  std::vector<std::size_t> offsets;
  std::size_t values = 0;
};

/// True when two groups run the same kernel (model type, assets, with or without scenarios,
/// with or without early exercise):
/// only such groups share a draw batch and a launch.
bool same_kernel(const GroupPlan& a, const GroupPlan& b);

/// Values (normals) of one group's draw tiles for `paths` paths.
std::size_t group_draw_values(const GroupPlan& group, std::uint64_t paths);

/// The units a run of n groups that share a kernel and compute their draws is cut into, at most
/// `most` groups each (0: no limit), in order. From 3 × most groups on, the first two and the
/// last two are a quarter and a half of `most` (the GPU waits for the first unit's staging, and
/// the last unit's results are made after its kernels: docs/decisions.md#computing-units), the
/// middle ones as even as can be; below that, as even as can be.
std::vector<std::size_t> unit_sizes(std::size_t n, std::size_t most);
/// computes_draws[g]: group g's backend computes its draws (empty: none does); such groups that
/// share a kernel go in units of at most `unit_groups` groups (engine.unit_groups; 0: no limit).
std::vector<DrawUnit> plan_draw_units(const SimulationPlan& plan, config::RngType rng,
                                      std::uint64_t paths, int real_bytes,
                                      std::uint64_t draw_batch_bytes,
                                      const std::vector<bool>& computes_draws = {},
                                      int unit_groups = config::kDefaultUnitGroups);

/// The same for a share of a run (engine/scale/work_split.hpp): group g has group_paths[g]
/// paths; groups with none get no unit, and a draw batch holds groups of as many paths.
std::vector<DrawUnit> plan_draw_units(const SimulationPlan& plan, config::RngType rng,
                                      const std::vector<std::uint64_t>& group_paths, int real_bytes,
                                      std::uint64_t draw_batch_bytes,
                                      const std::vector<bool>& computes_draws = {},
                                      int unit_groups = config::kDefaultUnitGroups);

} // namespace pfmc::engine
