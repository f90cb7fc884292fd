#pragma once
// Reference kernels for the benchmarks: how fast can the draws be read at all?
//   draws_read_kernel   — the path kernel's access pattern (one thread per path, its rows
//                         kDrawTilePaths apart) with 16 independent loads in flight and no math:
//                         the ceiling of any loader on this layout;
//   stream_read_kernel  — the same bytes read as contiguous 16-byte vectors, grid-stride: the
//                         device's read ceiling.
// Each sums what it reads and stores only if the sum is NaN, so nothing is optimised away.

#include <cstddef>

#include "kernels/draw_layout.hpp"

namespace pfmc::kernels {

template <class Real>
__global__ void draws_read_kernel(const Real* __restrict__ draws, int paths, int rows, Real* sink) {
  const int path = blockIdx.x * blockDim.x + threadIdx.x;
  if (path >= paths)
    return;
  const Real* p = draws + draw_offset(static_cast<std::size_t>(path), 0, rows);
  constexpr int kInFlight = 16;
  Real sum = 0;
  for (int row = 0; row < rows; row += kInFlight) {
    Real v[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      v[k] =
          row + k < rows ? __ldg(p + static_cast<std::size_t>(row + k) * kDrawTilePaths) : Real(0);
    }
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      sum += v[k];
  }
  if (sum != sum)
    *sink = sum;
}

__global__ inline void stream_read_kernel(const float4* __restrict__ data, std::size_t count,
                                          float* sink) {
  float sum = 0.0f;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    const float4 v = __ldg(data + i);
    sum += v.x + v.y + v.z + v.w;
  }
  if (sum != sum)
    *sink = sum;
}

} // namespace pfmc::kernels
