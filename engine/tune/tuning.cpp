#include "engine/tune/tuning.hpp"

#include "engine/run/gpu_engine.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "config/overrides.hpp"
#include "engine/core/atomic_file.hpp"
#include "engine/core/interrupt.hpp"
#include "engine/tune/kernel_bench.hpp"
#include "kernels/catalog.hpp"
#include "kernels/error.hpp"
#include "kernels/reduction_shape.cuh"

namespace pfmc::engine {

namespace {

using Json = nlohmann::json;

int log2_class(std::uint64_t n) {
  int k = 0;
  while ((std::uint64_t{1} << (k + 1)) <= n && k < 62)
    ++k;
  return k;
}

std::string device_key(const DeviceInfo& device) {
  return device.name + "|" + std::to_string(device.multiprocessors) + " SMs";
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

Json load_json(const std::string& text) {
  if (text.empty())
    return Json{{"version", 1}, {"devices", Json::object()}, {"entries", Json::object()}};
  return Json::parse(text);
}

} // namespace

std::string tuning_key(const DeviceInfo& device, const GroupPlan& group,
                       config::Precision precision, std::uint64_t paths) {
  std::ostringstream key;
  key << device_key(device) << "|cuda " << device.runtime_version << "|"
      << config::to_string(group.model_type) << "|" << config::to_string(precision) << "|"
      << group.factors << " factors|" << group.scenarios << " scenarios|paths 2^"
      << log2_class(paths) << "|steps 2^" << log2_class(static_cast<std::uint64_t>(group.steps()));
  return key.str();
}

BackendChoice default_backend_choice(config::RngType rng, bool brownian_bridge) {
  if (rng == config::RngType::philox && !brownian_bridge)
    return BackendChoice{"inline", 0, config::Padding{}};
  // Fastest on both reference workloads on an H100 (bench/NOTES.md v7): batched loads hide the
  // latency of the latency-bound kernel and keep the bandwidth-bound one at the copy rate.
  return BackendChoice{"scalar_batched", 4, config::Padding{}};
}

std::uint64_t tune_sample_paths(std::uint64_t paths, int steps) {
  if (paths <= kTuneFullPaths)
    return paths;
  const std::uint64_t wanted = std::max<std::uint64_t>(
      kTuneFullPaths, kTuneSamplePathSteps / static_cast<std::uint64_t>(std::max(1, steps)));
  const std::uint64_t tiles = (wanted + kernels::kTilePaths - 1) / kernels::kTilePaths;
  return std::min(paths, tiles * kernels::kTilePaths);
}

namespace {

/// The settings of a measurement on `paths` paths of the group (one chunk's worth at most).
ExecutionSettings measured_settings(const GroupPlan& group, const ExecutionSettings& settings,
                                    std::uint64_t paths) {
  ExecutionSettings measured = settings;
  const int values = group.reduced_values();
  const int real_bytes = settings.precision == config::Precision::float32 ? 4 : 8;
  const ChunkPlan chunking =
      plan_chunks(paths, group.rows(), real_bytes, values, settings.memory_cap);
  PFMC_EXPECTS(chunking.chunk_paths > 0, "memory cap below one tile of paths");
  measured.paths = chunking.chunk_paths;
  return measured;
}

bool reads_draws(const std::string& backend) {
  const kernels::BackendInfo* info = kernels::find_backend(backend);
  return info == nullptr || info->reads_draws;
}

/// The configurations this device runs with these draws, restricted to the requested backends
/// and distances (`none` always: the baseline).
std::vector<BackendChoice> tune_candidates(const GroupPlan& group,
                                           const ExecutionSettings& settings,
                                           const TuneOptions& options, const DeviceInfo& device) {
  std::vector<BackendChoice> candidates;
  for (const auto& b : kernels::backend_catalog()) {
    if (!kernels::why_backend_cannot_run(b, device.compute_capability, device.name).empty())
      continue;
    if (!kernels::why_backend_cannot_draw(b, config::to_string(settings.rng)).empty() ||
        (!b.reads_draws && settings.brownian_bridge)) {
      continue;
    }
    if (!options.backends.empty() &&
        std::find(options.backends.begin(), options.backends.end(), b.name) ==
            options.backends.end() &&
        std::string(b.name) != "none") {
      continue;
    }
    std::vector<int> distances{0};
    if (b.uses_prefetch_distance) {
      // Only the distances this group's kernel is instantiated at.
      distances.clear();
      for (int d : options.distances.empty() ? kernels::prefetch_distances() : options.distances) {
        if (has_group_launcher(group, settings.precision, b.name, d))
          distances.push_back(d);
      }
    }
    std::vector<config::Padding> paddings{config::Padding{}};
    if (b.uses_padding) {
      paddings = {config::Padding{}, config::Padding{config::Padding::Mode::none, 0},
                  config::Padding{config::Padding::Mode::slot_major, 0}};
    }
    for (int d : distances) {
      for (const auto& p : paddings)
        candidates.push_back(BackendChoice{b.name, d, p});
    }
  }
  return candidates;
}

/// `finals` in screening order: the screened configurations first, so that a budget that runs
/// out keeps the ones that matter.
void order_by_screening(std::vector<BackendChoice>& finals,
                        const std::vector<Measurement>& screened) {
  std::stable_sort(
      finals.begin(), finals.end(), [&](const BackendChoice& a, const BackendChoice& b) {
        const auto rank = [&](const BackendChoice& c) {
          for (std::size_t k = 0; k < screened.size(); ++k) {
            const auto& s = screened[k].choice;
            if (s.backend == c.backend && s.prefetch_distance == c.prefetch_distance &&
                s.padding.mode == c.padding.mode && s.padding.amount == c.padding.amount)
              return k;
          }
          return screened.size();
        };
        return rank(a) < rank(b);
      });
}

} // namespace

Probe probe_group(const GroupPlan& group, const ExecutionSettings& settings,
                  const BackendChoice& choice) {
  const ExecutionSettings measured =
      measured_settings(group, settings, tune_sample_paths(settings.paths, group.steps()));
  KernelBench bench(group, measured);
  bench.time_launch_ms(choice.backend, choice.prefetch_distance, choice.padding); // warm-up
  double ms = bench.time_launch_ms(choice.backend, choice.prefetch_distance, choice.padding);
  if (reads_draws(choice.backend)) {
    bench.time_generation_ms();
    ms += bench.time_generation_ms();
  }
  return Probe{ms, measured.paths};
}

TuneResult tune_group(const GroupPlan& group, const ExecutionSettings& settings,
                      const TuneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const DeviceInfo device = query_device();
  PFMC_EXPECTS(device.available, "tuning needs a GPU");

  // Quick mode measures a sample of the paths; exhaustive mode one chunk's worth (all of them
  // when they fit).
  const bool quick = options.mode == TuneMode::quick;
  const ExecutionSettings measured = measured_settings(
      group, settings, quick ? tune_sample_paths(settings.paths, group.steps()) : settings.paths);
  KernelBench bench(group, measured);

  const std::vector<BackendChoice> candidates = tune_candidates(group, settings, options, device);

  TuneResult result;
  result.key = tuning_key(device, group, settings.precision, settings.paths);
  result.bytes_per_launch = bench.bytes_per_launch();
  result.path_steps_per_launch = bench.path_steps_per_launch();
  result.paths = settings.paths;
  result.sample_paths = measured.paths;

  // The generation a backend that reads draws adds (median of three, after a warm-up).
  double generation_ms = 0.0;
  if (std::any_of(candidates.begin(), candidates.end(),
                  [](const BackendChoice& c) { return reads_draws(c.backend); })) {
    bench.time_generation_ms();
    std::vector<double> g;
    for (int r = 0; r < 3; ++r)
      g.push_back(bench.time_generation_ms());
    std::sort(g.begin(), g.end());
    generation_ms = g[1];
  }
  const auto time = [&](const BackendChoice& c, int repeats) {
    throw_if_stopped(); // an interrupted tuning stores nothing
    bench.time_launch_ms(c.backend, c.prefetch_distance, c.padding); // warm-up
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
      ms.push_back(bench.time_launch_ms(c.backend, c.prefetch_distance, c.padding));
    }
    std::sort(ms.begin(), ms.end());
    return Measurement{c, ms[ms.size() / 2], ms.front(), ms.back(),
                       reads_draws(c.backend) ? generation_ms : 0.0};
  };
  const auto by_total = [](const Measurement& a, const Measurement& b) {
    return a.total_ms() < b.total_ms();
  };
  const auto over_budget = [&] {
    return quick && options.budget_seconds > 0.0 && elapsed() > options.budget_seconds;
  };

