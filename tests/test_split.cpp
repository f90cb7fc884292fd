// Split runs on the CPU: the merge of partial sums (stacks of aligned tile blocks) against one
// run's additions, the split arithmetic (uneven counts, one path, more workers than tiles), the
// CPU backend's runs of shares against its whole run, and engine.devices / --devices.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "config/overrides.hpp"
#include "engine/core/visible_devices.hpp"
#include "engine/plan/plan.hpp"
#include "engine/run/cpu_engine.hpp"
#include "engine/run/run_setup.hpp"
#include "engine/scale/communicator.hpp"
#include "engine/scale/device_threads.hpp"
#include "engine/scale/partial_sums.hpp"
#include "engine/scale/split_run.hpp"
#include "engine/scale/work_split.hpp"
#include "engine/tune/backend_choice.hpp"
#include "kernels/reduction_shape.cuh"
#include "pricing_book.hpp"
#include "test_support.hpp"

namespace pfmc {
namespace {

using engine::PartialSums;
using engine::PathRange;
using engine::WorkShare;

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

/// Tile sums of `tiles` tiles, `values` each, of very different magnitudes (so that the order of
/// the additions shows in the bits).
std::vector<double> random_tiles(std::uint64_t tiles, int values, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<double> out(tiles * static_cast<std::size_t>(values));
  for (double& x : out)
    x = std::ldexp(mantissa(rng), exponent(rng));
  return out;
}

PartialSums pushed(const std::vector<double>& tiles, int values, std::uint64_t first,
                   std::uint64_t end) {
  PartialSums s(first, values);
  for (std::uint64_t t = first; t < end; ++t)
    s.push_tile(tiles.data() + t * static_cast<std::size_t>(values));
  return s;
}

TEST(PartialSums, FourTilesArePairwiseAndThreeFoldFromTheRight) {
  const std::vector<double> t = {1e16, 1.0, -1e16, 1.0};
  EXPECT_EQ(pushed(t, 1, 0, 4).totals()[0], (1e16 + 1.0) + (-1e16 + 1.0));
  EXPECT_EQ(pushed(t, 1, 0, 3).totals()[0], (1e16 + 1.0) + -1e16);
  EXPECT_EQ(pushed(t, 1, 0, 4).depth(), 1);
  EXPECT_EQ(pushed(t, 1, 0, 3).depth(), 2);
}

TEST(PartialSums, AnyCutIntoPiecesMergesToOneRunsBits) {
  const int values = 3;
  for (std::uint64_t n : {1u, 2u, 3u, 5u, 8u, 13u, 31u, 64u, 77u}) {
    const auto tiles = random_tiles(n, values, static_cast<unsigned>(n));
    const PartialSums whole = pushed(tiles, values, 0, n);
    std::mt19937 rng(static_cast<unsigned>(n) * 7u);
    for (int trial = 0; trial < 40; ++trial) {
      // 1 to 5 pieces at random cuts (some empty).
      std::vector<std::uint64_t> cuts = {0, n};
      const int pieces = 1 + trial % 5;
      for (int k = 1; k < pieces; ++k)
        cuts.push_back(std::uniform_int_distribution<std::uint64_t>(0, n)(rng));
      std::sort(cuts.begin(), cuts.end());
      // From nothing (PartialSums{}: no values yet), each piece appended in order.
      PartialSums merged;
      for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        const PartialSums piece = pushed(tiles, values, cuts[k], cuts[k + 1]);
        EXPECT_EQ(piece.depth(), kernels::tile_blocks(cuts[k], cuts[k + 1]));
        merged.append(piece);
      }
      ASSERT_EQ(merged.end_tile, n);
      ASSERT_EQ(merged.blocks.size(), whole.blocks.size()) << n << " tiles, trial " << trial;
      for (std::size_t i = 0; i < whole.blocks.size(); ++i)
        EXPECT_EQ(bits(merged.blocks[i]), bits(whole.blocks[i])) << n << " tiles, trial " << trial;
      const auto a = merged.totals(), b = whole.totals();
      for (int v = 0; v < values; ++v)
        EXPECT_EQ(bits(a[v]), bits(b[v]));
    }
  }
}

TEST(PartialSums, StackCapacityBoundsEveryRange) {
  for (std::uint64_t first = 0; first < 70; ++first) {
    for (std::uint64_t end = first; end < 140; ++end)
      EXPECT_LE(kernels::tile_blocks(first, end), kernels::tile_stack_capacity(end - first));
  }
}

/// Checks that the shares tile every group's range in order, each starting on a tile.
void expect_partition(const WorkShare& whole, const std::vector<WorkShare>& shares) {
  for (std::size_t g = 0; g < whole.ranges.size(); ++g) {
    std::uint64_t at = whole.ranges[g].first;
    for (const WorkShare& s : shares) {
      const PathRange& r = s.ranges[g];
      if (r.empty())
        continue;
      EXPECT_EQ(r.first, at) << "group " << g;
      EXPECT_EQ(r.first % kernels::kTilePaths, 0u);
      at = r.end;
    }
    EXPECT_EQ(at, whole.ranges[g].end) << "group " << g;
  }
}

TEST(WorkSplit, UnevenCountsAreCutByPathStepsAtTiles) {
  const std::vector<int> steps = {10, 20, 5};
  const WorkShare whole = engine::whole_run(3, 1000000); // 123 tiles a group
  for (std::size_t workers = 1; workers <= 9; ++workers) {
    const auto shares = engine::split_share(whole, steps, workers);
    ASSERT_EQ(shares.size(), workers);
    expect_partition(whole, shares);
    const double total = engine::share_path_steps(whole, steps);
    for (const WorkShare& s : shares) {
      // Within a tile of the costliest group of the ideal share (a cut rounds to a tile).
      EXPECT_NEAR(engine::share_path_steps(s, steps), total / static_cast<double>(workers),
                  20.0 * kernels::kTilePaths + 1.0)
          << workers << " workers";
    }
  }
}

TEST(WorkSplit, OnePathAndMoreWorkersThanTiles) {
  const auto one = engine::split_share(engine::whole_run(1, 1), {50}, 3);
  expect_partition(engine::whole_run(1, 1), one);
  int holding = 0;
  for (const WorkShare& s : one)
    holding += engine::share_empty(s) ? 0 : 1;
  EXPECT_EQ(holding, 1);
  // 3 groups of 2 tiles over 8 workers: every tile somewhere once, at most one per worker.
  const WorkShare whole = engine::whole_run(3, 2 * kernels::kTilePaths);
  const auto shares = engine::split_share(whole, {1, 1, 1}, 8);
  expect_partition(whole, shares);
  for (const WorkShare& s : shares)
    EXPECT_LE(engine::share_path_steps(s, {1, 1, 1}), 2.0 * kernels::kTilePaths);
  // A share cut again (a rank's piece over its devices) still partitions it.
  const auto ranks = engine::split_share(engine::whole_run(2, 100000), {7, 3}, 3);
  for (const WorkShare& rank : ranks)
    expect_partition(rank, engine::split_share(rank, {7, 3}, 2));
}

TEST(CpuShares, PiecesOfTheRunMergeToTheWholeRunsBits) {
  // The standard book (several groups, barriers, Asians, a portfolio) in double, antithetic,
  // cut into 3 pieces that fall inside groups.
  const auto config =
      testing::load(testing::book_yaml(testing::standard_book(12), 50000, 12,
                                       "{device: cpu, cpu_threads: 2}", ", antithetic: true"));
  const engine::RunDevice device{};
  const engine::ExecutionSettings settings = engine::make_settings(config, device);
  const engine::SimulationPlan plan = engine::make_plan(config);
  const auto whole = engine::run_plan_on_cpu(plan, settings, {});
  std::vector<int> steps;
  for (const auto& g : plan.groups)
    steps.push_back(g.steps());
  const auto shares =
      engine::split_share(engine::whole_run(plan.groups.size(), settings.paths), steps, 3);
  std::vector<std::vector<engine::GroupOutcome>> parts;
  for (const WorkShare& s : shares)
    parts.push_back(engine::run_plan_on_cpu(plan, settings, {}, nullptr, &s));
  const auto merged = engine::merge_pieces(plan, parts);
  for (std::size_t g = 0; g < plan.groups.size(); ++g) {
    EXPECT_EQ(merged[g].paths, whole[g].paths);
    ASSERT_EQ(merged[g].totals.size(), whole[g].totals.size());
    for (std::size_t v = 0; v < whole[g].totals.size(); ++v) {
      EXPECT_EQ(bits(merged[g].totals[v]), bits(whole[g].totals[v]))
          << "group " << g << " value " << v;
    }
  }
}

// A host mixing GPUs (engine/pricer.cpp): devices numbered by kind as they first appear, each
// kind's groups' backend, distance, padding and memory cap over the run's settings, and what a
// worker ran in one line.
TEST(DeviceKinds, NumberedByFirstAppearanceAndAppliedToTheirWorkers) {
  EXPECT_EQ(engine::number_device_kinds({}), std::vector<int>{});
  EXPECT_EQ(engine::number_device_kinds({"H100|132 SMs"}), std::vector<int>{0});
  EXPECT_EQ(engine::number_device_kinds({"A", "B", "A", "C", "B", "B"}),
            (std::vector<int>{0, 1, 0, 2, 1, 1}));

  engine::ExecutionSettings base;
  base.backend = "none";
  base.paths = 1234;
  base.memory_cap = 100;
  std::vector<engine::ExecutionSettings> groups(3, base);
  groups[2].backend = "scalar_batched";
  groups[2].prefetch_distance = 4;
  std::vector<engine::ExecutionSettings> other(3, base);
  for (auto& s : other) {
    s.backend = "inline";
    s.paths = 99; // not the kind's to change: the run's
    s.memory_cap = 50;
  }
  engine::Placement placement;
  placement.devices = {0, 1};
  placement.device_kinds = {0, 1};
  placement.kind_settings = {{}, other};
  const auto first = engine::settings_of_kind(groups, placement, 0);
  const auto second = engine::settings_of_kind(groups, placement, 1);
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(first[2].backend, "scalar_batched");
  for (const auto& s : second) {
    EXPECT_EQ(s.backend, "inline");
    EXPECT_EQ(s.memory_cap, 50u);
    EXPECT_EQ(s.paths, 1234u);
  }
  EXPECT_EQ(engine::backends_summary(second), "inline");
  EXPECT_EQ(engine::backends_summary(first), "per group: none, scalar_batched d4");
  EXPECT_EQ(engine::backends_summary(std::vector<engine::ExecutionSettings>(2, groups[2])),
            "scalar_batched d4");
}

TEST(DevicesSetting, AllCountsAndListsFromTheFileAndTheFlag) {
  const auto with = [](const std::string& devices) {
    return testing::load(
        testing::book_yaml(testing::standard_book(12), 1000, 12, "{devices: " + devices + "}"));
  };
  using Kind = config::DeviceList::Kind;
  EXPECT_EQ(with("all").engine.devices.kind, Kind::all);
  EXPECT_EQ(with("2").engine.devices.count, 2);
  EXPECT_EQ(with("[0, 2]").engine.devices.ordinals, (std::vector<int>{0, 2}));
  EXPECT_EQ(with("[0, 0]").engine.devices.ordinals, (std::vector<int>{0, 0}));
  for (const std::string bad : {"0", "-1", "65", "[64]", "[]", "two", "[0, x]", "{a: 1}"}) {
    try {
      (void)with(bad);
      ADD_FAILURE() << "accepted devices: " << bad;
    } catch (const config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("engine.devices"), std::string::npos) << e.what();
    }
  }
  config::RunConfig config = with("all");
  config::Overrides ov;
  ov.values["devices"] = "1,3";
  config::apply_overrides(config, ov);
  EXPECT_EQ(config.engine.devices.ordinals, (std::vector<int>{1, 3}));
  EXPECT_EQ(config::to_string(config.engine.devices), "1,3");
  ov.values["devices"] = "1,,3";
  EXPECT_THROW(config::apply_overrides(config, ov), config::ConfigError);
  // "2,": device 2 alone (a number alone is a count), and written back so.
  ov.values["devices"] = "2,";
  config::apply_overrides(config, ov);
  EXPECT_EQ(config.engine.devices.kind, config::DeviceList::Kind::list);
  EXPECT_EQ(config.engine.devices.ordinals, (std::vector<int>{2}));
  EXPECT_EQ(config::to_string(config.engine.devices), "2,");
  ov.values["devices"] = "1,3,";
  EXPECT_THROW(config::apply_overrides(config, ov), config::ConfigError);
}

