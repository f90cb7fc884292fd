#pragma once
// The one runner of a plan, over the hardware that runs its paths: the CPU's threads
// (engine/run/cpu_engine.cpp) or a GPU's streams (engine/run/gpu_engine.cu). The walk is the
// same for both and lives here once: each group's range of paths (a share of a split run, or all
// of them), the draws' source and transforms, the draw units in order — the draws are defined by
// the sequence of generation calls (engine/draws/normal_source.hpp), so both runners must make
// the same calls — the chunking of a tiled group under the memory cap, the stop checks before
// each generation and launch, the progress reports, the timing marks and the outcomes.
//
// A runner derives from UnitRunner<Runner, Real> (CRTP: no virtual call, template hooks) and
// supplies what depends on the hardware:
//
//   using Mark;                       a time mark: `since(start)` in ms, once finish() returned
//   static constexpr NormalSource::Memory memory;   where its generators write
//   static constexpr int draw_buffers;              draw buffers that share the memory cap
//   static constexpr std::uint64_t max_draw_buffer_bytes;  and the most one of them holds
//   void attach(NormalSource&);       the stream a generator runs on (nothing on the CPU)
//   Real* acquire(std::size_t values);  the buffer the next generation call fills
//   void generated(); void consumed();  ordering: generation → the reads → the next generation
//   void mark_generation(Mark&); void mark_kernels(Mark&);
//   static constexpr bool marks_kernels_at_launch;  true: the kernels' start mark is recorded
//                                     by start_kernels() right before the first kernel is
//                                     enqueued (after the launch's host work and table copy)
//   void transform(Real*, values, groups, offsets, tiles);  the run's DrawTransforms
//   static constexpr bool buffers_philox;  Philox draws may go through a draw buffer; if so:
//   void generate_philox(const std::vector<kernels::DrawRequest<Real>>&);
//   template <class Model> void run_computing(const DrawUnit&);  groups that compute their draws
//   template <class Model> void launch_batch(const DrawUnit&, Real* draws);
//   template <class Model> class TiledLaunch;   (Runner&, g, chunk paths): operator()(draws,
//                                     first path, count, first chunk?) per chunk, then close()
//   void wait_for_progress(); void finish();
//   void sums(std::size_t g, GroupOutcome&);   group g's totals (and a share's stack)
//   static constexpr bool streams_outcomes;  true: sums_ready() gives a wait for the units
//                                     enqueued so far, after which their groups' sums() may be
//                                     read on another thread while the run goes on (the GPU's)
//   std::function<void()> sums_ready();

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "base/parallel_ranges.hpp"
#include "base/trace.hpp"
#include "engine/core/execution.hpp"
#include "engine/core/interrupt.hpp"
#include "engine/draws/draw_plan.hpp"
#include "engine/draws/draw_transform.hpp"
#include "engine/draws/normal_source.hpp"
#include "engine/plan/plan.hpp"
#include "engine/run/model_dispatch.hpp"
#include "engine/run/unit_stream.hpp"
#include "engine/scale/work_split.hpp"
#include "kernels/draw_layout.hpp"
#include "kernels/generate_draws.hpp"

namespace pfmc::engine {

/// Progress reports of a run come at most this often (and after its last unit): each waits for
/// the device.
inline constexpr std::chrono::milliseconds kProgressInterval{100};

template <class Runner, class Real>
class UnitRunner {
public:
  /// run: the run-wide settings (precision, rng, seed, paths, memory cap, draw batch,
  /// transforms); share: each group's range of paths (null: all of them); computes_draws[g]:
  /// group g's paths compute their draws (no buffer, no generation).
  UnitRunner(const SimulationPlan& plan, const ExecutionSettings& run, const ProgressFn& progress,
             const WorkShare* share, std::vector<bool> computes_draws)
      : plan_(plan), run_(run), progress_(progress), keep_stacks_(share != nullptr),
        computes_draws_(std::move(computes_draws)),
        transforms_(plan, run.antithetic, run.brownian_bridge) {
    philox_ = run_.rng == config::RngType::philox;
    quasi_ = run_.rng == config::RngType::sobol || run_.rng == config::RngType::scrambled_sobol;
    ranges_ = share != nullptr ? share->ranges : whole_run(plan.groups.size(), run_.paths).ranges;
    launches_of_.assign(plan.groups.size(), 0);
    group_paths_.reserve(ranges_.size());
    for (const PathRange& r : ranges_) {
      PFMC_EXPECTS(philox_ || (r == PathRange{0, run_.paths}),
                   "only counter-based draws run a share of a group");
      group_paths_.push_back(r.empty() ? 0 : r.count());
    }
  }