  std::vector<BackendChoice> finals;
  if (!quick) {
    finals = candidates;
  } else {
    // Screen every backend once at its likeliest distance (none and inline first: the baseline
    // and the default), then time the two fastest backends at every distance and padding.
    const auto likeliest = [](const BackendChoice& c) {
      if (c.padding.mode != config::Padding::Mode::automatic)
        return false;
      const kernels::BackendInfo* info = kernels::find_backend(c.backend);
      return !info->uses_prefetch_distance || c.prefetch_distance == 8 || c.prefetch_distance == 4;
    };
    std::vector<BackendChoice> screen;
    for (const char* first : {"none", "inline"}) {
      for (const auto& c : candidates) {
        if (c.backend == first)
          screen.push_back(c);
      }
    }
    for (const auto& c : candidates) {
      if (c.backend != "none" && c.backend != "inline" && likeliest(c))
        screen.push_back(c);
    }
    std::vector<Measurement> screened;
    int done = 0;
    for (const auto& c : screen) {
      if (screened.size() >= 2 && over_budget()) {
        result.stopped_by_budget = true;
        break;
      }
      if (screened.size() >= 2)
        result.last_optional_start_seconds = elapsed();
      if (options.progress)
        options.progress(c, done++, 0);
      screened.push_back(time(c, 1));
    }
    std::sort(screened.begin(), screened.end(), by_total);
    std::vector<std::string> top;
    for (const auto& m : screened) {
      if (std::find(top.begin(), top.end(), m.choice.backend) == top.end())
        top.push_back(m.choice.backend);
      if (top.size() == 2)
        break;
    }
    for (const auto& c : candidates) {
      if (c.backend == "none" || std::find(top.begin(), top.end(), c.backend) != top.end()) {
        finals.push_back(c);
      }
    }
    order_by_screening(finals, screened);
  }
  int done = 0;
  for (const auto& c : finals) {
    if (result.all.size() >= 2 && over_budget()) {
      result.stopped_by_budget = true;
      break;
    }
    if (result.all.size() >= 2)
      result.last_optional_start_seconds = elapsed();
    if (options.progress)
      options.progress(c, done++, static_cast<int>(finals.size()));
    result.all.push_back(time(c, options.repeats));
  }
  std::sort(result.all.begin(), result.all.end(), by_total);
  result.best = result.all.front();
  for (const auto& m : result.all) {
    if (m.choice.backend == "none")
      result.baseline = m;
  }
  result.seconds = elapsed();
  return result;
}

std::string tuning_cache_path(const std::string& override_path) {
  if (!override_path.empty())
    return override_path;
  if (const char* env = std::getenv("PFMC_TUNING_CACHE"); env != nullptr && *env != '\0')
    return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/pfmc/tuning.json";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/pfmc/tuning.json";
  }
  return "pfmc-tuning.json";
}

