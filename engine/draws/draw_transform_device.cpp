// Device side of the draw transforms: the checks and the device tables, then the kernels of
// kernels/draw_transform.cu on the caller's stream.
#include <algorithm>

#include "engine/draws/draw_transform.hpp"
#include "kernels/draw_layout.hpp"
#include "kernels/draw_transform.cuh"
#include "base/error.hpp"

namespace pfmc::engine {

namespace {

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

template <class Real>
void antithetic(Real* values, std::size_t count, cudaStream_t stream) {
  PFMC_EXPECTS(count % 2 == 0, "antithetic pairs need an even number of draws");
  kernels::launch_antithetic(values, count / 2, stream);
}

template <class Real>
void shift_to_normal(const std::uint32_t* sobol, Real* out, std::size_t values, std::size_t points,
                     std::uint64_t seed, int replicate, cudaStream_t stream) {
  PFMC_EXPECTS(points > 0 && values % points == 0, "a Sobol tile is dimensions x points");
  kernels::launch_digital_shift(sobol, out, values, points, seed, replicate, stream);
}

} // namespace

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
  const std::size_t columns =
      tile_count * static_cast<std::size_t>(factors_) * kernels::kDrawTilePaths;
  kernels::launch_brownian_bridge(tiles, columns, rows, view, stream);
}

void BrownianBridge::apply(float* tiles, std::uint64_t tile_count, int rows, cudaStream_t stream) {
  apply_impl(tiles, tile_count, rows, stream, device_float_);
}
void BrownianBridge::apply(double* tiles, std::uint64_t tile_count, int rows, cudaStream_t stream) {
  apply_impl(tiles, tile_count, rows, stream, device_double_);
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