  [[nodiscard]] PlanStats stats() const { return stats_; }

  /// Each group's outcome goes to `sink` as soon as its sums are final (null: none); run()
  /// still returns them all. The sink must outlive run().
  void set_sink(const OutcomeSink* sink) { sink_ = sink; }

  /// The plan's draw units in order, then the groups' outcomes.
  std::vector<GroupOutcome> run() {
    if (!quasi_ && !philox_) { // one generator for the whole run, in plan order
      pseudo_.emplace(run_.rng, run_.seed, Runner::memory);
      runner().attach(*pseudo_);
    }
    base::TraceSpan units_span("gpu run: draw units");
    const auto units = plan_draw_units(plan_, run_.rng, group_paths_, sizeof(Real),
                                       run_.draw_batch_bytes, computes_draws_, run_.unit_groups);
    units_span.end();
    std::uint64_t paths = 0, paths_done = 0;
    for (std::uint64_t p : group_paths_)
      paths += p;
    std::vector<GroupOutcome> out(plan_.groups.size());
    // A run of several units whose sums a runner can read while it goes on hands each unit's
    // groups to the sink as the unit ends (a share's stacks are read after the run: not then).
    std::optional<UnitStream> stream;
    if constexpr (Runner::streams_outcomes) {
      if (sink_ != nullptr && !keep_stacks_ && units.size() > 1)
        stream.emplace([this, &out](std::size_t g) { finish_group(g, out[g]); });
    }
    auto reported = std::chrono::steady_clock::now();
    for (std::size_t u = 0; u < units.size(); ++u) {
      throw_if_stopped(); // no new generation or launch once asked to stop
      const DrawUnit& unit = units[u];
      const base::TraceSpan span("unit");
      const GroupPlan& first = plan_.groups[static_cast<std::size_t>(unit.groups.front())];
      dispatch_model<Real>(first, [&](auto model_tag) {
        using Model = typename decltype(model_tag)::type;
        if (unit.computes_draws) {
          runner().template run_computing<Model>(unit);
        } else if (unit.batched) {
          run_batch<Model>(unit);
        } else {
          run_tiled<Model>(unit.groups.front());
        }
      });
      ++stats_.draw_units;
      if constexpr (Runner::streams_outcomes) {
        if (stream)
          stream->post(runner().sums_ready(), unit.groups);
      }
      for (int g : unit.groups)
        paths_done += group_paths_[static_cast<std::size_t>(g)];
      // A report waits for the device to finish the unit: at most one each kProgressInterval,
      // and the last unit's, so that a short run of several units (the 8,192-group book: four)
      // stages the next unit while the GPU runs this one, as it does without a progress line.
      const auto now = std::chrono::steady_clock::now();
      if (progress_ && (u + 1 == units.size() || now - reported >= kProgressInterval)) {
        reported = now;
        runner().wait_for_progress();
        progress_(Progress{unit.groups.back(), static_cast<int>(plan_.groups.size()), u + 1,
                           units.size(), first.model_name, paths_done, paths});
      }
    }
    runner().finish();
    const base::TraceSpan outcomes_span("outcomes");
    if (stream) {
      stream->close(); // every unit was posted: every group finished
    } else {
      // Each group's outcome (and the sink's work) apart, on a few threads.
      const std::size_t groups = plan_.groups.size();
      const std::size_t per_thread =
          sink_ != nullptr ? kFinishItemsPerThread : base::kLightItemsPerThread;
      const base::FirstFailure failed =
          base::parallel_ranges(groups, base::threads_for(groups, per_thread),
                                [&](std::size_t g, std::size_t) { finish_group(g, out[g]); });
      if (failed.error)
        std::rethrow_exception(failed.error);
    }
    add_times(out);
    return out;
  }

protected:
  /// Timing marks of one unit: generation and kernels, read after the run. weights: each
  /// group's share of the unit's work.
  struct UnitMarks {
    std::vector<int> groups;
    std::vector<double> weights;
    std::vector<std::pair<typename Runner::Mark, typename Runner::Mark>> generation, kernels;
  };

  /// Starts the marks of a unit whose groups share its work equally.
  UnitMarks& unit_marks(const std::vector<int>& groups) {
    UnitMarks& marks = marks_.emplace_back();
    marks.groups = groups;
    marks.weights.assign(groups.size(), 1.0 / static_cast<double>(groups.size()));
    return marks;
  }