TEST(DevicesSetting, PeekedFromTheEngineBlockBeforeTheConfigIsLoaded) {
  // What the command line reads before CUDA starts (config::peek_engine_devices): the
  // top-level engine block alone, flow or block style; nothing it cannot tell.
  const std::string file = ::testing::TempDir() + "/peek_devices.yaml";
  const auto peek = [&](const std::string& text) {
    std::ofstream(file) << text;
    return config::peek_engine_devices(file);
  };
  using Kind = config::DeviceList::Kind;
  const std::string market = "market:\n  rates: {zero_rate: 0.01}\n";
  EXPECT_EQ(peek(market + "engine: {device: gpu, devices: [0, 2]}\n")->ordinals,
            (std::vector<int>{0, 2}));
  EXPECT_EQ(peek("engine:\n  device: gpu\n  # a comment\n  devices: 3\n" + market)->count, 3);
  EXPECT_EQ(peek(market + "engine: {devices: all}\n")->kind, Kind::all);
  EXPECT_EQ(peek(market + "engine: {device: gpu}\n")->kind, Kind::first);
  EXPECT_EQ(peek(market)->kind, Kind::first);
  EXPECT_FALSE(peek(market + "engine: {devices: [0, x]}\n").has_value());
  EXPECT_FALSE(peek(market + "engine: {devices: two}\n").has_value());
  EXPECT_FALSE(config::peek_engine_devices(file + ".missing").has_value());
  EXPECT_FALSE(config::peek_engine_devices("-").has_value());
}

