#pragma once
// A run split over workers: the MPI ranks of a job, and within each rank its GPUs (a host thread
// and streams per device, each with its own draw buffers and last-block reductions) or its CPU
// backend. The paths are cut by engine/scale/work_split.hpp — first over the ranks, then each
// rank's piece over its devices — every worker runs its ranges of the groups, and the groups'
// stacks of tile blocks merge in split order (engine/scale/partial_sums.hpp): within a rank on
// its host, then on rank 0 from the ranks' messages (one gather, whose size grows with the
// logarithm of the paths, not with them). The merged sums are bit for bit those of one run on
// one device. Counter-based (Philox) draws only: every worker computes its own paths' draws.

#include <string>
#include <vector>

#include "engine/core/execution.hpp"
#include "engine/core/pricing_types.hpp"
#include "engine/plan/plan.hpp"

namespace pfmc::engine {

/// Where a run goes.
struct Placement {
  std::vector<int> devices;          ///< GPU runs: this process's devices (ordinals; may repeat)
  Communicator* processes = nullptr; ///< an MPI job of several ranks; null: this process alone
  /// Devices of several kinds (engine/pricer.cpp): the kind of each of `devices`, and each
  /// kind's groups' settings, whose backend, distance, padding and memory cap replace those of
  /// the settings run_split is given (kind 0's are those). Empty: one kind.
  std::vector<int> device_kinds;
  std::vector<std::vector<ExecutionSettings>> kind_settings;
  /// Whether the run is split at all (else the plain one-device or CPU run).
  [[nodiscard]] bool split(bool on_gpu) const;
};

/// Merges the outcomes of consecutive pieces of a run (each a vector over all groups, its
/// ranges' stacks kept), in split order: each group's stacks appended range after range
/// (engine/scale/partial_sums.hpp) and folded into its totals, its costs summed.
std::vector<GroupOutcome> merge_pieces(const SimulationPlan& plan,
                                       const std::vector<std::vector<GroupOutcome>>& pieces);

/// `group_settings` with the backend, distance, padding and memory cap of device kind `kind`'s
/// (Placement::kind_settings); the same settings for kind 0 or one kind.
std::vector<ExecutionSettings>
settings_of_kind(const std::vector<ExecutionSettings>& group_settings, const Placement& placement,
                 int kind);

/// What a worker's groups ran, for WorkerInfo::backend: `none`, `scalar_batched d4`, or
/// `per group: inline, scalar_batched d4` (each distinct one once, in group order).
std::string backends_summary(const std::vector<ExecutionSettings>& group_settings);

/// Runs this process's part of the plan and, on rank 0, returns every group's outcome over all
/// the paths (its totals merged from all the workers, its costs summed); other ranks return
/// nothing once their sums are sent. Fills run.workers (on rank 0: every rank's), run.processes,
/// run.rank, run.gather_ms. Throws RuntimeError naming the rank of a rank that failed.
std::vector<GroupOutcome> run_split(const SimulationPlan& plan, const ExecutionSettings& settings,
                                    const std::vector<ExecutionSettings>& group_settings,
                                    bool on_gpu, const Placement& placement,
                                    const ProgressFn& progress, PlanStats& stats, RunInfo& run);

} // namespace pfmc::engine
