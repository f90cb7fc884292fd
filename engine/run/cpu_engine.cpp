#include "engine/run/cpu_engine.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "engine/core/interrupt.hpp"
#include "engine/draws/cpu_draws.hpp"
#include "engine/draws/draw_plan.hpp"
#include "engine/draws/draw_transform.hpp"
#include "engine/draws/normal_source.hpp"
#include "engine/run/exercise.hpp"
#include "engine/run/model_dispatch.hpp"
#include "engine/run/unit_runner.hpp"
#include "engine/scale/partial_sums.hpp"
#include "engine/scale/work_split.hpp"
#include "kernels/draw_layout.hpp"
#include "kernels/reduction_shape.cuh"
#include "kernels/value_layout.cuh"
#include "models/path.cuh"
#include "models/pathwise.cuh"

namespace pfmc::engine {

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Paths per job of the worker threads: a power of two dividing a reduction tile, so that each
/// job's sums are a subtree of the tile's (kernels/reduction_shape.cuh).
constexpr int kBlockPaths = 128;
/// Steps of Philox draws generated at a time per block (the block's draws of them stay in L1/L2).
constexpr int kStepsPerPiece = 64;

/// Where a block's draws come from: a chunk's buffer of draw tiles (cuRAND's generators), or
/// the counter-based generator, computed block by block.
template <class Real>
struct DrawSource {
  const Real* normals = nullptr; ///< the chunk's tiles; null: Philox
  std::uint64_t chunk_first = 0; ///< the chunk's first path in the group
  std::uint64_t seed = 0;
  bool antithetic = false;
  BrownianBridge* bridge = nullptr; ///< Philox with a bridge: built per group
  std::uint32_t draw_group = 0;     ///< Philox: the counter's group word
  bool fast = false;                ///< Philox: the fast math profile's (Philox4x32-7)
};

/// What a block does besides simulating: early exercise's table (or none), and whether it pays
/// off and reduces (the regression pass only records).
template <class Real>
struct BlockRole {
  const models::ExerciseTable<Real>* exercise = nullptr;
  bool pay = true;
};

/// Raw estimates of one path at their places in the ValueLayout (their squares come after the
/// antithetic pair means): each instrument's y, c, g... (models::path_estimates, as the kernel
/// computes them), then the portfolio's value.
template <class Value>
void pay_path(const GroupPlan& group, const Value* observed, double* out) {
  const kernels::ValueLayout layout = group.value_layout();
  const models::EstimateSpec spec = group.estimate_spec();
  const auto observed_at = [&](int o) { return observed[o]; };
  double portfolio = 0.0;
  for (int j = 0; j < layout.instruments; ++j) {
    const models::InstrumentView* scenarios = &group.base_instrument(j); // [scenario]
    double* o = out + layout.instrument(j);
    double y = 0.0, c = 0.0;
    double g[models::kMaxGreeks] = {};
    models::path_estimates(scenarios, spec, observed_at, y, c, g);
    portfolio = math::add_rn(portfolio, math::mul_rn(y, scenarios[0].quantity));
    o[kernels::ValueLayout::kPayoff] = y;
    if (layout.control_variate)
      o[kernels::ValueLayout::kControl] = c;
    for (int k = 0; k < layout.greeks; ++k)
      o[layout.greek(k)] = g[k];
  }
  if (layout.portfolio)
    out[layout.portfolio_value()] = portfolio;
}

/// One block of kBlockPaths paths (the first `count` in range; the rest are +0.0), exactly as
/// the kernel computes them: the same draws, per-path values (antithetic pairs averaged before
/// squaring), and the pairwise sum over the block → the block's partials.
template <class Model, class Real>
void simulate_block(const typename Model::Params& params, const models::PathSchedule& schedule,
                    const GroupPlan& group, const DrawSource<Real>& source,
                    const BlockRole<Real>& role, std::uint64_t block_first, int count,
                    std::vector<double>& lane_values, std::vector<Real>& draws, double* partials) {
  using PathT = models::Path<Model, Real>;
  using Value = typename PathT::Value; // a pathwise model's observations are Duals
  using Stepper = models::ExerciseStepper<Model, Real>;
  constexpr int F = Model::factors;
  const kernels::ValueLayout layout = group.value_layout();
  const int values = layout.size();
  const int steps = group.steps();
  lane_values.assign(static_cast<std::size_t>(kBlockPaths) * values, 0.0);

  std::vector<std::array<Value, models::kMaxObservations>> observed(
      static_cast<std::size_t>(count));
  std::vector<PathT> paths;
  paths.reserve(static_cast<std::size_t>(count));
  std::vector<Stepper> steppers; // early exercise: each path's, over its Path
  steppers.reserve(role.exercise != nullptr ? static_cast<std::size_t>(count) : 0);
  for (int t = 0; t < count; ++t) {
    auto* slots = reinterpret_cast<Value(*)[models::kMaxObservations]>(observed[t].data());
    paths.emplace_back(params, schedule, slots);
    if (role.exercise != nullptr)
      steppers.emplace_back(paths.back(), *role.exercise, slots, block_first + t, 1);
  }
  const auto advance = [&](int t, int step, const Real(&z)[F]) {
    if (role.exercise != nullptr)
      return steppers[static_cast<std::size_t>(t)](step, z);
    paths[static_cast<std::size_t>(t)].advance(step, z);
  };
  if (source.normals != nullptr) {
    const std::size_t rows = static_cast<std::size_t>(steps) * F;
    for (int t = 0; t < count; ++t) {
      const std::size_t path = block_first - source.chunk_first + static_cast<std::size_t>(t);
      for (int step = 0; step < steps; ++step) {
        Real z[F];
        for (int f = 0; f < F; ++f) {
          z[f] = source.normals[kernels::draw_offset(path, static_cast<std::size_t>(step) * F + f,
                                                     rows)];
        }
        advance(t, step, z);
      }
    }
  } else {
    // Philox: the block's draws, a piece of steps at a time (all of them when a bridge needs
    // whole paths), laid out [row][path] like a draw tile kBlockPaths wide.
    const int piece = source.bridge != nullptr ? steps : std::min(steps, kStepsPerPiece);
    draws.resize(static_cast<std::size_t>(piece) * F * kBlockPaths);
    for (int step0 = 0; step0 < steps; step0 += piece) {
      const int piece_steps = std::min(piece, steps - step0);
      const int rows = piece_steps * F;
      philox_normals_host(source.seed, source.draw_group, block_first, kBlockPaths,
                          static_cast<std::uint32_t>(step0 * F), rows, draws.data(), kBlockPaths,
                          source.fast);
      if (source.antithetic) {
        for (int r = 0; r < rows; ++r) {
          Real* line = draws.data() + static_cast<std::size_t>(r) * kBlockPaths;
          for (int t = 0; t < kBlockPaths; t += 2)
            line[t + 1] = -line[t];
        }
      }
      if (source.bridge != nullptr)
        source.bridge->apply_host(draws.data(), 1, rows, kBlockPaths);
      for (int t = 0; t < count; ++t) {
        for (int s = 0; s < piece_steps; ++s) {
          Real z[F];
          for (int f = 0; f < F; ++f)
            z[f] = draws[static_cast<std::size_t>(s * F + f) * kBlockPaths + t];
          advance(t, step0 + s, z);
        }
      }
    }
  }
  if (!role.pay)
    return; // the regression pass: the steppers recorded what it needs
  for (int t = 0; t < count; ++t) {
    paths[static_cast<std::size_t>(t)].finish();
    pay_path(group, observed[static_cast<std::size_t>(t)].data(),
             lane_values.data() + static_cast<std::size_t>(t) * values);
  }
  // The raw estimates' places: pair means, then the squares and products.
  std::vector<int> firsts;
  for (int j = 0; j < layout.instruments; ++j) {
    for (int e = 0; e < layout.estimates(); ++e)
      firsts.push_back(layout.instrument(j) + layout.estimate(e));
  }
  if (layout.portfolio)
    firsts.push_back(layout.portfolio_value());
  if (group.antithetic) {
    for (int t = 0; t < kBlockPaths; t += 2) {
      double* out = lane_values.data() + static_cast<std::size_t>(t) * values;
      const double* partner = out + values;
      for (int v : firsts) {
        out[v] = math::add_rn(out[v], partner[v]) * 0.5;
        out[values + v] = 0.0;
      }
    }
  }
  for (int t = 0; t < kBlockPaths; ++t) {
    double* out = lane_values.data() + static_cast<std::size_t>(t) * values;
    double* o = nullptr; // the item's values: raw estimate e at o[layout.estimate(e)]
    const auto store = [&](int offset, int a, int b) {
      const double x = o[layout.estimate(a)];
      o[offset] = b < 0 ? x : math::mul_rn(x, o[layout.estimate(b)]);
    };
    for (int j = 0; j < layout.instruments; ++j) {
      o = out + layout.instrument(j);
      layout.for_each_value(store);
    }
    if (layout.portfolio) {
      o = out + layout.portfolio_value();
      kernels::ValueLayout::for_each_portfolio_value(store);
    }
  }
  for (int v = 0; v < values; ++v) {
    partials[v] = kernels::pairwise_sum(kBlockPaths, [&](int t) {
      return lane_values[static_cast<std::size_t>(t) * values + static_cast<std::size_t>(v)];
    });
  }
}

/// One launch's worth of one group (a chunk, or the whole group): the paths' blocks on the
/// worker threads, then tiles (pairwise over their blocks) pushed in order onto the range's
/// stack of tile blocks (`sums`), as the kernel's last blocks do.
template <class Model, class Real>
void simulate_chunk(const GroupPlan& group, const DrawSource<Real>& source,
                    const BlockRole<Real>& role, std::size_t count, int cpu_threads,
                    PartialSums* sums) {
  const std::vector<Real> step_data = interleaved_step_series<Real>(group);
  auto params = Model::make_params(step_data.data(), group.model_constants.data());
  if (!role.pay) // the regression pass fits the rule on the base scenario alone
    models::keep_base_scenario<Model>(params);
  const models::PathSchedule schedule{group.observation_runs.data(), group.spill_ranges.data(),
                                      group.spill_events.data(), group.observations.data(),
                                      static_cast<int>(group.observations.size())};
  const int values = group.reduced_values();
  const std::size_t blocks = (count + kBlockPaths - 1) / kBlockPaths;
  std::vector<double> partials(blocks * static_cast<std::size_t>(values));
  std::atomic<std::size_t> next_block{0};
  auto worker = [&] {
    std::vector<double> lane_values;
    std::vector<Real> draws;
    // A stop request ends the workers after their block (128 paths: well under a second).
    for (std::size_t b = next_block++; b < blocks && !stop_requested(); b = next_block++) {
      const std::size_t first = b * kBlockPaths;
      simulate_block<Model, Real>(
          params, schedule, group, source, role, source.chunk_first + first,
          static_cast<int>(std::min<std::size_t>(kBlockPaths, count - first)), lane_values, draws,
          partials.data() + b * values);
    }
  };
  // No more threads than blocks: a group of few paths (a book of thousands of them) runs on
  // this thread instead of starting and joining workers per group (measured: 8,192 groups of 8
  // paths took 5.6 s, mostly thread starts).
  const std::size_t threads =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(1, cpu_threads)), blocks);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (auto& t : pool)
    t.join();
  throw_if_stopped();
  if (!role.pay)
    return;

  // Tiles pairwise over their blocks (missing blocks are +0.0), pushed tile after tile onto
  // the range's stack (the kernel's last blocks).
  constexpr int kBlocksPerTile = kernels::kTilePaths / kBlockPaths;
  PFMC_EXPECTS(sums != nullptr && sums->values == values &&
                   sums->end_tile * kernels::kTilePaths == source.chunk_first,
               "a chunk continues its range's sums");
  const std::size_t tiles = (blocks + kBlocksPerTile - 1) / kBlocksPerTile;
  std::vector<double> tile(static_cast<std::size_t>(values));
  for (std::size_t t = 0; t < tiles; ++t) {
    const std::size_t b0 = t * kBlocksPerTile;
    for (int v = 0; v < values; ++v) {
      tile[static_cast<std::size_t>(v)] = kernels::pairwise_sum(kBlocksPerTile, [&](int k) {
        const std::size_t b = b0 + static_cast<std::size_t>(k);
        return b < blocks ? partials[b * values + static_cast<std::size_t>(v)] : 0.0;
      });
    }
    sums->push_tile(tile.data());
  }
}

