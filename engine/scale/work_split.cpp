#include "engine/scale/work_split.hpp"

#include <algorithm>
#include <cmath>

#include "base/error.hpp"
#include "kernels/reduction_shape.cuh"

namespace pfmc::engine {

namespace {

/// Where a cut falls: before tile `tile` of group `group` (tile counted from the range's first).
struct Cut {
  std::size_t group = 0;
  std::uint64_t tile = 0;
};

/// The path where tile `tile` of the range starts, or the range's end.
std::uint64_t tile_start(const PathRange& range, std::uint64_t tile) {
  return std::min(range.end, range.first + tile * static_cast<std::uint64_t>(kernels::kTilePaths));
}

} // namespace

WorkShare whole_run(std::size_t groups, std::uint64_t paths) {
  WorkShare share;
  share.ranges.assign(groups, PathRange{0, paths});
  return share;
}

double share_path_steps(const WorkShare& share, const std::vector<int>& steps) {
  double total = 0.0;
  for (std::size_t g = 0; g < share.ranges.size(); ++g) {
    if (!share.ranges[g].empty())
      total += static_cast<double>(share.ranges[g].count()) * std::max(1, steps[g]);
  }
  return total;
}

bool share_empty(const WorkShare& share) {
  return std::all_of(share.ranges.begin(), share.ranges.end(),
                     [](const PathRange& r) { return r.empty(); });
}

std::vector<WorkShare> split_share(const WorkShare& share, const std::vector<int>& steps,
                                   std::size_t workers) {
  PFMC_EXPECTS(workers > 0, "at least one worker");
  PFMC_EXPECTS(steps.size() == share.ranges.size(), "one step count per group");
  for (const PathRange& r : share.ranges) {
    PFMC_EXPECTS(r.empty() || r.first % kernels::kTilePaths == 0, "ranges start on a tile");
  }
  const double total = share_path_steps(share, steps);
  // Each cut at the tile boundary nearest to its fraction of the path-steps.
  std::vector<Cut> cuts;
  double before = 0.0; // path-steps of the groups before g
  std::size_t g = 0;
  for (std::size_t k = 1; k < workers; ++k) {
    const double target = total * static_cast<double>(k) / static_cast<double>(workers);
    for (;;) {
      const PathRange& r = share.ranges[g];
      const double weight = static_cast<double>(std::max(1, steps[g]));
      const double group_total = r.empty() ? 0.0 : static_cast<double>(r.count()) * weight;
      if (target <= before + group_total || g + 1 == share.ranges.size()) {
        const std::uint64_t tiles = r.empty() ? 0 : kernels::tiles_for_paths(r.count());
        const double tile_cost = weight * kernels::kTilePaths;
        const double at = tile_cost > 0.0 ? std::round((target - before) / tile_cost) : 0.0;
        const auto tile =
            static_cast<std::uint64_t>(std::clamp(at, 0.0, static_cast<double>(tiles)));
        cuts.push_back({g, tile});
        break;
      }
      before += group_total;
      ++g;
    }
  }
  std::vector<WorkShare> out(workers);
  for (auto& w : out)
    w.ranges.assign(share.ranges.size(), PathRange{});
  // Worker k covers [cut k-1, cut k) in (group, tile) order.
  for (std::size_t group = 0; group < share.ranges.size(); ++group) {
    const PathRange& r = share.ranges[group];
    if (r.empty())
      continue;
    const std::uint64_t tiles = kernels::tiles_for_paths(r.count());
    for (std::size_t k = 0; k < workers; ++k) {
      std::uint64_t from = 0, to = tiles;
      if (k > 0) {
        const Cut& c = cuts[k - 1];
        from = c.group < group ? 0 : (c.group == group ? c.tile : tiles);
      }
      if (k + 1 < workers) {
        const Cut& c = cuts[k];
        to = c.group < group ? 0 : (c.group == group ? c.tile : tiles);
      }
      if (from < to)
        out[k].ranges[group] = PathRange{tile_start(r, from), tile_start(r, to)};
    }
  }
  return out;
}

} // namespace pfmc::engine
