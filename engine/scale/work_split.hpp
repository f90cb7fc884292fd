#pragma once
// How a run's paths are split over workers — the devices of a host, the processes of an MPI
// job — so that every worker has about the same path-steps: the groups' tiles of paths
// (kernels::kTilePaths), in group order then tile order, are cut into one contiguous piece per
// worker. A piece may cover whole groups and parts of the groups at its ends; it starts on a
// tile boundary, so the pieces' sums merge into exactly one run's (engine/scale/partial_sums.hpp).
// Every process computes the same split from the config alone.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/execution.hpp"

namespace pfmc::engine {

/// Every group's paths [0, paths).
WorkShare whole_run(std::size_t groups, std::uint64_t paths);

/// `share` cut into `workers` consecutive pieces of about equal path-steps (a group's tile of
/// paths weighs its paths × steps[g]); a worker may get nothing (more workers than tiles).
/// Worker k's ranges follow worker k - 1's.
std::vector<WorkShare> split_share(const WorkShare& share, const std::vector<int>& steps,
                                   std::size_t workers);

/// The paths × steps of a share.
double share_path_steps(const WorkShare& share, const std::vector<int>& steps);

/// True when the share covers none of any group.
bool share_empty(const WorkShare& share);

} // namespace pfmc::engine