struct TuningCache::Document {
  Json json = load_json("");
  /// What this process stored: merged over the file as it is when saving.
  std::set<std::string> entries, devices;
};

namespace {

/// The cache's JSON when `text` is a cache (an object whose `entries` and `devices`, where
/// present, are objects); else the reason it is not.
std::optional<Json> parse_cache(const std::string& text, std::string& why) {
  try {
    Json j = load_json(text);
    const bool objects = j.is_object() && (!j.contains("entries") || j["entries"].is_object()) &&
                         (!j.contains("devices") || j["devices"].is_object());
    if (objects)
      return j;
    why = "not a tuning cache: `entries` and `devices` must be objects";
  } catch (const std::exception& e) {
    why = std::string("not valid JSON: ") + e.what();
  }
  return std::nullopt;
}

std::string read_text(const std::string& path, bool& exists) {
  std::ifstream in(path);
  exists = static_cast<bool>(in);
  std::stringstream text;
  if (exists)
    text << in.rdbuf();
  return text.str();
}

/// An exclusive lock on `path`.lock for the scope (flock; released on close): savers of one
/// cache take turns to re-read, merge and rename. Without the lock file (a read-only folder)
/// the save goes on unlocked.
class CacheLock {
public:
  explicit CacheLock(const std::string& path)
      : fd_(::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666)) {
    if (fd_ >= 0)
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~CacheLock() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  CacheLock(const CacheLock&) = delete;
  CacheLock& operator=(const CacheLock&) = delete;

private:
  int fd_;
};

} // namespace