TEST(DevicesSetting, ARunOnTheCpuIsPeekedSoThatNoContextStarts) {
  // engine/device_start.hpp starts no CUDA context for a run its file puts on the CPU
  // (config::peek_engine_on_cpu); any other answer, or none, starts it.
  const std::string file = ::testing::TempDir() + "/peek_cpu.yaml";
  const auto peek = [&](const std::string& text) {
    std::ofstream(file) << text;
    return config::peek_engine_on_cpu(file);
  };
  const std::string market = "market:\n  rates: {zero_rate: 0.01}\n";
  EXPECT_TRUE(peek(market + "engine: {device: cpu, devices: [0, 2]}\n"));
  EXPECT_TRUE(peek("engine:\n  # a comment\n  device: cpu\n" + market));
  EXPECT_FALSE(peek(market + "engine: {device: gpu}\n"));
  EXPECT_FALSE(peek(market + "engine: {device: auto}\n"));
  EXPECT_FALSE(peek(market + "engine:\n  device: [cpu]\n"));
  EXPECT_FALSE(peek(market + "simulation: {paths: 1000}\n# engine: {device: cpu}\n"));
  EXPECT_FALSE(peek(market));
  EXPECT_FALSE(config::peek_engine_on_cpu(file + ".missing"));
  EXPECT_FALSE(config::peek_engine_on_cpu("-"));
}

