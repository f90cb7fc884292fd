#include "engine/run/gpu_engine.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/trace.hpp"
#include "engine/core/device_info.hpp"
#include "engine/core/interrupt.hpp"
#include "engine/run/device_unit.cuh"
#include "engine/run/device_workspace.hpp"
#include "engine/run/exercise.hpp"
#include "engine/run/gpu_streams.hpp"
#include "engine/run/model_dispatch.hpp"
#include "engine/run/unit_runner.hpp"
#include "kernels/generate_draws.hpp"

namespace pfmc::engine {

namespace {

/// Per group: its backend computes its draws (`inline`), or it has early exercise, whose kernel
/// computes its draws (kernels/launcher_table.cuh).
std::vector<bool> computes_draws(const SimulationPlan& plan,
                                 const std::vector<ExecutionSettings>& settings) {
  std::vector<bool> computes;
  computes.reserve(settings.size());
  const kernels::BackendInfo* info = nullptr;
  for (std::size_t g = 0; g < settings.size(); ++g) {
    if (g == 0 || settings[g].backend != settings[g - 1].backend) // (one lookup a run of them)
      info = kernels::find_backend(settings[g].backend);
    computes.push_back(plan.groups[g].exercise.present() ||
                       (info != nullptr && !info->reads_draws));
  }
  return computes;
}

/// The GPU's side of the one runner (engine/run/unit_runner.hpp): generation on the rng stream
/// into two draw buffers, kernels on the compute stream reading the other, each unit's device
/// state (engine/run/device_unit.cuh) reducing its groups' sums in the kernel; the host waits
/// only at the end (or once per unit when a progress line is wanted), and stays at most two
/// launches ahead of the GPU.
template <class Real>
class GpuRunner : public UnitRunner<GpuRunner<Real>, Real> {
  using Base = UnitRunner<GpuRunner<Real>, Real>;
  friend Base;

public:
  /// settings[g]: group g's backend, distance and padding; the run-wide ones from settings[0].
  /// The workspace (its streams, draw buffers, pinned memory) must outlive the runner: what the
  /// runner and its base allocate or generate is ordered on its streams.
  GpuRunner(const SimulationPlan& plan, const std::vector<ExecutionSettings>& settings,
            const ProgressFn& progress, const WorkShare* share, DeviceWorkspace& workspace,
            RegressionShare* regression)
      : Base(plan, settings.front(), progress, share, computes_draws(plan, settings)),
        settings_(settings), ws_(workspace), rng_stream_(workspace.rng_stream()),
        compute_stream_(workspace.compute_stream()), multiprocessors_(workspace.multiprocessors()),
        regression_(regression) {
    ws_.begin_run(settings.front().memory_cap);
    // Where each group's totals land in the pinned buffer.
    std::size_t total = 0;
    for (const auto& g : plan.groups) {
      totals_offset_.push_back(total);
      total += static_cast<std::size_t>(g.reduced_values());
    }
    totals_ = ws_.pinned().template take<double>(total);
  }

private:
  using Mark = CudaEvent;
  static constexpr NormalSource::Memory memory = NormalSource::Memory::device;
  static constexpr int draw_buffers = 2; // generation of one overlaps the kernels reading the other
  /// A draw buffer holds at most this much, whatever the cap: a fresh process's first buffers
  /// are the device's pool growing: bandwidth_bound's 48 GB of draws in one buffer took 90 ms
  /// to map, 12 GB on each of 4 devices at once 45–80 ms, where the run's kernels took 26 and
  /// 6.7 ms (H200, docs/decisions.md#device-workspace). Results do not depend on the chunking.
  static constexpr std::uint64_t max_draw_buffer_bytes = std::uint64_t{1} << 30;
  static constexpr bool buffers_philox = true; // for the backends that read draws

  void attach(NormalSource& source) { source.set_stream(rng_stream_); }
  Real* acquire(std::size_t values) { return ws_.draws().template acquire<Real>(values); }
  void generated() { ws_.draws().generated(); }
  void consumed() { ws_.draws().consumed(); }
  void mark_generation(Mark& mark) { mark.record(rng_stream_); }
  void mark_kernels(Mark& mark) { mark.record(compute_stream_); }
  static constexpr bool marks_kernels_at_launch = true;
  void transform(Real* draws, std::size_t values, const std::vector<int>& groups,
                 const std::vector<std::size_t>& offsets, std::uint64_t tiles) {
    this->transforms_.apply(draws, values, groups, offsets, tiles, rng_stream_);
  }

