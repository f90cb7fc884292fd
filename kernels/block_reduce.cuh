#pragma once
// Deterministic in-kernel reduction of per-path values in the order of
// kernels/reduction_shape.cuh: within a thread (its paths), a warp's 32 lanes by shuffles
// (neighbours first), the block's warps through shared memory, the block's rounds; then the
// blocks of a tile, combined by the tile's last block (__threadfence() → atomicInc ticket), and
// the tiles of the group, pushed in order onto the range's stack of tile blocks by the group's
// last tile, which then folds the stack into the totals. Every node of
// the tree is left + right, rounded once (math::add_rn): the same inputs give the same bits, and
// every launch shape gives the same tree. Tickets wrap to 0 in the atomicInc that draws the last
// one, so the next launch finds them reset. No floating-point atomics.

#include <cstddef>
#include <cstdint>

#include "kernels/reduction_shape.cuh"
#include "models/math.cuh"

namespace pfmc::kernels {

/// Where the reduction writes (device memory, owned by the engine).
struct ReductionTarget {
  double* block_partials;     ///< [block][values]: each block's subtree
  double* tile_sums;          ///< [tiles][values]
  double* stack;              ///< [block][values]: the range's tile blocks, carried across chunks
  double* totals;             ///< [values]: the stack folded (fold_blocks), after every launch
  unsigned int* tile_tickets; ///< [tiles], 0 before a launch; each tile's last block resets it
  unsigned int* ticket;       ///< over tiles; 0 before a launch, the last block resets it
  int values;                 ///< values per path
  std::uint64_t range_tile;   ///< the first tile of the run's range of the group
  std::uint64_t chunk_tile;   ///< the launch's first tile (range_tile for the range's first)
};

/// Where a block is in its group's reduction: which block, which of its rounds, and where the
/// rounds' sums wait for the block's last round (shared memory, [round][value]; rounds > 1).
struct RoundPosition {
  int block;          ///< the block's index within its group's launch
  int round;          ///< 0 .. rounds - 1
  int rounds;         ///< rounds per block (a power of two)
  double* round_sums; ///< shared memory: rounds × values
};

/// Lane 0 gets the pairwise sum of the 32 lanes' x (lane l holding the l-th subtree in order):
/// each shuffle level adds the neighbouring subtree, nearest first.
__device__ __forceinline__ double warp_tree_sum(double x) {
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    x = math::add_rn(x, __shfl_down_sync(0xffffffffu, x, offset));
  }
  return x;
}

/// Where a block's round subtree of the values goes: its row of the rounds' sums in shared
/// memory (rounds > 1, combined by finish_block), else the block's partials.
__device__ __forceinline__ double* round_out(const ReductionTarget& target,
                                             const RoundPosition& at) {
  return at.rounds > 1 ? at.round_sums + static_cast<std::size_t>(at.round) * target.values
                       : target.block_partials + static_cast<std::size_t>(at.block) * target.values;
}

/// Reduces `count` <= Batch values of every thread of the block (value(k), k < count: the
/// thread's subtree of its own paths) over the block's round and writes the round's subtree for
/// values [first, first + count). Every thread of the block must call it (it synchronises);
/// `count` must be the same in all. The scratch holds kMaxReduceBatch values a warp.
template <int Batch = kReduceBatch, class ValueFn>
__device__ __forceinline__ void round_partials(double* scratch, const ReductionTarget& target,
                                               const RoundPosition& at, int first, int count,
                                               ValueFn value) {
  static_assert(Batch <= kMaxReduceBatch);
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
#pragma unroll
  for (int k = 0; k < Batch; ++k) {
    if (k < count) { // uniform: no shuffles for values that do not exist
      const double x = warp_tree_sum(value(k));
      if (lane == 0)
        scratch[warp * Batch + k] = x;
    }
  }
  __syncthreads();
  // The warps' sums of each value, pairwise in warp order, by the first warp's shuffles.
  if (warp == 0) {
    const int warps = blockDim.x / kWarpSize;
    double* out = round_out(target, at);
#pragma unroll
    for (int k = 0; k < Batch; ++k) {
      if (k < count) {
        double x = lane < warps ? scratch[lane * Batch + k] : 0.0;
        for (int offset = 1; offset < warps; offset *= 2)
          x = math::add_rn(x, __shfl_down_sync(0xffffffffu, x, offset));
        if (lane == 0)
          out[first + k] = x;
      }
    }
  }
  __syncthreads();
}

