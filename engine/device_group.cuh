#pragma once
// One simulation group's device state: market data, schedule and instruments uploaded once,
// the draw buffer for a chunk, the reduction's buffers, and the kernel parameters. Shared by
// the pricer (engine/gpu_engine.cu) and the benchmarks (engine/kernel_bench.cu).

#include <string>
#include <vector>

#include "engine/backend_registry.cuh"
#include "engine/cuda_resources.hpp"
#include "engine/execution.hpp"
#include "engine/normal_source.hpp"
#include "engine/plan.hpp"
#include "engine/ring_layout.hpp"

namespace pfmc::engine {

template <class Model, class Real>
class DeviceGroup {
public:
  using Launcher = kernels::PathKernelLauncher<Model, Real>;

  /// Buffers for chunks of up to `chunk_paths` paths.
  DeviceGroup(const GroupPlan& group, const ExecutionSettings& settings, std::uint64_t chunk_paths,
              cudaStream_t stream)
      : group_(group), settings_(settings), stream_(stream),
        source_(settings.rng, NormalSource::group_seed(settings.seed, group.model_name),
                NormalSource::Memory::device, group.rows()) {
    step_data_ = DeviceBuffer<Real>::from_host(interleaved_step_series<Real>(group), stream);
    observation_runs_ =
        DeviceBuffer<models::ObservationRun>::from_host(group.observation_runs, stream);
    spill_ranges_ = DeviceBuffer<models::SpillRange>::from_host(group.spill_ranges, stream);
    spill_events_ = DeviceBuffer<models::EventCode>::from_host(group.spill_events, stream);
    observations_ = DeviceBuffer<models::ObservationView>::from_host(group.observations, stream);
    instruments_ = DeviceBuffer<models::InstrumentView>::from_host(group.instruments, stream);

    const int instrument_count = static_cast<int>(group.instruments.size());
    values_ = kernels::reduced_value_count(instrument_count);
    const std::size_t max_blocks =
        (chunk_paths + settings.block_size - 1) / static_cast<std::size_t>(settings.block_size);
    normals_ = DeviceBuffer<Real>(kernels::draw_tiles_for(chunk_paths) * source_.tile_size());
    partials_ = DeviceBuffer<double>(max_blocks * static_cast<std::size_t>(values_));
    tile_sums_ = DeviceBuffer<double>(kernels::tiles_for_blocks(max_blocks) *
                                      static_cast<std::size_t>(values_));
    totals_ = DeviceBuffer<double>(static_cast<std::size_t>(values_));
    tile_tickets_ = DeviceBuffer<unsigned int>(kernels::tiles_for_blocks(max_blocks));
    tile_tickets_.fill_zero(stream);
    ticket_ = DeviceBuffer<unsigned int>(1);
    ticket_.fill_zero(stream);
    totals_.fill_zero(stream);
    source_.set_stream(stream);

    params_.model = Model::make_params(step_data_.data(), group.model_constants.data());
    params_.normals = normals_.data();
    params_.steps = group.steps();
    params_.schedule =
        models::PathSchedule{observation_runs_.data(), spill_ranges_.data(), spill_events_.data(),
                             observations_.data(), static_cast<int>(group.observations.size())};
    params_.instruments = instruments_.data();
    params_.instrument_count = instrument_count;
    params_.reduce = settings.reduce ? 1 : 0;
    params_.reduction = kernels::ReductionTarget{partials_.data(),
                                                 tile_sums_.data(),
                                                 totals_.data(),
                                                 tile_tickets_.data(),
                                                 ticket_.data(),
                                                 values_,
                                                 1};
  }

  /// The launcher of a backend, or a RuntimeError naming what is missing.
  static Launcher launcher(const std::string& backend, int prefetch_distance) {
    const auto launch = find_launcher<Model, Real>(backend, prefetch_distance);
    if (launch == nullptr) {
      throw RuntimeError("backend '" + backend + "' at prefetch distance " +
                         std::to_string(prefetch_distance) + " is not instantiated");
    }
    return launch;
  }

  /// Draws for the next `count` paths (whole tiles; the next chunk in path order).
  void generate(std::size_t count) {
    source_.next_tiles(normals_.data(), kernels::draw_tiles_for(count));
  }

  /// The path kernel over the `count` paths whose draws are in the buffer.
  void launch(Launcher launch, std::size_t count, bool first_chunk, int prefetch_distance,
              const config::Padding& padding, bool reduce = true) {
    params_.chunk_paths = static_cast<int>(count);
    params_.reduction.first_chunk = first_chunk ? 1 : 0;
    params_.reduce = reduce ? 1 : 0;
    params_.ring = ring_layout(padding, prefetch_distance, settings_.block_size);
    params_.prefetch_distance = prefetch_distance;
    launch(params_, settings_.block_size, stream_);
  }

  /// Where the kernel reads its draws (the group's own buffer unless a benchmark rotates
  /// copies of it).
  void set_draws(const Real* draws) { params_.normals = draws; }
  [[nodiscard]] const Real* draws() const { return normals_.data(); }
  [[nodiscard]] std::size_t draw_count() const { return normals_.size(); }

  [[nodiscard]] std::vector<double> totals() const { return totals_.to_host(stream_); }
  [[nodiscard]] int values() const { return values_; }

private:
  const GroupPlan& group_;
  ExecutionSettings settings_;
  cudaStream_t stream_;
  NormalSource source_;
  DeviceBuffer<Real> step_data_;
  DeviceBuffer<models::ObservationRun> observation_runs_;
  DeviceBuffer<models::SpillRange> spill_ranges_;
  DeviceBuffer<models::EventCode> spill_events_;
  DeviceBuffer<models::ObservationView> observations_;
  DeviceBuffer<models::InstrumentView> instruments_;
  DeviceBuffer<Real> normals_;
  DeviceBuffer<double> partials_, tile_sums_, totals_;
  DeviceBuffer<unsigned int> tile_tickets_, ticket_;
  int values_ = 0;
  kernels::PathKernelParams<Model, Real> params_{};
};

} // namespace pfmc::engine