TuningCache::TuningCache(std::string path)
    : path_(std::move(path)), document_(std::make_unique<Document>()) {
  bool exists = false;
  const std::string text = read_text(path_, exists);
  if (!exists)
    return; // no cache yet
  std::string why;
  if (auto json = parse_cache(text, why)) {
    document_->json = std::move(*json);
    return;
  }
  // A corrupt cache is set aside (once: the next run finds no file there) and rebuilt.
  const std::string aside = path_ + ".corrupt";
  std::error_code error;
  std::filesystem::rename(path_, aside, error);
  recovered_ =
      "tuning cache " + path_ + " is " + why + "; " +
      (error ? "it could not be set aside (" + error.message() + ")" : "set aside as " + aside) +
      ", starting an empty one";
}

TuningCache::~TuningCache() = default;
TuningCache::TuningCache(TuningCache&&) noexcept = default;
TuningCache& TuningCache::operator=(TuningCache&&) noexcept = default;

std::optional<BackendChoice> TuningCache::find(const std::string& key) const {
  const Json& j = document_->json;
  const auto entries = j.find("entries");
  if (entries == j.end() || !entries->contains(key))
    return std::nullopt;
  const Json& e = (*entries)[key];
  BackendChoice choice;
  choice.backend = e.value("backend", "");
  choice.prefetch_distance = e.value("prefetch_distance", 0);
  const auto padding = config::parse_padding(e.value("padding", "auto"));
  const kernels::BackendInfo* info = kernels::find_backend(choice.backend);
  if (info == nullptr || !padding ||
      (info->uses_prefetch_distance && !kernels::is_prefetch_distance(choice.prefetch_distance))) {
    return std::nullopt; // written by another version of pfmc: tune again
  }
  choice.padding = *padding;
  return choice;
}

void TuningCache::store(const TuneResult& result) {
  document_->entries.insert(result.key);
  document_->json["entries"][result.key] = {
      {"backend", result.best.choice.backend},
      {"prefetch_distance", result.best.choice.prefetch_distance},
      {"padding", config::to_string(result.best.choice.padding)},
      {"median_ms", result.best.median_ms},
      {"generation_ms", result.best.generation_ms},
      {"none_ms", result.baseline.total_ms()},
      {"sample_paths", result.sample_paths},
      {"configurations", result.all.size()},
      {"tuning_seconds", result.seconds},
      {"tuned", now_utc()}};
}

std::optional<double> TuningCache::copy_bandwidth(const DeviceInfo& device) const {
  const Json& j = document_->json;
  const auto devices = j.find("devices");
  if (devices == j.end() || !devices->contains(device_key(device)))
    return std::nullopt;
  return (*devices)[device_key(device)].value("copy_bandwidth_gbps", 0.0);
}

void TuningCache::store_copy_bandwidth(const DeviceInfo& device, double gbps) {
  document_->devices.insert(device_key(device));
  document_->json["devices"][device_key(device)] = {{"copy_bandwidth_gbps", gbps},
                                                    {"measured", now_utc()}};
}

void TuningCache::save() const {
  namespace fs = std::filesystem;
  const fs::path target(path_);
  std::error_code error;
  if (target.has_parent_path())
    fs::create_directories(target.parent_path(), error);
  // Two `pfmc tune` runs at once: each, under the lock, re-reads the file as the other left it
  // and writes it back with its own entries added, so neither loses the other's.
  const CacheLock lock(path_);
  bool exists = false;
  std::string why;
  std::optional<Json> merged = parse_cache(read_text(path_, exists), why);
  if (!merged)
    merged = load_json(""); // none yet, or corrupt since this run read it: ours alone
  const Json& ours = document_->json;
  for (const auto& key : document_->entries)
    (*merged)["entries"][key] = ours["entries"][key];
  for (const auto& key : document_->devices)
    (*merged)["devices"][key] = ours["devices"][key];
  write_file_atomically(path_, merged->dump(2) + '\n');
}

double device_copy_bandwidth(const DeviceInfo& device, TuningCache* cache) {
  if (cache != nullptr) {
    if (const auto cached = cache->copy_bandwidth(device); cached && *cached > 0.0)
      return *cached;
  }
  const double gbps = measure_copy_bandwidth_gbps(std::size_t(256) << 20, 7);
  if (cache != nullptr)
    cache->store_copy_bandwidth(device, gbps);
  return gbps;
}

} // namespace pfmc::engine
