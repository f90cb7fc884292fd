#pragma once
// The device state of one draw unit (engine/draw_plan.hpp): its groups' market data, schedules
// and instruments in one packed upload, their reduction buffers in one allocation (the totals
// contiguous, so that one copy brings every group's sums back), and the per-launch group table
// of the path kernel. Used by the pricer (engine/gpu_engine.cu) and the benchmarks
// (engine/kernel_bench.cu).

#include <string>
#include <vector>

#include "engine/backend_registry.cuh"
#include "engine/cuda_resources.hpp"
#include "engine/plan.hpp"
#include "engine/ring_layout.hpp"
#include "engine/upload_arena.hpp"

namespace pfmc::engine {

template <class Model, class Real>
class DeviceUnit {
public:
  using Params = kernels::PathKernelParams<Model, Real>;
  using Group = kernels::GroupParams<Model, Real>;
  using Launcher = kernels::PathKernelLauncher<Model, Real>;

  /// One group's part of a launch: `paths` paths whose draw tiles start at `normals`.
  struct Chunk {
    int member; ///< index into the unit's groups
    const Real* normals;
    int paths;
    bool first_chunk;
  };

  /// groups: the unit's groups; max_chunk_paths: the most paths of one group in one launch.
  DeviceUnit(const std::vector<const GroupPlan*>& groups, std::uint64_t max_chunk_paths,
             int block_size, cudaStream_t stream)
      : groups_(groups), block_size_(block_size), stream_(stream) {
    // Group data, packed: one allocation, one copy.
    UploadArena arena;
    struct Offsets {
      std::size_t steps, runs, spill_ranges, spill_events, observations, instruments, greek_weights;
    };
    std::vector<Offsets> offsets;
    for (const GroupPlan* g : groups_) {
      offsets.push_back({arena.add(interleaved_step_series<Real>(*g)),
                         arena.add(g->observation_runs), arena.add(g->spill_ranges),
                         arena.add(g->spill_events), arena.add(g->observations),
                         arena.add(g->instruments), arena.add(g->greek_weights)});
    }
    data_ = DeviceBuffer<unsigned char>(arena.size(), stream);
    if (arena.size() > 0) {
      PFMC_CUDA_TRY(cudaMemcpyAsync(data_.data(), arena.data(), arena.size(),
                                    cudaMemcpyHostToDevice, stream));
    }
    // Reduction buffers, one allocation: per group partials, tile sums, tickets; all totals
    // contiguous at the end.
    const std::size_t max_blocks = (max_chunk_paths + block_size - 1) / block_size;
    const std::size_t tiles = kernels::tiles_for_blocks(max_blocks);
    std::size_t doubles = 0;
    std::size_t tickets = 0;
    for (const GroupPlan* g : groups_) {
      const int values = g->reduced_values();
      values_.push_back(values);
      doubles += (max_blocks + tiles) * static_cast<std::size_t>(values);
      tickets += tiles + 1;
    }
    std::size_t total_values = 0;
    for (int v : values_)
      total_values += static_cast<std::size_t>(v);
    const std::size_t bytes =
        (doubles + total_values) * sizeof(double) + tickets * sizeof(unsigned int);
    reduction_ = DeviceBuffer<unsigned char>(bytes, stream);
    PFMC_CUDA_TRY(cudaMemsetAsync(reduction_.data(), 0, bytes, stream));
    auto* cursor = reinterpret_cast<double*>(reduction_.data());
    totals_ = cursor + doubles;
    auto* ticket_cursor = reinterpret_cast<unsigned int*>(totals_ + total_values);
    double* totals_cursor = totals_;
    // The group templates: everything but the chunk's draws, paths and blocks.
    for (std::size_t m = 0; m < groups_.size(); ++m) {
      const GroupPlan& g = *groups_[m];
      const Offsets& o = offsets[m];
      Group t{};
      t.model = Model::make_params(at<Real>(o.steps), g.model_constants.data());
      t.steps = g.steps();
      t.schedule = models::PathSchedule{
          at<models::ObservationRun>(o.runs), at<models::SpillRange>(o.spill_ranges),
          at<models::EventCode>(o.spill_events), at<models::ObservationView>(o.observations),
          static_cast<int>(g.observations.size())};
      t.instruments = at<models::InstrumentView>(o.instruments);
      t.instrument_count = g.base_instruments();
      t.scenarios = g.scenarios;
      t.values_per_instrument = g.values_per_instrument();
      t.control_variate = g.control_variate ? 1 : 0;
      t.antithetic = g.antithetic ? 1 : 0;
      t.greek_count = static_cast<int>(g.greeks.size());
      t.greek_weights = at<double>(o.greek_weights);
      t.delta_greek = g.delta_greek();
      const int values = values_[m];
      t.reduction.block_partials = cursor;
      cursor += max_blocks * static_cast<std::size_t>(values);
      t.reduction.tile_sums = cursor;
      cursor += tiles * static_cast<std::size_t>(values);
      t.reduction.totals = totals_cursor;
      totals_cursor += values;
      t.reduction.tile_tickets = ticket_cursor;
      ticket_cursor += tiles;
      t.reduction.ticket = ticket_cursor++;
      t.reduction.values = values;
      templates_.push_back(t);
    }
  }