/// One halving of warp_slot_sums over the first N of S slots, at distance S / N: a lane keeps
/// the upper half where its bit of that distance is set, else the lower, and adds the partner's
/// subtrees of the same slots; then the next halving. Written out per N (a template, not a loop
/// over the distances): nvcc left that loop rolled for S = 16 and put the slots in local memory.
template <int S, int N>
__device__ __forceinline__ void halve_slots(double (&x)[S], int lane) {
  if constexpr (N > 1) {
    constexpr int distance = S / N;
    const bool upper = (lane & distance) != 0;
#pragma unroll
    for (int k = 0; k < N / 2; ++k) {
      const double send = upper ? x[k] : x[k + N / 2];
      const double keep = upper ? x[k + N / 2] : x[k];
      x[k] = math::add_rn(keep, __shfl_xor_sync(0xffffffffu, send, distance));
    }
    halve_slots<S, N / 2>(x, lane);
  }
}

/// The warp's sums of S slots at once (S = 8 or 16; lane l's x[s] is its subtree of slot s), by
/// recursive halving (halve_slots): at distance d = 1, 2, .., S / 2 a lane keeps half of its
/// slots and adds the partner's (lane ^ d) subtrees of the same slots; the distances S .. 16
/// then add whole subtrees. Every slot's sum is warp_tree_sum's tree — neighbouring lanes first,
/// each node one rounded addition (addition commutes) — in S + log2(32 / S) - 1 shuffles instead
/// of 5 S. Lane l returns the sum of slot warp_slot<S>(l). Every lane of the warp must call it.
template <int S>
__device__ __forceinline__ double warp_slot_sums(double (&x)[S]) {
  static_assert(S == 8 || S == 16, "8 or 16 slots");
  const int lane = threadIdx.x % kWarpSize;
  halve_slots<S, S>(x, lane);
#pragma unroll
  for (int distance = S; distance < kWarpSize; distance *= 2)
    x[0] = math::add_rn(x[0], __shfl_xor_sync(0xffffffffu, x[0], distance));
  return x[0];
}

/// The slot whose sum lane l holds after warp_slot_sums<S>: its low log2(S) bits reversed (the
/// first halving's kept half is its top bit).
template <int S>
PFMC_HD_INLINE constexpr int warp_slot(int lane) {
  int slot = 0;
  for (int bit = 1, top = S / 2; bit < S; bit *= 2, top /= 2)
    slot |= (lane & bit) != 0 ? top : 0;
  return slot;
}

/// After every warp has written its sums of the round's `count` values to warp_sums
/// ([warp][target.values], shared memory): the block's round subtree of each, the warps'
/// pairwise tree (round_partials' tree) folded in place, one value a thread, written where
/// round_partials writes. Every thread of the block must call it; it synchronises before and
/// after (the warps' sums may be written again).
__device__ __forceinline__ void fold_warp_sums(double* warp_sums, const ReductionTarget& target,
                                               const RoundPosition& at, int count) {
  __syncthreads();
  const int warps = blockDim.x / kWarpSize; // a power of two
  const std::size_t stride = target.values;
  double* out = round_out(target, at);
  for (int v = threadIdx.x; v < count; v += blockDim.x) {
    for (int span = 1; span < warps; span *= 2) {
      for (int w = 0; w < warps; w += 2 * span)
        warp_sums[w * stride + v] =
            math::add_rn(warp_sums[w * stride + v], warp_sums[(w + span) * stride + v]);
    }
    out[v] = warp_sums[v];
  }
  __syncthreads();
}

/// Where a round's values go: the block's round subtree (round_partials), for the value passes
/// of the payoff stage.
struct RoundSink {
  double* scratch; ///< the warps' scratch
  ReductionTarget target;
  RoundPosition at;

