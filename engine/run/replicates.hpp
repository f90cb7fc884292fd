#pragma once
// Running the plan: once, or once per randomisation of a scrambled Sobol run (each replicate an
// independent, unbiased estimate; the standard error from their spread), and the results from
// the replicates' estimates.

#include <cstdint>
#include <functional>
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

/// What is made of group g once its estimates are final in every replicate (samples: the
/// replicates', whose entries of g's instruments are final): called once per group, several
/// groups at once.
using GroupEstimated =
    std::function<void(std::size_t group, const std::vector<ReplicateSample>& samples)>;

/// Runs the plan once per replicate, on the GPU with each group's settings or on the CPU with
/// `settings` — split over the placement's devices and processes where it asks for that
/// (engine/scale/split_run.hpp) — and returns each replicate's estimates (none on an MPI rank
/// other than 0). Calls `estimated` for every group (not on an MPI rank other than 0): a single
/// run on one worker as its sums reach the host (a GPU's while it runs the later units), else
/// after the last replicate. Adds the runs' costs to run (plan_stats, kernel and generation time,
/// path-steps, bytes, chunks, the longest grid; a split run's kernel_ms is its slowest
/// worker's).
std::vector<ReplicateSample>
run_replicates(const SimulationPlan& plan, const ExecutionSettings& settings,
               std::vector<ExecutionSettings> group_settings, bool on_gpu,
               const Placement& placement, const ReplicatePlan& replicates,
               std::size_t instrument_count, const ProgressFn& progress,
               const GroupEstimated& estimated, RunInfo& run);

/// Group g's instruments' prices, standard errors, controls and Greeks in result.instruments
/// (sized for every instrument of the config), from the replicates: groups apart may be filled
/// at once.
void fill_group_results(const config::RunConfig& config, const SimulationPlan& plan, std::size_t g,
                        const ReplicatePlan& replicates,
                        const std::vector<ReplicateSample>& samples, RunResult& result);

/// The portfolio from the replicates, and the notices about the estimates' errors (each
/// instrument's results come from fill_group_results).
void fill_results(const config::RunConfig& config, const ReplicatePlan& replicates,
                  const std::vector<ReplicateSample>& samples, RunResult& result);

} // namespace pfmc::engine
