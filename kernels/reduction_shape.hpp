#pragma once
// The fixed shape of pfmc's deterministic reduction, shared by the GPU kernel and the CPU
// backend (which mirrors it so that chunking never changes a bit of the result).
//
//   path values ──warp tree──▶ warp sums ──in warp order──▶ one partial per block
//   block partials ──in block order, kTileBlocks at a time──▶ tile sums
//   tile sums ──in tile order, carried across chunks──▶ totals
//
// Chunks always start on a tile boundary, so a tile never straddles two launches and the
// totals are the same sequence of additions for one chunk or many.

#include <cstddef>

namespace pfmc::kernels {

inline constexpr int kWarpSize = 32;
/// Blocks per tile. 64 blocks × 128 threads = 8,192 paths: small enough that chunks can be
/// fine-grained, large enough that the carried sum over tiles stays short (1,000 tiles for
/// 8.2M paths).
inline constexpr int kTileBlocks = 64;
/// Values reduced per pass through shared memory (8 instruments: payoff and payoff²).
inline constexpr int kReduceBatch = 16;

/// Sum of 32 lane values in the order of a __shfl_down_sync tree (offsets 16, 8, 4, 2, 1) as
/// seen by lane 0. The host mirror of warp_sum() in kernels/block_reduce.cuh.
inline double warp_tree_sum(const double* lanes) {
  double v[kWarpSize];
  for (int i = 0; i < kWarpSize; ++i)
    v[i] = lanes[i];
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    for (int lane = 0; lane < offset; ++lane)
      v[lane] += v[lane + offset];
  }
  return v[0];
}

/// Values per path: Σ payoff and Σ payoff² for each instrument, then the portfolio's.
inline constexpr int reduced_value_count(int instruments) {
  return 2 * instruments + 2;
}

inline constexpr std::size_t tiles_for_blocks(std::size_t blocks) {
  return (blocks + kTileBlocks - 1) / kTileBlocks;
}

} // namespace pfmc::kernels
