#include "engine/tune/kernel_bench.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "engine/core/device_info.hpp"
#include "engine/draws/normal_source.hpp"
#include "engine/run/device_unit.cuh"
#include "engine/run/model_dispatch.hpp"
#include "kernels/generate_draws.hpp"
#include "kernels/read_ceiling.cuh"

namespace pfmc::engine {

struct KernelBench::Impl {
  virtual ~Impl() = default;
  virtual double time_launch_ms(const std::string& backend, int distance,
                                const config::Padding& padding, bool reduce) = 0;
  virtual double time_generation_ms() = 0;
  virtual std::vector<double> totals() const = 0;
  virtual bool launched_wide() const = 0;
  virtual bool launched_terminal() const = 0;
  virtual double time_draws_read_ms() = 0;
  virtual double time_stream_read_ms() = 0;
  double bytes = 0.0;
  double path_steps = 0.0;
  int copies = 1;
};

namespace {

template <class Model, class Real>
struct BenchImpl final : KernelBench::Impl {
  using Unit = DeviceUnit<Model, Real>;

  BenchImpl(const GroupPlan& group, const ExecutionSettings& settings)
      : group_plan(group), run(settings), paths(settings.paths), rows(group.rows()),
        sink(1, stream.get()) {
    retain_device_memory_pool();
    bytes = static_cast<double>(paths) * rows * sizeof(Real);
    path_steps = static_cast<double>(paths) * group.steps();
    const DeviceInfo info = query_device();
    multiprocessors = info.multiprocessors;
    l2_bytes = info.l2_bytes;
  }

  /// Draws for every path, generated once on first need (as a tiled group's chunk would be),
  /// and copies of them to rotate through when they are smaller than four times the L2 cache.
  void ensure_draws() {
    if (draws.size() > 0)
      return;
    const std::uint64_t tiles = kernels::draw_tiles_for(paths);
    draws = DeviceBuffer<Real>(tiles * static_cast<std::size_t>(rows) * kernels::kDrawTilePaths,
                               stream.get());
    generate();
    const std::size_t draw_bytes = draws.bytes();
    const std::size_t needed = 4 * l2_bytes;
    copies = draw_bytes >= needed ? 1 : static_cast<int>((needed + draw_bytes - 1) / draw_bytes);
    for (int c = 1; c < copies; ++c) {
      rotation.emplace_back(draws.size(), stream.get());
      PFMC_CUDA_TRY(cudaMemcpyAsync(rotation.back().data(), draws.data(), draw_bytes,
                                    cudaMemcpyDeviceToDevice, stream.get()));
    }
    stream.synchronize();
  }

  /// The run's draws of every path into `draws`: the Philox generation kernel, or cuRAND.
  void generate() {
    const std::uint64_t tiles = kernels::draw_tiles_for(paths);
    if (run.rng == config::RngType::philox) {
      if (table.size() == 0)
        table = DeviceBuffer<unsigned char>(kernels::generate_table_bytes(1), stream.get());
      kernels::generate_philox_draws<Real>(
          {{draws.data(), 0, paths, static_cast<std::uint32_t>(group_plan.index), rows}}, run.seed,
          run.fast_math, table.data(), stream.get());
      return;
    }
    const bool quasi =
        run.rng == config::RngType::sobol || run.rng == config::RngType::scrambled_sobol;
    NormalSource source(run.rng, run.seed, NormalSource::Memory::device, quasi ? rows : 0);
    source.set_stream(stream.get());
    source.next_tiles(draws.data(), tiles, rows);
  }

  double time_generation_ms() override {
    ensure_draws();
    start.record(stream.get());
    generate();
    stop.record(stream.get());
    stream.synchronize();
    return stop.since(start);
  }

