#pragma once
// The tuner: which (backend, prefetch distance, padding) runs a simulation group fastest on this
// GPU, measured, and a cache of its answers so that `engine.backend: auto` can use them.
//
// Cache entries are keyed by what decides the answer: the GPU (name and multiprocessor count),
// the CUDA runtime version, the model, the precision, the number of factors, the draws (the rng
// and the Brownian bridge: they decide which backends can run at all — `inline` computes Philox
// draws — and what generation costs), and the class of the group's size — paths and steps rounded
// to powers of two (a group of 100,000 paths and 252 steps shares its entry with one of 120,000 and
// 300, not with one of 10,000 and 20). The cache is a JSON file: $PFMC_TUNING_CACHE, else
// $XDG_CACHE_HOME/pfmc/tuning.json, else
// ~/.cache/pfmc/tuning.json; `--tuning-cache FILE` overrides all of them.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "engine/core/device_info.hpp"
#include "engine/core/execution.hpp"
#include "engine/plan/plan.hpp"
#include "kernels/catalog.hpp"

namespace pfmc::engine {

struct BackendChoice {
  std::string backend;
  int prefetch_distance = 0;
  config::Padding padding;
};

/// One measured configuration: its kernel, and the generation of the draws it reads (0 for a
/// backend that computes them): the user waits for both.
struct Measurement {
  BackendChoice choice;
  double median_ms = 0.0; ///< the kernel
  double min_ms = 0.0;
  double max_ms = 0.0;
  double generation_ms = 0.0; ///< the draws' generation (median), 0: computes its draws
  bool wide = false;          ///< the kernel's wide instantiation ran (kernels::kWideRegisters)
  [[nodiscard]] double total_ms() const { return generation_ms + median_ms; }
};

struct TuneResult {
  std::string key;
  Measurement best;             ///< the least generation + kernel time (not `ideal`)
  Measurement baseline;         ///< `none`
  std::vector<Measurement> all; ///< by generation + kernel time, fastest first
  /// `ideal` at its fastest distance, where TuneOptions::ideal asked for it.
  std::optional<Measurement> ideal;
  double seconds = 0.0; ///< time the tuning took
  double bytes_per_launch = 0.0;
  double path_steps_per_launch = 0.0;
  std::uint64_t paths = 0;        ///< the group's paths (of one chunk)
  std::uint64_t sample_paths = 0; ///< the paths measured
  bool stopped_by_budget = false; ///< the time budget ended the search early
  /// When the last measurement that did not have to run (beyond the first two of the screen and
  /// of the finals) began, in seconds from the start: within the budget in quick mode.
  double last_optional_start_seconds = 0.0;
};

enum class TuneMode {
  exhaustive, ///< every backend, distance and padding, `repeats` timings each, every path
  quick,      ///< a sample of the paths; every backend screened, the best two in full; budget
};

struct TuneOptions {
  TuneMode mode = TuneMode::quick;
  int repeats = 5;
  /// Backends and distances to try (empty: all that this device runs / all instantiated).
  std::vector<std::string> backends;
  std::vector<int> distances;
  /// Measure the bench's `ideal` too, at every distance (kernels/catalog.hpp: bench only): in
  /// `all`, never `best`.
  bool ideal = false;
  /// Called before each measured configuration (for progress lines).
  std::function<void(const BackendChoice&, int done, int total)> progress;
  /// Quick mode: stop measuring new configurations after this long (0: no limit).
  double budget_seconds = 0.0;
};

/// Quick mode's time budget per shape when `backend: auto` tunes during a run (the least
/// estimated time of the run's launches of a shape that makes tuning worth it is
/// PriceOptions::tune_worth_seconds, by default the same).
inline constexpr double kTuneBudgetSeconds = 0.3;

/// Quick mode measures a sample of a group's paths: all of them up to kTuneFullPaths (fewer
/// would change how the device is filled), else enough for kTuneSamplePathSteps path-steps (at
/// least kTuneFullPaths; its draws then exceed the L2 cache several times), in whole tiles.
inline constexpr std::uint64_t kTuneFullPaths = std::uint64_t(1) << 19;
inline constexpr std::uint64_t kTuneSamplePathSteps = std::uint64_t(1) << 26;
std::uint64_t tune_sample_paths(std::uint64_t paths, int steps);

/// Whether the backend can run with the settings' draws: one that computes Philox draws in its
/// step loop (`inline`) cannot serve cuRAND's generators or a Brownian bridge.
bool draws_fit_backend(const kernels::BackendInfo& backend, const ExecutionSettings& settings);

/// The cache key of a group (see above).
std::string tuning_key(const DeviceInfo& device, const GroupPlan& group,
                       const ExecutionSettings& settings);

/// Measures the group's path kernel over the configurations of `options` (draws generated once;
/// at most `settings.memory_cap` bytes: a group larger than one chunk is measured on one chunk's
/// paths) and returns them, fastest first in `all`.
TuneResult tune_group(const GroupPlan& group, const ExecutionSettings& settings,
                      const TuneOptions& options);

/// The device's part of every key of the cache: its name and multiprocessors.
std::string device_key(const DeviceInfo& device);

/// Where the cache lives (the rules above); `override_path` wins when not empty.
std::string tuning_cache_path(const std::string& override_path = {});

/// The generation + kernel time (ms) of one launch of `choice` over the group's tuning sample
/// (tune_sample_paths), and the sample's paths: the estimate `auto` uses to decide whether
/// tuning repays itself.
struct Probe {
  double total_ms = 0.0;
  std::uint64_t sample_paths = 0;
};

class TuningCache {
public:
  /// Reads the file if it exists (a missing file is an empty cache). A corrupt one (not JSON,
  /// or not shaped as a cache) is set aside as `path`.corrupt and the cache starts empty;
  /// recovered() says so, for the run's notices.
  explicit TuningCache(std::string path);
  /// Empty, or the one line saying that the file was corrupt and set aside.
  [[nodiscard]] const std::string& recovered() const { return recovered_; }

