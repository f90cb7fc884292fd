#include "engine/tuning.hpp"

#include "engine/gpu_engine.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/overrides.hpp"
#include "engine/backend_catalog.hpp"
#include "engine/error.hpp"
#include "engine/kernel_bench.hpp"
#include "kernels/reduction_shape.hpp"

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

BackendChoice default_backend_choice() {
  // Fastest on both reference workloads on an H100 (bench/NOTES.md): batched loads hide the
  // latency of the latency-bound kernel and keep the bandwidth-bound one at the copy rate.
  return BackendChoice{"scalar_batched", 4, config::Padding{}};
}

TuneResult tune_group(const GroupPlan& group, const ExecutionSettings& settings,
                      const TuneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const DeviceInfo device = query_device();
  PFMC_EXPECTS(device.available, "tuning needs a GPU");

  // Measure one chunk's worth of paths (the whole group when it fits).
  ExecutionSettings measured = settings;
  const int values = group.reduced_values();
  const int real_bytes = settings.precision == config::Precision::float32 ? 4 : 8;
  const ChunkPlan chunking = plan_chunks(settings.paths, group.rows(), real_bytes, values,
                                         settings.block_size, settings.memory_cap);
  PFMC_EXPECTS(chunking.chunk_paths > 0, "memory cap below one tile of paths");
  measured.paths = chunking.chunk_paths;
  KernelBench bench(group, measured);

  const auto time = [&](const BackendChoice& c, int repeats) {
    bench.time_launch_ms(c.backend, c.prefetch_distance, c.padding); // warm-up
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
      ms.push_back(bench.time_launch_ms(c.backend, c.prefetch_distance, c.padding));
    }
    std::sort(ms.begin(), ms.end());
    return Measurement{c, ms[ms.size() / 2], ms.front(), ms.back()};
  };

  // The configurations this device runs, restricted to the requested backends and distances.
  std::vector<BackendChoice> candidates;
  for (const auto& b : backend_catalog()) {
    if (!why_backend_cannot_run(b, device.compute_capability, device.name).empty())
      continue;
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
      for (int d : options.distances.empty() ? prefetch_distances() : options.distances) {
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

  TuneResult result;
  result.key = tuning_key(device, group, settings.precision, settings.paths);
  result.bytes_per_launch = bench.bytes_per_launch();
  result.path_steps_per_launch = bench.path_steps_per_launch();
  std::vector<BackendChoice> finals;
  if (options.mode == TuneMode::exhaustive) {
    finals = candidates;
  } else {
    // Screen every backend once at distances 2, 4 and 8 (auto padding), then time the three
    // fastest backends at every distance and padding.
    std::vector<Measurement> screened;
    int done = 0;
    for (const auto& c : candidates) {
      const bool screen = c.prefetch_distance == 0 || c.prefetch_distance == 2 ||
                          c.prefetch_distance == 4 || c.prefetch_distance == 8;
      if (!screen || c.padding.mode != config::Padding::Mode::automatic)
        continue;
      if (options.progress)
        options.progress(c, done++, 0);
      screened.push_back(time(c, 1));
    }
    std::sort(screened.begin(), screened.end(),
              [](const Measurement& a, const Measurement& b) { return a.median_ms < b.median_ms; });
    std::vector<std::string> top;
    for (const auto& m : screened) {
      if (std::find(top.begin(), top.end(), m.choice.backend) == top.end())
        top.push_back(m.choice.backend);
      if (top.size() == 3)
        break;
    }
    for (const auto& c : candidates) {
      if (c.backend == "none" || std::find(top.begin(), top.end(), c.backend) != top.end()) {
        finals.push_back(c);
      }
    }
  }
  int done = 0;
  for (const auto& c : finals) {
    if (options.progress)
      options.progress(c, done++, static_cast<int>(finals.size()));
    result.all.push_back(time(c, options.repeats));
  }
  std::sort(result.all.begin(), result.all.end(),
            [](const Measurement& a, const Measurement& b) { return a.median_ms < b.median_ms; });
  result.best = result.all.front();
  for (const auto& m : result.all) {
    if (m.choice.backend == "none")
      result.baseline = m;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
};

TuningCache::TuningCache(std::string path)
    : path_(std::move(path)), document_(std::make_unique<Document>()) {
  std::ifstream in(path_);
  if (!in)
    return; // no cache yet
  std::stringstream text;
  text << in.rdbuf();
  try {
    document_->json = load_json(text.str());
  } catch (const std::exception& e) {
    throw RuntimeError("tuning cache " + path_ + " is not valid JSON (" + e.what() +
                       "); delete it or point --tuning-cache elsewhere");
  }
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
  const BackendInfo* info = find_backend(choice.backend);
  if (info == nullptr || !padding ||
      (info->uses_prefetch_distance && !is_prefetch_distance(choice.prefetch_distance))) {
    return std::nullopt; // written by another version of pfmc: tune again
  }
  choice.padding = *padding;
  return choice;
}

void TuningCache::store(const TuneResult& result) {
  document_->json["entries"][result.key] = {
      {"backend", result.best.choice.backend},
      {"prefetch_distance", result.best.choice.prefetch_distance},
      {"padding", config::to_string(result.best.choice.padding)},
      {"median_ms", result.best.median_ms},
      {"none_ms", result.baseline.median_ms},
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
  document_->json["devices"][device_key(device)] = {{"copy_bandwidth_gbps", gbps},
                                                    {"measured", now_utc()}};
}

void TuningCache::save() const {
  namespace fs = std::filesystem;
  const fs::path target(path_);
  std::error_code error;
  if (target.has_parent_path())
    fs::create_directories(target.parent_path(), error);
  const std::string temporary = path_ + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out)
      throw RuntimeError("cannot write the tuning cache " + path_);
    out << document_->json.dump(2) << '\n';
  }
  if (std::rename(temporary.c_str(), path_.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw RuntimeError("cannot write the tuning cache " + path_);
  }
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
