#pragma once
// What every step loader gets, and the contract they share.
//
// A step loader owns the step loop of the path kernel. The kernel constructs it once per block
// (`Loader loader(shared)`: barriers and rings are set up there) and calls
// `loader.run(inputs, body)` once per round of the block (a block may simulate several rounds of
// paths, kernels/path_kernel.cuh). run() calls `body(step, z)` for step = 0 .. steps-1 in
// order (or `body.batch<D>(step0, z)` for D steps whose draws arrived together), where
// z[p][f] is the draw of the thread's path p for (step, factor f). Loaders differ only in
// *when* the draws arrive (plain loads, unrolled loads, register or shared-memory batches and
// rings, cp.async, L2 prefetches, bulk copies) or — `inline` — in computing them in the loop
// instead of reading them; what the body computes is the same, so every backend gives the same
// bits as `none`.
//
// Loaders that read draws read them from the chunk's buffer, laid out in tiles
// (kernels/draw_layout.hpp): within a tile, [row][path]. They simulate one path per thread
// (paths_per_thread = 1); `inline` simulates the paths of one generator call together.
//
// Every thread of a block calls run(), including the threads of a partial last block whose
// path is out of range (they read a valid path's draws and their results are discarded), so a
// loader may synchronise the block inside the loop.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/draw_layout.hpp"
#include "kernels/ring_layout.hpp"

namespace pfmc::kernels {

/// One round's inputs of a loader.
template <class Real>
struct LoaderInputs {
  /// Draw (step, factor) of this thread's path is path_draws[(step * factors + factor) *
  /// kDrawTilePaths]; a thread whose path is out of range points at a valid path's draws.
  const Real* __restrict__ path_draws;
  /// The same for the round's first path: the block's draws of one row are block_paths
  /// contiguous values there (the round lies inside one draw tile).
  const Real* __restrict__ block_draws;
  int block_paths; ///< valid paths in this round of the block (<= blockDim.x)
  int steps;
  int prefetch_distance; ///< for loaders that take it at run time
  RingLayout ring;
  /// Counter-based draws (`inline`, kernels/counter_draws.cuh): the run's seed, the group's
  /// index, the generator call of the thread's first path (its path index / paths per call),
  /// and whether odd paths take the antithetic −z of the even path before them.
  std::uint64_t seed;
  std::uint64_t first_call;
  std::uint32_t group;
  int antithetic;
};

/// Elements between consecutive rows of one path's draws.
inline constexpr int kRowStride = kDrawTilePaths;

/// This thread's draw of (step, factor).
template <int Factors, class Real>
__device__ __forceinline__ const Real* draw_address(const LoaderInputs<Real>& in, int step,
                                                    int factor) {
  return in.path_draws + static_cast<std::size_t>(step * Factors + factor) * kRowStride;
}

/// Where a thread keeps (slot, factor) of its own shared-memory ring.
__device__ __forceinline__ int ring_index(const RingLayout& ring, int slot, int factor) {
  return factor * ring.factor_stride + static_cast<int>(threadIdx.x) * ring.thread_stride +
         slot * ring.slot_stride;
}

/// Bytes of one per-thread ring of `slots` slots for a block (the layout's factor stride
/// already covers the block and the padding).
template <class Real, int Factors>
std::size_t per_thread_ring_bytes(const RingLayout& ring) {
  return sizeof(Real) * static_cast<std::size_t>(Factors) * ring.factor_stride;
}

} // namespace pfmc::kernels
