#include "engine/tune/tuning.hpp"

#include <nlohmann/json.hpp>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "base/atomic_file.hpp"
#include "base/cache_folder.hpp"
#include "base/file_lock.hpp"
#include "config/setting_rules.hpp"
#include "engine/tune/kernel_bench.hpp"
#include "kernels/catalog.hpp"

namespace pfmc::engine {

namespace {

using Json = nlohmann::json;

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

std::string device_key(const DeviceInfo& device) {
  return device.name + "|" + std::to_string(device.multiprocessors) + " SMs";
}

std::string tuning_cache_path(const std::string& override_path) {
  if (!override_path.empty())
    return override_path;
  return base::cache_path("PFMC_TUNING_CACHE", "tuning.json", "pfmc-tuning.json");
}

struct TuningCache::Document {
  Json json = load_json("");
  /// What this process stored: merged over the file as it is when saving.
  std::set<std::string> entries, devices, probes;
};

namespace {

/// The cache's JSON when `text` is a cache (an object whose `entries` and `devices`, where
/// present, are objects); else the reason it is not.
std::optional<Json> parse_cache(const std::string& text, std::string& why) {
  try {
    Json j = load_json(text);
    const bool objects = j.is_object() && (!j.contains("entries") || j["entries"].is_object()) &&
                         (!j.contains("devices") || j["devices"].is_object()) &&
                         (!j.contains("probes") || j["probes"].is_object());
    if (objects)
      return j;
    why = "not a tuning cache: `entries`, `devices` and `probes` must be objects";
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
  // A corrupt cache is set aside and rebuilt.
  recovered_ = "tuning cache " + path_ + " is " + why + "; " + base::set_aside(path_) +
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

std::optional<Probe> TuningCache::probe(const std::string& key, const BackendChoice& choice) const {
  const Json& j = document_->json;
  const auto probes = j.find("probes");
  if (probes == j.end() || !probes->contains(key))
    return std::nullopt;
  const Json& e = (*probes)[key];
  // Another default (another version of pfmc) or a broken entry: probe again.
  if (e.value("backend", "") != choice.backend ||
      e.value("prefetch_distance", -1) != choice.prefetch_distance ||
      e.value("padding", "") != config::to_string(choice.padding))
    return std::nullopt;
  Probe probe{e.value("total_ms", 0.0), e.value("sample_paths", std::uint64_t{0})};
  if (!(probe.total_ms > 0.0) || probe.sample_paths == 0)
    return std::nullopt;
  return probe;
}

void TuningCache::store_probe(const std::string& key, const BackendChoice& choice,
                              const Probe& probe) {
  document_->probes.insert(key);
  document_->json["probes"][key] = {{"backend", choice.backend},
                                    {"prefetch_distance", choice.prefetch_distance},
                                    {"padding", config::to_string(choice.padding)},
                                    {"total_ms", probe.total_ms},
                                    {"sample_paths", probe.sample_paths},
                                    {"measured", now_utc()}};
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
  const base::FileLock lock(path_ + ".lock"); // a read-only folder: unlocked
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
  for (const auto& key : document_->probes)
    (*merged)["probes"][key] = ours["probes"][key];
  base::write_file_atomically(path_, merged->dump(2) + '\n');
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