TEST(VisibleDevices, NarrowedNeverWidenedAndMappedBack) {
  // engine/core/visible_devices.hpp: the first N of what CUDA would show, or one of them as
  // device 0; a user's CUDA_VISIBLE_DEVICES is narrowed within its own order.
  const char* saved = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string before = saved != nullptr ? saved : "";
  setenv("CUDA_VISIBLE_DEVICES", "3,1,2", 1);
  EXPECT_EQ(engine::gpus_without_cuda(), 3);
  EXPECT_TRUE(engine::narrow_visible_devices(2));
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "3,1");
  EXPECT_EQ(engine::physical_ordinal(1), 1);
  setenv("CUDA_VISIBLE_DEVICES", "3,1,2", 1);
  EXPECT_TRUE(engine::narrow_to_device(2));
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "2");
  EXPECT_EQ(engine::physical_ordinal(0), 2);
  setenv("CUDA_VISIBLE_DEVICES", "3,1,2", 1);
  EXPECT_FALSE(engine::narrow_to_device(5)); // not there: left for CUDA to say
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "3,1,2");
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_TRUE(engine::narrow_visible_devices(3));
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "0,1,2");
  setenv("PFMC_NARROW_DEVICES", "0", 1);
  EXPECT_FALSE(engine::narrow_visible_devices(1));
  unsetenv("PFMC_NARROW_DEVICES");
  engine::forget_narrowing();
  EXPECT_EQ(engine::physical_ordinal(0), 0);
  if (saved != nullptr)
    setenv("CUDA_VISIBLE_DEVICES", before.c_str(), 1);
  else
    unsetenv("CUDA_VISIBLE_DEVICES");
}

