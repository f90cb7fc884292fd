#pragma once
// Printing of `pfmc bench` and `pfmc tune` results: the per-group table, CSV, and the plot of
// speedup against prefetch distance.

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

std::string sweep_csv(const std::vector<GroupSweep>& sweeps, double copy_gbps);

/// Speedup over `none` against prefetch distance, one line per backend (and padding), one
/// panel per group.
void write_sweep_plot(const std::string& path, const std::vector<GroupSweep>& sweeps);

} // namespace pfmc::apps
