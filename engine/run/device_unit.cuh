#pragma once
// The device state of one draw unit (engine/draws/draw_plan.hpp): its groups' market data,
// schedules and instruments in one packed upload, their reduction buffers in one allocation (the
// totals contiguous, so that one copy brings every group's sums back), and the per-launch group
// table of the path kernel. Used by the pricer (engine/run/gpu_engine.cu) and the benchmarks
// (engine/tune/kernel_bench.cu).

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "base/trace.hpp"
#include "engine/core/cuda_resources.hpp"
#include "engine/core/execution.hpp"
#include "engine/core/upload_arena.hpp"
#include "engine/plan/plan.hpp"
#include "engine/run/backend_registry.cuh"
#include "engine/run/device_workspace.hpp"
#include "engine/run/exercise.hpp"
#include "engine/run/ring_layout.hpp"
#include "engine/run/terminal_groups.cuh"

namespace pfmc::engine {

/// How a unit's launches are shaped: threads per block, paths a thread simulates per pass (the
/// loader's), passes per round and rounds per block (engine::round_shape). None of it changes a
/// result.
struct LaunchShape {
  int block_size = 128;
  int paths_per_thread = 1;
  RoundShape rounds;
  /// Every launch runs in one wave even with kernels::kWideRegisters a thread: the unit launches
  /// an entry's wide instantiation where it has one (kernels::fits_one_wide_wave).
  bool one_wide_wave = false;
  /// Every group of the unit is one-step terminal (one_step_terminal below) and the run's
  /// settings take terminal kernels: the unit launches an entry's terminal instantiation where it
  /// has one.
  bool all_terminal = false;
  /// The settings' terminal_blocks_per_cta (0: kernels::terminal_blocks_per_cta's choice).
  int terminal_blocks_per_cta = 0;
  /// The settings' compile_at_runtime: the kernels NVRTC compiles, those built in too.
  bool compile_at_runtime = false;
  [[nodiscard]] int block_paths() const {
    return kernels::block_paths(block_size, paths_per_thread, rounds.passes, rounds.rounds);
  }
  /// The instantiation of `entry` the unit's launches take (the same bits whichever).
  template <class Entry>
  [[nodiscard]] kernels::KernelVariant variant_for(const Entry& entry) const {
    if (all_terminal && entry.launch_terminal != nullptr)
      return kernels::KernelVariant::terminal;
    if (one_wide_wave && entry.launch_wide != nullptr)
      return kernels::KernelVariant::wide;
    return kernels::KernelVariant::narrow;
  }
};

/// Early exercise's part of a unit's group (engine/run/exercise.hpp): the regression pass's
/// records, or the pricing pass's fitted rule.
template <class Real>
struct ExerciseRun {
  const std::vector<double>* coefficients = nullptr; ///< pricing: [rule][date][basis]
  Real* levels = nullptr;    ///< regression: [level][date][path], device memory
  Real* variances = nullptr; ///< regression, two-variable basis: [date][path]
  /// regression: the paths recorded (a worker's share of a split run); all of them if empty
  PathRange records;
  /// The regression pass: its draws (the group's counter with kRegressionDrawGroup) and its
  /// base scenario alone.
  [[nodiscard]] bool regression() const { return levels != nullptr; }
};

template <class Model, class Real>
class DeviceUnit {
public:
  using Params = kernels::PathKernelParams<Model, Real>;
  using Group = kernels::GroupParams<Model, Real>;
  using Entry = kernels::LauncherEntry<Model, Real>;

  /// One group's part of a launch: `paths` paths from the group's path `first_path` (a tile
  /// boundary), whose draw tiles start at `normals` (null for a loader that reads none). The
  /// first chunk of a range starts the range's sums (kernels/reduction_shape.cuh); the next
  /// chunks of the group follow it, tile after tile.
  struct Chunk {
    int member; ///< index into the unit's groups
    const Real* normals;
    std::uint64_t first_path;
    int paths;
    bool first_chunk;
  };

