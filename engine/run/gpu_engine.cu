#include "engine/run/gpu_engine.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/device_info.hpp"
#include "engine/core/interrupt.hpp"
#include "engine/draws/draw_plan.hpp"
#include "engine/draws/draw_transform.hpp"
#include "engine/draws/normal_source.hpp"
#include "engine/run/device_unit.cuh"
#include "engine/run/exercise.hpp"
#include "engine/run/model_dispatch.hpp"
#include "engine/scale/work_split.hpp"
#include "kernels/generate_draws.hpp"
#include "kernels/regression.cuh"

namespace pfmc::engine {

namespace {

/// Timing marks of one unit: generation and kernels, resolved after the final synchronisation.
struct UnitMarks {
  std::vector<int> groups;
  std::vector<double> weights; ///< each group's share of the unit's work
  std::vector<std::pair<CudaEvent, CudaEvent>> generation, kernels;
};

/// Two draw buffers: the generation of one overlaps the kernels reading the other.
template <class Real>
class DrawSlots {
public:
  DrawSlots(cudaStream_t rng_stream, cudaStream_t compute_stream)
      : rng_stream_(rng_stream), compute_stream_(compute_stream) {}

  /// The next slot, with room for `values` draws, ready for generation on the rng stream (after
  /// the kernels that last read it).
  Real* acquire(std::size_t values) {
    current_ = 1 - current_;
    Slot& s = slots_[current_];
    if (s.used)
      PFMC_CUDA_TRY(cudaStreamWaitEvent(rng_stream_, s.free.get(), 0));
    if (s.buffer.size() < values)
      s.buffer = DeviceBuffer<Real>(values, rng_stream_);
    return s.buffer.data();
  }
  /// The generation into the current slot is enqueued: kernels may read it.
  void generated() {
    Slot& s = slots_[current_];
    s.ready.record(rng_stream_);
    PFMC_CUDA_TRY(cudaStreamWaitEvent(compute_stream_, s.ready.get(), 0));
  }
  /// The kernels reading the current slot are enqueued: generation may overwrite it after them.
  void consumed() {
    Slot& s = slots_[current_];
    s.free.record(compute_stream_);
    s.used = true;
  }

private:
  struct Slot {
    DeviceBuffer<Real> buffer;
    CudaEvent ready, free;
    bool used = false;
  };
  cudaStream_t rng_stream_, compute_stream_;
  Slot slots_[2];
  int current_ = 1;
};

/// At most two path-kernel launches ahead of the GPU. Unpaced, the host enqueued a whole run in
/// its first milliseconds, and a stop request — which withholds new launches — waited for all of
/// it (the portfolio at 400,000,000 paths stopped 7 s after Ctrl-C). After enqueuing launch k the
/// host waits for launch k−1, so launch k+1 is queued while k runs: the GPU does not idle for it.
class LaunchPacer {
public:
  void launched(cudaStream_t stream) {
    events_[next_].record(stream);
    recorded_[next_] = true;
    next_ ^= 1;
    if (recorded_[next_])
      PFMC_CUDA_TRY(cudaEventSynchronize(events_[next_].get()));
  }

private:
  CudaEvent events_[2];
  bool recorded_[2] = {false, false};
  int next_ = 0;
};

template <class Real>
class PlanRunner {
public:
  /// share: each group's range of paths (null: all of them); a share's run keeps each group's
  /// stack of tile blocks for the merge (engine/scale/partial_sums.hpp).
  PlanRunner(const SimulationPlan& plan, const std::vector<ExecutionSettings>& settings,
             const ProgressFn& progress, const WorkShare* share)
      : plan_(plan), settings_(settings), run_(settings.front()), progress_(progress),
        slots_(rng_stream_.get(), compute_stream_.get()), keep_stacks_(share != nullptr) {
    philox_ = run_.rng == config::RngType::philox;
    ranges_ = share != nullptr ? share->ranges : whole_run(plan.groups.size(), run_.paths).ranges;
    for (const PathRange& r : ranges_) {
      PFMC_EXPECTS(philox_ || (r == PathRange{0, run_.paths}),
                   "only counter-based draws run a share of a group");
      group_paths_.push_back(r.empty() ? 0 : r.count());
    }
    retain_device_memory_pool();
    multiprocessors_ = query_device().multiprocessors;
    quasi_ = run_.rng == config::RngType::sobol || run_.rng == config::RngType::scrambled_sobol;
    if (!quasi_ && !philox_) {
      pseudo_.emplace(run_.rng, run_.seed, NormalSource::Memory::device);
      pseudo_->set_stream(rng_stream_.get());
    }
    // Where each group's totals land in the pinned buffer.
    std::size_t total = 0;
    for (const auto& g : plan.groups) {
      totals_offset_.push_back(total);
      total += static_cast<std::size_t>(g.reduced_values());
    }
    totals_ = std::make_unique<PinnedBuffer<double>>(total);
    for (std::size_t g = 0; g < settings_.size(); ++g) {
      // Early exercise's kernel computes its draws (kernels/launcher_table.cuh).
      const kernels::BackendInfo* info = kernels::find_backend(settings_[g].backend);
      computes_draws_.push_back(plan.groups[g].exercise.present() ||
                                (info != nullptr && !info->reads_draws));
    }
  }