/// The CPU's side of the one runner (engine/run/unit_runner.hpp): draws in host memory (cuRAND's
/// host generators; Philox draws computed block by block, so every Philox group computes its
/// draws), blocks of paths on the worker threads, each group's sums on a PartialSums stack.
template <class Real>
class CpuRunner : public UnitRunner<CpuRunner<Real>, Real> {
  using Base = UnitRunner<CpuRunner<Real>, Real>;
  friend Base;

public:
  CpuRunner(const SimulationPlan& plan, const ExecutionSettings& settings,
            const ProgressFn& progress, const WorkShare* share)
      : Base(plan, settings, progress, share,
             std::vector<bool>(plan.groups.size(), settings.rng == config::RngType::philox)) {
    for (std::size_t g = 0; g < plan.groups.size(); ++g) {
      sums_.emplace_back(this->ranges_[g].first / kernels::kTilePaths,
                         plan.groups[g].reduced_values());
    }
  }

private:
  /// A wall-clock mark.
  struct Mark {
    Clock::time_point at;
    [[nodiscard]] double since(const Mark& start) const {
      return std::chrono::duration<double, std::milli>(at - start.at).count();
    }
  };
  static constexpr NormalSource::Memory memory = NormalSource::Memory::host;
  static constexpr int draw_buffers = 1; // generation and simulation take turns
  static constexpr std::uint64_t max_draw_buffer_bytes = ~std::uint64_t{0}; // the cap alone
  static constexpr bool buffers_philox = false; // computed in the blocks (simulate_block)

