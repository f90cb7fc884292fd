#pragma once
// The arithmetic of the draw transforms (engine/draws/draw_transform.hpp), shared by the device
// kernels (kernels/draw_transform.cu) and the host loops (engine/draws/draw_transform.cpp): the
// same operations in the same order, with explicit fused multiply-adds (correctly rounded on both
// sides), so that the GPU and the CPU backend see the same bits.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "models/math.cuh"

namespace pfmc::kernels {

/// a·b + c rounded once, on the device (CUDA's fma/fmaf) and on the host (std::fma).
template <class Real>
PFMC_HD_INLINE Real fused_multiply_add(Real a, Real b, Real c) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<Real, float>) {
    return ::fmaf(a, b, c);
  } else {
    return ::fma(a, b, c);
  }
#else
  return std::fma(a, b, c);
#endif
}

/// A Brownian bridge over one group's grid, for one (path, factor) column of a draw tile.
///
/// Slot k of the column holds the k-th normal in *bridge order* on entry (row k·factors + f)
/// and the standardized increment of step k on exit (row k·factors + f again). In between,
/// the transform works in place in three passes:
///  1. slot k ← W(t_point(k)): slot 0 is the terminal point √T·z₀, every later slot a midpoint
///     between two points already built (left slot < 0: the origin, W = 0);
///  2. a fixed permutation, as cycles, moves W(t_{s+1}) into slot s;
///  3. backwards, slot s ← (W(t_{s+1}) − W(t_s)) / √(t_{s+1} − t_s).
/// No scratch memory: each slot is read before it is overwritten.
template <class Real>
struct BrownianBridgeView {
  const int* left;          ///< [steps] slot of the left point, -1 for the origin (slot 0: unused)
  const int* right;         ///< [steps] slot of the right point (slot 0: unused)
  const Real* left_weight;  ///< [steps] (t_r − t_j) / (t_r − t_l)
  const Real* right_weight; ///< [steps] (t_j − t_l) / (t_r − t_l)
  const Real* sd;           ///< [steps] conditional sd; sd[0] = √T
  const Real* sqrt_dt;      ///< [steps] √(t_{s+1} − t_s)
  const int* cycles;        ///< cycle length m, then its m slots; repeated
  int cycle_values;         ///< length of `cycles`
  int steps;
  int factors;
};
static_assert(std::is_trivially_copyable_v<BrownianBridgeView<float>>);
static_assert(std::is_trivially_copyable_v<BrownianBridgeView<double>>);

/// The bridge's midpoint: left_weight·W_l + right_weight·W_r + sd·z, in this rounding order.
template <class Real>
PFMC_HD_INLINE Real bridge_point(Real left_weight, Real w_left, Real right_weight, Real w_right,
                                 Real sd, Real z) {
  return fused_multiply_add(sd, z, fused_multiply_add(right_weight, w_right, left_weight * w_left));
}

/// One standardized increment.
template <class Real>
PFMC_HD_INLINE Real bridge_increment(Real w_next, Real w, Real sqrt_dt) {
  return (w_next - w) / sqrt_dt;
}

/// The whole transform on one column: x[k·stride] is slot k.
template <class Real>
PFMC_HD_INLINE void brownian_bridge_column(Real* x, std::size_t stride,
                                           const BrownianBridgeView<Real>& v) {
  x[0] = v.sd[0] * x[0];
  for (int k = 1; k < v.steps; ++k) {
    const int l = v.left[k];
    const Real w_left = l < 0 ? Real(0) : x[static_cast<std::size_t>(l) * stride];
    const Real w_right = x[static_cast<std::size_t>(v.right[k]) * stride];
    x[k * stride] =
        bridge_point(v.left_weight[k], w_left, v.right_weight[k], w_right, v.sd[k], x[k * stride]);
  }
  for (int i = 0; i < v.cycle_values;) {
    const int m = v.cycles[i++];
    const Real first = x[static_cast<std::size_t>(v.cycles[i]) * stride];
    for (int j = 0; j + 1 < m; ++j) {
      x[static_cast<std::size_t>(v.cycles[i + j]) * stride] =
          x[static_cast<std::size_t>(v.cycles[i + j + 1]) * stride];
    }
    x[static_cast<std::size_t>(v.cycles[i + m - 1]) * stride] = first;
    i += m;
  }
  for (int s = v.steps - 1; s > 0; --s) {
    x[s * stride] = bridge_increment(x[s * stride], x[(s - 1) * stride], v.sqrt_dt[s]);
  }
  x[0] = bridge_increment(x[0], Real(0), v.sqrt_dt[0]);
}

// --- randomised quasi-Monte Carlo ------------------------------------------------------------

PFMC_HD_INLINE std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The digital shift of one Sobol dimension for (seed, replicate): chained splitmix64, so that
/// every (seed, replicate, dimension) gets an independent-looking 32-bit mask.
PFMC_HD_INLINE std::uint32_t digital_shift_mask(std::uint64_t seed, int replicate, int dimension) {
  std::uint64_t h = splitmix64(seed);
  h = splitmix64(h ^ static_cast<std::uint64_t>(static_cast<std::uint32_t>(replicate)));
  h = splitmix64(h ^ static_cast<std::uint64_t>(static_cast<std::uint32_t>(dimension)));
  return static_cast<std::uint32_t>(h >> 32);
}

/// The shifted 32-bit point as the midpoint of its cell, (k + ½)/2³² (exact in double; never
/// 0 or 1, and symmetric: k ↔ 2³²−1−k gives u ↔ 1 − u).
PFMC_HD_INLINE double shifted_uniform(std::uint32_t point, std::uint32_t mask) {
  return (static_cast<double>(point ^ mask) + 0.5) * 0x1p-32;
}

/// Launchers of the transforms' grid-stride kernels on `stream` (kernels/draw_transform.cu;
/// instantiated for float and double). They check their launch and throw pfmc::CudaError.
/// values[2i+1] = -values[2i] for i < pairs.
template <class Real>
void launch_antithetic(Real* values, std::size_t pairs, cudaStream_t stream);
/// The bridge of `view` over each of `columns` (tile, factor, path) columns of rows-row tiles.
template <class Real>
void launch_brownian_bridge(Real* tiles, std::size_t columns, int rows,
                            const BrownianBridgeView<Real>& view, cudaStream_t stream);
/// out[i] = Φ⁻¹(shifted Sobol point i), dimension i / points; `sobol` and `out` may alias.
template <class Real>
void launch_digital_shift(const std::uint32_t* sobol, Real* out, std::size_t values,
                          std::size_t points, std::uint64_t seed, int replicate,
                          cudaStream_t stream);

} // namespace pfmc::kernels
