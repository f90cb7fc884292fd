#include "engine/kernel_bench.hpp"

#include <algorithm>
#include <vector>

#include "engine/device_info.hpp"
#include "engine/device_unit.cuh"
#include "engine/model_dispatch.hpp"
#include "engine/normal_source.hpp"
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
      : group_plan(group), paths(settings.paths), rows(group.rows()),
        unit({&group}, settings.paths, settings.block_size, stream.get()), sink(1, stream.get()) {
    retain_device_memory_pool();
    // Draws for every path, once (as a tiled group's chunk would be generated).
    const std::uint64_t tiles = kernels::draw_tiles_for(paths);
    draws = DeviceBuffer<Real>(tiles * static_cast<std::size_t>(rows) * kernels::kDrawTilePaths,
                               stream.get());
    const bool quasi =
        settings.rng == config::RngType::sobol || settings.rng == config::RngType::scrambled_sobol;
    NormalSource source(settings.rng, settings.seed, NormalSource::Memory::device,
                        quasi ? rows : 0);
    source.set_stream(stream.get());
    source.next_tiles(draws.data(), tiles, rows);
    bytes = static_cast<double>(paths) * rows * sizeof(Real);
    path_steps = static_cast<double>(paths) * group.steps();
    const std::size_t draw_bytes = draws.bytes();
    const DeviceInfo info = query_device();
    const std::size_t needed = 4 * info.l2_bytes;
    copies = draw_bytes >= needed ? 1 : static_cast<int>((needed + draw_bytes - 1) / draw_bytes);
    for (int c = 1; c < copies; ++c) {
      rotation.emplace_back(draws.size(), stream.get());
      PFMC_CUDA_TRY(cudaMemcpyAsync(rotation.back().data(), draws.data(), draw_bytes,
                                    cudaMemcpyDeviceToDevice, stream.get()));
    }
    stream.synchronize();
  }

  double time_launch_ms(const std::string& backend, int distance, const config::Padding& padding,
                        bool reduce) override {
    const auto launch = DeviceUnit<Model, Real>::launcher(backend, distance);
    const int slot = next++ % copies;
    const Real* source =
        slot == 0 ? draws.data() : rotation[static_cast<std::size_t>(slot - 1)].data();
    start.record(stream.get());
    unit.launch(launch, {{0, source, static_cast<int>(paths), true}}, distance, padding, reduce);
    stop.record(stream.get());
    stream.synchronize();
    return stop.since(start);
  }

  std::vector<double> totals() const override {
    std::vector<double> host(static_cast<std::size_t>(unit.values().front()));
    unit.copy_totals(host.data());
    PFMC_CUDA_TRY(cudaStreamSynchronize(stream.get()));
    return host;
  }

  double time_draws_read_ms() override {
    const int block = 128;
    const int grid = static_cast<int>((paths + block - 1) / block);
    start.record(stream.get());
    kernels::draws_read_kernel<Real><<<grid, block, 0, stream.get()>>>(
        draws.data(), static_cast<int>(paths), rows, sink.data());
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
        reinterpret_cast<const float4*>(draws.data()), vectors,
        reinterpret_cast<float*>(sink.data()));
    stop.record(stream.get());
    PFMC_CUDA_TRY(cudaGetLastError());
    stream.synchronize();
    return stop.since(start);
  }

  CudaStream stream;
  const GroupPlan& group_plan;
  std::size_t paths;
  int rows;
  DeviceUnit<Model, Real> unit;
  DeviceBuffer<Real> draws;
  DeviceBuffer<Real> sink;
  std::vector<DeviceBuffer<Real>> rotation;
  CudaEvent start, stop;
  int next = 0;
};

} // namespace

KernelBench::KernelBench(const GroupPlan& group, const ExecutionSettings& settings) {
  const int values = group.reduced_values();
  const int real_bytes = settings.precision == config::Precision::float32 ? 4 : 8;
  const ChunkPlan chunking = plan_chunks(settings.paths, group.rows(), real_bytes, values,
                                         settings.block_size, settings.memory_cap);
  if (chunking.chunks != 1) {
    throw RuntimeError("benchmark: the draws of " + std::to_string(settings.paths) +
                       " paths do not fit in one chunk under the device-memory cap");
  }
  impl_ = dispatch_precision(settings.precision, [&](auto real_tag) {
    using Real = typename decltype(real_tag)::type;
    return dispatch_model<Real>(group, [&](auto model_tag) {
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
  CudaStream stream;
  DeviceBuffer<unsigned char> source(bytes, stream.get()), target(bytes, stream.get());
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
