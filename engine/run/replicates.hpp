#pragma once
// Running the plan: once, or once per randomisation of a scrambled Sobol run (each replicate an
// independent, unbiased estimate; the standard error from their spread), and the results from
// the replicates' estimates.

#include <cstdint>
#include <vector>

#include "config/run_config.hpp"
#include "engine/core/execution.hpp"
#include "engine/core/pricing_types.hpp"
#include "engine/plan/plan.hpp"
#include "engine/run/statistics.hpp"
#include "engine/scale/split_run.hpp"

namespace pfmc::engine {

struct ReplicatePlan {
  int replicates = 1;       ///< simulation.replicates (or the default) for scrambled_sobol
  std::uint64_t paths = 0;  ///< paths per replicate (whole antithetic pairs)
  bool plain_sobol = false; ///< sobol draws: no standard error
};

/// Throws config::ConfigError when a replicate would have fewer than 2 paths.
ReplicatePlan plan_replicates(const config::RunConfig& config, const ExecutionSettings& settings);

/// Runs the plan once per replicate, on the GPU with each group's settings or on the CPU with
/// `settings` — split over the placement's devices and processes where it asks for that
/// (engine/scale/split_run.hpp) — and returns each replicate's estimates (none on an MPI rank
/// other than 0). Adds the runs' costs to run (plan_stats, kernel and generation time,
/// path-steps, bytes, chunks, the longest grid; a split run's kernel_ms is its slowest
/// worker's).
std::vector<ReplicateSample>
run_replicates(const SimulationPlan& plan, const ExecutionSettings& settings,
               std::vector<ExecutionSettings> group_settings, bool on_gpu,
               const Placement& placement, const ReplicatePlan& replicates,
               std::size_t instrument_count, const ProgressFn& progress, RunInfo& run);

/// Every instrument's price, standard error, control and Greeks, and the portfolio, from the
/// replicates; the notices about the estimates' errors.
void fill_results(const config::RunConfig& config, const SimulationPlan& plan,
                  const ReplicatePlan& replicates, const std::vector<ReplicateSample>& samples,
                  RunResult& result);

} // namespace pfmc::engine
