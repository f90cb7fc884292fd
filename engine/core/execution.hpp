#pragma once
// What the GPU and CPU backends share: resolved run settings, per-group outcomes, progress
// reports, and the chunking of a group's paths under a memory cap.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/run_config.hpp"

namespace pfmc::engine {

/// The settings a backend runs with (RunConfig after defaults, overrides and device choice).
struct ExecutionSettings {
  config::Precision precision = config::Precision::float64;
  config::RngType rng = config::RngType::philox;
  /// simulation.math: the fast profile's Philox4x32-7 draws and approximations (models/math.cuh).
  bool fast_math = false;
  std::uint64_t seed = 42;
  std::uint64_t paths = 0;
  std::string backend = "none";
  int prefetch_distance = 4;
  config::Padding padding;
  int block_size = 128;
  std::uint64_t memory_cap = 0; ///< bytes for one group's buffers
  int cpu_threads = 1;
  bool reduce = true; ///< false only for benchmarks of the kernel without reduction
  /// Benchmarks of a sample: the paths of the run's launch that the sample stands for (0: paths),
  /// which decide whether it takes the wide kernels (engine/run/device_unit.cuh).
  std::uint64_t launch_paths = 0;
  std::uint64_t draw_batch_bytes = std::uint64_t(256) << 20; ///< engine/draws/draw_plan.hpp
  // Draw transforms (engine/draws/draw_transform.hpp), applied after every generation call.
  bool antithetic = false;      ///< path 2k+1 takes −(draws of path 2k)
  bool brownian_bridge = false; ///< draws build each group's path by Brownian bridge
  int replicate = 0;            ///< scrambled Sobol: which randomisation (digital shift)
  // Which kernel runs and how a run is cut (config::EngineConfig's; the same bits whichever).
  bool terminal_kernels = true;    ///< one-step terminal launches take that instantiation
  int terminal_blocks_per_cta = 0; ///< 0: kernels::terminal_blocks_per_cta's choice
  bool compile_at_runtime = false; ///< every kernel by NVRTC, those built in too
  int unit_groups = config::kDefaultUnitGroups; ///< a computing unit's groups at most (0: all)
};

/// Paths [first, end) of one simulation group; `first` on a reduction tile's boundary
/// (kernels::kTilePaths).
struct PathRange {
  std::uint64_t first = 0;
  std::uint64_t end = 0;
  [[nodiscard]] std::uint64_t count() const { return end - first; }
  [[nodiscard]] bool empty() const { return end <= first; }
  bool operator==(const PathRange& o) const { return first == o.first && end == o.end; }
};

/// What one worker of a split run (a device, a process) runs: each group's range of paths (an
/// empty range: none of the group). engine/scale/work_split.hpp makes them.
struct WorkShare {
  std::vector<PathRange> ranges; ///< per simulation group
};

/// The reduced sums of one group (laid out as kernels/value_layout.cuh says, summed in the order
/// of kernels/reduction_shape.cuh) and what it cost.
struct GroupOutcome {
  /// The range's sums: its stack of tile blocks folded (kernels::fold_blocks).
  std::vector<double> totals;
  PathRange range; ///< the paths this run covered (all of them, unless it ran a share)
  /// A share's run: the range's stack of tile blocks, [block][value] (kernels/reduction_shape.cuh),
  /// from which engine/scale/partial_sums.hpp merges the shares of a group exactly.
  std::vector<double> stack;
  std::uint64_t paths = 0;
  std::uint64_t path_steps = 0;
  double kernel_ms = 0.0;    ///< path kernel (GPU events) or path simulation (CPU wall time)
  double rng_ms = 0.0;       ///< draw generation
  double bytes_loaded = 0.0; ///< draws read by the path kernel
  std::uint64_t chunks = 0;
  /// Early exercise: the regression pass (records, backward induction, fits), apart from the
  /// priced paths' kernel_ms, and its paths' steps.
  double regression_ms = 0.0;
  std::uint64_t regression_path_steps = 0;
};

/// What a run's caller does with each group's outcome as soon as its sums are final (its
/// kernel_ms and rng_ms are not: the run's timing marks are read at its end): a GPU run calls
/// it for a unit's groups while the device runs the later units. Called once per group, on the
/// run's own threads, several groups at once (never one group twice).
using OutcomeSink = std::function<void(std::size_t group, const GroupOutcome&)>;

/// What a whole plan cost in calls: launches and synchronisations must not grow with the
/// number of groups (engine/draws/draw_plan.hpp batches them).
struct PlanStats {
  std::uint64_t draw_units = 0;       ///< draw batches plus tiled groups
  std::uint64_t kernel_launches = 0;  ///< path-kernel launches (CPU: simulation passes)
  std::uint64_t generation_calls = 0; ///< generation launches (Philox) or cuRAND calls
  std::uint64_t host_syncs = 0;       ///< host waits on the device
  double kernel_load_ms = 0.0;        ///< loading the kernels' code (once per process and kernel)
};

/// total += one, field by field.
void add_plan_stats(PlanStats& total, const PlanStats& one);

struct Progress {
  int group = 0; ///< 0-based
  int groups = 0;
  std::uint64_t chunk = 0; ///< chunks done in this group
  std::uint64_t chunks = 0;
  std::string model;
  /// Paths done and to do, summed over the groups (a path of each group counts once) and, in a
  /// split run, over the workers (their sum: engine/scale/split_run.cpp).
  std::uint64_t paths_done = 0;
  std::uint64_t paths = 0;
  int workers = 1; ///< the workers whose paths are summed
};
using ProgressFn = std::function<void(const Progress&)>;

/// Paths per chunk and number of chunks for one group; chunk_paths == 0 when not even one tile
/// of paths fits under the cap.
struct ChunkPlan {
  std::uint64_t chunk_paths = 0;
  std::uint64_t chunks = 0;
  std::uint64_t bytes_per_chunk = 0; ///< buffers of one chunk (draws, partials, tile sums)
};

/// Chunks are whole reduction tiles (kernels::kTilePaths paths, hence whole draw tiles) except
/// the last, so results do not depend on the chunking. Bytes: the chunk's draw tiles (`rows`
/// draws a path; 0 for a backend that reads none), plus the per-block partials (at most a block
/// per warp of paths) and tile sums. A chunk has at most kMaxChunkPaths paths (an int).
ChunkPlan plan_chunks(std::uint64_t paths, int rows, int real_bytes, int values,
                      std::uint64_t memory_cap);
inline constexpr std::uint64_t kMaxChunkPaths = std::uint64_t(1) << 30;
/// A launch of groups that compute their draws covers at most this many path-steps, so that a
/// stop request (SIGINT, SIGTERM) waits for at most one such launch: a run of the portfolio at
/// 400,000,000 paths ran its groups in one launch each and stopped 7 s after Ctrl-C. 2^32
/// keeps bandwidth_bound (8,192,000 × 365) and the 8,192-option book in one launch each.
inline constexpr std::uint64_t kMaxLaunchPathSteps = std::uint64_t(1) << 32;

/// How a block of a short-path launch covers its paths (kernels/path_kernel.cuh): each thread
/// runs `passes` passes of the loader's paths one after another within a round, folding their
/// values in registers, and the block runs `rounds` rounds, each ending in one block reduction.
/// Both powers of two; neither changes a result.
struct RoundShape {
  int passes = 1;
  int rounds = 1;
};

/// The round shape of a launch of `launch_paths` paths (all its groups) of `steps` steps and
/// `factors` factors, for a loader of `paths_per_thread`, blocks of `block_size` and groups of at
/// most `values` reduced values. Long paths run one pass of one round (a block's setup and
/// ticket are nothing next to them), and so do the loaders of one path per thread (the kernel
/// compiles their round loop away: kernels/path_kernel.cuh says why). Short paths take as many
/// passes as keep at least kMinBlocksPerMultiprocessor blocks per multiprocessor, up to
/// kMaxPasses — only where every group reduces one instrument's price (`values` is
/// kernels::kPriceValues: the kernel folds passes in registers for those) — then as many rounds
/// as keep that many blocks, up to a tile of paths per block and kernels::kMaxRoundSumsBytes of
/// round sums.
RoundShape round_shape(std::uint64_t launch_paths, int steps, int factors, int paths_per_thread,
                       int block_size, int values, int multiprocessors);
/// Steps × factors from which a path is long enough for one round.
inline constexpr int kLongPathRows = 64;
/// Blocks per multiprocessor that short-path launches keep (several waves, for balance).
inline constexpr int kMinBlocksPerMultiprocessor = 32;

} // namespace pfmc::engine
