#pragma once
// Which backend each simulation group of a GPU run uses: the one engine.backend names, or for
// `auto` the tuning cache's, a tuning now when the run repays it, or the default. Groups of one
// shape share a cache key, a probe and a tuning.

#include <optional>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "engine/core/device_info.hpp"
#include "engine/core/execution.hpp"
#include "engine/core/pricing_types.hpp"
#include "engine/plan/plan.hpp"
#include "engine/tune/tuning.hpp"

namespace pfmc::engine {

/// The tuning cache of a GPU run: `auto` reads (and fills) it, and it keeps the device's copy
/// bandwidth.
struct RunTuningCache {
  std::optional<TuningCache> cache; ///< none on the CPU
  bool changed = false;             ///< save() writes it
};

/// On the GPU: the cache of options.tuning_cache, and the device's copy bandwidth (measured
/// once and cached) in run.copy_bandwidth_gbps. On the CPU: nothing.
RunTuningCache open_tuning_cache(const DeviceInfo& device, bool on_gpu, const PriceOptions& options,
                                 RunInfo& run);
/// Writes the cache when the run changed it; a failure is a notice, not an error.
void save_tuning_cache(const RunTuningCache& tuning, RunInfo& run);

/// The kinds of a run's devices, numbered by first appearance: kinds[i] for keys[i], equal keys
/// one kind (kind 0 is the first device's).
std::vector<int> number_device_kinds(const std::vector<std::string>& keys);

/// Each group's settings (`settings` with the group's backend, distance and padding) and, on
/// the GPU, run.group_backends and `auto`'s notices (one line per distinct choice). A group
/// without a kernel of its backend at the chosen distance takes the nearest distance, or the
/// common module's default where it has none of the backend (a notice says which).
std::vector<ExecutionSettings> choose_group_backends(const SimulationPlan& plan,
                                                     const ExecutionSettings& settings,
                                                     const DeviceInfo& device, bool on_gpu,
                                                     const PriceOptions& options,
                                                     RunTuningCache& tuning, RunInfo& run);

} // namespace pfmc::engine