  [[nodiscard]] PlanStats stats() const { return stats_; }

  std::vector<GroupOutcome> run() {
    const auto units = plan_draw_units(plan_, run_.rng, group_paths_, sizeof(Real),
                                       run_.draw_batch_bytes, computes_draws_);
    for (std::size_t u = 0; u < units.size(); ++u) {
      throw_if_stopped(); // no new generation or launch once asked to stop
      const DrawUnit& unit = units[u];
      const GroupPlan& first = plan_.groups[static_cast<std::size_t>(unit.groups.front())];
      dispatch_model<Real>(first, [&](auto model_tag) {
        using Model = typename decltype(model_tag)::type;
        if (unit.computes_draws) {
          run_computing<Model>(unit);
        } else if (unit.batched) {
          run_batch<Model>(unit);
        } else {
          run_tiled<Model>(unit.groups.front());
        }
      });
      ++stats_.draw_units;
      if (progress_) {
        PFMC_CUDA_TRY(cudaStreamSynchronize(compute_stream_.get()));
        ++stats_.host_syncs;
        progress_(Progress{unit.groups.back(), static_cast<int>(plan_.groups.size()), u + 1,
                           units.size(), first.model_name});
      }
    }
    compute_stream_.synchronize();
    rng_stream_.synchronize();
    stats_.host_syncs += 2;
    stats_.kernel_launches = launches_;
    return outcomes();
  }

private:
  /// A share's run: starts the copy of the unit's groups' stacks of tile blocks (read once the
  /// run has synchronised).
  template <class Model>
  void keep_stacks(const DeviceUnit<Model, Real>& device, const std::vector<int>& groups) {
    if (!keep_stacks_)
      return;
    std::size_t values = 0;
    for (int v : device.values())
      values += static_cast<std::size_t>(v);
    auto host = std::make_unique<PinnedBuffer<double>>(
        values * static_cast<std::size_t>(device.stack_capacity()));
    device.copy_stacks(host->data());
    std::size_t offset = 0;
    for (std::size_t m = 0; m < groups.size(); ++m) {
      stack_at_[groups[m]] = host->data() + offset;
      offset += static_cast<std::size_t>(device.values()[m]) * device.stack_capacity();
    }
    stack_buffers_.push_back(std::move(host));
  }
  /// The launch shape of a unit: the settings' block size, the loader's paths per thread, and
  /// the passes and rounds for the unit's paths per launch.
  template <class Model>
  LaunchShape shape_for(const typename DeviceUnit<Model, Real>::Entry& entry,
                        const std::vector<const GroupPlan*>& groups,
                        std::uint64_t launch_paths) const {
    int steps = 0, values = 0;
    for (const GroupPlan* g : groups) {
      steps = std::max(steps, g->steps());
      values = std::max(values, g->reduced_values());
    }
    LaunchShape shape;
    shape.block_size = run_.block_size;
    shape.paths_per_thread = entry.paths_per_thread;
    shape.rounds = round_shape(launch_paths, steps, Model::factors, entry.paths_per_thread,
                               run_.block_size, values, multiprocessors_);
    return shape;
  }