TEST(DeviceThreads, SlotsCountEarlierUsesOfTheSameDevice) {
  EXPECT_EQ(engine::device_slots({0, 0, 1, 0, 1}), (std::vector<int>{0, 1, 0, 2, 1}));
  EXPECT_EQ(engine::device_slots({}), std::vector<int>{});
}

TEST(DevicesSetting, SplitRunsNeedPhiloxAndTheCpuNotesDevices) {
  auto config = testing::load(testing::book_yaml(testing::standard_book(12), 1000, 12,
                                                 "{device: cpu, devices: 2}", ", rng: sobol"));
  engine::RunDevice device{};
  engine::RunInfo run;
  engine::resolve_devices(config, /*split_processes=*/false, device, run);
  ASSERT_EQ(run.notices.size(), 1u);
  EXPECT_NE(run.notices[0].find("engine.devices"), std::string::npos);
  EXPECT_THROW(engine::resolve_devices(config, /*split_processes=*/true, device, run),
               config::ConfigError);
}

} // namespace
} // namespace pfmc

// Turns on a shared GPU (engine/scale/communicator.hpp): the ranks of a host that share a GPU
// go in rank order; a rank that fails before its turn lets the others go at the exchange.
namespace pfmc {
namespace {

using engine::DeviceMask;

TEST(Turns, PartnersAreTheRanksSharingAGpu) {
  const std::vector<DeviceMask> masks{0b01, 0b10, 0b11, 0, 0b01};
  EXPECT_EQ(engine::turn_partners(masks, 0).before, std::vector<int>{});
  EXPECT_EQ(engine::turn_partners(masks, 0).after, (std::vector<int>{2, 4}));
  EXPECT_EQ(engine::turn_partners(masks, 1).after, std::vector<int>{2});
  EXPECT_EQ(engine::turn_partners(masks, 2).before, (std::vector<int>{0, 1}));
  EXPECT_EQ(engine::turn_partners(masks, 2).after, std::vector<int>{4});
  EXPECT_TRUE(engine::turn_partners(masks, 3).before.empty());
  EXPECT_TRUE(engine::turn_partners(masks, 3).after.empty());
  EXPECT_EQ(engine::turn_partners(masks, 4).before, (std::vector<int>{0, 2}));
  EXPECT_EQ(engine::device_mask({0, 0, 3}), DeviceMask{0b1001});
}

/// The ranks of one host as threads of this process: the masks' exchange waits for all of
/// them; a token is a count per (from, to).
struct FakeHost {
  explicit FakeHost(int ranks) : masks(static_cast<std::size_t>(ranks)) {}
  std::mutex lock;
  std::condition_variable changed;
  std::vector<DeviceMask> masks;
  int masks_in = 0;
  std::map<std::pair<int, int>, int> tokens;
  std::vector<std::string> events;
  void note(const std::string& event) {
    const std::lock_guard<std::mutex> hold(lock);
    events.push_back(event);
  }
};

class FakeCommunicator final : public engine::Communicator {
public:
  FakeCommunicator(FakeHost& host, int rank) : host_(host), rank_(rank) {}
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return static_cast<int>(host_.masks.size()); }

protected:
  std::vector<std::string> gather_messages(const std::string&) override { return {}; }
  std::vector<DeviceMask> host_masks(DeviceMask mine) override {
    std::unique_lock<std::mutex> hold(host_.lock);
    host_.masks[static_cast<std::size_t>(rank_)] = mine;
    ++host_.masks_in;
    host_.changed.notify_all();
    host_.changed.wait(hold, [&] { return host_.masks_in == size(); });
    return host_.masks;
  }
  [[nodiscard]] int host_rank() const override { return rank_; }
  void send_turn(int to) override {
    const std::lock_guard<std::mutex> hold(host_.lock);
    ++host_.tokens[{rank_, to}];
    host_.changed.notify_all();
  }
  void receive_turn(int from) override {
    std::unique_lock<std::mutex> hold(host_.lock);
    host_.changed.wait(hold, [&] { return host_.tokens[{from, rank_}] > 0; });
    --host_.tokens[{from, rank_}];
  }

private:
  FakeHost& host_;
  int rank_;
};

TEST(Turns, RanksSharingAGpuGoInRankOrder) {
  // Started in reverse order: rank 2 shares GPU 0 with rank 0 and GPU 1 with rank 1; rank 3
  // is on the CPU and waits for nobody.
  const std::vector<DeviceMask> masks{0b01, 0b10, 0b11, 0};
  FakeHost host(4);
  std::vector<std::thread> ranks;
  for (int r = 3; r >= 0; --r) {
    ranks.emplace_back([&, r] {
      FakeCommunicator comm(host, r);
      comm.begin_turn(masks[static_cast<std::size_t>(r)]);
      host.note("run " + std::to_string(r));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      host.note("done " + std::to_string(r));
      comm.end_turn();
      (void)comm.gather("o");
    });
  }
  for (auto& t : ranks)
    t.join();
  const auto at = [&](const std::string& e) {
    return std::find(host.events.begin(), host.events.end(), e) - host.events.begin();
  };
  EXPECT_LT(at("done 0"), at("run 2"));
  EXPECT_LT(at("done 1"), at("run 2"));
  EXPECT_LT(at("run 3"), at("done 2")); // the CPU rank did not wait for the GPU ranks
  for (const auto& [pair, count] : host.tokens)
    EXPECT_EQ(count, 0) << pair.first << " -> " << pair.second;
}

TEST(Turns, ARankThatFailsBeforeItsTurnLetsTheOthersGo) {
  FakeHost host(2);
  std::thread failing([&] {
    FakeCommunicator comm(host, 0);
    (void)comm.gather("e config error"); // never began a turn
  });
  FakeCommunicator comm(host, 1);
  const auto before = std::chrono::steady_clock::now();
  comm.begin_turn(0b1); // GPU 0, as rank 0 would have been
  const double waited =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - before).count();
  comm.end_turn();
  (void)comm.gather("o");
  failing.join();
  // The wait it reports is the wait it had (in milliseconds), not more.
  EXPECT_GE(comm.turn_wait_ms(), 0.0);
  EXPECT_LE(comm.turn_wait_ms(), waited);
  EXPECT_TRUE(host.tokens.empty());
}

TEST(Turns, ARankThatFailsInItsTurnEndsItAtTheExchange) {
  FakeHost host(2);
  std::thread failing([&] {
    FakeCommunicator comm(host, 0);
    comm.begin_turn(0b1);
    (void)comm.gather("e the GPU failed"); // no end_turn: the exchange ends it
  });
  FakeCommunicator comm(host, 1);
  comm.begin_turn(0b1);
  comm.end_turn();
  (void)comm.gather("o");
  failing.join();
  EXPECT_EQ(host.tokens[std::make_pair(0, 1)], 0);
}

} // namespace
} // namespace pfmc
