// The draw transforms' grid-stride kernels and their launchers, with the arithmetic of
// kernels/draw_transform.cuh (the host loops of engine/draws/draw_transform.cpp share it).
#include "kernels/draw_transform.cuh"

#include <algorithm>

#include "kernels/draw_layout.hpp"
#include "base/error.hpp"

namespace pfmc::kernels {

namespace {

constexpr int kThreads = 256;
constexpr std::size_t G = kDrawTilePaths;

/// Blocks of kThreads for n items, at most one item per thread (grid-stride beyond 2^30).
unsigned int blocks_for(std::size_t n) {
  return static_cast<unsigned int>(
      std::max<std::size_t>(1, std::min<std::size_t>((n + kThreads - 1) / kThreads, 1u << 22)));
}

template <class Real>
__global__ void antithetic_kernel(Real* values, std::size_t pairs) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < pairs;
       i += std::size_t{gridDim.x} * blockDim.x) {
    values[2 * i + 1] = -values[2 * i];
  }
}

/// One thread per (tile, factor, path) column; the threads of a warp share the tile and the
/// factor, so each of their loads and stores of a slot is one contiguous segment.
template <class Real>
__global__ void brownian_bridge_kernel(Real* tiles, std::size_t columns, int rows,
                                       BrownianBridgeView<Real> view) {
  const std::size_t per_tile = static_cast<std::size_t>(view.factors) * G;
  for (std::size_t c = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; c < columns;
       c += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t tile = c / per_tile;
    const std::size_t in_tile = c % per_tile; // f·G + p
    brownian_bridge_column(tiles + tile * static_cast<std::size_t>(rows) * G + in_tile, per_tile,
                           view);
  }
}

/// `sobol` and `out` may alias (float): each thread reads its element before writing it.
template <class Real>
__global__ void digital_shift_kernel(const std::uint32_t* sobol, Real* out, std::size_t values,
                                     std::size_t points, std::uint64_t seed, int replicate) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < values;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t mask = digital_shift_mask(seed, replicate, static_cast<int>(i / points));
    out[i] = static_cast<Real>(normcdfinv(shifted_uniform(sobol[i], mask)));
  }
}

} // namespace

template <class Real>
void launch_antithetic(Real* values, std::size_t pairs, cudaStream_t stream) {
  if (pairs == 0)
    return;
  antithetic_kernel<<<blocks_for(pairs), kThreads, 0, stream>>>(values, pairs);
  PFMC_CUDA_TRY(cudaGetLastError());
}

template <class Real>
void launch_brownian_bridge(Real* tiles, std::size_t columns, int rows,
                            const BrownianBridgeView<Real>& view, cudaStream_t stream) {
  if (columns == 0)
    return;
  // 128 threads: the kernel is a chain of dependent loads per thread; more blocks per SM hide
  // more of their latency than bigger blocks would.
  const auto blocks =
      static_cast<unsigned int>(std::min<std::size_t>((columns + 127) / 128, std::size_t{1} << 30));
  brownian_bridge_kernel<<<blocks, 128, 0, stream>>>(tiles, columns, rows, view);
  PFMC_CUDA_TRY(cudaGetLastError());
}

template <class Real>
void launch_digital_shift(const std::uint32_t* sobol, Real* out, std::size_t values,
                          std::size_t points, std::uint64_t seed, int replicate,
                          cudaStream_t stream) {
  if (values == 0)
    return;
  digital_shift_kernel<<<blocks_for(values), kThreads, 0, stream>>>(sobol, out, values, points,
                                                                    seed, replicate);
  PFMC_CUDA_TRY(cudaGetLastError());
}

#define PFMC_INSTANTIATE_DRAW_TRANSFORMS(REAL)                                                     \
  template void launch_antithetic<REAL>(REAL*, std::size_t, cudaStream_t);                         \
  template void launch_brownian_bridge<REAL>(REAL*, std::size_t, int,                              \
                                             const BrownianBridgeView<REAL>&, cudaStream_t);       \
  template void launch_digital_shift<REAL>(const std::uint32_t*, REAL*, std::size_t, std::size_t,  \
                                           std::uint64_t, int, cudaStream_t);
PFMC_INSTANTIATE_DRAW_TRANSFORMS(float)
PFMC_INSTANTIATE_DRAW_TRANSFORMS(double)

} // namespace pfmc::kernels
