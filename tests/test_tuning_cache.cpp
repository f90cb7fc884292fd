// The tuning cache on disk: concurrent savers keep each other's entries; a corrupt file is set
// aside once and rebuilt, never a crash and never a choice read from garbage.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/tune/tuning.hpp"

namespace pfmc {
namespace {

namespace fs = std::filesystem;

class TuningCacheFile : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pfmc_tuning_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "tuning.json").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  static engine::TuneResult result(const std::string& key, const std::string& backend,
                                   int distance) {
    engine::TuneResult r;
    r.key = key;
    r.best.choice = engine::BackendChoice{backend, distance, config::Padding{}};
    r.best.median_ms = 1.0;
    return r;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  fs::path dir_;
  std::string path_;
};

TEST_F(TuningCacheFile, TwoRunsThatReadTheSameCacheKeepEachOthersEntries) {
  {
    engine::TuningCache old(path_);
    old.store(result("old shape", "none", 0));
    old.save();
  }
  // Both read the file before either saves (two `pfmc tune` processes at once).
  engine::TuningCache first(path_), second(path_);
  first.store(result("shape A", "scalar_batched", 8));
  second.store(result("shape B", "inline", 0));
  second.store(result("old shape", "scalar_batched", 4)); // a newer tuning of a cached shape
  first.save();
  second.save();
  const engine::TuningCache merged(path_);
  ASSERT_TRUE(merged.find("shape A"));
  ASSERT_TRUE(merged.find("shape B"));
  ASSERT_TRUE(merged.find("old shape"));
  EXPECT_EQ(merged.find("shape A")->backend, "scalar_batched");
  EXPECT_EQ(merged.find("shape A")->prefetch_distance, 8);
  EXPECT_EQ(merged.find("shape B")->backend, "inline");
  EXPECT_EQ(merged.find("old shape")->backend, "scalar_batched");
  EXPECT_TRUE(merged.recovered().empty());
}

TEST_F(TuningCacheFile, AutosProbeIsKeptForTheSameDefaultOnly) {
  const engine::BackendChoice inline_default{"inline", 0, config::Padding{}};
  const engine::BackendChoice batched{"scalar_batched", 4, config::Padding{}};
  {
    engine::TuningCache cache(path_);
    EXPECT_FALSE(cache.probe("k", inline_default));
    cache.store_probe("k", inline_default, engine::Probe{3.5, 262144});
    cache.store(result("other", "scalar_batched", 8));
    cache.save();
  }
  engine::TuningCache reread(path_);
  const auto probe = reread.probe("k", inline_default);
  ASSERT_TRUE(probe);
  EXPECT_EQ(probe->total_ms, 3.5);
  EXPECT_EQ(probe->sample_paths, 262144u);
  // A probe of another default (another version of pfmc, other draws) is not this one's.
  EXPECT_FALSE(reread.probe("k", batched));
  EXPECT_FALSE(reread.probe("missing", inline_default));
  // A probe is not a tuned choice: the key has no entry.
  EXPECT_FALSE(reread.find("k"));
  EXPECT_TRUE(reread.find("other"));
  // A broken probe (no time) is probed again, not divided by.
  {
    std::ofstream out(path_);
    out << R"({"probes": {"k": {"backend": "inline", "prefetch_distance": 0, "padding": "auto",
              "total_ms": 0, "sample_paths": 0}}})";
  }
  EXPECT_FALSE(engine::TuningCache(path_).probe("k", inline_default));
  // `probes` that is not an object: a corrupt cache, set aside.
  {
    std::ofstream out(path_);
    out << R"({"probes": []})";
  }
  engine::TuningCache corrupt(path_);
  EXPECT_NE(corrupt.recovered().find("`probes`"), std::string::npos) << corrupt.recovered();
}

