#include "engine/kernel_bench.hpp"

#include <algorithm>
#include <vector>

#include "engine/device_group.cuh"
#include "engine/device_info.hpp"
#include "engine/model_dispatch.hpp"
#include "kernels/read_ceiling.cuh"

namespace pfmc::engine {

struct KernelBench::Impl {
  virtual ~Impl() = default;
  virtual double time_launch_ms(const std::string& backend, int distance,
                                const config::Padding& padding, bool reduce) = 0;
  virtual std::vector<double> totals() const = 0;
  virtual double time_draws_read_ms() = 0;
  virtual double time_stream_read_ms() = 0;
  double bytes = 0.0;
  double path_steps = 0.0;
  int copies = 1;
};

namespace {

template <class Model, class Real>
struct BenchImpl final : KernelBench::Impl {
  BenchImpl(const GroupPlan& group, const ExecutionSettings& settings)
      : device(group, settings, settings.paths, stream.get()), paths(settings.paths),
        rows(group.rows()), sink(1) {
    device.generate(paths);
    bytes = static_cast<double>(paths) * group.rows() * sizeof(Real);
    path_steps = static_cast<double>(paths) * group.steps();
    const std::size_t draw_bytes = device.draw_count() * sizeof(Real);
    const DeviceInfo info = query_device();
    const std::size_t needed = 4 * info.l2_bytes;
    copies = draw_bytes >= needed ? 1 : static_cast<int>((needed + draw_bytes - 1) / draw_bytes);
    for (int c = 1; c < copies; ++c) {
      rotation.emplace_back(device.draw_count());
      PFMC_CUDA_TRY(cudaMemcpyAsync(rotation.back().data(), device.draws(), draw_bytes,
                                    cudaMemcpyDeviceToDevice, stream.get()));
    }
    stream.synchronize();
  }

  double time_launch_ms(const std::string& backend, int distance, const config::Padding& padding,
                        bool reduce) override {
    const auto launch = DeviceGroup<Model, Real>::launcher(backend, distance);
    const int slot = next++ % copies;
    device.set_draws(slot == 0 ? device.draws()
                               : rotation[static_cast<std::size_t>(slot - 1)].data());
    start.record(stream.get());
    device.launch(launch, paths, true, distance, padding, reduce);
    stop.record(stream.get());
    stream.synchronize();
    return stop.since(start);
  }

  std::vector<double> totals() const override { return device.totals(); }

  double time_draws_read_ms() override {
    const int block = 128;
    const int grid = static_cast<int>((paths + block - 1) / block);
    start.record(stream.get());
    kernels::draws_read_kernel<Real><<<grid, block, 0, stream.get()>>>(
        device.draws(), static_cast<int>(paths), rows, sink.data());
    stop.record(stream.get());
    PFMC_CUDA_TRY(cudaGetLastError());
    stream.synchronize();
    return stop.since(start);
  }

  double time_stream_read_ms() override {
    const std::size_t vectors = static_cast<std::size_t>(bytes) / sizeof(float4);
    const DeviceInfo info = query_device();
    start.record(stream.get());
    kernels::stream_read_kernel<<<info.multiprocessors * 16, 256, 0, stream.get()>>>(
        reinterpret_cast<const float4*>(device.draws()), vectors,
        reinterpret_cast<float*>(sink.data()));
    stop.record(stream.get());
    PFMC_CUDA_TRY(cudaGetLastError());
    stream.synchronize();
    return stop.since(start);
  }

  CudaStream stream;
  DeviceGroup<Model, Real> device;
  std::size_t paths;
  int rows;
  DeviceBuffer<Real> sink;
  std::vector<DeviceBuffer<Real>> rotation;
  CudaEvent start, stop;
  int next = 0;
};

} // namespace

KernelBench::KernelBench(const GroupPlan& group, const ExecutionSettings& settings) {
  const int values = kernels::reduced_value_count(static_cast<int>(group.instruments.size()));
  const int real_bytes = settings.precision == config::Precision::float32 ? 4 : 8;
  const ChunkPlan chunking = plan_chunks(settings.paths, group.rows(), real_bytes, values,
                                         settings.block_size, settings.memory_cap);
  if (chunking.chunks != 1) {
    throw RuntimeError("benchmark: the draws of " + std::to_string(settings.paths) +
                       " paths do not fit in one chunk under the device-memory cap");
  }
  impl_ = dispatch_precision(settings.precision, [&](auto real_tag) {
    using Real = typename decltype(real_tag)::type;
    return dispatch_model<Real>(group.model_type, [&](auto model_tag) {
      using Model = typename decltype(model_tag)::type;
      return std::unique_ptr<Impl>(new BenchImpl<Model, Real>(group, settings));
    });
  });
}

KernelBench::~KernelBench() = default;

double KernelBench::time_launch_ms(const std::string& backend, int prefetch_distance,
                                   const config::Padding& padding, bool reduce) {
  return impl_->time_launch_ms(backend, prefetch_distance, padding, reduce);
}
std::vector<double> KernelBench::totals() const {
  return impl_->totals();
}
double KernelBench::time_draws_read_ms() {
  return impl_->time_draws_read_ms();
}
double KernelBench::time_stream_read_ms() {
  return impl_->time_stream_read_ms();
}
double KernelBench::bytes_per_launch() const {
  return impl_->bytes;
}
double KernelBench::path_steps_per_launch() const {
  return impl_->path_steps;
}
int KernelBench::rotated_copies() const {
  return impl_->copies;
}

double measure_copy_bandwidth_gbps(std::size_t bytes, int repeats) {
  DeviceBuffer<unsigned char> source(bytes), target(bytes);
  CudaStream stream;
  PFMC_CUDA_TRY(cudaMemsetAsync(source.data(), 1, bytes, stream.get()));
  CudaEvent start, stop;
  std::vector<double> gbps;
  for (int r = 0; r < repeats + 1; ++r) {
    start.record(stream.get());
    PFMC_CUDA_TRY(cudaMemcpyAsync(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice,
                                  stream.get()));
    stop.record(stream.get());
    stream.synchronize();
    if (r > 0)
      gbps.push_back(2.0 * static_cast<double>(bytes) / (stop.since(start) * 1e-3) * 1e-9);
  }
  std::sort(gbps.begin(), gbps.end());
  return gbps[gbps.size() / 2];
}

} // namespace pfmc::engine