  [[nodiscard]] std::size_t size() const { return groups_.size(); }

  /// Launches the path kernel over the given chunks (one per group at most) with `launch`.
  void launch(Launcher launch, const std::vector<Chunk>& chunks, int prefetch_distance,
              const config::Padding& padding, bool reduce = true) {
    std::vector<Group> table;
    int blocks = 0;
    for (const Chunk& c : chunks) {
      Group g = templates_[static_cast<std::size_t>(c.member)];
      g.normals = c.normals;
      g.chunk_paths = c.paths;
      g.first_block = blocks;
      g.blocks = (c.paths + block_size_ - 1) / block_size_;
      g.reduction.first_chunk = c.first_chunk ? 1 : 0;
      blocks += g.blocks;
      table.push_back(g);
    }
    // The table rides in a buffer of its own; stream-ordered, so it may go away right after.
    DeviceBuffer<Group> device_table(table.size(), stream_);
    PFMC_CUDA_TRY(cudaMemcpyAsync(device_table.data(), table.data(), table.size() * sizeof(Group),
                                  cudaMemcpyHostToDevice, stream_));
    Params params{};
    params.groups = device_table.data();
    params.group_count = static_cast<int>(table.size());
    params.ring = ring_layout(padding, prefetch_distance, block_size_);
    params.prefetch_distance = prefetch_distance;
    params.reduce = reduce ? 1 : 0;
    launch(params, blocks, block_size_, stream_);
  }

  /// Starts the copy of every group's totals to `host` (values of group m at the offset of the
  /// groups before it); valid once the stream has reached this point.
  void copy_totals(double* host) const {
    std::size_t count = 0;
    for (int v : values_)
      count += static_cast<std::size_t>(v);
    PFMC_CUDA_TRY(
        cudaMemcpyAsync(host, totals_, count * sizeof(double), cudaMemcpyDeviceToHost, stream_));
  }
  [[nodiscard]] const std::vector<int>& values() const { return values_; }

  /// The launcher of a backend, or a RuntimeError naming what is missing.
  static Launcher launcher(const std::string& backend, int prefetch_distance) {
    const auto launch = find_launcher<Model, Real>(backend, prefetch_distance);
    if (launch == nullptr) {
      throw RuntimeError("backend '" + backend + "' at prefetch distance " +
                         std::to_string(prefetch_distance) + " is not instantiated");
    }
    return launch;
  }

private:
  template <class T>
  const T* at(std::size_t offset) const {
    return reinterpret_cast<const T*>(data_.data() + offset);
  }

  std::vector<const GroupPlan*> groups_;
  int block_size_;
  cudaStream_t stream_;
  DeviceBuffer<unsigned char> data_;
  DeviceBuffer<unsigned char> reduction_;
  double* totals_ = nullptr;
  std::vector<int> values_;
  std::vector<Group> templates_;
};

} // namespace pfmc::engine