  /// Marks the kernels `launch` enqueues (or runs, on the CPU). A runner that marks kernels at
  /// launch (the GPU's) records the start in start_kernels(), called right before it enqueues
  /// the first kernel: the launch's host work (the 8,192-group book's table: about 0.6 ms,
  /// docs/decisions.md#kernel-timing) and the table's copy do not count as the kernels' time.
  template <class F>
  void timed_kernels(UnitMarks& marks, F&& launch) {
    auto& span = marks.kernels.emplace_back();
    if constexpr (Runner::marks_kernels_at_launch) {
      pending_start_ = &marks; // its last span's start
    } else {
      runner().mark_kernels(span.first);
    }
    launch();
    PFMC_EXPECTS(pending_start_ == nullptr, "a timed launch enqueued no kernel");
    runner().mark_kernels(span.second);
  }

  /// The pending start mark of timed_kernels, recorded now (once; nothing outside it).
  void start_kernels() {
    if (pending_start_ != nullptr) {
      runner().mark_kernels(pending_start_->kernels.back().first);
      pending_start_ = nullptr;
    }
  }

  /// An early-exercise group's regression pass: its wall time and its paths' steps.
  void add_regression(int g, double ms, std::uint64_t path_steps) {
    ExerciseCost& cost = exercise_cost_[g];
    cost.ms += ms;
    cost.path_steps += path_steps;
  }

  const SimulationPlan& plan_;
  const ExecutionSettings& run_;
  const ProgressFn& progress_;
  bool keep_stacks_ = false; ///< a share's run keeps each group's stack of tile blocks
  bool philox_ = false;
  bool quasi_ = false;
  std::vector<bool> computes_draws_;       ///< per group: its paths compute their draws
  std::vector<PathRange> ranges_;          ///< per group: the paths this run covers
  std::vector<std::uint64_t> group_paths_; ///< per group: their count (0: none)
  DrawTransforms transforms_;
  PlanStats stats_;
  std::vector<std::uint64_t> launches_of_; ///< per group: its launches (CPU: passes)

private:
  Runner& runner() { return static_cast<Runner&>(*this); }

  /// Generation into `draws`, between two marks: the request's Philox draws, or the run's
  /// generator's `values`, or `tiles` of a quasi-random group's own generator; then the
  /// transforms.
  template <class Generate>
  void generate(UnitMarks& marks, Real* draws, Generate&& call, std::size_t values,
                const std::vector<int>& groups, const std::vector<std::size_t>& offsets,
                std::uint64_t tiles) {
    auto& span = marks.generation.emplace_back();
    runner().mark_generation(span.first);
    call();
    runner().transform(draws, values, groups, offsets, tiles);
    runner().mark_generation(span.second);
    runner().generated();
  }

  /// Philox draws into a buffer, where the runner has them there (the CPU computes them in its
  /// blocks: every Philox group of its runs computes its draws, so no unit gets here).
  void generate_philox(const std::vector<kernels::DrawRequest<Real>>& requests) {
    PFMC_EXPECTS(Runner::buffers_philox, "this runner computes Philox draws where it uses them");
    if constexpr (Runner::buffers_philox)
      runner().generate_philox(requests);
  }

  /// A draw batch: one generation call for all its groups (of as many paths each), then their
  /// launch.
  template <class Model>
  void run_batch(const DrawUnit& unit) {
    UnitMarks& marks = marks_.emplace_back();
    marks.groups = unit.groups;
    std::size_t total_values = 0;
    for (int g : unit.groups) {
      const std::size_t values = group_draw_values(plan_.groups[static_cast<std::size_t>(g)],
                                                   group_paths_[static_cast<std::size_t>(g)]);
      marks.weights.push_back(static_cast<double>(values));
      total_values += values;
    }
    for (double& w : marks.weights)
      w /= static_cast<double>(total_values);
    const PathRange range = ranges_[static_cast<std::size_t>(unit.groups.front())];
    Real* draws = runner().acquire(unit.values);
    generate(
        marks, draws,
        [&] {
          if (philox_) {
            std::vector<kernels::DrawRequest<Real>> requests;
            for (std::size_t m = 0; m < unit.groups.size(); ++m) {
              const auto g = static_cast<std::size_t>(unit.groups[m]);
              requests.push_back({draws + unit.offsets[m], ranges_[g].first, ranges_[g].count(),
                                  static_cast<std::uint32_t>(plan_.groups[g].index),
                                  plan_.groups[g].rows()});
            }
            generate_philox(requests);
          } else {
            pseudo_->generate(draws, unit.values);
            ++stats_.generation_calls;
          }
        },
        unit.values, unit.groups, unit.offsets, kernels::draw_tiles_for(range.count()));
    timed_kernels(marks, [&] { runner().template launch_batch<Model>(unit, draws); });
    runner().consumed();
    for (int g : unit.groups)
      launches_of_[static_cast<std::size_t>(g)] = 1;
  }

