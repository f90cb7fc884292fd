// GPU suite (skipped without a device): a run split over devices gives one GPU's bits. With one
// GPU, `engine.devices: [0, 0]` runs two workers (threads, streams, buffers and reductions of
// their own) on the same device: the split, the per-device runs of ranges and the merge are all
// exercised; only the speed-up needs more GPUs (scripts/scale-check.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "engine/core/device_info.hpp"
#include "engine/plan/plan.hpp"
#include "engine/pricer.hpp"
#include "engine/run/run_setup.hpp"
#include "engine/scale/split_run.hpp"
#include "engine/tune/backend_choice.hpp"
#include "gpu_test_support.hpp"
#include "pricing_book.hpp"

namespace pfmc {
namespace {

using testing::bits_of;
using testing::book_yaml;
using testing::load;
using testing::standard_book;

class GpuSplit : public testing::GpuTest {};

TEST_F(GpuSplit, SameGpuTwiceOrThriceGivesOneGpusBits) {
  // Batched draws, tiled draws in many chunks, and draws computed in the kernel; an uneven
  // number of tiles (200,000 paths: 25 tiles) cut into 2 and 3 pieces.
  const auto book = standard_book(52);
  for (const std::string engine :
       {"{device: gpu, backend: none", "{device: gpu, backend: inline",
        "{device: gpu, backend: smem_rolling_async, prefetch_distance: 4",
        "{device: gpu, backend: none, draw_batch_size: 0, max_device_memory: 24MiB"}) {
    const auto one = engine::price(load(book_yaml(book, 200000, 52, engine + "}")));
    EXPECT_TRUE(one.run.workers.empty()) << engine;
    for (const std::string devices : {"[0, 0]", "[0, 0, 0]"}) {
      const auto split =
          engine::price(load(book_yaml(book, 200000, 52, engine + ", devices: " + devices + "}")));
      EXPECT_EQ(bits_of(split), bits_of(one)) << engine << " devices " << devices;
      EXPECT_EQ(split.run.workers.size(), devices == "[0, 0]" ? 2u : 3u);
      EXPECT_EQ(split.run.paths, one.run.paths);
      double share = 0.0;
      for (const auto& w : split.run.workers) {
        EXPECT_EQ(w.device, 0);
        EXPECT_GT(w.paths, 0u);
        share += w.path_steps;
      }
      EXPECT_DOUBLE_EQ(share, split.run.path_steps);
    }
  }
}

// A host mixing GPUs (engine/pricer.cpp): the one GPU told apart as two kinds. The second kind's
// backends are chosen on it apart and noted; its workers run them; the bits stay one GPU's.
TEST_F(GpuSplit, DevicesOfAnotherKindChooseTheirOwnBackendsAndKeepTheBits) {
  const auto book = standard_book(52);
  const auto one = engine::price(load(book_yaml(book, 200000, 52, "{device: gpu, backend: auto}")));
  engine::PriceOptions options;
  options.device_kind = [](const engine::DeviceInfo& device, std::size_t position) {
    return device.name + (position == 0 ? "" : " (told apart)");
  };
  const auto split = engine::price(
      load(book_yaml(book, 200000, 52, "{device: gpu, backend: auto, devices: [0, 0]}")), {},
      options);
  EXPECT_EQ(bits_of(split), bits_of(one));
  ASSERT_EQ(split.run.workers.size(), 2u);
  EXPECT_FALSE(split.run.workers[1].backend.empty());
  const bool noted =
      std::any_of(split.run.notices.begin(), split.run.notices.end(), [](const std::string& n) {
        return n.find("another kind than GPU 0): backends chosen on it apart") != std::string::npos;
      });
  EXPECT_TRUE(noted);

  // Each kind's settings reach its workers: kind 1 runs `inline`, kind 0 the config's `none`.
  const config::RunConfig config =
      load(book_yaml(book, 200000, 52, "{device: gpu, backend: none}"));
  engine::RunInfo info;
  const engine::RunDevice device = engine::choose_device(config, info);
  const engine::ExecutionSettings settings = engine::make_settings(config, device);
  const engine::SimulationPlan plan = engine::make_plan(config);
  engine::RunTuningCache no_cache;
  const auto groups = engine::choose_group_backends(plan, settings, device.info, true,
                                                    engine::PriceOptions{}, no_cache, info);
  auto inline_groups = groups;
  for (auto& g : inline_groups)
    g.backend = "inline";
  engine::Placement one_kind;
  one_kind.devices = {0, 0};
  engine::Placement two_kinds = one_kind;
  two_kinds.device_kinds = {0, 1};
  two_kinds.kind_settings = {{}, inline_groups};
  engine::PlanStats stats;
  engine::RunInfo a;
  engine::RunInfo b;
  const auto x = engine::run_split(plan, settings, groups, true, one_kind, {}, stats, a);
  const auto y = engine::run_split(plan, settings, groups, true, two_kinds, {}, stats, b);
  ASSERT_EQ(x.size(), y.size());
  for (std::size_t g = 0; g < x.size(); ++g)
    EXPECT_EQ(x[g].totals, y[g].totals) << "group " << g;
  ASSERT_EQ(b.workers.size(), 2u);
  EXPECT_EQ(a.workers[1].backend, b.workers[0].backend);
  EXPECT_EQ(b.workers[1].backend, "inline");
}

TEST_F(GpuSplit, ManySmallGroupsSplitByGroupsAndGreeksKeepTheirBits) {
  // 40 groups of one tile each (short paths, one launch per unit): the split cuts between
  // groups. Greeks (scenarios, many reduced values) and a portfolio ride along.
  std::string yaml = "market:\n  underlyings:\n";
  for (int u = 0; u < 40; ++u)
    yaml += "    - {name: U" + std::to_string(u) + ", spot: " + std::to_string(80 + u) + "}\n";
  yaml += "  rates: {zero_rate: 0.03}\nmodels:\n";
  for (int u = 0; u < 40; ++u) {
    yaml += "  - {name: m" + std::to_string(u) + ", type: black_scholes, underlying: U" +
            std::to_string(u) + ", volatility: 0.2}\n";
  }
  yaml += "instruments:\n";
  for (int u = 0; u < 40; ++u) {
    yaml += "  - {id: c" + std::to_string(u) +
            ", type: european, option: call, strike: 100, maturity: 1.0, model: m" +
            std::to_string(u) + "}\n";
  }
  yaml += "portfolio:\n";
  for (int u = 0; u < 40; ++u)
    yaml += "  - {instrument: c" + std::to_string(u) + ", quantity: 1}\n";
  const std::string sim = "simulation: {paths: 8000, steps_per_year: 12, seed: 3";
  for (const std::string extra : {"", ", greeks: [delta, vega]"}) {
    const auto one = engine::price(load(yaml + sim + extra + "}\nengine: {device: gpu}\n"));
    const auto split = engine::price(
        load(yaml + sim + extra + "}\nengine: {device: gpu, devices: [0, 0, 0, 0]}\n"));
    EXPECT_EQ(bits_of(split), bits_of(one)) << extra;
    ASSERT_EQ(split.run.workers.size(), 4u);
    for (const auto& w : split.run.workers)
      EXPECT_EQ(w.paths, 10u * 8000u) << "40 groups of 8,000 paths: 10 each";
  }
}

/// config/examples/american.yaml on the GPU at `paths` priced and `regression` regression paths.
config::RunConfig american_book(std::uint64_t paths, std::uint64_t regression) {
  config::RunConfig config =
      config::load_run_config(std::string(PFMC_SOURCE_DIR) + "/config/examples/american.yaml");
  config.simulation.paths = paths;
  config.simulation.regression_paths = regression;
  config.engine.device = config::DeviceChoice::gpu;
  return config;
}

TEST_F(GpuSplit, EarlyExerciseSplitKeepsItsBits) {
  // The workers fit the rule together, each recording and summing its tiles of the regression
  // paths (20,000: 3 tiles), then price their paths: one device's bits, and the regression's
  // path-steps done once, not once a worker. With 4 workers one records no tile at all.
  config::RunConfig config = american_book(60000, 20000);
  const auto one = engine::price(config);
  EXPECT_GT(one.run.regression_path_steps, 0.0);
  for (const std::vector<int> devices :
       {std::vector<int>{0, 0}, std::vector<int>{0, 0, 0}, std::vector<int>{0, 0, 0, 0}}) {
    config.engine.devices.kind = config::DeviceList::Kind::list;
    config.engine.devices.ordinals = devices;
    const auto split = engine::price(config);
    EXPECT_EQ(bits_of(split), bits_of(one)) << devices.size() << " workers";
    EXPECT_EQ(split.run.workers.size(), devices.size());
    EXPECT_DOUBLE_EQ(split.run.regression_path_steps, one.run.regression_path_steps)
        << devices.size() << " workers";
  }
}

TEST_F(GpuSplit, EveryGpuOfTheHostGivesOneGpusBits) {
  const int present = engine::device_count();
  if (present < 2)
    GTEST_SKIP() << "one GPU: the same-GPU splits above stand for a host of several";
  const auto book = standard_book(52);
  std::string reversed = "[";
  for (int d = present - 1; d >= 0; --d)
    reversed += std::to_string(d) + (d > 0 ? ", " : "]");
  for (const std::string engine :
       {"{device: gpu, backend: none", "{device: gpu, backend: inline"}) {
    const auto one = engine::price(load(book_yaml(book, 200000, 52, engine + "}")));
    for (const std::string devices : {std::string("all"), std::string("2"), reversed}) {
      const auto split =
          engine::price(load(book_yaml(book, 200000, 52, engine + ", devices: " + devices + "}")));
      EXPECT_EQ(bits_of(split), bits_of(one)) << engine << " devices " << devices;
      EXPECT_EQ(split.run.workers.size(), devices == "2" ? 2u : static_cast<std::size_t>(present));
      if (devices == reversed)
        EXPECT_EQ(split.run.workers.front().device, present - 1);
    }
  }
  config::RunConfig american = american_book(100000, 50000);
  const auto one = engine::price(american);
  american.engine.devices.kind = config::DeviceList::Kind::all;
  const auto split = engine::price(american);
  EXPECT_EQ(bits_of(split), bits_of(one));
  EXPECT_DOUBLE_EQ(split.run.regression_path_steps, one.run.regression_path_steps);
}

TEST_F(GpuSplit, ProgressIsEveryWorkersPathsSummed) {
  // Each worker reports its paths done after each of its units; the caller hears the sum over
  // the workers, one call at a time, rising to every group's paths.
  const auto book = standard_book(52);
  const auto config =
      load(book_yaml(book, 200000, 52, "{device: gpu, backend: none, devices: [0, 0]}"));
  const auto plan = engine::make_plan(config);
  std::vector<engine::Progress> heard;
  const auto result = engine::price(config, [&](const engine::Progress& p) { heard.push_back(p); });
  ASSERT_GE(heard.size(), 2u);
  std::uint64_t before = 0;
  for (const auto& p : heard) {
    EXPECT_EQ(p.workers, 2);
    EXPECT_EQ(p.paths, 200000u * plan.groups.size());
    EXPECT_GE(p.paths_done, before);
    before = p.paths_done;
  }
  EXPECT_EQ(heard.back().paths_done, heard.back().paths);
  EXPECT_EQ(result.run.workers.size(), 2u);
}

TEST_F(GpuSplit, AWarmProcessKeepsItsBitsRunAfterRun) {
  // What a process keeps between runs on a device (engine/run/device_workspace.hpp: streams,
  // draw buffers grown to the largest run, pinned memory) changes no bits: a large run, a small
  // one, then each again, split and not.
  const auto book = standard_book(52);
  const std::string large = "{device: gpu, backend: none, draw_batch_size: 0";
  const std::string small = "{device: gpu, backend: scalar_batched, prefetch_distance: 4";
  for (const std::string devices : {"", ", devices: [0, 0]"}) {
    const auto a = engine::price(load(book_yaml(book, 400000, 52, large + devices + "}")));
    const auto b = engine::price(load(book_yaml(book, 30000, 12, small + devices + "}")));
    const auto a2 = engine::price(load(book_yaml(book, 400000, 52, large + devices + "}")));
    const auto b2 = engine::price(load(book_yaml(book, 30000, 12, small + devices + "}")));
    EXPECT_EQ(bits_of(a2), bits_of(a)) << devices;
    EXPECT_EQ(bits_of(b2), bits_of(b)) << devices;
  }
}

TEST_F(GpuSplit, AbsentDeviceAndSequenceGeneratorsAreRefused) {
  const auto book = standard_book(12);
  EXPECT_THROW(engine::price(load(book_yaml(book, 1000, 12, "{device: gpu, devices: [63]}"))),
               config::ConfigError);
  EXPECT_THROW(engine::price(load(book_yaml(book, 1000, 12, "{device: gpu, devices: 64}"))),
               config::ConfigError);
  EXPECT_THROW(engine::price(load(
                   book_yaml(book, 1000, 12, "{device: gpu, devices: [0, 0]}", ", rng: mrg32k3a"))),
               config::ConfigError);
  // `all`: every GPU of the host; on a host of one it is the plain run.
  const auto all = engine::price(load(book_yaml(book, 1000, 12, "{device: gpu, devices: all}")));
  const int present = engine::device_count();
  EXPECT_EQ(all.run.workers.size(), present == 1 ? 0u : static_cast<std::size_t>(present));
}

} // namespace
} // namespace pfmc
