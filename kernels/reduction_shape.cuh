#pragma once
// The fixed order of pfmc's deterministic reduction, shared by the GPU kernels and the CPU
// backend. Every value of every path of a simulation group (its payoffs, their squares, ...) is
// summed as
//
//   paths ──pairwise, within each tile of kTilePaths consecutive paths──▶ tile sums
//   tile sums ──one after the other, in tile order, carried across chunks──▶ totals
//
// "Pairwise" is the balanced binary tree over the tile's kTilePaths paths in which every node
// is left + right: paths 2k and 2k + 1 first, then pairs of pairs, and so on; paths past the end
// of the group count as +0.0. Any split of a tile into aligned runs of a power of two paths
// computes the same tree: a pass of a thread's paths, a thread's passes, a warp's 32 lanes, a
// block's round, a block's rounds, the blocks of a tile. So the sums — the prices — do not
// depend on the block size, the paths a thread simulates, its passes, the rounds of a block,
// the chunking (chunks start on tile boundaries) or the backend; only on the seed, the paths
// and the config.

#include <cstddef>
#include <cstdint>

#include "models/math.cuh"

namespace pfmc::kernels {

inline constexpr int kWarpSize = 32;
/// Paths per reduction tile: a power of two, the largest block of paths summed as one tree.
/// Large enough that the carried sum over tiles stays short (1,000 tiles for 8.2M paths), small
/// enough that chunks — whole tiles — can be fine-grained.
inline constexpr int kTilePaths = 8192;
/// Values reduced per pass through shared memory (8 instruments: payoff and payoff²).
inline constexpr int kReduceBatch = 16;

/// leaf(0) + ... + leaf(n - 1) as the balanced pairwise tree (n a power of two, at most 2^16):
/// each leaf merges with the finished subtrees to its left whose size it completes, as in a
/// binary counter. The stack holds one subtree per level.
template <class Leaf>
PFMC_HD_INLINE double pairwise_sum(int n, Leaf&& leaf) {
  double stack[17];
  int top = 0;
  for (int i = 0; i < n; ++i) {
    double x = leaf(i);
    for (int m = i + 1; (m & 1) == 0; m >>= 1)
      x = math::add_rn(stack[--top], x);
    stack[top++] = x;
  }
  return n > 0 ? stack[0] : 0.0;
}

/// Tiles of `paths` paths (the last one may be partial).
constexpr std::uint64_t tiles_for_paths(std::uint64_t paths) {
  return (paths + kTilePaths - 1) / kTilePaths;
}

/// Bytes of dynamic shared memory the reduction needs after the loader's: the warps' scratch,
/// then the rounds' sums (none with one round).
constexpr std::size_t reduction_scratch_bytes(int block_size) {
  return sizeof(double) * static_cast<std::size_t>(block_size / kWarpSize) * kReduceBatch;
}
constexpr std::size_t round_sums_bytes(int rounds, int values) {
  return rounds > 1 ? sizeof(double) * static_cast<std::size_t>(rounds) * values : 0;
}
/// The most shared memory the rounds' sums may take (the engine picks the rounds under it).
inline constexpr std::size_t kMaxRoundSumsBytes = 16 * 1024;

/// Passes of the loader's paths a thread runs per round at most (kernels/path_kernel.cuh): its
/// pending subtrees live in registers, one per level below kMaxPasses.
inline constexpr int kMaxPasses = 8;

/// The paths a thread block covers per round and in all (kernels/path_kernel.cuh): block size ×
/// paths per thread per pass × passes per round, times the rounds; a power of two that divides
/// kTilePaths.
constexpr int block_paths(int block_size, int paths_per_thread, int passes, int rounds) {
  return block_size * paths_per_thread * passes * rounds;
}

} // namespace pfmc::kernels