  /// The device state for a loader of `paths_per_thread` (the launch shape depends on it).
  Unit& unit_for(const typename Unit::Entry& entry) {
    auto& unit = units[entry.paths_per_thread];
    if (!unit) {
      LaunchShape shape;
      shape.block_size = run.block_size;
      shape.paths_per_thread = entry.paths_per_thread;
      shape.rounds = round_shape(paths, group_plan.steps(), Model::factors, entry.paths_per_thread,
                                 run.block_size, group_plan.reduced_values(), multiprocessors);
      const std::uint64_t launch_paths = run.launch_paths > 0 ? run.launch_paths : paths;
      shape.one_wide_wave = kernels::fits_one_wide_wave(
          1 + launch_paths / static_cast<std::uint64_t>(shape.block_paths()), shape.block_size,
          multiprocessors);
      shape.all_terminal = run.terminal_kernels && one_step_terminal(group_plan);
      shape.terminal_blocks_per_cta = run.terminal_blocks_per_cta;
      shape.compile_at_runtime = run.compile_at_runtime;
      unit = std::make_unique<Unit>(std::vector<const GroupPlan*>{&group_plan}, paths, shape,
                                    stream.get());
    }
    return *unit;
  }

  double time_launch_ms(const std::string& backend, int distance, const config::Padding& padding,
                        bool reduce) override {
    const auto& entry = Unit::launcher(backend, distance);
    Unit& unit = unit_for(entry);
    const kernels::BackendInfo* info = kernels::find_backend(backend);
    const Real* source = nullptr;
    if (info == nullptr || info->reads_draws) {
      ensure_draws();
      const int slot = next++ % copies;
      source = slot == 0 ? draws.data() : rotation[static_cast<std::size_t>(slot - 1)].data();
    }
    unit.launch(entry, {{0, source, 0, static_cast<int>(paths), true}}, distance, padding, run.seed,
                reduce, [&] { start.record(stream.get()); });
    stop.record(stream.get());
    stream.synchronize();
    last = &unit;
    return stop.since(start);
  }

  bool launched_wide() const override { return last != nullptr && last->launched_wide(); }
  bool launched_terminal() const override { return last != nullptr && last->launched_terminal(); }

  std::vector<double> totals() const override {
    PFMC_EXPECTS(last != nullptr, "no launch to read the totals of");
    std::vector<double> host(static_cast<std::size_t>(last->values().front()));
    last->copy_totals(host.data());
    PFMC_CUDA_TRY(cudaStreamSynchronize(stream.get()));
    return host;
  }

  double time_draws_read_ms() override {
    ensure_draws();
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
    ensure_draws();
    const std::size_t vectors = static_cast<std::size_t>(bytes) / sizeof(float4);
    start.record(stream.get());
    kernels::stream_read_kernel<<<multiprocessors * 16, 256, 0, stream.get()>>>(
        reinterpret_cast<const float4*>(draws.data()), vectors,
        reinterpret_cast<float*>(sink.data()));
    stop.record(stream.get());
    PFMC_CUDA_TRY(cudaGetLastError());
    stream.synchronize();
    return stop.since(start);
  }

  CudaStream stream{CudaStream::Ordering::with_legacy_stream}; // cuRAND's: gpu_engine.cu says why
  const GroupPlan& group_plan;
  ExecutionSettings run;
  std::size_t paths;
  int rows;
  int multiprocessors = 1;
  std::size_t l2_bytes = 0;
  std::map<int, std::unique_ptr<Unit>> units; ///< by paths per thread
  const Unit* last = nullptr;
  DeviceBuffer<Real> draws;
  DeviceBuffer<Real> sink;
  DeviceBuffer<unsigned char> table;
  std::vector<DeviceBuffer<Real>> rotation;
  CudaEvent start, stop;
  int next = 0;
};

} // namespace

KernelBench::KernelBench(const GroupPlan& group, const ExecutionSettings& settings) {
  const int values = group.reduced_values();
  const int real_bytes = settings.precision == config::Precision::float32 ? 4 : 8;
  const ChunkPlan chunking =
      plan_chunks(settings.paths, group.rows(), real_bytes, values, settings.memory_cap);
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

bool KernelBench::launched_wide() const {
  return impl_->launched_wide();
}
bool KernelBench::launched_terminal() const {
  return impl_->launched_terminal();
}
double KernelBench::time_generation_ms() {
  return impl_->time_generation_ms();
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