  void wait_for_progress() {
    PFMC_CUDA_TRY(cudaStreamSynchronize(compute_stream_));
    ++this->stats_.host_syncs;
  }
  /// The copies of the units' totals are on the compute stream, behind their kernels: a unit's
  /// sums are on the host once an event recorded after it has passed (waited for on the unit
  /// stream's thread, which must make the device current first).
  static constexpr bool streams_outcomes = true;
  std::function<void()> sums_ready() {
    auto event = std::make_shared<CudaEvent>(cudaEventDisableTiming);
    event->record(compute_stream_);
    return [event, device = ws_.device()] {
      PFMC_CUDA_TRY(cudaSetDevice(device));
      event->synchronize();
    };
  }
  void finish() {
    const base::TraceSpan span("gpu run: wait for the device", ws_.device());
    PFMC_CUDA_TRY(cudaStreamSynchronize(compute_stream_));
    PFMC_CUDA_TRY(cudaStreamSynchronize(rng_stream_));
    this->stats_.host_syncs += 2;
  }

  /// Group g's totals, and a share's stack of tile blocks, from the pinned buffers.
  void sums(std::size_t g, GroupOutcome& o) {
    const std::size_t values = static_cast<std::size_t>(this->plan_.groups[g].reduced_values());
    o.totals.assign(totals_ + totals_offset_[g], totals_ + totals_offset_[g] + values);
    if (const auto at = stack_at_.find(static_cast<int>(g)); at != stack_at_.end()) {
      const int depth = kernels::tile_blocks(o.range.first / kernels::kTilePaths,
                                             kernels::tiles_for_paths(o.range.end));
      o.stack.assign(at->second, at->second + static_cast<std::size_t>(depth) * values);
    }
  }

  /// A launch is enqueued: pace the host, count it.
  void launched() {
    ws_.pacer().launched(compute_stream_);
    ++this->stats_.kernel_launches;
  }

  /// A unit's launches are enqueued: start the copy of its groups' totals (and a share's stacks,
  /// read once the run has synchronised).
  template <class Model>
  void collect(const DeviceUnit<Model, Real>& device, const std::vector<int>& groups) {
    device.copy_totals(totals_ + totals_offset_[static_cast<std::size_t>(groups.front())]);
    if (!this->keep_stacks_)
      return;
    std::size_t values = 0;
    for (int v : device.values())
      values += static_cast<std::size_t>(v);
    double* host = ws_.pinned().template take<double>(
        values * static_cast<std::size_t>(device.stack_capacity()));
    device.copy_stacks(host);
    std::size_t offset = 0;
    for (std::size_t m = 0; m < groups.size(); ++m) {
      stack_at_[groups[m]] = host + offset;
      offset += static_cast<std::size_t>(device.values()[m]) * device.stack_capacity();
    }
  }

  /// The launch shape of a unit: the settings' block size, the loader's paths per thread, the
  /// passes and rounds for the unit's paths per launch, and whether its launches take the
  /// entry's wide instantiation (one wave: fits_one_wide_wave); loads the kernel it launches.
  template <class Model>
  LaunchShape shape_for(const typename DeviceUnit<Model, Real>::Entry& entry,
                        const std::vector<const GroupPlan*>& groups, std::uint64_t launch_paths) {
    int steps = 0, values = 0;
    for (const GroupPlan* g : groups) {
      steps = std::max(steps, g->steps());
      values = std::max(values, g->reduced_values());
    }
    LaunchShape shape;
    shape.block_size = this->run_.block_size;
    shape.paths_per_thread = entry.paths_per_thread;
    shape.rounds = round_shape(launch_paths, steps, Model::factors, entry.paths_per_thread,
                               this->run_.block_size, values, multiprocessors_);
    // Each group's blocks rounded up: at most one more block a group than the paths need.
    const std::uint64_t blocks =
        groups.size() + launch_paths / static_cast<std::uint64_t>(shape.block_paths());
    shape.one_wide_wave = kernels::fits_one_wide_wave(blocks, shape.block_size, multiprocessors_);
    shape.terminal_blocks_per_cta = this->run_.terminal_blocks_per_cta;
    shape.compile_at_runtime = this->run_.compile_at_runtime;
    shape.all_terminal = this->run_.terminal_kernels &&
                         std::all_of(groups.begin(), groups.end(),
                                     [](const GroupPlan* g) { return one_step_terminal(*g); });
    load(entry.loader(shape.variant_for(entry), shape.compile_at_runtime));
    return shape;
  }

