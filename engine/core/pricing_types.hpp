#pragma once
// What the pricer (engine/pricer.hpp) takes besides the config and what it returns: prices with
// standard errors, Greeks, the portfolio, and how the run went. The pricer's stages (listed in
// engine/pricer.hpp) fill them; the facade includes this header.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "engine/core/device_info.hpp"
#include "engine/core/execution.hpp"

namespace pfmc::engine {

class Communicator; // engine/scale/communicator.hpp

/// One Greek of one instrument (bump-and-revalue on common random numbers).
struct GreekResult {
  config::Greek greek = config::Greek::delta;
  double value = 0.0;
  double std_error = 0.0;
  bool has_std_error = false;
  bool pathwise = false; ///< delta taken pathwise (else bump-and-revalue)
  /// A basket's per-underlying delta, gamma or vega: the underlying's name; a cross-gamma: its
  /// pair, "A,B"; empty for a Greek of the whole instrument.
  std::string underlying;
  /// A risk pass's P&L (config::Greek::scenario_pnl): its index in RunConfig::priced_shifts.
  int scenario = -1;
};

struct InstrumentResult {
  std::string id;
  std::string type; ///< european, digital, asian, barrier
  double price = 0.0;
  double std_error = 0.0;
  bool has_std_error = false; ///< false for quasi-random draws or a single path
  double ci95_low = 0.0;
  double ci95_high = 0.0;
  std::uint64_t paths = 0;
  /// Early exercise: "american" or "bermudan" (empty for European exercise), its dates on the
  /// grid and the paths of the regression that fitted its rule (its price is the priced paths'
  /// low-biased estimate).
  std::string exercise;
  int exercise_dates = 0;
  std::uint64_t regression_paths = 0;
  bool has_control = false;        ///< priced with a control variate
  double control_beta = 0.0;       ///< its estimated optimal coefficient (mean over replicates)
  std::vector<GreekResult> greeks; ///< in config::Greek order, as requested
};

struct PortfolioResult {
  bool present = false; ///< false when the config has no portfolio
  double value = 0.0;
  double std_error = 0.0;
  bool has_std_error = false;
};

/// The backend one simulation group ran with, and where the choice came from.
struct GroupBackend {
  std::string model;
  std::string backend;
  int prefetch_distance = 0;
  std::string padding;
  std::string source; ///< "engine.backend", "tuning cache FILE", "tuned now ...", "default ..."
};

/// One worker of a split run (engine/scale/split_run.hpp): a GPU of a process, or a process's
/// CPU backend.
struct WorkerInfo {
  int rank = 0;    ///< MPI rank (0 in a single process)
  int device = -1; ///< GPU ordinal; -1: the CPU backend
  std::string name;
  /// The backends its groups ran: one (`scalar_batched d4`, `inline`), or `per group: ...`;
  /// `cpu` for the CPU backend. Devices of different kinds may differ (each kind is tuned apart).
  std::string backend;
  std::uint64_t paths = 0; ///< paths it simulated, over all groups
  double path_steps = 0.0; ///< its share of the run's path-steps
  double kernel_ms = 0.0;  ///< its path kernels (GPU events) or path simulation (CPU)
  double rng_ms = 0.0;     ///< its draw generation (GPU events), apart from kernel_ms
  double wall_ms = 0.0;    ///< its whole run, setup to sums on the host
  /// Before it: how long its MPI rank waited for its turn on a GPU shared with lower ranks of
  /// its host (engine/scale/communicator.hpp).
  double turn_wait_ms = 0.0;
};

struct RunInfo {
  std::string device; ///< GPU name, or "CPU (N threads)"
  bool on_gpu = false;
  std::string backend; ///< "cpu" for the CPU backend
  int prefetch_distance = 0;
  std::string padding;
  std::string precision;
  std::string rng;
  std::string math; ///< the math profile: "accurate" | "fast"
  /// With Greeks: simulation.greeks_method ("auto" | "bump" | "pathwise"; what each Greek took
  /// is per instrument); empty without.
  std::string greeks_method;
  bool antithetic = false;
  bool control_variate = false;
  bool brownian_bridge = false;
  int replicates = 1; ///< randomised QMC replicates (scrambled_sobol), else 1
  int scenarios = 1;  ///< model copies per path (the Greeks' bumps)
  std::uint64_t seed = 0;
  std::uint64_t paths = 0;
  int steps = 0; ///< the longest group's grid
  int groups = 0;
  std::uint64_t chunks = 0;
  int block_size = 0;
  // The engine's kernel switches (config::EngineConfig): which kernels ran, how a run was cut.
  bool terminal_kernels = true;
  int terminal_blocks_per_cta = 0; ///< 0: the launch's choice
  bool compile_at_runtime = false;
  int unit_groups = 0;
  int threads = 0;        ///< CPU threads (CPU backend)
  double kernel_ms = 0.0; ///< the path kernels (GPU: CUDA events; kernel loading excluded)
  /// Kernels compiled on first use during the run (kernels/compile/): NVRTC's time, how many it
  /// compiled and how many came from the disk cache (their reads and loads in cache_load_ms).
  double compile_ms = 0.0;
  int kernels_compiled = 0;
  int kernels_from_cache = 0;
  double cache_load_ms = 0.0;
  double rng_ms = 0.0; ///< draw generation
  /// Early exercise's regression passes (their paths, the backward induction and the fits),
  /// apart from kernel_ms, which prices; and the regression paths' steps.
  double regression_ms = 0.0;
  double regression_path_steps = 0.0;
  double total_ms = 0.0;
  /// Finding the device: the process's first CUDA call creates its context (`pfmc price` starts
  /// it while the YAML is read, and adds that time here).
  double device_ms = 0.0;
  double config_ms = 0.0;   ///< reading and checking the config (set by the caller that read it)
  double plan_ms = 0.0;     ///< planning the groups
  double backends_ms = 0.0; ///< choosing each group's backend (tuning cache, `auto`, tuning)
  /// The results after the run: the portfolio's. Each instrument's are made within the run: as
  /// its group's sums come, or after the last replicate of several or the workers of a split.
  double results_ms = 0.0;
  double path_steps = 0.0;
  double path_steps_per_second = 0.0;
  double bytes_loaded = 0.0;
  double achieved_gbps = 0.0;
  double copy_bandwidth_gbps = 0.0;         ///< the device's measured copy bandwidth (GPU runs)
  double copy_bandwidth_fraction = 0.0;     ///< achieved_gbps / copy_bandwidth_gbps
  std::vector<GroupBackend> group_backends; ///< GPU runs: one per simulation group
  PlanStats plan_stats;             ///< launches, generation calls, host waits, kernel loading
  std::vector<std::string> notices; ///< one-line remarks for the user (e.g. the CPU fallback)
  /// A split run (several devices, or MPI ranks): every worker in split order, the processes,
  /// this process's rank, and rank 0's wait for and merge of the ranks' sums.
  std::vector<WorkerInfo> workers;
  int processes = 1;
  int rank = 0;
  double gather_ms = 0.0;    ///< rank 0: waiting for the ranks' sums (the slowest rank) and merging
  double gather_bytes = 0.0; ///< rank 0: the ranks' messages (grows as log(paths), not paths)
  double split_wall_ms = 0.0; ///< the split part: from the first worker's start to the merge
};

struct RunResult {
  std::vector<InstrumentResult> instruments;
  PortfolioResult portfolio;
  RunInfo run;
};

struct PriceOptions {
  std::string tuning_cache;      ///< empty: engine::tuning_cache_path()'s rules
  bool tune_when_missing = true; ///< `auto` without a cache entry: tune now (else a default)
  /// ... when this run's launches of the shape would take at least this long (seconds; 0:
  /// always); shorter runs take the default for the shape without tuning it.
  double tune_worth_seconds = 0.3;
  /// An MPI job of several ranks (engine/scale/mpi_communicator.hpp); null: this process alone.
  Communicator* processes = nullptr;
  /// How the run's GPUs are told apart (a host may mix kinds): the key of the device at each
  /// position of engine.devices. Devices of one key share their groups' backends and memory
  /// cap, chosen (and tuned) on the first of them. Empty: engine::device_key (name and
  /// multiprocessors, the tuning cache's). Tests give the one GPU two keys.
  std::function<std::string(const DeviceInfo& device, std::size_t position)> device_kind;
};

/// Random digital shifts of a scrambled_sobol run when simulation.replicates is not set.
inline constexpr int kDefaultReplicates = 16;

/// The default device-memory cap: this fraction of the free memory.
inline constexpr double kDefaultMemoryFraction = 0.7;
/// The CPU backend's cap on its draw buffers (host memory).
inline constexpr std::uint64_t kCpuMemoryCap = 512ull << 20;

} // namespace pfmc::engine
