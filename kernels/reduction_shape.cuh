#pragma once
// The fixed order of pfmc's deterministic reduction, shared by the GPU kernels and the CPU
// backend. Every value of every path of a simulation group (its payoffs, their squares, ...) is
// summed as
//
//   paths ──pairwise, within each tile of kTilePaths consecutive paths──▶ tile sums
//   tile sums ──pairwise over aligned blocks of tiles, carried across chunks──▶ block sums
//   block sums ──from the right: b0 + (b1 + (... + b_last))──▶ totals
//
// "Pairwise" is the balanced binary tree over the tile's kTilePaths paths in which every node
// is left + right: paths 2k and 2k + 1 first, then pairs of pairs, and so on; paths past the end
// of the group count as +0.0. Any split of a tile into aligned runs of a power of two paths
// computes the same tree: a pass of a thread's paths, a thread's passes, a warp's 32 lanes, a
// block's round, a block's rounds, the blocks of a tile. Tiles combine the same way: the tiles
// [first, end) of a run are the maximal aligned blocks of tiles (2^k tiles from a multiple of
// 2^k) that fit in the range, each summed as its pairwise tree, kept as a stack while tiles
// arrive (push_tile) — a binary counter. The stacks of adjacent ranges merge into the stack of
// their union (engine/run/partial_sums.hpp) with the very same additions, so a group split over
// devices or processes at tile boundaries sums exactly as one run of it. So the sums — the
// prices — do not depend on the block size, the paths a thread simulates, its passes, the
// rounds of a block, the chunking (chunks start on tile boundaries), the devices, the processes
// or the backend; only on the seed, the paths and the config.

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
/// The most values of one estimates' pass (control variates, Greeks; kernels/path_kernel.cuh,
/// pay_estimates): a pass takes the fewest whole instruments that make kReduceBatch values or
/// more, so that no instrument's estimates are computed twice (passes of 16 cut every
/// instrument of 2 or 5 Greeks, 6 or 12 values, across two passes and computed it in both).
/// Measured, the portfolio's pathwise kernels on an H200 (docs/decisions.md#estimate-batch): all
/// five Greeks 18.3 -> 15.7 ms, delta and vega 8.58 -> 8.14 ms; a pass of the most whole
/// instruments within 24 was slower with 2 or 3 Greeks (8.38-8.43 and 10.40 ms).
inline constexpr int kEstimateBatch = 24;
/// The largest of them: what the warps' scratch holds.
inline constexpr int kMaxReduceBatch =
    kEstimateBatch > kReduceBatch ? kEstimateBatch : kReduceBatch;

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

/// The aligned blocks of the tiles [first, end), left to right: the size of the block that
/// starts at tile `start` (first <= start < end): the largest power of two that divides start
/// (any, for tile 0) and fits before end.
PFMC_HD_INLINE std::uint64_t tile_block_size(std::uint64_t start, std::uint64_t end) {
  std::uint64_t size = start == 0 ? (std::uint64_t(1) << 62) : (start & (~start + 1));
  while (size > end - start)
    size >>= 1;
  return size;
}

/// How many aligned blocks the tiles [first, end) make: the depth of their stack.
PFMC_HD_INLINE int tile_blocks(std::uint64_t first, std::uint64_t end) {
  int blocks = 0;
  for (std::uint64_t start = first; start < end; start += tile_block_size(start, end))
    ++blocks;
  return blocks;
}

/// The most blocks a range of at most `tiles` tiles makes (sizes rise, then fall).
constexpr int tile_stack_capacity(std::uint64_t tiles) {
  int bits = 0;
  while (tiles > 0) {
    ++bits;
    tiles >>= 1;
  }
  return 2 * bits + 1;
}

/// Pushes the sum x of tile `position` onto the stack of the tiles [first, position), `depth`
/// blocks deep (at(k) is block k's sum, oldest first): x merges with each finished block to
/// its left that it completes — left + right — as in a binary counter. Returns the new depth.
template <class At>
PFMC_HD_INLINE int push_tile(At&& at, int depth, std::uint64_t first, std::uint64_t position,
                             double x) {
  std::uint64_t start = position, size = 1;
  // The block [start, start + size) completes its left neighbour when it starts at an odd
  // multiple of its size and that neighbour lies inside the range.
  while ((start & size) != 0 && start - size >= first) {
    x = math::add_rn(at(--depth), x);
    start -= size;
    size <<= 1;
  }
  at(depth) = x;
  return depth + 1;
}

/// The total of a stack of `depth` blocks: b0 + (b1 + (... + b_last)), 0 for none. For a range
/// from tile 0 it is the pairwise tree over the tiles padded with +0.0 to a power of two.
template <class At>
PFMC_HD_INLINE double fold_blocks(At&& at, int depth) {
  if (depth == 0)
    return 0.0;
  double total = at(depth - 1);
  for (int k = depth - 2; k >= 0; --k)
    total = math::add_rn(at(k), total);
  return total;
}

/// Bytes of dynamic shared memory the reduction needs after the loader's: the warps' scratch,
/// then the rounds' sums (none with one round).
constexpr std::size_t reduction_scratch_bytes(int block_size) {
  return sizeof(double) * static_cast<std::size_t>(block_size / kWarpSize) * kMaxReduceBatch;
}
constexpr std::size_t round_sums_bytes(int rounds, int values) {
  return rounds > 1 ? sizeof(double) * static_cast<std::size_t>(rounds) * values : 0;
}
/// Bytes of the warps' sums of `values` values (pay_pathwise): one row a warp.
constexpr std::size_t warp_sums_bytes(int block_size, int values) {
  return sizeof(double) * static_cast<std::size_t>(block_size / kWarpSize) * values;
}
/// The most shared memory one warp's row of sums may take (launch_kernel): a pathwise kernel's
/// 128 registers a thread leave at most 16 warps an SM, whose rows then take at most 192 KB of
/// its 228 KB (the 1,202 values of the portfolio's groups with all five Greeks: 9.4 KB a warp).
inline constexpr std::size_t kMaxWarpSumsBytes = 12 * 1024;
/// The most shared memory the rounds' sums may take (the engine picks the rounds under it).
inline constexpr std::size_t kMaxRoundSumsBytes = 16 * 1024;

/// Passes of the loader's paths a thread runs per round at most (kernels/path_kernel.cuh): its
/// pending subtrees are kept one per level below kMaxPasses (PassFold). 16: the book's blocks of
/// 128 threads × 4 paths cover their tile in one round (at 8 they took two, and a block reduction
/// each).
inline constexpr int kMaxPasses = 16;

/// The paths a thread block covers per round and in all (kernels/path_kernel.cuh): block size ×
/// paths per thread per pass × passes per round, times the rounds; a power of two that divides
/// kTilePaths.
constexpr int block_paths(int block_size, int paths_per_thread, int passes, int rounds) {
  return block_size * paths_per_thread * passes * rounds;
}

} // namespace pfmc::kernels
