#pragma once
// The GPU backend: draws generated on the device in chunks under the memory cap, the path
// kernel of the chosen backend, the in-kernel reduction carried across chunks.

#include "engine/execution.hpp"
#include "engine/plan.hpp"

namespace pfmc::engine {

GroupOutcome run_group_on_gpu(const GroupPlan& group, const ExecutionSettings& settings,
                              int group_index, int groups, const ProgressFn& progress);

/// True when `backend` at `prefetch_distance` has an instantiation for every model and
/// precision (the registry agrees with the catalogue).
bool has_launcher(const std::string& backend, int prefetch_distance);

} // namespace pfmc::engine