  void attach(NormalSource& /*source*/) {}
  Real* acquire(std::size_t values) {
    normals_.resize(values);
    return normals_.data();
  }
  void generated() {}
  void consumed() {}
  void mark_generation(Mark& mark) { mark.at = Clock::now(); }
  void mark_kernels(Mark& mark) { mark.at = Clock::now(); }
  static constexpr bool marks_kernels_at_launch = false;
  void wait_for_progress() {}
  void finish() {}
  /// The sums are folded after the run (sums()): its outcomes are made at its end.
  static constexpr bool streams_outcomes = false;

  void transform(Real* draws, std::size_t values, const std::vector<int>& groups,
                 const std::vector<std::size_t>& offsets, std::uint64_t tiles) {
    this->transforms_.apply_host(draws, values, groups, offsets, tiles);
  }
  /// Simulates `count` paths of group g from `source` onto the group's sums: one pass.
  template <class Model>
  void simulate(int g, const DrawSource<Real>& source, std::size_t count) {
    simulate_chunk<Model, Real>(this->plan_.groups[static_cast<std::size_t>(g)], source,
                                BlockRole<Real>{}, count, this->run_.cpu_threads,
                                &sums_[static_cast<std::size_t>(g)]);
    ++this->stats_.kernel_launches;
  }

