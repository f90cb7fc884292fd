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
  double* block_partials; ///< [grid][values]
  double* tile_sums;      ///< [tiles][values] scratch of the last block
  double* totals;         ///< [values], carried across the chunks of a run
  unsigned int* ticket;   ///< 0 before the first launch; the last block leaves it at 0
  int values;             ///< values per path
  int first_chunk;        ///< 1: totals start from zero; 0: add to them
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

/// Reduces kReduceBatch values of every thread of the block (value(k) for k < count; missing
/// ones are zero) and writes the block's partials for values [first, first + count).
/// Every thread of the block must call it (it synchronises).
template <class ValueFn>
__device__ __forceinline__ void block_partials(double* scratch, const ReductionTarget& target,
                                               int first, int count, ValueFn value) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
#pragma unroll
  for (int k = 0; k < kReduceBatch; ++k) {
    double x = k < count ? value(k) : 0.0;
    x = warp_sum(x);
    if (lane == 0)
      scratch[warp * kReduceBatch + k] = x;
  }
  __syncthreads();
  if (threadIdx.x < count) {
    const int warps = blockDim.x / kWarpSize;
    double s = 0.0;
    for (int w = 0; w < warps; ++w)
      s += scratch[w * kReduceBatch + threadIdx.x];
    target.block_partials[static_cast<std::size_t>(blockIdx.x) * target.values + first +
                          threadIdx.x] = s;
  }
  __syncthreads();
}

/// After every block has written its partials: the last block to arrive sums them in fixed
/// order into the totals. Every thread of every block must call it.
__device__ __forceinline__ void finish_in_last_block(const ReductionTarget& target) {
  __shared__ int is_last_block;
  // Make this block's partials visible to whichever block finishes, then take a ticket.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned int ticket = atomicInc(target.ticket, gridDim.x - 1);
    is_last_block = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last_block)
    return;
  __threadfence();

  const int values = target.values;
  const int blocks = gridDim.x;
  const int tiles = (blocks + kTileBlocks - 1) / kTileBlocks;
  for (int item = threadIdx.x; item < tiles * values; item += blockDim.x) {
    const int tile = item / values;
    const int v = item % values;
    const int first_block = tile * kTileBlocks;
    const int last_block = min(first_block + kTileBlocks, blocks);
    double s = 0.0;
    for (int b = first_block; b < last_block; ++b) {
      // L2, not L1: the partials were written by other multiprocessors.
      s += __ldcg(&target.block_partials[static_cast<std::size_t>(b) * values + v]);
    }
    target.tile_sums[static_cast<std::size_t>(tile) * values + v] = s;
  }
  __syncthreads();
  for (int v = threadIdx.x; v < values; v += blockDim.x) {
    double total = target.first_chunk ? 0.0 : target.totals[v];
    for (int tile = 0; tile < tiles; ++tile) {
      total += target.tile_sums[static_cast<std::size_t>(tile) * values + v];
    }
    target.totals[v] = total;
  }
}

} // namespace pfmc::kernels