  /// Loads a kernel's code before its first launch (CUDA loads modules lazily: the first launch
  /// of a kernel in a process would otherwise count its loading as kernel time).
  void load(void (*load_kernel)()) {
    if (!loaded_.insert(reinterpret_cast<void*>(load_kernel)).second)
      return;
    const auto start = std::chrono::steady_clock::now();
    load_kernel();
    stats_.kernel_load_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  /// Philox draws of the given groups' paths into `draws` (one generation launch), on the rng
  /// stream.
  void generate_philox(const std::vector<kernels::DrawRequest<Real>>& requests) {
    DeviceBuffer<unsigned char> table(kernels::generate_table_bytes(requests.size()),
                                      rng_stream_.get());
    kernels::generate_philox_draws<Real>(requests, run_.seed, table.data(), rng_stream_.get());
    ++stats_.generation_calls;
  }

  /// Early exercise's regression pass for one group (models/exercise.cuh): its paths record
  /// their levels at the exercise dates, then each date's regression is reduced on the device
  /// and fitted on the host, backwards from the maturity. Returns the rule ([rule][date][basis]).
  template <class Model>
  std::vector<double> fit_rule(int g) {
    const GroupPlan& group = plan_.groups[static_cast<std::size_t>(g)];
    const ExercisePlan& plan = group.exercise;
    const auto start = std::chrono::steady_clock::now();
    cudaStream_t stream = compute_stream_.get();
    const std::uint64_t paths = plan.regression_paths;
    const std::uint64_t per_level = static_cast<std::uint64_t>(plan.dates()) * paths;
    DeviceBuffer<Real> levels(static_cast<std::size_t>(plan.levels) * per_level, stream);
    DeviceBuffer<Real> variances(plan.basis.two_variables ? per_level : 0, stream);
    ExerciseRun<Real> records;
    records.levels = levels.data();
    records.variances = plan.basis.two_variables ? variances.data() : nullptr;
    const auto& entry = DeviceUnit<Model, Real>::exercise_launcher();
    load(entry.load);
    const std::uint64_t chunk_paths = std::min(paths, kMaxChunkPaths);
    DeviceUnit<Model, Real> device(
        {&group}, chunk_paths, shape_for<Model>(entry, {&group}, chunk_paths), stream, {records});
    for (std::uint64_t first = 0; first < paths; first += chunk_paths) {
      throw_if_stopped();
      const int count = static_cast<int>(std::min(chunk_paths, paths - first));
      device.launch(entry, {{0, nullptr, first, count, first == 0}}, 0, config::Padding{},
                    run_.seed, /*reduce=*/false);
      pacer_.launched(stream);
      ++launches_;
    }
    std::vector<double> rule = induce<Model>(group, levels.data(), records.variances);
    ExerciseCost& cost = exercise_cost_[g];
    cost.ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    cost.path_steps += paths * static_cast<std::uint64_t>(group.steps());
    return rule;
  }

  /// The backward induction over the regression paths' records, one instrument after another.
  template <class Model>
  std::vector<double> induce(const GroupPlan& group, const Real* levels, const Real* variances) {
    const ExercisePlan& plan = group.exercise;
    cudaStream_t stream = compute_stream_.get();
    const std::uint64_t paths = plan.regression_paths;
    const int dates = plan.dates();
    const int m = plan.basis.size();
    const int values = models::RegressionLayout{m}.size();
    const std::uint64_t tiles = kernels::tiles_for_paths(paths);
    const std::uint64_t blocks = kernels::regression_blocks(paths);
    // The reduction's buffers (kernels/block_reduce.cuh): the blocks' partials, the tile sums,
    // the stack of tile blocks and the totals, then the tickets (which reset themselves after
    // each launch).
    const std::size_t stack = static_cast<std::size_t>(kernels::tile_stack_capacity(tiles));
    const std::size_t doubles = (blocks + tiles + stack + 1) * static_cast<std::size_t>(values);
    DeviceBuffer<unsigned char> reduction(
        doubles * sizeof(double) + (tiles + 1) * sizeof(unsigned int), stream);
    auto* base = reinterpret_cast<double*>(reduction.data());
    auto* tickets = reinterpret_cast<unsigned int*>(reduction.data() + doubles * sizeof(double));
    PFMC_CUDA_TRY(cudaMemsetAsync(tickets, 0, (tiles + 1) * sizeof(unsigned int), stream));
    DeviceBuffer<double> cash_flows(paths, stream);
    PinnedBuffer<double> sums(static_cast<std::size_t>(values));
    std::vector<double> rule(static_cast<std::size_t>(plan.rules) * dates * m,
                             std::numeric_limits<double>::quiet_NaN());
    for (int r = 0; r < plan.rules; ++r) {
      const models::ExerciseView& e = plan.views[static_cast<std::size_t>(r * plan.scenarios)];
      kernels::RegressionStep<Real> step{};
      step.levels = levels + static_cast<std::uint64_t>(e.level) * dates * paths;
      step.variances = variances;
      step.cash_flows = cash_flows.data();
      step.paths = paths;
      step.rule = e;
      step.basis = plan.basis;
      step.variance_scale = plan.variance_scale;
      step.target = kernels::ReductionTarget{base,
                                             base + blocks * values,
                                             base + (blocks + tiles) * values,
                                             base + (blocks + tiles + stack) * values,
                                             tickets,
                                             tickets + tiles,
                                             values,
                                             0,
                                             0};
      // The maturity's payoff first, then each earlier date: its sums, its fit, its decisions.
      step.update_date = e.maturity_date;
      step.update_maturity = 1;
      step.update_discount =
          plan.discounts[static_cast<std::size_t>(e.discounts + e.maturity_date)];
      for (int date = e.maturity_date - 1; date >= 0; --date) {
        if (!plan.allowed[static_cast<std::size_t>(r) * dates + date])
          continue;
        throw_if_stopped();
        step.sum_date = date;
        kernels::launch_regression_step<Real>(step, stream);
        ++launches_;
        PFMC_CUDA_TRY(cudaMemcpyAsync(sums.data(), step.target.totals,
                                      static_cast<std::size_t>(values) * sizeof(double),
                                      cudaMemcpyDeviceToHost, stream));
        PFMC_CUDA_TRY(cudaStreamSynchronize(stream));
        ++stats_.host_syncs;
        const std::vector<double> beta = fit_continuation(plan.basis, sums.data());
        std::copy(beta.begin(), beta.end(),
                  rule.begin() + (static_cast<std::ptrdiff_t>(r) * dates + date) * m);
        step.update_date = date;
        step.update_maturity = 0;
        step.update_discount = plan.discounts[static_cast<std::size_t>(e.discounts + date)];
        std::copy(beta.begin(), beta.end(), step.coefficients);
      }
    }
    return rule;
  }

  /// Groups whose backend computes its draws: no generation, one launch for all of them (per
  /// chunk of kMaxChunkPaths paths). Early-exercise groups (a unit of their own) fit their rules
  /// first and price with the early-exercise kernel.
  template <class Model>
  void run_computing(const DrawUnit& unit) {
    std::vector<const GroupPlan*> groups;
    UnitMarks marks;
    for (int g : unit.groups) {
      groups.push_back(&plan_.groups[static_cast<std::size_t>(g)]);
      marks.groups.push_back(g);
      marks.weights.push_back(1.0 / static_cast<double>(unit.groups.size()));
    }
    const bool exercise = groups.front()->exercise.present();
    std::vector<std::vector<double>> rules;
    std::vector<ExerciseRun<Real>> exercise_runs;
    if (exercise) {
      rules.reserve(groups.size());
      for (int g : unit.groups)
        rules.push_back(fit_rule<Model>(g));
      for (const auto& rule : rules)
        exercise_runs.push_back(ExerciseRun<Real>{&rule, nullptr, nullptr});
    }
    const ExecutionSettings& s = settings_[static_cast<std::size_t>(unit.groups.front())];
    const auto& entry = exercise
                            ? DeviceUnit<Model, Real>::exercise_launcher()
                            : DeviceUnit<Model, Real>::launcher(s.backend, s.prefetch_distance);
    load(entry.load);
    std::uint64_t range_paths = 0;
    std::uint64_t unit_steps = 0; // a path of each group
    for (int g : unit.groups) {
      range_paths = std::max(range_paths, group_paths_[static_cast<std::size_t>(g)]);
      unit_steps += static_cast<std::uint64_t>(
          std::max(1, plan_.groups[static_cast<std::size_t>(g)].steps()));
    }
    // Whole tiles, at most kMaxLaunchPathSteps a launch (results do not depend on the chunking).
    const std::uint64_t stop_paths =
        std::max<std::uint64_t>(kMaxLaunchPathSteps / unit_steps / kernels::kTilePaths, 1) *
        kernels::kTilePaths;
    const std::uint64_t chunk_paths = std::min({range_paths, kMaxChunkPaths, stop_paths});
    const std::uint64_t chunks = (range_paths + chunk_paths - 1) / chunk_paths;
    DeviceUnit<Model, Real> device(groups, chunk_paths,
                                   shape_for<Model>(entry, groups, chunk_paths * groups.size()),
                                   compute_stream_.get(), exercise_runs, range_paths);
    for (std::uint64_t c = 0; c < chunks; ++c) {
      throw_if_stopped(); // no new launch once asked to stop
      std::vector<typename DeviceUnit<Model, Real>::Chunk> launch_chunks;
      for (std::size_t m = 0; m < groups.size(); ++m) {
        const PathRange& r = ranges_[static_cast<std::size_t>(unit.groups[m])];
        const std::uint64_t first = r.first + c * chunk_paths;
        if (first < r.end) {
          const int count = static_cast<int>(std::min(chunk_paths, r.end - first));
          launch_chunks.push_back({static_cast<int>(m), nullptr, first, count, c == 0});
        }
      }
      marks.kernels.emplace_back();
      marks.kernels.back().first.record(compute_stream_.get());
      device.launch(entry, launch_chunks, s.prefetch_distance, s.padding, run_.seed, s.reduce);
      pacer_.launched(compute_stream_.get());
      marks.kernels.back().second.record(compute_stream_.get());
    }
    device.copy_totals(totals_->data() +
                       totals_offset_[static_cast<std::size_t>(unit.groups.front())]);
    keep_stacks(device, unit.groups);
    launches_ += chunks;
    for (int g : unit.groups)
      launches_of_[g] = chunks;
    marks_.push_back(std::move(marks));
  }

  template <class Model>
  void run_batch(const DrawUnit& unit) {
    UnitMarks marks;
    std::vector<const GroupPlan*> groups;
    std::size_t total_values = 0;
    for (int g : unit.groups) {
      const GroupPlan& group = plan_.groups[static_cast<std::size_t>(g)];
      groups.push_back(&group);
      marks.groups.push_back(g);
      const std::size_t values =
          group_draw_values(group, group_paths_[static_cast<std::size_t>(g)]);
      marks.weights.push_back(static_cast<double>(values));
      total_values += values;
    }
    for (double& w : marks.weights)
      w /= static_cast<double>(total_values);

    const ExecutionSettings& s = settings_[static_cast<std::size_t>(unit.groups.front())];
    const auto& entry = DeviceUnit<Model, Real>::launcher(s.backend, s.prefetch_distance);
    load(entry.load);
    Real* draws = slots_.acquire(unit.values);
    marks.generation.emplace_back();
    marks.generation.back().first.record(rng_stream_.get());
    // A batch's groups have as many paths (engine/draws/draw_plan.hpp).
    const PathRange range = ranges_[static_cast<std::size_t>(unit.groups.front())];
    if (philox_) {
      std::vector<kernels::DrawRequest<Real>> requests;
      for (std::size_t m = 0; m < groups.size(); ++m) {
        const PathRange& r = ranges_[static_cast<std::size_t>(unit.groups[m])];
        requests.push_back({draws + unit.offsets[m], r.first, r.count(),
                            static_cast<std::uint32_t>(groups[m]->index), groups[m]->rows()});
      }
      generate_philox(requests);
    } else {
      pseudo_->generate(draws, unit.values);
      ++stats_.generation_calls;
    }
    transforms_.apply(draws, unit.values, unit.groups, unit.offsets,
                      kernels::draw_tiles_for(range.count()), rng_stream_.get());
    marks.generation.back().second.record(rng_stream_.get());
    slots_.generated();

    DeviceUnit<Model, Real> device(groups, range.count(),
                                   shape_for<Model>(entry, groups, range.count() * groups.size()),
                                   compute_stream_.get());
    std::vector<typename DeviceUnit<Model, Real>::Chunk> chunks;
    for (std::size_t m = 0; m < groups.size(); ++m) {
      const PathRange& r = ranges_[static_cast<std::size_t>(unit.groups[m])];
      chunks.push_back({static_cast<int>(m), draws + unit.offsets[m], r.first,
                        static_cast<int>(r.count()), true});
    }
    marks.kernels.emplace_back();
    marks.kernels.back().first.record(compute_stream_.get());
    device.launch(entry, chunks, s.prefetch_distance, s.padding, run_.seed, s.reduce);
    pacer_.launched(compute_stream_.get());
    marks.kernels.back().second.record(compute_stream_.get());
    slots_.consumed();
    device.copy_totals(totals_->data() +
                       totals_offset_[static_cast<std::size_t>(unit.groups.front())]);
    keep_stacks(device, unit.groups);
    launches_ += 1;
    for (int g : unit.groups)
      launches_of_[g] = 1;
    marks_.push_back(std::move(marks));
  }

  template <class Model>
  void run_tiled(int g) {
    const GroupPlan& group = plan_.groups[static_cast<std::size_t>(g)];
    const ExecutionSettings& s = settings_[static_cast<std::size_t>(g)];
    const int values = group.reduced_values();
    const PathRange range = ranges_[static_cast<std::size_t>(g)];
    // Two draw buffers share the cap.
    const ChunkPlan chunking =
        plan_chunks(range.count(), group.rows(), sizeof(Real), values, run_.memory_cap / 2);
    PFMC_EXPECTS(chunking.chunk_paths > 0, "memory cap below one tile of paths");
    std::optional<NormalSource> quasi;
    NormalSource* source = pseudo_ ? &*pseudo_ : nullptr;
    if (quasi_) {
      quasi.emplace(run_.rng, run_.seed, NormalSource::Memory::device, group.rows(),
                    run_.replicate);
      quasi->set_stream(rng_stream_.get());
      source = &*quasi;
    }
    const auto& entry = DeviceUnit<Model, Real>::launcher(s.backend, s.prefetch_distance);
    load(entry.load);
    DeviceUnit<Model, Real> device({&group}, chunking.chunk_paths,
                                   shape_for<Model>(entry, {&group}, chunking.chunk_paths),
                                   compute_stream_.get(), {}, range.count());
    UnitMarks marks;
    marks.groups = {g};
    marks.weights = {1.0};
    for (std::uint64_t chunk = 0; chunk < chunking.chunks; ++chunk) {
      throw_if_stopped(); // no new launch once asked to stop
      const std::uint64_t first = range.first + chunk * chunking.chunk_paths;
      const std::size_t count =
          static_cast<std::size_t>(std::min(chunking.chunk_paths, range.end - first));
      const std::uint64_t tiles = kernels::draw_tiles_for(count);
      const std::size_t chunk_values =
          tiles * static_cast<std::size_t>(group.rows()) * kernels::kDrawTilePaths;
      Real* draws = slots_.acquire(chunk_values);
      marks.generation.emplace_back();
      marks.generation.back().first.record(rng_stream_.get());
      if (philox_) {
        generate_philox(
            {{draws, first, count, static_cast<std::uint32_t>(group.index), group.rows()}});
      } else {
        source->next_tiles(draws, tiles, group.rows());
        stats_.generation_calls += tiles;
      }
      transforms_.apply(draws, chunk_values, {g}, {0}, tiles, rng_stream_.get());
      marks.generation.back().second.record(rng_stream_.get());
      slots_.generated();
      marks.kernels.emplace_back();
      marks.kernels.back().first.record(compute_stream_.get());
      device.launch(entry, {{0, draws, first, static_cast<int>(count), chunk == 0}},
                    s.prefetch_distance, s.padding, run_.seed, s.reduce);
      marks.kernels.back().second.record(compute_stream_.get());
      slots_.consumed();
      pacer_.launched(compute_stream_.get());
    }
    device.copy_totals(totals_->data() + totals_offset_[static_cast<std::size_t>(g)]);
    keep_stacks(device, {g});
    launches_ += chunking.chunks;
    launches_of_[g] = chunking.chunks;
    marks_.push_back(std::move(marks));
  }

  std::vector<GroupOutcome> outcomes() {
    std::vector<GroupOutcome> out(plan_.groups.size());
    for (std::size_t g = 0; g < plan_.groups.size(); ++g) {
      const GroupPlan& group = plan_.groups[g];
      GroupOutcome& o = out[g];
      const std::size_t values = static_cast<std::size_t>(group.reduced_values());
      o.range = ranges_[g];
      o.paths = group_paths_[g];
      if (o.paths == 0) { // none of this group in the share
        o.totals.assign(values, 0.0);
        continue;
      }
      o.totals.assign(totals_->data() + totals_offset_[g],
                      totals_->data() + totals_offset_[g] + values);
      if (const auto at = stack_at_.find(static_cast<int>(g)); at != stack_at_.end()) {
        const int depth = kernels::tile_blocks(o.range.first / kernels::kTilePaths,
                                               kernels::tiles_for_paths(o.range.end));
        o.stack.assign(at->second, at->second + static_cast<std::size_t>(depth) * values);
      }
      o.path_steps = o.paths * static_cast<std::uint64_t>(group.steps());
      o.bytes_loaded =
          computes_draws_[g] ? 0.0 : static_cast<double>(o.paths) * group.rows() * sizeof(Real);
      o.chunks = launches_of_.count(static_cast<int>(g)) ? launches_of_[static_cast<int>(g)] : 0;
      if (const auto cost = exercise_cost_.find(static_cast<int>(g));
          cost != exercise_cost_.end()) {
        o.regression_ms = cost->second.ms;
        o.regression_path_steps = cost->second.path_steps;
      }
    }
    for (const UnitMarks& m : marks_) {
      double generation = 0.0, kernels = 0.0;
      for (const auto& [start, stop] : m.generation)
        generation += stop.since(start);
      for (const auto& [start, stop] : m.kernels)
        kernels += stop.since(start);
      for (std::size_t k = 0; k < m.groups.size(); ++k) {
        out[static_cast<std::size_t>(m.groups[k])].rng_ms += generation * m.weights[k];
        out[static_cast<std::size_t>(m.groups[k])].kernel_ms += kernels * m.weights[k];
      }
    }
    return out;
  }

  const SimulationPlan& plan_;
  const std::vector<ExecutionSettings>& settings_;
  const ExecutionSettings& run_;
  const ProgressFn& progress_;
  /// cuRAND's generators run on the rng stream, which keeps the legacy default stream's order: a
  /// scrambled-Sobol run under a loaded GPU twice read other draws than it should (v15: the
  /// chunked run against the whole, the GPU against the CPU) while everything of ours there is
  /// ordered by the streams and events; what cuRAND's host API may issue outside the generator's
  /// stream is then ordered too. Philox draws never touch the legacy stream: no cost to them.
  CudaStream rng_stream_{CudaStream::Ordering::with_legacy_stream};
  CudaStream compute_stream_;
  DrawSlots<Real> slots_;
  LaunchPacer pacer_;
  int multiprocessors_ = 1;
  bool philox_ = false;
  bool quasi_ = false;
  std::vector<bool> computes_draws_; ///< per group: its backend computes its draws
  std::optional<NormalSource> pseudo_;
  /// Antithetic pairs and bridges, on the rng stream after each generation call (its device
  /// memory: the bridges' tables, no scratch).
  DrawTransforms transforms_{plan_, run_.antithetic, run_.brownian_bridge};
  std::vector<std::size_t> totals_offset_;
  std::unique_ptr<PinnedBuffer<double>> totals_;
  std::vector<UnitMarks> marks_;
  std::map<int, std::uint64_t> launches_of_;
  /// Early exercise's regression passes, per group: wall time and the paths' steps.
  struct ExerciseCost {
    double ms = 0.0;
    std::uint64_t path_steps = 0;
  };
  std::map<int, ExerciseCost> exercise_cost_;
  std::uint64_t launches_ = 0;
  std::set<void*> loaded_; ///< kernels whose code this run has loaded
  bool keep_stacks_ = false;
  std::vector<PathRange> ranges_;          ///< per group: the paths this run covers
  std::vector<std::uint64_t> group_paths_; ///< per group: their count (0: none)
  /// A share's run: where each group's stack of tile blocks lands (its first block).
  std::map<int, const double*> stack_at_;
  std::vector<std::unique_ptr<PinnedBuffer<double>>> stack_buffers_;
  PlanStats stats_;
};

} // namespace

std::vector<GroupOutcome> run_plan_on_gpu(const SimulationPlan& plan,
                                          const std::vector<ExecutionSettings>& settings,
                                          const ProgressFn& progress, PlanStats* stats,
                                          const WorkShare* share) {
  PFMC_EXPECTS(settings.size() == plan.groups.size() && !plan.groups.empty(),
               "one execution setting per simulation group");
  return dispatch_precision(settings.front().precision, [&](auto real_tag) {
    using Real = typename decltype(real_tag)::type;
    PlanRunner<Real> runner(plan, settings, progress, share);
    auto outcomes = runner.run();
    if (stats != nullptr)
      *stats = runner.stats();
    return outcomes;
  });
}

bool has_group_launcher(const GroupPlan& group, config::Precision precision,
                        const std::string& backend, int prefetch_distance) {
  return dispatch_precision(precision, [&](auto real_tag) {
    using Real = typename decltype(real_tag)::type;
    if (std::is_same_v<Real, float> && group.scenarios > 1)
      return false;
    return dispatch_model<Real>(group, [&](auto model_tag) {
      using Model = typename decltype(model_tag)::type;
      return find_launcher<Model, Real>(backend, prefetch_distance) != nullptr;
    });
  });
}

bool has_launcher(const std::string& backend, int prefetch_distance) {
  bool all = true;
  for (auto precision : {config::Precision::float32, config::Precision::float64}) {
    dispatch_precision(precision, [&](auto real_tag) {
      using Real = typename decltype(real_tag)::type;
      for (auto type : {config::ModelType::black_scholes}) {
        dispatch_model<Real>(type, 1, false, [&](auto model_tag) {
          using Model = typename decltype(model_tag)::type;
          all = all && find_launcher<Model, Real>(backend, prefetch_distance) != nullptr;
        });
      }
    });
  }
  return all;
}

} // namespace pfmc::engine
