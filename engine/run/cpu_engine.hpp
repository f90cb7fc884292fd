#pragma once
// The CPU reference backend: the same models, payoffs and reduction order as the GPU kernel,
// multi-threaded over blocks of paths, fed by cuRAND's host generator (the GPU's draws).

#include "engine/core/execution.hpp"
#include <vector>

#include "engine/plan/plan.hpp"

namespace pfmc::engine {

/// The whole plan, draw unit by draw unit (engine/draws/draw_plan.hpp), as the GPU backend runs
/// it; or, given a share (engine/scale/work_split.hpp), each group's range of it (Philox draws
/// only), its outcomes carrying their stacks of tile blocks for the merge. A sink, if given, has
/// each group's outcome at the run's end, on a few threads (engine/run/unit_runner.hpp).
std::vector<GroupOutcome> run_plan_on_cpu(const SimulationPlan& plan,
                                          const ExecutionSettings& settings,
                                          const ProgressFn& progress, PlanStats* stats = nullptr,
                                          const WorkShare* share = nullptr,
                                          const OutcomeSink* sink = nullptr);

} // namespace pfmc::engine
