#pragma once
// The CPU reference backend: the same models, payoffs and reduction order as the GPU kernel,
// multi-threaded over blocks of paths, fed by cuRAND's host generator (the GPU's draws).

#include "engine/execution.hpp"
#include "engine/plan.hpp"

namespace pfmc::engine {

GroupOutcome run_group_on_cpu(const GroupPlan& group, const ExecutionSettings& settings,
                              int group_index, int groups, const ProgressFn& progress);

} // namespace pfmc::engine
