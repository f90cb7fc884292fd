// Device side of the draw transforms: grid-stride kernels on the caller's stream, with the
// arithmetic of kernels/draw_transform.cuh.
#include "engine/draw_transform.hpp"

#include <algorithm>

#include "engine/error.hpp"
#include "kernels/draw_layout.hpp"
#include "kernels/draw_transform.cuh"

namespace pfmc::engine {

namespace {

constexpr int kThreads = 256;
constexpr std::size_t G = kernels::kDrawTilePaths;

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
                                       kernels::BrownianBridgeView<Real> view) {
  const std::size_t per_tile = static_cast<std::size_t>(view.factors) * G;
  for (std::size_t c = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; c < columns;
       c += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t tile = c / per_tile;
    const std::size_t in_tile = c % per_tile; // f·G + p
    kernels::brownian_bridge_column(tiles + tile * static_cast<std::size_t>(rows) * G + in_tile,
                                    per_tile, view);
  }
}

/// `sobol` and `out` may alias (float): each thread reads its element before writing it.
template <class Real>
__global__ void digital_shift_kernel(const std::uint32_t* sobol, Real* out, std::size_t values,
                                     std::size_t points, std::uint64_t seed, int replicate) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < values;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t mask =
        kernels::digital_shift_mask(seed, replicate, static_cast<int>(i / points));
    out[i] = static_cast<Real>(normcdfinv(kernels::shifted_uniform(sobol[i], mask)));
  }
}

template <class T, class Source>
DeviceBuffer<T> upload(const std::vector<Source>& host, cudaStream_t stream) {
  std::vector<T> converted(host.begin(), host.end());
  DeviceBuffer<T> buffer(std::max<std::size_t>(converted.size(), 1), stream);
  if (!converted.empty()) {
    // From pageable memory: the copy has taken the data when the call returns.
    PFMC_CUDA_TRY(cudaMemcpyAsync(buffer.data(), converted.data(), converted.size() * sizeof(T),
                                  cudaMemcpyHostToDevice, stream));
  }
  return buffer;
}

} // namespace

template <class Real>
static void antithetic(Real* values, std::size_t count, cudaStream_t stream) {
  PFMC_EXPECTS(count % 2 == 0, "antithetic pairs need an even number of draws");
  if (count == 0)
    return;
  antithetic_kernel<<<blocks_for(count / 2), kThreads, 0, stream>>>(values, count / 2);
  PFMC_CUDA_TRY(cudaGetLastError());
}
void apply_antithetic(float* values, std::size_t count, cudaStream_t stream) {
  antithetic(values, count, stream);
}
void apply_antithetic(double* values, std::size_t count, cudaStream_t stream) {
  antithetic(values, count, stream);
}

template <class Real>
void BrownianBridge::apply_impl(Real* tiles, std::uint64_t tile_count, int rows,
                                cudaStream_t stream, std::optional<DeviceTables<Real>>& tables) {
  PFMC_EXPECTS(rows == this->rows(), "the bridge was built for another group");
  if (tile_count == 0)
    return;
  if (!tables) {
    tables.emplace(DeviceTables<Real>{
        upload<int>(left_, stream), upload<int>(right_, stream), upload<int>(cycles_, stream),
        upload<Real>(left_weight_, stream), upload<Real>(right_weight_, stream),
        upload<Real>(sd_, stream), upload<Real>(sqrt_dt_, stream)});
  }
  const kernels::BrownianBridgeView<Real> view{tables->left.data(),
                                               tables->right.data(),
                                               tables->left_weight.data(),
                                               tables->right_weight.data(),
                                               tables->sd.data(),
                                               tables->sqrt_dt.data(),
                                               tables->cycles.data(),
                                               static_cast<int>(cycles_.size()),
                                               steps_,
                                               factors_};
  const std::size_t columns = tile_count * static_cast<std::size_t>(factors_) * G;
  // 128 threads: the kernel is a chain of dependent loads per thread; more blocks per SM hide
  // more of their latency than bigger blocks would.
  const auto blocks =
      static_cast<unsigned int>(std::min<std::size_t>((columns + 127) / 128, std::size_t{1} << 30));
  brownian_bridge_kernel<<<blocks, 128, 0, stream>>>(tiles, columns, rows, view);
  PFMC_CUDA_TRY(cudaGetLastError());
}

void BrownianBridge::apply(float* tiles, std::uint64_t tile_count, int rows, cudaStream_t stream) {
  apply_impl(tiles, tile_count, rows, stream, device_float_);
}
void BrownianBridge::apply(double* tiles, std::uint64_t tile_count, int rows, cudaStream_t stream) {
  apply_impl(tiles, tile_count, rows, stream, device_double_);
}

template <class Real>
static void shift_to_normal(const std::uint32_t* sobol, Real* out, std::size_t values,
                            std::size_t points, std::uint64_t seed, int replicate,
                            cudaStream_t stream) {
  PFMC_EXPECTS(points > 0 && values % points == 0, "a Sobol tile is dimensions x points");
  if (values == 0)
    return;
  digital_shift_kernel<<<blocks_for(values), kThreads, 0, stream>>>(sobol, out, values, points,
                                                                    seed, replicate);
  PFMC_CUDA_TRY(cudaGetLastError());
}
void digital_shift_to_normal(const std::uint32_t* sobol, float* out, std::size_t values,
                             std::size_t points, std::uint64_t seed, int replicate,
                             cudaStream_t stream) {
  shift_to_normal(sobol, out, values, points, seed, replicate, stream);
}
void digital_shift_to_normal(const std::uint32_t* sobol, double* out, std::size_t values,
                             std::size_t points, std::uint64_t seed, int replicate,
                             cudaStream_t stream) {
  shift_to_normal(sobol, out, values, points, seed, replicate, stream);
}

} // namespace pfmc::engine