TEST_F(TuningCacheFile, ConcurrentSaversAllLand) {
  constexpr int kWriters = 8;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([this, w] {
      for (int round = 0; round < 5; ++round) {
        engine::TuningCache cache(path_);
        cache.store(result("writer " + std::to_string(w) + " round " + std::to_string(round),
                           "scalar_batched", 4));
        cache.save();
      }
    });
  }
  for (auto& t : writers)
    t.join();
  const engine::TuningCache merged(path_);
  EXPECT_TRUE(merged.recovered().empty());
  for (int w = 0; w < kWriters; ++w) {
    for (int round = 0; round < 5; ++round) {
      EXPECT_TRUE(merged.find("writer " + std::to_string(w) + " round " + std::to_string(round)))
          << w << " " << round;
    }
  }
  // The cache, its lock file, no temporary file left.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"tuning.json", "tuning.json.lock"}));
}

TEST_F(TuningCacheFile, ACorruptCacheIsSetAsideOnceAndRebuilt) {
  for (const std::string garbage : {"{\"entries\": {\"x\": ", "{\"entries\": [1, 2]}", "[]"}) {
    fs::remove(path_ + ".corrupt");
    std::ofstream(path_) << garbage;
    engine::TuningCache cache(path_);
    EXPECT_NE(cache.recovered().find("tuning cache " + path_ + " is not"), std::string::npos)
        << cache.recovered();
    EXPECT_NE(cache.recovered().find("set aside as " + path_ + ".corrupt"), std::string::npos)
        << cache.recovered();
    EXPECT_FALSE(cache.find("x"));
    EXPECT_EQ(read(path_ + ".corrupt"), garbage);
    EXPECT_FALSE(fs::exists(path_));
    cache.store(result("x", "inline", 0));
    cache.save();
    // Reported once: the next run finds a good cache.
    const engine::TuningCache next(path_);
    EXPECT_TRUE(next.recovered().empty()) << next.recovered();
    ASSERT_TRUE(next.find("x"));
    EXPECT_EQ(next.find("x")->backend, "inline");
  }
}

// A key names the draws: a Philox run's answer (often `inline`, which computes Philox draws) must
// never be read by a run of cuRAND's draws or of a Brownian bridge. v15's scrambled-Sobol test
// runs read such an entry through a shared cache before the key had the rng.
TEST(TuningKey, NamesTheDrawsAndTheBridge) {
  engine::DeviceInfo device;
  device.name = "NVIDIA H100 80GB HBM3";
  device.multiprocessors = 132;
  engine::GroupPlan group;
  group.model_type = config::ModelType::black_scholes;
  group.factors = 1;
  group.scenarios = 1;
  engine::ExecutionSettings settings;
  settings.paths = 100000;
  std::vector<std::string> keys;
  for (const auto rng : {config::RngType::philox, config::RngType::mrg32k3a, config::RngType::sobol,
                         config::RngType::scrambled_sobol}) {
    settings.rng = rng;
    for (const bool bridge : {false, true}) {
      settings.brownian_bridge = bridge;
      keys.push_back(engine::tuning_key(device, group, settings));
    }
  }
  std::vector<std::string> distinct = keys;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  EXPECT_EQ(distinct.size(), keys.size());
  EXPECT_NE(keys[6].find("scrambled_sobol"), std::string::npos) << keys[6];
  EXPECT_NE(keys[7].find("bridged"), std::string::npos) << keys[7];
}

TEST(TuningKey, ACachedChoiceMustDrawThisRunsDraws) {
  const kernels::BackendInfo* in_loop = kernels::find_backend("inline");
  const kernels::BackendInfo* reader = kernels::find_backend("scalar_batched");
  ASSERT_NE(in_loop, nullptr);
  ASSERT_NE(reader, nullptr);
  engine::ExecutionSettings settings;
  settings.rng = config::RngType::philox;
  EXPECT_TRUE(engine::draws_fit_backend(*in_loop, settings));
  settings.brownian_bridge = true;
  EXPECT_FALSE(engine::draws_fit_backend(*in_loop, settings));
  EXPECT_TRUE(engine::draws_fit_backend(*reader, settings));
  settings.brownian_bridge = false;
  for (const auto rng :
       {config::RngType::mrg32k3a, config::RngType::sobol, config::RngType::scrambled_sobol}) {
    settings.rng = rng;
    EXPECT_FALSE(engine::draws_fit_backend(*in_loop, settings)) << config::to_string(rng);
    EXPECT_TRUE(engine::draws_fit_backend(*reader, settings)) << config::to_string(rng);
  }
}

} // namespace
} // namespace pfmc
