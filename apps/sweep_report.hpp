#pragma once
// Printing of `pfmc bench` and `pfmc tune` results: the per-group table and the CSV (from which
// bench/plot_sweep.py draws the plot, apps/sweep_plot.hpp).

#include <string>
#include <vector>

#include "engine/plan/plan.hpp"
#include "engine/tune/tuning.hpp"

namespace pfmc::apps {

struct GroupSweep {
  const engine::GroupPlan* group;
  engine::TuneResult result;
};

/// "smem_batched d4 slot_major" style label of a configuration.
std::string choice_label(const engine::BackendChoice& choice);

/// The table of one group's sweep: every configuration, fastest first, with spread, speedup
/// over `none`, GB/s and the fraction of the copy bandwidth.
std::string sweep_table(const GroupSweep& sweep, double copy_gbps);

/// Every measurement of every group, one row each. bench/plot_sweep.py draws the plot from the
/// model, steps, backend, prefetch_distance, padding and speedup columns.
std::string sweep_csv(const std::vector<GroupSweep>& sweeps, double copy_gbps);

} // namespace pfmc::apps
