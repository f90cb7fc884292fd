#pragma once
// Timing of the path kernel alone (draws generated once, outside the timing), for the benchmark
// suite, `pfmc bench` and the tuner. Host-only interface.

#include <memory>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "engine/core/execution.hpp"
#include "engine/plan/plan.hpp"

namespace pfmc::engine {

class KernelBench {
public:
  /// Uploads the group; the draws of all `settings.paths` paths (they must fit under
  /// settings.memory_cap in one chunk) are generated once, when a backend that reads them is
  /// first timed. When the draws are smaller than four times the L2 cache, copies of them are
  /// rotated between launches so that no launch reads from L2 what the previous one left there.
  KernelBench(const GroupPlan& group, const ExecutionSettings& settings);
  ~KernelBench();
  KernelBench(const KernelBench&) = delete;
  KernelBench& operator=(const KernelBench&) = delete;

  /// One launch of the path kernel of (backend, distance, padding), timed with CUDA events.
  double time_launch_ms(const std::string& backend, int prefetch_distance,
                        const config::Padding& padding, bool reduce = true);

  /// One generation of the draws of all `settings.paths` paths (the Philox generation kernel,
  /// or cuRAND), timed with CUDA events: what a backend that reads draws adds to its kernel.
  double time_generation_ms();

  /// The draws read in the path kernel's pattern with no model, no loader and 16 loads in
  /// flight (kernels/read_ceiling.cuh): the layout's own read ceiling, in milliseconds.
  double time_draws_read_ms();
  /// The same bytes read as contiguous 16-byte vectors: the device's read ceiling.
  double time_stream_read_ms();

  /// The reduced sums of the last launch (as GroupOutcome::totals).
  [[nodiscard]] std::vector<double> totals() const;
  /// Whether the last launch took its kernel's wide instantiation (engine/run/device_unit.cuh).
  [[nodiscard]] bool launched_wide() const;
  /// Whether it took its kernel's terminal instantiation (a one-step terminal group, `inline`).
  [[nodiscard]] bool launched_terminal() const;
  [[nodiscard]] double bytes_per_launch() const; ///< draws read by one launch
  [[nodiscard]] double path_steps_per_launch() const;
  [[nodiscard]] int rotated_copies() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

/// Median device-to-device copy bandwidth over `repeats` copies of `bytes`, counting bytes read
/// plus bytes written (GB/s = 1e9 bytes per second).
double measure_copy_bandwidth_gbps(std::size_t bytes = std::size_t(1) << 30, int repeats = 9);

} // namespace pfmc::engine
