#pragma once
// A thread's values on the way into the block's reduction (kernels/reduction_shape.cuh): pair
// means of antithetic paths, the pairwise sum of a thread's P paths (the tree's bottom levels), a
// single price's leaf [y, y²] of a pass, and a round's passes folded as they come.

#include "kernels/reduction_shape.cuh"
#include "models/math.cuh"

namespace pfmc::kernels {

/// Antithetic pairs are adjacent lanes when a thread has one path: the even lane gets the pair's
/// mean, the odd lane 0, so sums and sums of squares are over pair means (whose variance is the
/// estimator's). Every lane of the warp must call it. The CPU backend computes
/// (x_even + x_odd) * 0.5 the same way.
__device__ __forceinline__ double pair_mean(double x) {
  const double other = __shfl_xor_sync(0xffffffffu, x, 1);
  return (threadIdx.x & 1) ? 0.0 : math::add_rn(x, other) * 0.5;
}

/// The pair means of x[0 .. P) (P paths of one thread), in place: x[2k] ← (x[2k] + x[2k+1]) / 2,
/// x[2k+1] ← 0; with one path per thread, across lanes.
template <int P>
__device__ __forceinline__ void pair_means(double (&x)[P]) {
  if constexpr (P == 1) {
    x[0] = pair_mean(x[0]);
  } else {
#pragma unroll
    for (int p = 0; p < P; p += 2) {
      x[p] = math::add_rn(x[p], x[p + 1]) * 0.5;
      x[p + 1] = 0.0;
    }
  }
}

/// The pairwise sum of a thread's P paths' leaves (leaf(p)): the bottom levels of the tree.
template <int P, class Leaf>
__device__ __forceinline__ double thread_tree_sum(Leaf&& leaf) {
  static_assert(P == 1 || P == 2 || P == 4, "a thread's paths are 1, 2 or 4");
  if constexpr (P == 1) {
    return leaf(0);
  } else if constexpr (P == 2) {
    return math::add_rn(leaf(0), leaf(1));
  } else {
    return math::add_rn(math::add_rn(leaf(0), leaf(1)), math::add_rn(leaf(2), leaf(3)));
  }
}

/// A pass's reduced values of a group of one instrument's price: the thread's subtrees of y and
/// y² over its P paths (the first `valid` in range; the others are +0.0).
struct PriceLeaf {
  double y;
  double y2;
};

/// A pass's leaf of a single price from its P paths' discounted payoffs (the first `valid` in
/// range; the others become +0.0; pair means with antithetic). Every lane of the warp must call
/// it (antithetic pairs of one path per thread are neighbouring lanes).
template <int P>
__device__ __forceinline__ PriceLeaf price_leaf(double (&value)[P], int valid, int antithetic) {
#pragma unroll
  for (int p = 0; p < P; ++p) {
    if (p >= valid)
      value[p] = 0.0;
  }
  if (antithetic)
    pair_means<P>(value);
  return PriceLeaf{thread_tree_sum<P>([&](int p) { return value[p]; }),
                   thread_tree_sum<P>([&](int p) { return math::mul_rn(value[p], value[p]); })};
}

/// A thread's passes folded into the pairwise tree of its round (kernels/reduction_shape.cuh)
/// as they come: level l holds the pending subtree of 2^l passes to the left of the next one (a
/// binary counter), so that after 2^k passes level k holds their sum. ptxas keeps the levels in
/// the thread's stack (L1): named levels in registers instead made the `inline` kernel of
/// Black-Scholes float spill 284-440 bytes and the book's kernel 2% slower (measured, H100).
struct PassFold {
  static constexpr int kLevels = 5;
  double y[kLevels];
  double y2[kLevels];
  static_assert(kMaxPasses <= 1 << (kLevels - 1), "a level per halving of kMaxPasses");

  /// Pass `i` (0, 1, ..., in order; uniform across the block).
  __device__ __forceinline__ void add(int i, PriceLeaf x) {
#pragma unroll
    for (int l = 0; l < kLevels; ++l) {
      if ((i >> l) & 1) {
        x.y = math::add_rn(y[l], x.y);
        x.y2 = math::add_rn(y2[l], x.y2);
      } else {
        y[l] = x.y;
        y2[l] = x.y2;
        return;
      }
    }
  }
  /// The sum of all `passes` (a power of two up to kMaxPasses) passes.
  __device__ __forceinline__ PriceLeaf total(int passes) const {
    const int k = passes >= 16 ? 4 : passes >= 8 ? 3 : passes >= 4 ? 2 : passes >= 2 ? 1 : 0;
    return PriceLeaf{k == 4   ? y[4]
                     : k == 3 ? y[3]
                     : k == 2 ? y[2]
                     : k == 1 ? y[1]
                              : y[0],
                     k == 4   ? y2[4]
                     : k == 3 ? y2[3]
                     : k == 2 ? y2[2]
                     : k == 1 ? y2[1]
                              : y2[0]};
  }
};

} // namespace pfmc::kernels
