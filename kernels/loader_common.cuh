#pragma once
// What every step loader gets, and the contract they share.
//
// A step loader owns the step loop of the path kernel: `loader.run(body)` calls
// `body(step, z)` for step = 0 .. steps-1 in order, where z[f] is the draw of this thread's path
// for (step, factor f), read from the chunk's normals laid out [step][factor][path]. Loaders
// differ only in *when* the draws arrive (plain loads, unrolled loads, register or shared-memory
// batches and rings, cp.async, L2 prefetches, bulk copies); what the body computes is the same,
// so every backend gives the same bits as `none`.
//
// Draws are laid out in tiles (kernels/draw_layout.hpp): within a tile, [row][path].
//
// Every thread of a block calls run(), including the threads of a partial last block whose
// path is out of range (they read a valid path's draws and their results are discarded), so a
// loader may synchronise the block inside the loop.

#include <cstddef>
#include <type_traits>

#include "kernels/draw_layout.hpp"
#include "kernels/ring_layout.hpp"

namespace pfmc::kernels {

template <class Real>
struct LoaderInputs {
  /// Draw (step, factor) of this thread's path is path_draws[(step * factors + factor) *
  /// kDrawTilePaths]; a thread whose path is out of range points at a valid path's draws.
  const Real* __restrict__ path_draws;
  /// The same for the block's first path: the block's draws of one row are block_paths
  /// contiguous values there (the block lies inside one draw tile).
  const Real* __restrict__ block_draws;
  int block_paths; ///< valid paths in this block (<= blockDim.x)
  int steps;
  int prefetch_distance; ///< for loaders that take it at run time
  RingLayout ring;
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