  [[nodiscard]] std::optional<BackendChoice> find(const std::string& key) const;
  void store(const TuneResult& result);
  /// The device's measured copy bandwidth (GB/s, read + write), if cached.
  [[nodiscard]] std::optional<double> copy_bandwidth(const DeviceInfo& device) const;
  void store_copy_bandwidth(const DeviceInfo& device, double gbps);
  /// `auto`'s probe of the default `choice` for the groups of `key` (probe_group), if cached for
  /// that same choice: a later run of the shape decides whether to tune without launching.
  [[nodiscard]] std::optional<Probe> probe(const std::string& key,
                                           const BackendChoice& choice) const;
  void store_probe(const std::string& key, const BackendChoice& choice, const Probe& probe);
  /// Writes the file (base/atomic_file.hpp: never half-written), creating its directory:
  /// under an exclusive lock on `path`.lock, the file as it is now (another process may have
  /// saved since this one read it) with what this object stored added over it.
  void save() const;
  [[nodiscard]] const std::string& path() const { return path_; }

  ~TuningCache();
  TuningCache(TuningCache&&) noexcept;
  TuningCache& operator=(TuningCache&&) noexcept;

private:
  struct Document; // the parsed JSON (kept out of this header)
  std::string path_;
  std::unique_ptr<Document> document_;
  std::string recovered_;
};

/// The measured copy bandwidth of the device: from the cache when it has it, else measured
/// (about 20 ms) and stored in the cache.
double device_copy_bandwidth(const DeviceInfo& device, TuningCache* cache);

/// The default when `auto` has no cache entry and does not tune: `inline` for Philox draws
/// without a Brownian bridge (no generation pass, no draw traffic), else the backend that was
/// fastest on both reference workloads on an H100 (docs/decisions.md#default-backend).
BackendChoice default_backend_choice(config::RngType rng = config::RngType::philox,
                                     bool brownian_bridge = false);

/// Measures the Probe of `choice` on the group (a warm-up launch, then one timed launch and
/// generation).
Probe probe_group(const GroupPlan& group, const ExecutionSettings& settings,
                  const BackendChoice& choice);

} // namespace pfmc::engine
