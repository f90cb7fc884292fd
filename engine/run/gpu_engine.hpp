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

} // namespace pfmc::engine
