#pragma once
// The GPU backend: the run's draw units (engine/draws/draw_plan.hpp) in order — a draw batch is one
// generation call and one kernel launch for all its groups; a tiled group is generated and
// launched chunk by chunk under the memory cap — with generation on its own stream, two draw
// buffers so that the next unit's draws are generated while the current unit's kernel runs, and
// the host waiting only at the end (or once per unit when a progress line is wanted): neither
// launches nor synchronisations grow with the number of groups.

#include <string>
#include <vector>

#include "engine/core/execution.hpp"
#include "engine/plan/plan.hpp"
#include "engine/run/exercise.hpp"

namespace pfmc::engine {

/// settings[g] holds group g's backend, distance and padding; the run-wide settings (precision,
/// rng, seed, paths, block size, memory cap, draw batch) are read from settings[0]. A draw
/// batch runs with the backend of its first group. Given a share (engine/scale/work_split.hpp),
/// runs each group's range of it on the current device (Philox draws only), its outcomes
/// carrying their stacks of tile blocks for the merge. The run leases the device's workspace of
/// `slot` (engine/run/device_workspace.hpp: the streams and buffers a warm process keeps). Early
/// exercise's rules are fitted first, with the other workers of a split run where `regression`
/// is given (engine/run/exercise.hpp). A sink, if given, has each group's outcome as soon as
/// its unit's sums are on the host, while the device runs the later units (engine/run/
/// unit_stream.hpp; a share's run hands them over at its end).
std::vector<GroupOutcome> run_plan_on_gpu(const SimulationPlan& plan,
                                          const std::vector<ExecutionSettings>& settings,
                                          const ProgressFn& progress, PlanStats* stats = nullptr,
                                          const WorkShare* share = nullptr, int slot = 0,
                                          RegressionShare* regression = nullptr,
                                          const OutcomeSink* sink = nullptr);

/// True when `backend` at `prefetch_distance` has a Black-Scholes instantiation in both
/// precisions (the registry agrees with the catalogue).
bool has_launcher(const std::string& backend, int prefetch_distance);

/// True when the kernel of this group (its model, assets, Greeks scenarios) has `backend` at
/// `prefetch_distance` in this precision.
bool has_group_launcher(const GroupPlan& group, config::Precision precision,
                        const std::string& backend, int prefetch_distance, bool tuned_only = false);

/// What of a group picks the kernels group_kernel_names gives it under given settings: its model
/// entry (kernels/model_list.cuh) and which kernels of it (one-step terminal or not, early
/// exercise or not). Two groups of equal shapes get the same names.
struct GroupKernelShape {
  config::ModelType model_type{};
  int assets = 0;
  bool scenarios = false;
  bool fast_math = false;
  int pathwise_moved_inputs = 0; ///< GroupPlan::pathwise_moved_inputs; 0: not pathwise
  bool exercise = false;
  bool terminal = false;
  bool operator==(const GroupKernelShape& o) const {
    return model_type == o.model_type && assets == o.assets && scenarios == o.scenarios &&
           fast_math == o.fast_math && pathwise_moved_inputs == o.pathwise_moved_inputs &&
           exercise == o.exercise && terminal == o.terminal;
  }
};
GroupKernelShape group_kernel_shape(const GroupPlan& group);

/// The name expressions of the kernels a group launches with `backend` at `prefetch_distance`
/// under `settings` (its precision, terminal kernels, compile_at_runtime) that the binary does
/// not build in (all of them with compile_at_runtime): its kernel, its wide one where it has
/// one, its terminal one where the group is one-step terminal;
/// empty when there is no such launcher. The strings are the launcher table's own (static): a
/// book's thousands of groups name a few kernels, so callers collect distinct addresses first.
std::vector<const std::string*> group_kernel_names(const GroupPlan& group,
                                                   const ExecutionSettings& settings,
                                                   const std::string& backend,
                                                   int prefetch_distance);

} // namespace pfmc::engine