  /// Loads a kernel's code before its first launch (CUDA loads modules lazily: the first launch
  /// of a kernel in a process would otherwise count its loading as kernel time).
  void load(void (*load_kernel)()) {
    if (!loaded_.insert(reinterpret_cast<void*>(load_kernel)).second)
      return;
    const auto start = std::chrono::steady_clock::now();
    const base::TraceSpan span("gpu run: load kernel", ws_.device());
    load_kernel();
    this->stats_.kernel_load_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  template <class Model>
  const typename DeviceUnit<Model, Real>::Entry& launcher_of(int g) {
    const ExecutionSettings& s = settings_[static_cast<std::size_t>(g)];
    return DeviceUnit<Model, Real>::launcher(s.backend, s.prefetch_distance);
  }

  /// Philox draws of the given groups' paths (one generation launch), on the rng stream.
  void generate_philox(const std::vector<kernels::DrawRequest<Real>>& requests) {
    const base::TraceSpan span("enqueue draws", ws_.device());
    DeviceBuffer<unsigned char> table(kernels::generate_table_bytes(requests.size()), rng_stream_);
    kernels::generate_philox_draws<Real>(requests, this->run_.seed, this->run_.fast_math,
                                         table.data(), rng_stream_);
    ++this->stats_.generation_calls;
  }

  /// A draw batch: one launch for all its groups, each reading its part of the buffer.
  template <class Model>
  void launch_batch(const DrawUnit& unit, Real* draws) {
    const int g0 = unit.groups.front();
    const ExecutionSettings& s = settings_[static_cast<std::size_t>(g0)];
    const auto& entry = launcher_of<Model>(g0);
    std::vector<const GroupPlan*> groups;
    std::vector<typename DeviceUnit<Model, Real>::Chunk> chunks;
    for (std::size_t m = 0; m < unit.groups.size(); ++m) {
      const auto g = static_cast<std::size_t>(unit.groups[m]);
      groups.push_back(&this->plan_.groups[g]);
      const PathRange& r = this->ranges_[g];
      chunks.push_back({static_cast<int>(m), draws + unit.offsets[m], r.first,
                        static_cast<int>(r.count()), true});
    }
    // A batch's groups have as many paths (engine/draws/draw_plan.hpp).
    const std::uint64_t paths = this->ranges_[static_cast<std::size_t>(g0)].count();
    DeviceUnit<Model, Real> device(groups, paths,
                                   shape_for<Model>(entry, groups, paths * groups.size()),
                                   compute_stream_, {}, 0, &ws_.pinned());
    device.launch(entry, chunks, s.prefetch_distance, s.padding, this->run_.seed, s.reduce,
                  [this] { this->start_kernels(); });
    launched();
    collect(device, unit.groups);
  }

  /// A tiled group's device state; each chunk one launch.
  template <class Model>
  class TiledLaunch {
  public:
    TiledLaunch(GpuRunner& runner, int g, std::uint64_t chunk_paths)
        : runner_(runner), g_(g), settings_(runner.settings_[static_cast<std::size_t>(g)]),
          entry_(runner.template launcher_of<Model>(g)),
          device_({&runner.plan_.groups[static_cast<std::size_t>(g)]}, chunk_paths,
                  runner.template shape_for<Model>(
                      entry_, {&runner.plan_.groups[static_cast<std::size_t>(g)]}, chunk_paths),
                  runner.compute_stream_, {}, runner.ranges_[static_cast<std::size_t>(g)].count(),
                  &runner.ws_.pinned()) {}
    void operator()(Real* draws, std::uint64_t first, std::size_t count, bool first_chunk) {
      device_.launch(entry_, {{0, draws, first, static_cast<int>(count), first_chunk}},
                     settings_.prefetch_distance, settings_.padding, runner_.run_.seed,
                     settings_.reduce, [this] { runner_.start_kernels(); });
      runner_.launched();
    }
    void close() { runner_.collect(device_, {g_}); }

  private:
    GpuRunner& runner_;
    int g_;
    const ExecutionSettings& settings_;
    const typename DeviceUnit<Model, Real>::Entry& entry_;
    DeviceUnit<Model, Real> device_;
  };

  /// Early exercise's regression pass for one group (models/exercise.cuh): its paths record
  /// their levels at the exercise dates, then each date's regression is reduced on the device
  /// and fitted on the host, backwards from the maturity. A split run's workers share it
  /// (regression_): each records and sums its range of the paths. Returns the rule
  /// ([rule][date][basis]).
  template <class Model>
  std::vector<double> fit_rule(int g) {
    const GroupPlan& group = this->plan_.groups[static_cast<std::size_t>(g)];
    const ExercisePlan& plan = group.exercise;
    const auto start = std::chrono::steady_clock::now();
    base::TraceSpan record_span("regression: record", ws_.device());
    cudaStream_t stream = compute_stream_;
    const PathRange records = regression_ != nullptr ? regression_->range(plan.regression_paths)
                                                     : PathRange{0, plan.regression_paths};
    const std::uint64_t paths = records.count();
    const std::uint64_t per_level = static_cast<std::uint64_t>(plan.dates()) * paths;
    DeviceBuffer<Real> levels(static_cast<std::size_t>(plan.levels) * per_level, stream);
    DeviceBuffer<Real> variances(plan.basis.two_variables ? per_level : 0, stream);
    ExerciseRun<Real> run;
    run.levels = levels.data();
    run.variances = plan.basis.two_variables ? variances.data() : nullptr;
    run.records = records;
    if (paths > 0) {
      const auto& entry = DeviceUnit<Model, Real>::exercise_launcher();
      const std::uint64_t chunk_paths = std::min(paths, kMaxChunkPaths);
      DeviceUnit<Model, Real> device({&group}, chunk_paths,
                                     shape_for<Model>(entry, {&group}, chunk_paths), stream, {run},
                                     0, &ws_.pinned());
      for (std::uint64_t first = records.first; first < records.end; first += chunk_paths) {
        throw_if_stopped();
        const int count = static_cast<int>(std::min(chunk_paths, records.end - first));
        device.launch(entry, {{0, nullptr, first, count, first == records.first}}, 0,
                      config::Padding{}, this->run_.seed, /*reduce=*/false);
        launched();
      }
    }
    record_span.end();
    const base::TraceSpan induce_span("regression: induce", ws_.device());
    std::vector<double> rule = induce_rule_on_device<Real>(
        plan, levels.data(), run.variances, records, regression_, stream, this->stats_);
    this->add_regression(
        g,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
        paths * static_cast<std::uint64_t>(group.steps()));
    return rule;
  }

public:
  /// Every early-exercise group's rule, in the plan's order, before any unit runs: the workers of
  /// a split run fit them together, each taking part in every group's fit whatever its share of
  /// the group's priced paths.
  void fit_rules() {
    for (std::size_t g = 0; g < this->plan_.groups.size(); ++g) {
      const GroupPlan& group = this->plan_.groups[g];
      if (!group.exercise.present())
        continue;
      dispatch_model<Real>(group, [&](auto model_tag) {
        using Model = typename decltype(model_tag)::type;
        rules_[static_cast<int>(g)] = fit_rule<Model>(static_cast<int>(g));
      });
    }
  }

private:
  /// Groups whose backend computes its draws: no generation, one launch for all of them (per
  /// chunk of kMaxChunkPaths paths). Early-exercise groups (a unit of their own) fit their rules
  /// first and price with the early-exercise kernel.
  template <class Model>
  void run_computing(const DrawUnit& unit) {
    std::vector<const GroupPlan*> groups;
    groups.reserve(unit.groups.size());
    for (int g : unit.groups)
      groups.push_back(&this->plan_.groups[static_cast<std::size_t>(g)]);
    const bool exercise = groups.front()->exercise.present();
    std::vector<ExerciseRun<Real>> exercise_runs;
    if (exercise) {
      for (int g : unit.groups)
        exercise_runs.push_back(ExerciseRun<Real>{&rules_.at(g), nullptr, nullptr, {}});
    }
    const int g0 = unit.groups.front();
    const ExecutionSettings& s = settings_[static_cast<std::size_t>(g0)];
    const auto& entry =
        exercise ? DeviceUnit<Model, Real>::exercise_launcher() : launcher_of<Model>(g0);
    std::uint64_t range_paths = 0;
    std::uint64_t unit_steps = 0; // a path of each group
    for (int g : unit.groups) {
      range_paths = std::max(range_paths, this->group_paths_[static_cast<std::size_t>(g)]);
      unit_steps += static_cast<std::uint64_t>(
          std::max(1, this->plan_.groups[static_cast<std::size_t>(g)].steps()));
    }
    // Whole tiles, at most kMaxLaunchPathSteps a launch (results do not depend on the chunking).
    const std::uint64_t stop_paths =
        std::max<std::uint64_t>(kMaxLaunchPathSteps / unit_steps / kernels::kTilePaths, 1) *
        kernels::kTilePaths;
    const std::uint64_t chunk_paths = std::min({range_paths, kMaxChunkPaths, stop_paths});
    const std::uint64_t chunks = (range_paths + chunk_paths - 1) / chunk_paths;
    DeviceUnit<Model, Real> device(groups, chunk_paths,
                                   shape_for<Model>(entry, groups, chunk_paths * groups.size()),
                                   compute_stream_, exercise_runs, range_paths, &ws_.pinned());
    auto& marks = this->unit_marks(unit.groups);
    for (std::uint64_t c = 0; c < chunks; ++c) {
      throw_if_stopped(); // no new launch once asked to stop
      std::vector<typename DeviceUnit<Model, Real>::Chunk> launch_chunks;
      launch_chunks.reserve(groups.size());
      for (std::size_t m = 0; m < groups.size(); ++m) {
        const PathRange& r = this->ranges_[static_cast<std::size_t>(unit.groups[m])];
        const std::uint64_t first = r.first + c * chunk_paths;
        if (first < r.end) {
          const int count = static_cast<int>(std::min(chunk_paths, r.end - first));
          launch_chunks.push_back({static_cast<int>(m), nullptr, first, count, c == 0});
        }
      }
      this->timed_kernels(marks, [&] {
        device.launch(entry, launch_chunks, s.prefetch_distance, s.padding, this->run_.seed,
                      s.reduce, [this] { this->start_kernels(); });
        launched();
      });
    }
    collect(device, unit.groups);
    for (int g : unit.groups)
      this->launches_of_[static_cast<std::size_t>(g)] = chunks;
  }

  const std::vector<ExecutionSettings>& settings_;
  DeviceWorkspace& ws_;
  cudaStream_t rng_stream_;
  cudaStream_t compute_stream_;
  int multiprocessors_ = 1;
  std::vector<std::size_t> totals_offset_;
  double* totals_ = nullptr; ///< every group's totals, in the workspace's pinned memory
  std::set<void*> loaded_;   ///< kernels whose code this run has loaded
  /// A share's run: where each group's stack of tile blocks lands (its first block).
  std::map<int, const double*> stack_at_;
  RegressionShare* regression_ = nullptr;    ///< a split run's shared regression pass, if any
  std::map<int, std::vector<double>> rules_; ///< every early-exercise group's fitted rule
};

} // namespace

std::vector<GroupOutcome> run_plan_on_gpu(const SimulationPlan& plan,
                                          const std::vector<ExecutionSettings>& settings,
                                          const ProgressFn& progress, PlanStats* stats,
                                          const WorkShare* share, int slot,
                                          RegressionShare* regression, const OutcomeSink* sink) {
  PFMC_EXPECTS(settings.size() == plan.groups.size() && !plan.groups.empty(),
               "one execution setting per simulation group");
  return dispatch_precision(settings.front().precision, [&](auto real_tag) {
    using Real = typename decltype(real_tag)::type;
    base::TraceSpan setup("gpu run: workspace", -1);
    const WorkspaceLease workspace(slot);
    std::optional<GpuRunner<Real>> runner;
    runner.emplace(plan, settings, progress, share, *workspace, regression);
    runner->set_sink(sink);
    setup.end();
    runner->fit_rules();
    auto outcomes = runner->run();
    if (stats != nullptr)
      *stats = runner->stats();
    const base::TraceSpan teardown("gpu run: teardown", -1);
    runner.reset();
    return outcomes;
  });
}

} // namespace pfmc::engine