  /// groups: the unit's groups; max_chunk_paths: the most paths of one group in one launch;
  /// shape: every launch's shape; exercise: per group, its early-exercise pass (groups of early
  /// exercise must have one; empty: the unit has none); range_paths: the most paths of a group's
  /// range over all its chunks (0: one chunk covers it); pinned: the run's page-locked memory
  /// (the workspace's, valid until the run ends), which the unit's uploads and launch tables are
  /// staged in (null: copied from pageable memory, which the copy waits for: the 8,192-group
  /// book's 2 MB launch table took its copy's time inside the launch's events).
  DeviceUnit(const std::vector<const GroupPlan*>& groups, std::uint64_t max_chunk_paths,
             const LaunchShape& shape, cudaStream_t stream,
             const std::vector<ExerciseRun<Real>>& exercise = {}, std::uint64_t range_paths = 0,
             PinnedArena* pinned = nullptr)
      : groups_(groups), shape_(shape), stream_(stream), pinned_(pinned),
        stack_capacity_(kernels::tile_stack_capacity(
            kernels::tiles_for_paths(std::max(range_paths, max_chunk_paths)))) {
    const base::TraceSpan span("unit's device state");
    PFMC_EXPECTS(shape.block_paths() <= kernels::kTilePaths &&
                     kernels::kTilePaths % shape.block_paths() == 0,
                 "a block covers a power of two of paths that divides a tile");
    // Group data, packed: one allocation, one copy.
    UploadArena arena;
    struct Offsets {
      std::size_t steps, runs, spill_ranges, spill_events, observations, instruments, greek_weights,
          pathwise_greeks;
    };
    const auto pack = [this](UploadArena& into) {
      std::vector<Offsets> at;
      at.reserve(groups_.size());
      for (const GroupPlan* g : groups_) {
        at.push_back({into.add_as<Real>(g->model_data), into.add(g->observation_runs),
                      into.add(g->spill_ranges), into.add(g->spill_events),
                      into.add(g->observations), into.add(g->instruments),
                      into.add(g->greek_weights), into.add(g->pathwise_greeks)});
      }
      return at;
    };
    UploadArena measured{UploadArena::Measure{}};
    pack(measured);
    arena.reserve(measured.size());
    const std::vector<Offsets> offsets = pack(arena);
    const std::vector<std::size_t> tables = add_exercise_tables(arena, exercise);
    data_ = DeviceBuffer<unsigned char>(arena.size(), stream);
    set_exercise_tables(arena, exercise, tables);
    if (arena.size() > 0) {
      const unsigned char* from = arena.data();
      if (pinned_ != nullptr) {
        auto* staged = pinned_->take<unsigned char>(arena.size());
        std::memcpy(staged, from, arena.size());
        from = staged;
      }
      PFMC_CUDA_TRY(
          cudaMemcpyAsync(data_.data(), from, arena.size(), cudaMemcpyHostToDevice, stream));
    }
    // Reduction buffers, one allocation: per group the block partials and tile sums, then every
    // group's totals (contiguous, so that one copy brings them back), then every group's stack
    // of tile blocks (likewise), then the tickets.
    const std::size_t max_blocks =
        (max_chunk_paths + shape.block_paths() - 1) / shape.block_paths();
    const std::size_t tiles = kernels::tiles_for_paths(max_chunk_paths);
    std::size_t doubles = 0;
    std::size_t tickets = 0;
    values_.reserve(groups_.size());
    templates_.reserve(groups_.size());
    for (const GroupPlan* g : groups_) {
      const int values = g->reduced_values();
      PFMC_EXPECTS(shape.rounds.passes == 1 || values == kernels::kPriceValues,
                   "passes fold one instrument's price: every group must reduce only that");
      values_.push_back(values);
      max_values_ = std::max(max_values_, values);
      doubles += (max_blocks + tiles) * static_cast<std::size_t>(values);
      tickets += tiles + 1;
    }
    std::size_t total_values = 0;
    for (int v : values_)
      total_values += static_cast<std::size_t>(v);
    total_values_ = total_values;
    const std::size_t stacks = total_values * static_cast<std::size_t>(stack_capacity_);
    const std::size_t ticket_offset = (doubles + total_values + stacks) * sizeof(double);
    const std::size_t bytes = ticket_offset + tickets * sizeof(unsigned int);
    reduction_ = DeviceBuffer<unsigned char>(bytes, stream);
    // Only the tickets must start at zero; every partial and sum is written before it is read.
    PFMC_CUDA_TRY(cudaMemsetAsync(reduction_.data() + ticket_offset, 0,
                                  tickets * sizeof(unsigned int), stream));
    auto* cursor = reinterpret_cast<double*>(reduction_.data());
    totals_ = cursor + doubles;
    stacks_ = totals_ + total_values;
    auto* ticket_cursor = reinterpret_cast<unsigned int*>(reduction_.data() + ticket_offset);
    double* totals_cursor = totals_;
    double* stack_cursor = stacks_;
    // The group templates: everything but the chunk's draws, paths and blocks.
    for (std::size_t m = 0; m < groups_.size(); ++m) {
      const GroupPlan& g = *groups_[m];
      const Offsets& o = offsets[m];
      Group t{};
      t.model = Model::make_params(at<Real>(o.steps), g.model_constants.data());
      t.steps = g.steps();
      t.group_index = static_cast<std::uint32_t>(g.index);
      t.schedule = models::PathSchedule{
          at<models::ObservationRun>(o.runs), at<models::SpillRange>(o.spill_ranges),
          at<models::EventCode>(o.spill_events), at<models::ObservationView>(o.observations),
          static_cast<int>(g.observations.size())};
      t.instruments = at<models::InstrumentView>(o.instruments);
      t.instrument_count = g.base_instruments();
      t.scenarios = g.scenarios;
      t.values_per_instrument = g.values_per_instrument();
      t.portfolio = g.portfolio ? 1 : 0;
      t.control_variate = g.control_variate ? 1 : 0;
      t.antithetic = g.antithetic ? 1 : 0;
      t.greek_count = static_cast<int>(g.greeks.size());
      t.greek_weights = at<double>(o.greek_weights);
      t.delta_greek = g.delta_greek();
      t.pathwise_greeks = g.pathwise() ? at<models::PathwiseGreek>(o.pathwise_greeks) : nullptr;
      t.one_step_terminal = one_step_terminal(g) ? 1 : 0;
      if (tables[m] != kNoTable) {
        t.exercise = at<models::ExerciseTable<Real>>(tables[m]);
        if (exercise[m].regression()) {
          t.group_index |= kRegressionDrawGroup;
          models::keep_base_scenario<Model>(t.model);
        }
      }
      const int values = values_[m];
      t.reduction.block_partials = cursor;
      cursor += max_blocks * static_cast<std::size_t>(values);
      t.reduction.tile_sums = cursor;
      cursor += tiles * static_cast<std::size_t>(values);
      t.reduction.totals = totals_cursor;
      totals_cursor += values;
      t.reduction.stack = stack_cursor;
      stack_cursor += static_cast<std::size_t>(stack_capacity_) * values;
      t.reduction.tile_tickets = ticket_cursor;
      ticket_cursor += tiles;
      t.reduction.ticket = ticket_cursor++;
      t.reduction.values = values;
      templates_.push_back(t);
    }
    range_tiles_.assign(groups_.size(), 0);
  }

