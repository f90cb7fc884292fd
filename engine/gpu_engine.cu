#include "engine/gpu_engine.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/device_group.cuh"
#include "engine/model_dispatch.hpp"

namespace pfmc::engine {

namespace {

template <class Model, class Real>
GroupOutcome run_group(const GroupPlan& group, const ExecutionSettings& settings, int group_index,
                       int groups, const ProgressFn& progress) {
  using Device = DeviceGroup<Model, Real>;
  const auto launch = Device::launcher(settings.backend, settings.prefetch_distance);
  const int values = kernels::reduced_value_count(static_cast<int>(group.instruments.size()));
  const ChunkPlan chunking = plan_chunks(settings.paths, group.rows(), sizeof(Real), values,
                                         settings.block_size, settings.memory_cap);
  PFMC_EXPECTS(chunking.chunk_paths > 0, "memory cap below one tile of paths");
  CudaStream stream;
  Device device(group, settings, chunking.chunk_paths, stream.get());

  GroupOutcome outcome;
  outcome.paths = settings.paths;
  outcome.chunks = chunking.chunks;
  std::vector<CudaEvent> marks; // per chunk: before draws, after draws, after kernel
  marks.reserve(3 * chunking.chunks);
  for (std::uint64_t chunk = 0; chunk < chunking.chunks; ++chunk) {
    const std::uint64_t first = chunk * chunking.chunk_paths;
    const std::size_t count =
        static_cast<std::size_t>(std::min(chunking.chunk_paths, settings.paths - first));
    for (int k = 0; k < 3; ++k)
      marks.emplace_back();
    CudaEvent* m = &marks[marks.size() - 3];
    m[0].record(stream.get());
    device.generate(count);
    m[1].record(stream.get());
    device.launch(launch, count, chunk == 0, settings.prefetch_distance, settings.padding,
                  settings.reduce);
    m[2].record(stream.get());
    outcome.path_steps += static_cast<std::uint64_t>(count) * group.steps();
    outcome.bytes_loaded += static_cast<double>(count) * group.rows() * sizeof(Real);
    if (progress) {
      PFMC_CUDA_TRY(cudaEventSynchronize(m[2].get()));
      progress(Progress{group_index, groups, chunk + 1, chunking.chunks, group.model_name});
    }
  }
  outcome.totals = device.totals(); // synchronises the stream
  for (std::size_t c = 0; c < chunking.chunks; ++c) {
    outcome.rng_ms += marks[3 * c + 1].since(marks[3 * c]);
    outcome.kernel_ms += marks[3 * c + 2].since(marks[3 * c + 1]);
  }
  return outcome;
}

} // namespace

GroupOutcome run_group_on_gpu(const GroupPlan& group, const ExecutionSettings& settings,
                              int group_index, int groups, const ProgressFn& progress) {
  return dispatch_precision(settings.precision, [&](auto real_tag) {
    using Real = typename decltype(real_tag)::type;
    return dispatch_model<Real>(group.model_type, [&](auto model_tag) {
      using Model = typename decltype(model_tag)::type;
      return run_group<Model, Real>(group, settings, group_index, groups, progress);
    });
  });
}

bool has_launcher(const std::string& backend, int prefetch_distance) {
  bool all = true;
  for (auto precision : {config::Precision::float32, config::Precision::float64}) {
    dispatch_precision(precision, [&](auto real_tag) {
      using Real = typename decltype(real_tag)::type;
      for (auto type : {config::ModelType::black_scholes}) {
        dispatch_model<Real>(type, [&](auto model_tag) {
          using Model = typename decltype(model_tag)::type;
          all = all && find_launcher<Model, Real>(backend, prefetch_distance) != nullptr;
        });
      }
    });
  }
  return all;
}

} // namespace pfmc::engine