  template <class ValueFn>
  __device__ __forceinline__ void operator()(int first, int count, ValueFn value) const {
    round_partials(scratch, target, at, first, count, value);
  }
  /// The same for up to kEstimateBatch values (the estimates' pass).
  template <class ValueFn>
  __device__ __forceinline__ void estimates(int first, int count, ValueFn value) const {
    round_partials<kEstimateBatch>(scratch, target, at, first, count, value);
  }
};

/// After the block's last round: the block's subtree of every value (its rounds combined),
/// made visible device-wide. Every thread of the block must call it.
/// `active` of the block's `rounds` rounds ran (the others, past the end of the group, are +0.0).
__device__ __forceinline__ void finish_block(const ReductionTarget& target, int block, int rounds,
                                             int active, const double* sums) {
  if (rounds > 1) {
    __syncthreads(); // every round sum of this block is written (by its threads)
    for (int v = threadIdx.x; v < target.values; v += blockDim.x) {
      target.block_partials[static_cast<std::size_t>(block) * target.values + v] =
          pairwise_sum(rounds, [&](int r) {
            return r < active ? sums[static_cast<std::size_t>(r) * target.values + v] : 0.0;
          });
    }
  }
  // Release: this thread's partials are visible device-wide before the block takes its ticket.
  __threadfence();
  __syncthreads();
}

/// After finish_block: the last block of each tile combines the tile's block partials
/// (blocks_per_tile slots, pairwise; blocks past the end of the group are +0.0) into its tile
/// sum; the last tile to finish pushes the tile sums in tile order onto the range's stack of tile
/// blocks (push_tile) and folds it into the totals. `block` and
/// `blocks` count the blocks of this reduction's group in the launch (a launch may carry several
/// groups, each with its own target). Every thread of every block of the group must call it.
/// With one block a tile (short paths: a block's rounds cover its tile) a block's partial is its
/// tile's sum (the pairwise sum of one leaf) and is read as such: no tile ticket, no copy.
__device__ __forceinline__ void finish_in_last_block(const ReductionTarget& target, int block,
                                                     int blocks, int blocks_per_tile) {
  __shared__ int is_last;
  const int values = target.values;
  const int tiles = (blocks + blocks_per_tile - 1) / blocks_per_tile;
  const double* sums_of_tiles = target.block_partials; // [tile][values] with one block a tile
  if (blocks_per_tile > 1) {
    const int tile = block / blocks_per_tile;
    const int first_block = tile * blocks_per_tile;
    const int tile_blocks = min(blocks_per_tile, blocks - first_block);
    if (threadIdx.x == 0) {
      const unsigned int ticket = atomicInc(&target.tile_tickets[tile], tile_blocks - 1);
      is_last = ticket == static_cast<unsigned int>(tile_blocks - 1);
    }
    __syncthreads();
    if (!is_last)
      return;
    __threadfence(); // acquire: the tile's other partials
    for (int v = threadIdx.x; v < values; v += blockDim.x) {
      // L2, not L1: the partials were written by other multiprocessors.
      target.tile_sums[static_cast<std::size_t>(tile) * values + v] =
          pairwise_sum(blocks_per_tile, [&](int b) {
            return b < tile_blocks
                       ? __ldcg(&target.block_partials[static_cast<std::size_t>(first_block + b) *
                                                           values +
                                                       v])
                       : 0.0;
          });
      __threadfence();
    }
    __syncthreads();
    sums_of_tiles = target.tile_sums;
  }
  if (threadIdx.x == 0) {
    const unsigned int ticket = atomicInc(target.ticket, tiles - 1);
    is_last = ticket == static_cast<unsigned int>(tiles - 1);
  }
  __syncthreads();
  if (!is_last)
    return;
  __threadfence(); // acquire: every tile sum
  for (int v = threadIdx.x; v < values; v += blockDim.x) {
    double* column = target.stack + v;
    const auto at = [&](int k) -> double& { return column[static_cast<std::size_t>(k) * values]; };
    int depth = kernels::tile_blocks(target.range_tile, target.chunk_tile);
    for (int t = 0; t < tiles; ++t) {
      depth = push_tile(at, depth, target.range_tile, target.chunk_tile + t,
                        __ldcg(&sums_of_tiles[static_cast<std::size_t>(t) * values + v]));
    }
    target.totals[v] = fold_blocks(at, depth);
  }
}

} // namespace pfmc::kernels