  /// A tiled group: chunk after chunk under the memory cap, one generation call per draw tile.
  template <class Model>
  void run_tiled(int g) {
    const GroupPlan& group = plan_.groups[static_cast<std::size_t>(g)];
    const PathRange range = ranges_[static_cast<std::size_t>(g)];
    const ChunkPlan chunking =
        plan_chunks(range.count(), group.rows(), sizeof(Real), group.reduced_values(),
                    std::min<std::uint64_t>(run_.memory_cap / Runner::draw_buffers,
                                            Runner::max_draw_buffer_bytes));
    PFMC_EXPECTS(chunking.chunk_paths > 0, "memory cap below one tile of paths");
    std::optional<NormalSource> own; // a quasi-random group's generator, over its dimensions
    NormalSource* source = pseudo_ ? &*pseudo_ : nullptr;
    if (quasi_) {
      own.emplace(run_.rng, run_.seed, Runner::memory, group.rows(), run_.replicate);
      runner().attach(*own);
      source = &*own;
    }
    typename Runner::template TiledLaunch<Model> launch(runner(), g, chunking.chunk_paths);
    UnitMarks& marks = unit_marks({g});
    for (std::uint64_t chunk = 0; chunk < chunking.chunks; ++chunk) {
      throw_if_stopped(); // no new generation or launch once asked to stop
      const std::uint64_t first = range.first + chunk * chunking.chunk_paths;
      const std::size_t count =
          static_cast<std::size_t>(std::min(chunking.chunk_paths, range.end - first));
      const std::uint64_t tiles = kernels::draw_tiles_for(count);
      const std::size_t values =
          tiles * static_cast<std::size_t>(group.rows()) * kernels::kDrawTilePaths;
      Real* draws = runner().acquire(values);
      generate(
          marks, draws,
          [&] {
            if (philox_) {
              generate_philox(
                  {{draws, first, count, static_cast<std::uint32_t>(group.index), group.rows()}});
            } else {
              source->next_tiles(draws, tiles, group.rows());
              stats_.generation_calls += tiles;
            }
          },
          values, {g}, {0}, tiles);
      timed_kernels(marks, [&] { launch(draws, first, count, chunk == 0); });
      runner().consumed();
    }
    launch.close();
    launches_of_[static_cast<std::size_t>(g)] = chunking.chunks;
  }

  /// Group g's outcome but for its share of the units' times, then the sink's work on it
  /// (read-only on the runner: the groups' outcomes are made on several threads, and a stream's
  /// while the run goes on).
  void finish_group(std::size_t g, GroupOutcome& o) {
    group_outcome(g, o);
    if (sink_ != nullptr)
      (*sink_)(g, o);
  }

  void group_outcome(std::size_t g, GroupOutcome& o) {
    const GroupPlan& group = plan_.groups[g];
    o.range = ranges_[g];
    o.paths = group_paths_[g];
    if (o.paths == 0) { // none of this group in the share
      o.totals.assign(static_cast<std::size_t>(group.reduced_values()), 0.0);
      return;
    }
    runner().sums(g, o);
    o.path_steps = o.paths * static_cast<std::uint64_t>(group.steps());
    o.bytes_loaded =
        computes_draws_[g] ? 0.0 : static_cast<double>(o.paths) * group.rows() * sizeof(Real);
    o.chunks = launches_of_[g];
    if (const auto cost = exercise_cost_.find(static_cast<int>(g)); cost != exercise_cost_.end()) {
      o.regression_ms = cost->second.ms;
      o.regression_path_steps = cost->second.path_steps;
    }
  }

  /// Each group's share of its units' generation and kernel times, once the run has ended.
  void add_times(std::vector<GroupOutcome>& out) {
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
  }

  struct ExerciseCost {
    double ms = 0.0;
    std::uint64_t path_steps = 0;
  };
  /// The marks whose last span's start timed_kernels left to start_kernels() (runners that mark
  /// at launch), until it is recorded.
  UnitMarks* pending_start_ = nullptr;
  const OutcomeSink* sink_ = nullptr;
  std::optional<NormalSource> pseudo_; ///< MRG32k3a: the run's one generator
  std::vector<UnitMarks> marks_;
  std::map<int, ExerciseCost> exercise_cost_;
};

} // namespace pfmc::engine