  [[nodiscard]] std::size_t size() const { return groups_.size(); }
  [[nodiscard]] const LaunchShape& shape() const { return shape_; }

  /// Launches the path kernel over the given chunks (one per group at most) with `entry`, whose
  /// paths per thread must be the unit's shape's. before_kernel (if any) runs right before the
  /// kernel is enqueued, after the table's host work and copy: a timer's start.
  void launch(const Entry& entry, const std::vector<Chunk>& chunks, int prefetch_distance,
              const config::Padding& padding, std::uint64_t seed, bool reduce = true,
              const std::function<void()>& before_kernel = {}) {
    PFMC_EXPECTS(entry.paths_per_thread == shape_.paths_per_thread,
                 "the unit was shaped for another loader");
    // The launch's table, built where the copy reads it: the run's pinned memory (each launch
    // a piece of its own, kept until the run ends), else pageable.
    std::vector<Group> pageable;
    Group* table = pinned_ != nullptr ? pinned_->take<Group>(chunks.size()) : nullptr;
    if (table == nullptr) {
      pageable.resize(chunks.size());
      table = pageable.data();
    }
    std::size_t rows = 0;
    int blocks = 0;
    for (const Chunk& c : chunks) {
      PFMC_EXPECTS(c.first_path % kernels::kTilePaths == 0, "chunks start on a tile");
      Group g = templates_[static_cast<std::size_t>(c.member)];
      g.normals = c.normals;
      g.first_call = c.first_path / static_cast<std::uint64_t>(shape_.paths_per_thread);
      g.chunk_paths = c.paths;
      g.first_block = blocks;
      g.blocks = (c.paths + shape_.block_paths() - 1) / shape_.block_paths();
      const std::uint64_t tile = c.first_path / kernels::kTilePaths;
      std::uint64_t& range_tile = range_tiles_[static_cast<std::size_t>(c.member)];
      if (c.first_chunk)
        range_tile = tile;
      PFMC_EXPECTS(kernels::tile_blocks(range_tile, tile) <= stack_capacity_ &&
                       kernels::tile_blocks(
                           range_tile, tile + kernels::tiles_for_paths(static_cast<std::uint64_t>(
                                                  c.paths))) <= stack_capacity_,
                   "a group's range fits its stack of tile blocks");
      g.reduction.range_tile = range_tile;
      g.reduction.chunk_tile = tile;
      blocks += g.blocks;
      std::memcpy(table + rows++, &g, sizeof(Group)); // trivially copyable
    }
    // The table rides in a buffer of its own; stream-ordered, so it may go away right after.
    const base::TraceSpan span("launch");
    DeviceBuffer<Group> device_table(rows, stream_);
    PFMC_CUDA_TRY(cudaMemcpyAsync(device_table.data(), table, rows * sizeof(Group),
                                  cudaMemcpyHostToDevice, stream_));
    Params params{};
    params.groups = device_table.data();
    params.group_count = static_cast<int>(rows);
    // Every group but the last as many blocks as the first: the kernel divides, not searches.
    params.group_blocks = rows > 0 ? table[0].blocks : 0;
    for (std::size_t k = 1; k + 1 < rows && params.group_blocks > 0; ++k) {
      if (table[k].blocks != params.group_blocks)
        params.group_blocks = 0;
    }
    params.ring = ring_layout(padding, prefetch_distance, shape_.block_size);
    params.prefetch_distance = prefetch_distance;
    params.reduce = reduce ? 1 : 0;
    params.passes = shape_.rounds.passes;
    params.rounds = shape_.rounds.rounds;
    params.round_values = max_values_;
    params.blocks_per_tile = kernels::kTilePaths / shape_.block_paths();

    params.seed = seed;
    variant_ = shape_.variant_for(entry);
    params.total_blocks = blocks;
    if (variant_ == kernels::KernelVariant::terminal) {
      const int set = shape_.terminal_blocks_per_cta;
      params.blocks_per_cta = set > 0 ? set : kernels::terminal_blocks_per_cta(blocks);
    } else {
      params.blocks_per_cta = 1;
    }
    const int ctas = (blocks + params.blocks_per_cta - 1) / params.blocks_per_cta;
    if (before_kernel)
      before_kernel();
    entry.launcher(variant_, shape_.compile_at_runtime)(params, ctas, shape_.block_size, stream_);
  }
  /// Whether the last launch took the entry's wide instantiation.
  [[nodiscard]] bool launched_wide() const { return variant_ == kernels::KernelVariant::wide; }
  /// Whether the last launch took the entry's terminal instantiation.
  [[nodiscard]] bool launched_terminal() const {
    return variant_ == kernels::KernelVariant::terminal;
  }