  template <class Model>
  void launch_batch(const DrawUnit& unit, Real* draws) {
    for (std::size_t m = 0; m < unit.groups.size(); ++m) {
      DrawSource<Real> source;
      source.normals = draws + unit.offsets[m];
      simulate<Model>(unit.groups[m], source,
                      this->group_paths_[static_cast<std::size_t>(unit.groups[m])]);
    }
  }

  /// A tiled group's chunks, each simulated from its draw tiles.
  template <class Model>
  class TiledLaunch {
  public:
    TiledLaunch(CpuRunner& runner, int g, std::uint64_t /*chunk_paths*/) : runner_(runner), g_(g) {}
    void operator()(Real* draws, std::uint64_t first, std::size_t count, bool /*first_chunk*/) {
      DrawSource<Real> source;
      source.normals = draws;
      source.chunk_first = first;
      runner_.template simulate<Model>(g_, source, count);
    }
    void close() {}

  private:
    CpuRunner& runner_;
    int g_;
  };

  /// Philox groups, one after another: the early-exercise rule fitted first where the group has
  /// one, then the range's paths in chunks sized for the partial sums.
  template <class Model>
  void run_computing(const DrawUnit& unit) {
    for (int g : unit.groups)
      run_computed_group<Model>(g);
  }

  template <class Model>
  void run_computed_group(int g) {
    const GroupPlan& group = this->plan_.groups[static_cast<std::size_t>(g)];
    const ExecutionSettings& settings = this->run_;
    const PathRange range = this->ranges_[static_cast<std::size_t>(g)];
    const ChunkPlan chunking =
        plan_chunks(range.count(), 0, sizeof(Real), group.reduced_values(), settings.memory_cap);
    PFMC_EXPECTS(chunking.chunk_paths > 0, "memory cap below one tile of paths");
    DrawSource<Real> source;
    source.seed = settings.seed;
    source.fast = settings.fast_math;
    source.antithetic = settings.antithetic;
    source.draw_group = static_cast<std::uint32_t>(group.index);
    if (settings.brownian_bridge)
      source.bridge = &this->transforms_.bridge(group.index);
    BlockRole<Real> role;
    std::vector<double> coefficients; // early exercise: the fitted rule
    models::ExerciseTable<Real> table{};
    if (group.exercise.present()) {
      const ExercisePlan& ex = group.exercise;
      coefficients = fit_rule<Model>(g, source);
      table = exercise_table<Real>(ex, ex.steps.data(), ex.views.data(), ex.allowed.data(),
                                   ex.discounts.data(), ex.discount_tangents_or_null(),
                                   coefficients.data(), nullptr, nullptr);
      role.exercise = &table;
    }
    auto& marks = this->unit_marks({g});
    for (std::uint64_t chunk = 0; chunk < chunking.chunks; ++chunk) {
      source.chunk_first = range.first + chunk * chunking.chunk_paths;
      const std::size_t count =
          static_cast<std::size_t>(std::min(chunking.chunk_paths, range.end - source.chunk_first));
      this->timed_kernels(marks, [&] {
        simulate_chunk<Model, Real>(group, source, role, count, settings.cpu_threads,
                                    &sums_[static_cast<std::size_t>(g)]);
      });
      ++this->stats_.kernel_launches;
    }
    this->launches_of_[static_cast<std::size_t>(g)] = chunking.chunks;
  }

