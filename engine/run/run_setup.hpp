#pragma once
// Before anything runs: the device a run takes, its ExecutionSettings, and the checks that turn
// a config this device or this plan cannot run into a config::ConfigError naming the setting.

#include <vector>

#include "config/run_config.hpp"
#include "engine/core/device_info.hpp"
#include "engine/core/execution.hpp"
#include "engine/core/pricing_types.hpp"
#include "engine/plan/plan.hpp"

namespace pfmc::engine {

struct RunDevice {
  DeviceInfo info; ///< empty for engine.device: cpu
  bool on_gpu = false;
  std::vector<int> devices{0}; ///< GPU runs: engine.devices resolved to ordinals, in order
};

/// engine.device against the GPU found (the first CUDA call of a process creates its context:
/// timed on its own, in run.device_ms). Throws RuntimeError for `gpu` without one; `auto`
/// without one adds a notice.
RunDevice choose_device(const config::RunConfig& config, RunInfo& run);

/// The config's settings on this device: threads, the memory cap, the draw transforms. Throws
/// config::ConfigError for an engine.backend the device cannot run or draw with.
ExecutionSettings make_settings(const config::RunConfig& config, const RunDevice& device);

/// engine.devices on this host (device.devices), and a split run's needs: Philox draws, one
/// replicate. Throws config::ConfigError for a device the host lacks or a generator a split run
/// cannot draw with; notes devices set for a CPU run.
void resolve_devices(const config::RunConfig& config, bool split_processes, RunDevice& device,
                     RunInfo& run);

/// Checks that need the plan, before anything runs: Greeks' limits, Sobol dimensions, and one
/// tile of each group's paths under the memory cap.
void check_plan(const config::RunConfig& config, const SimulationPlan& plan,
                const ExecutionSettings& settings, bool on_gpu);

/// Draw batches must fit under the cap (twice on the GPU: generation overlaps the kernels), with
/// each group's backend known (group_settings; those that compute their draws need no buffer).
void check_draw_batches(const config::RunConfig& config, const SimulationPlan& plan,
                        const ExecutionSettings& settings,
                        const std::vector<ExecutionSettings>& group_settings, bool on_gpu);

} // namespace pfmc::engine
