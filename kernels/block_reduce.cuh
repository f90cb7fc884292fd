#pragma once
// Deterministic in-kernel reduction of per-path values (see kernels/reduction_shape.hpp):
// warp shuffles → shared memory → one partial per block → __threadfence() → atomicInc ticket →
// the last block to finish sums every partial in a fixed order and writes the totals. The
// ticket wraps to 0 in that same atomicInc, so the next launch finds it reset. No
// floating-point atomics: the same inputs give the same bits.

#include <cstddef>

#include "kernels/reduction_shape.hpp"

namespace pfmc::kernels {

/// Where the reduction writes (device memory, owned by the engine).
struct ReductionTarget {
  double* block_partials;     ///< [grid][values]
  double* tile_sums;          ///< [tiles][values]
  double* totals;             ///< [values], carried across the chunks of a run
  unsigned int* tile_tickets; ///< [tiles], 0 before a launch; each tile's last block resets it
  unsigned int* ticket;       ///< over tiles; 0 before a launch, the last block resets it
  int values;                 ///< values per path
  int first_chunk;            ///< 1: totals start from zero; 0: add to them
};

__device__ __forceinline__ double warp_sum(double x) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    x += __shfl_down_sync(0xffffffffu, x, offset);
  }
  return x;
}

/// Bytes of dynamic shared memory the reduction needs after the loader's.
__host__ __device__ constexpr std::size_t reduction_shared_bytes(int block_size) {
  return sizeof(double) * static_cast<std::size_t>(block_size / kWarpSize) * kReduceBatch;
}

/// Reduces `count` <= kReduceBatch values of every thread of the block (value(k), k < count)
/// and writes the partials of block `block` (of its group) for values [first, first + count).
/// Every thread of the block must call it (it synchronises); `count` must be the same in all.
template <class ValueFn>
__device__ __forceinline__ void block_partials(double* scratch, const ReductionTarget& target,
                                               int block, int first, int count, ValueFn value) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
#pragma unroll
  for (int k = 0; k < kReduceBatch; ++k) {
    if (k < count) { // uniform: no shuffles for values that do not exist
      const double x = warp_sum(value(k));
      if (lane == 0)
        scratch[warp * kReduceBatch + k] = x;
    }
  }
  __syncthreads();
  if (threadIdx.x < count) {
    const int warps = blockDim.x / kWarpSize;
    double s = 0.0;
    for (int w = 0; w < warps; ++w)
      s += scratch[w * kReduceBatch + threadIdx.x];
    target.block_partials[static_cast<std::size_t>(block) * target.values + first + threadIdx.x] =
        s;
    // Release: the partial is visible device-wide before this block takes its tile ticket.
    __threadfence();
  }
  __syncthreads();
}

/// After the block's partials are written: the last block of each tile sums the tile's
/// partials in block order into its tile sum; the last tile to finish sums the tile sums in
/// tile order onto the totals. Both tickets wrap to zero in the atomicInc that draws the last
/// one, so the next launch finds them reset. `block` and `blocks` count the blocks of this
/// reduction's group (a launch may carry several groups, each with its own target). Every
/// thread of every block of the group must call it.
__device__ __forceinline__ void finish_in_last_block(const ReductionTarget& target, int block,
                                                     int blocks) {
  __shared__ int is_last;
  const int values = target.values;
  const int tiles = (blocks + kTileBlocks - 1) / kTileBlocks;
  const int tile = block / kTileBlocks;
  const int first_block = tile * kTileBlocks;
  const int tile_blocks = min(kTileBlocks, blocks - first_block);

  if (threadIdx.x == 0) {
    const unsigned int ticket = atomicInc(&target.tile_tickets[tile], tile_blocks - 1);
    is_last = ticket == static_cast<unsigned int>(tile_blocks - 1);
  }
  __syncthreads();
  if (!is_last)
    return;
  __threadfence(); // acquire: the tile's other partials
  for (int v = threadIdx.x; v < values; v += blockDim.x) {
    double s = 0.0;
#pragma unroll 8
    for (int b = first_block; b < first_block + tile_blocks; ++b) {
      // L2, not L1: the partials were written by other multiprocessors.
      s += __ldcg(&target.block_partials[static_cast<std::size_t>(b) * values + v]);
    }
    target.tile_sums[static_cast<std::size_t>(tile) * values + v] = s;
    __threadfence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned int ticket = atomicInc(target.ticket, tiles - 1);
    is_last = ticket == static_cast<unsigned int>(tiles - 1);
  }
  __syncthreads();
  if (!is_last)
    return;
  __threadfence(); // acquire: every tile sum
  for (int v = threadIdx.x; v < values; v += blockDim.x) {
    double total = target.first_chunk ? 0.0 : target.totals[v];
#pragma unroll 8
    for (int t = 0; t < tiles; ++t) {
      total += __ldcg(&target.tile_sums[static_cast<std::size_t>(t) * values + v]);
    }
    target.totals[v] = total;
  }
}

} // namespace pfmc::kernels