  /// Early exercise's regression pass on the CPU: the regression paths (the group's counter
  /// with kRegressionDrawGroup) record their levels, then the rule is fitted backwards on the
  /// host. Returns the coefficients ([rule][date][basis]).
  template <class Model>
  std::vector<double> fit_rule(int g, DrawSource<Real> source) {
    const GroupPlan& group = this->plan_.groups[static_cast<std::size_t>(g)];
    const ExercisePlan& plan = group.exercise;
    const auto start = Clock::now();
    const std::uint64_t per_level =
        static_cast<std::uint64_t>(plan.dates()) * plan.regression_paths;
    std::vector<Real> levels(static_cast<std::size_t>(plan.levels) * per_level);
    std::vector<Real> variances(plan.basis.two_variables ? per_level : 0);
    const models::ExerciseTable<Real> table =
        exercise_table<Real>(plan, plan.steps.data(), plan.views.data(), plan.allowed.data(),
                             plan.discounts.data(), plan.discount_tangents_or_null(), nullptr,
                             levels.data(), variances.empty() ? nullptr : variances.data());
    source.draw_group = static_cast<std::uint32_t>(group.index) | kRegressionDrawGroup;
    source.chunk_first = 0;
    simulate_chunk<Model, Real>(group, source, BlockRole<Real>{&table, false},
                                static_cast<std::size_t>(plan.regression_paths),
                                this->run_.cpu_threads, nullptr);
    ++this->stats_.kernel_launches;
    std::vector<double> coefficients =
        regress_on_host(plan, levels.data(), variances.empty() ? nullptr : variances.data(),
                        this->run_.cpu_threads);
    this->add_regression(g, milliseconds_since(start),
                         plan.regression_paths * static_cast<std::uint64_t>(group.steps()));
    return coefficients;
  }

  void sums(std::size_t g, GroupOutcome& outcome) {
    outcome.totals = sums_[g].totals();
    if (this->keep_stacks_)
      outcome.stack = std::move(sums_[g].blocks);
  }

  std::vector<PartialSums> sums_; ///< per group: its range's stack of tile blocks
  std::vector<Real> normals_;     ///< the draw buffer
};

} // namespace

std::vector<GroupOutcome> run_plan_on_cpu(const SimulationPlan& plan,
                                          const ExecutionSettings& settings,
                                          const ProgressFn& progress, PlanStats* stats,
                                          const WorkShare* share, const OutcomeSink* sink) {
  return dispatch_precision(settings.precision, [&](auto real_tag) {
    using Real = typename decltype(real_tag)::type;
    CpuRunner<Real> runner(plan, settings, progress, share);
    runner.set_sink(sink);
    auto outcomes = runner.run();
    if (stats != nullptr)
      *stats = runner.stats();
    return outcomes;
  });
}

} // namespace pfmc::engine