  /// Starts the copy of every group's totals to `host` (values of group m at the offset of the
  /// groups before it); valid once the stream has reached this point.
  void copy_totals(double* host) const {
    std::size_t count = 0;
    for (int v : values_)
      count += static_cast<std::size_t>(v);
    if (count > 0) {
      PFMC_CUDA_TRY(
          cudaMemcpyAsync(host, totals_, count * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    }
  }
  /// Starts the copy of every group's stack of tile blocks to `host`: group m's at
  /// stack_capacity() × (values of the groups before it), [block][value]; valid once the stream
  /// has reached this point. Only the blocks of the group's range (kernels::tile_blocks) are set.
  void copy_stacks(double* host) const {
    const std::size_t count = total_values_ * static_cast<std::size_t>(stack_capacity_);
    if (count > 0) {
      PFMC_CUDA_TRY(
          cudaMemcpyAsync(host, stacks_, count * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    }
  }
  [[nodiscard]] int stack_capacity() const { return stack_capacity_; }
  [[nodiscard]] const std::vector<int>& values() const { return values_; }

  /// The early-exercise kernel (kernels/launcher_table.cuh's exercise module).
  static const Entry& exercise_launcher() {
    const auto& table = kernels::exercise_launcher_table<Model, Real>();
    PFMC_EXPECTS(!table.empty(), "every model has an early-exercise kernel");
    return table.front();
  }

  /// The registry's entry of a backend, or a RuntimeError naming what is missing.
  static const Entry& launcher(const std::string& backend, int prefetch_distance) {
    const Entry* entry = find_launcher<Model, Real>(backend, prefetch_distance);
    if (entry == nullptr) {
      throw RuntimeError("backend '" + backend + "' at prefetch distance " +
                         std::to_string(prefetch_distance) + " is not instantiated");
    }
    return *entry;
  }

private:
  template <class T>
  const T* at(std::size_t offset) const {
    return reinterpret_cast<const T*>(data_.data() + offset);
  }

  static constexpr std::size_t kNoTable = ~std::size_t(0);
  /// Where each exercise array of each group lies in the upload, and its table.
  struct ExerciseOffsets {
    std::size_t steps, views, allowed, discounts, discount_tangents, coefficients;
  };

  /// Adds each early-exercise group's arrays and a place for its ExerciseTable; returns the
  /// tables' offsets (kNoTable for the other groups).
  std::vector<std::size_t> add_exercise_tables(UploadArena& arena,
                                               const std::vector<ExerciseRun<Real>>& exercise) {
    std::vector<std::size_t> tables(groups_.size(), kNoTable);
    for (std::size_t m = 0; m < groups_.size(); ++m) {
      const ExercisePlan& plan = groups_[m]->exercise;
      if (!plan.present())
        continue;
      PFMC_EXPECTS(m < exercise.size(), "an early-exercise group needs its pass's data");
      const ExerciseRun<Real>& run = exercise[m];
      ExerciseOffsets o{arena.add(plan.steps),
                        arena.add(plan.views),
                        arena.add(plan.allowed),
                        arena.add(plan.discounts),
                        kNoTable,
                        kNoTable};
      if (!plan.discount_tangents.empty())
        o.discount_tangents = arena.add(plan.discount_tangents);
      if (run.coefficients != nullptr)
        o.coefficients = arena.add(*run.coefficients);
      exercise_offsets_.push_back(o);
      const models::ExerciseTable<Real> placeholder{};
      tables[m] = arena.add(&placeholder, 1);
    }
    return tables;
  }
  /// The tables, now that the device addresses of their arrays are known.
  void set_exercise_tables(UploadArena& arena, const std::vector<ExerciseRun<Real>>& exercise,
                           const std::vector<std::size_t>& tables) {
    std::size_t k = 0;
    for (std::size_t m = 0; m < groups_.size(); ++m) {
      if (tables[m] == kNoTable)
        continue;
      const ExerciseOffsets& o = exercise_offsets_[k++];
      const ExerciseRun<Real>& run = exercise[m];
      arena.set(tables[m],
                exercise_table<Real>(
                    groups_[m]->exercise, at<int>(o.steps), at<models::ExerciseView>(o.views),
                    at<unsigned char>(o.allowed), at<double>(o.discounts),
                    o.discount_tangents == kNoTable ? nullptr : at<double>(o.discount_tangents),
                    o.coefficients == kNoTable ? nullptr : at<double>(o.coefficients), run.levels,
                    run.variances, run.records.empty() ? nullptr : &run.records));
    }
  }

  std::vector<ExerciseOffsets> exercise_offsets_;

  std::vector<const GroupPlan*> groups_;
  LaunchShape shape_;
  kernels::KernelVariant variant_ = kernels::KernelVariant::narrow;
  cudaStream_t stream_;
  PinnedArena* pinned_ = nullptr; ///< the run's page-locked memory, or null
  DeviceBuffer<unsigned char> data_;
  DeviceBuffer<unsigned char> reduction_;
  double* totals_ = nullptr;
  double* stacks_ = nullptr;
  std::size_t total_values_ = 0;
  int stack_capacity_ = 1;
  std::vector<std::uint64_t> range_tiles_; ///< per group: the first tile of its range
  std::vector<int> values_;
  int max_values_ = 0;
  std::vector<Group> templates_;
};

} // namespace pfmc::engine
