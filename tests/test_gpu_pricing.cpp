// GPU suites: skipped without a device. The GPU against closed forms, against the CPU backend
// on the same draws, and the kernel's invariants (determinism, ticket reset across launches,
// partial blocks, one path, chunk invariance, device draws = host draws).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "config/setting_rules.hpp"
#include "engine/core/device_info.hpp"
#include "engine/draws/cpu_draws.hpp"
#include "engine/draws/draw_transform.hpp"
#include "engine/draws/normal_source.hpp"
#include "engine/pricer.hpp"
#include "engine/tune/kernel_bench.hpp"
#include "engine/tune/tuning.hpp"
#include "gpu_coverage.hpp"
#include "gpu_test_support.hpp"
#include "kernels/catalog.hpp"
#include "kernels/draw_layout.hpp"
#include "kernels/generate_draws.hpp"
#include "pricing_book.hpp"

namespace pfmc {
namespace {

using testing::book_yaml;
using testing::find;
using testing::load;
using testing::standard_book;

/// GPU runs keep their tuning cache (copy bandwidth, `auto` choices) in a file of their own.
class TuningCacheEnvironment : public ::testing::Environment {
public:
  void SetUp() override {
    path_ = ::testing::TempDir() + "pfmc_test_tuning_" + std::to_string(::getpid()) + ".json";
    ::setenv("PFMC_TUNING_CACHE", path_.c_str(), 1);
  }
  void TearDown() override { std::remove(path_.c_str()); }
  static const std::string& path() { return path_; }

private:
  static inline std::string path_;
};
const auto* const kTuningCache = ::testing::AddGlobalTestEnvironment(new TuningCacheEnvironment);

class Gpu : public testing::GpuTest {};
using testing::bits_of;

TEST_F(Gpu, BookMatchesClosedForms) {
  const auto book = standard_book(52);
  for (const char* precision : {"", ", precision: float"}) {
    const auto result = engine::price(
        load(book_yaml(book, 1 << 21, 252, "{device: gpu, backend: none}", precision)));
    EXPECT_TRUE(result.run.on_gpu);
    const double worst = testing::expect_matches_references(book, result);
    RecordProperty(std::string("worst_sigmas") + precision, std::to_string(worst));
  }
}

TEST_F(Gpu, DiscreteBarriersMatchTheRecursionAt16MillionPaths) {
  // 2^24 paths (standard errors 0.001-0.004) against the transition-density recursion of the
  // discretely monitored barriers (tests/reference_cases.hpp, accurate to ~1e-7): no
  // discretisation allowance (the dates are the monitoring dates, the steps exact).
  const auto book = standard_book(52);
  const auto result =
      engine::price(load(book_yaml(book, 1 << 24, 52, "{device: gpu, backend: none}")));
  int barriers = 0;
  for (const auto& e : book) {
    if (!e.reference || e.yaml.find("barrier_type") == std::string::npos)
      continue;
    const auto& r = find(result, e.id);
    std::printf("  %-14s mc %.5f ± %.5f  recursion %.5f  diff %+.5f\n", e.id.c_str(), r.price,
                r.std_error, *e.reference, r.price - *e.reference);
    EXPECT_LE(std::fabs(r.price - *e.reference), e.allowance + testing::kSigmas * r.std_error)
        << e.id;
    ++barriers;
  }
  EXPECT_EQ(barriers, 4);
}

TEST_F(Gpu, MatchesCpuOnTheSameDraws) {
  // Same draws, same arithmetic: smooth payoffs agree to rounding (the two compilers contract
  // and round exp/log differently, ~1e-15 per operation); barriers and digitals may flip on a
  // path whose spot sits within rounding of a level, so they agree within a standard error.
  const auto book = standard_book(52);
  for (const char* rng : {", rng: philox", ", rng: mrg32k3a", ", rng: scrambled_sobol"}) {
    const auto gpu =
        engine::price(load(book_yaml(book, 50000, 52, "{device: gpu, backend: none}", rng)));
    const auto cpu = engine::price(load(book_yaml(book, 50000, 52, "{device: cpu}", rng)));
    for (const auto& e : book) {
      const auto& g = find(gpu, e.id);
      const auto& c = find(cpu, e.id);
      const bool smooth =
          e.id == "call" || e.id == "put" || e.id.find("asian") != std::string::npos;
      if (smooth) {
        EXPECT_NEAR(g.price, c.price, 1e-10 * std::fabs(c.price)) << e.id << rng;
      } else {
        EXPECT_NEAR(g.price, c.price, std::max(c.std_error, 1e-12)) << e.id << rng;
      }
    }
  }
}

TEST_F(Gpu, FloatMatchesCpuFloat) {
  const auto book = standard_book(52);
  const auto gpu = engine::price(
      load(book_yaml(book, 50000, 52, "{device: gpu, backend: none}", ", precision: float")));
  const auto cpu =
      engine::price(load(book_yaml(book, 50000, 52, "{device: cpu}", ", precision: float")));
  for (const auto& e : book) {
    EXPECT_NEAR(find(gpu, e.id).price, find(cpu, e.id).price, find(cpu, e.id).std_error) << e.id;
  }
}

TEST_F(Gpu, TenRunsGiveTheSameBits) {
  const auto book = standard_book(52);
  const auto config = load(book_yaml(book, 300000, 252, "{device: gpu, backend: none}"));
  const auto first = bits_of(engine::price(config));
  for (int run = 1; run < 10; ++run)
    EXPECT_EQ(bits_of(engine::price(config)), first) << run;
}

TEST_F(Gpu, GroupsFinishedWhileTheRunGoesOnGiveTheBitsOfOneUnit) {
  // The portfolio example's groups with delta and vega, each its own unit (draw_batch_size 0:
  // each unit's groups are sampled and made into results on the unit stream's threads while
  // the GPU runs the next units, engine/run/unit_stream.hpp) and all in one draw batch (one
  // unit: its groups finished after the run), then a run of scrambled Sobol replicates (each
  // group's results after the last one): the first two give the same bits, and every
  // instrument has its result, in the config's order.
  config::RunConfig config =
      config::load_run_config(std::string(PFMC_SOURCE_DIR) + "/config/examples/portfolio.yaml");
  config.simulation.paths = 20000;
  config.simulation.greeks = {config::Greek::delta, config::Greek::vega};
  config.engine.device = config::DeviceChoice::gpu;
  config.engine.backend = "scalar_batched";
  config.engine.draw_batch_size = 0;
  const auto streamed = engine::price(config);
  config.engine.draw_batch_size = std::uint64_t{4} << 30;
  const auto whole = engine::price(config);
  EXPECT_GT(streamed.run.plan_stats.draw_units, 1u);
  EXPECT_EQ(whole.run.plan_stats.draw_units, 1u);
  EXPECT_EQ(bits_of(streamed), bits_of(whole));
  ASSERT_EQ(streamed.instruments.size(), config.instruments.size());
  for (std::size_t i = 0; i < config.instruments.size(); ++i) {
    EXPECT_EQ(streamed.instruments[i].id, config.instruments[i].id);
    EXPECT_EQ(streamed.instruments[i].greeks.size(), 2u) << config.instruments[i].id;
    EXPECT_TRUE(streamed.instruments[i].has_std_error) << config.instruments[i].id;
  }
  EXPECT_TRUE(streamed.portfolio.present);
  config.simulation.rng = config::RngType::scrambled_sobol;
  config.simulation.replicates = 4;
  config.simulation.paths = 4096;
  config.engine.draw_batch_size = 0;
  const auto replicated = engine::price(config);
  ASSERT_EQ(replicated.instruments.size(), config.instruments.size());
  for (std::size_t i = 0; i < config.instruments.size(); ++i)
    EXPECT_EQ(replicated.instruments[i].id, config.instruments[i].id);
}

TEST_F(Gpu, ManyLaunchesResetTheTicketAndMatchOneLaunch) {
  // Two draw buffers of one 8,192-path tile of 26 steps in double (2.37 MB each) fit in 6 MiB
  // (3 MiB each), two tiles do not: 200,000 paths take 25 launches, each of which must find the
  // tickets at zero and carry the totals on. draw_batch_size 0: the group is tiled (a draw batch is
  // never cut).
  const auto book = standard_book(26);
  const auto one = engine::price(
      load(book_yaml(book, 200000, 26, "{device: gpu, backend: none, draw_batch_size: 0}")));
  const auto many = engine::price(
      load(book_yaml(book, 200000, 26,
                     "{device: gpu, backend: none, max_device_memory: 6MiB, draw_batch_size: 0}")));
  EXPECT_EQ(one.run.chunks, 1u);
  EXPECT_GE(many.run.chunks, 20u);
  EXPECT_EQ(bits_of(one), bits_of(many));
}

TEST_F(Gpu, ChunkInvarianceForEveryGenerator) {
  const auto book = standard_book(26);
  for (const char* rng : {", rng: philox", ", rng: mrg32k3a", ", rng: sobol",
                          ", rng: scrambled_sobol", ", precision: float"}) {
    const auto one = engine::price(
        load(book_yaml(book, 40000, 26, "{device: gpu, backend: none, draw_batch_size: 0}", rng)));
    const auto many = engine::price(load(book_yaml(
        book, 40000, 26,
        "{device: gpu, backend: none, max_device_memory: 6MiB, draw_batch_size: 0}", rng)));
    EXPECT_GT(many.run.chunks, 1u) << rng;
    EXPECT_EQ(bits_of(one), bits_of(many)) << rng;
  }
}

TEST_F(Gpu, ManySmallGroupsShareOneLaunchAndMatchTheCpu) {
  // 64 single-underlying groups of 4,096 paths and 12 steps: one draw batch, one launch.
  std::string yaml = "market:\n  underlyings:\n";
  for (int u = 0; u < 64; ++u) {
    yaml += "    - {name: U" + std::to_string(u) + ", spot: " + std::to_string(80 + u) + "}\n";
  }
  yaml += "  rates: {zero_rate: 0.02}\nmodels:\n";
  for (int u = 0; u < 64; ++u) {
    yaml += "  - {name: m" + std::to_string(u) + ", type: black_scholes, underlying: U" +
            std::to_string(u) + ", volatility: " + std::to_string(0.1 + 0.004 * u) + "}\n";
  }
  yaml += "instruments:\n";
  for (int u = 0; u < 64; ++u) {
    yaml += "  - {id: c" + std::to_string(u) +
            ", type: european, option: call, strike: 100, "
            "maturity: 1, model: m" +
            std::to_string(u) + "}\n";
  }
  for (const char* steps : {"12", "0"}) { // 0: the event grid, one step per path
    const std::string run =
        yaml + "simulation: {paths: 4096, steps_per_year: " + steps + ", seed: 5}\n";
    const auto none = engine::price(load(run + "engine: {device: gpu, backend: none}\n"));
    const auto computed = engine::price(load(run + "engine: {device: gpu, backend: inline}\n"));
    const auto cpu = engine::price(load(run + "engine: {device: cpu}\n"));
    EXPECT_EQ(none.run.groups, 64);
    EXPECT_EQ(bits_of(computed), bits_of(none)) << steps;
    for (int u = 0; u < 64; ++u) {
      const std::string id = "c" + std::to_string(u);
      EXPECT_NEAR(find(none, id).price, find(cpu, id).price, 1e-10 * find(cpu, id).price)
          << id << " steps_per_year " << steps;
    }
    // Every group reports the batch's one launch; `inline` launches them all at once too.
    EXPECT_EQ(none.run.chunks, 64u);
    EXPECT_EQ(none.run.plan_stats.kernel_launches, 1u);
    EXPECT_EQ(computed.run.plan_stats.kernel_launches, 1u);
    EXPECT_EQ(computed.run.plan_stats.generation_calls, 0u);
  }
}

TEST_F(Gpu, PassesFoldedInRegistersDoNotChangeABit) {
  // Groups of one price each and short paths: `inline` threads run several passes of their
  // paths per round (engine::round_shape) once a launch has enough paths to keep 32 blocks per
  // multiprocessor. 12 groups of 1,500,002 paths (partial tiles, a partial last pass): 8 passes
  // in float and 16 in double with blocks of 128 threads, 16 passes and 2 (float) or 4 (double)
  // rounds with blocks of 32, 2 passes of 1,024 threads in double and one in float;
  // `none` runs one pass. Every product kind, with and
  // without antithetic pairs, on the event grid (one step) and on 12 steps a year; the one-step
  // Europeans (calls and puts) take `inline`'s lean passes (one_step_terminal_passes).
  const char* kinds[] = {
      "type: european, option: call, strike: 100",
      "type: european, option: put, strike: 110",
      "type: digital, option: call, strike: 105, cash: 10",
      "type: asian, average: arithmetic, option: put, strike: 100, fixings: 12",
      "type: barrier, option: call, strike: 100, barrier: 130, rebate: 2, barrier_type: "
      "up_and_out, monitoring: 12",
      "type: barrier, option: put, strike: 105, barrier: 90, barrier_type: down_and_in, "
      "monitoring: 4"};
  std::string yaml = "market:\n  underlyings:\n";
  for (int u = 0; u < 12; ++u)
    yaml += "    - {name: U" + std::to_string(u) + ", spot: " + std::to_string(90 + 2 * u) + "}\n";
  yaml += "  rates: {zero_rate: 0.03}\nmodels:\n";
  for (int u = 0; u < 12; ++u) {
    yaml += "  - {name: m" + std::to_string(u) + ", type: black_scholes, underlying: U" +
            std::to_string(u) + ", volatility: " + std::to_string(0.15 + 0.01 * u) + "}\n";
  }
  yaml += "instruments:\n";
  for (int u = 0; u < 12; ++u) {
    yaml += "  - {id: i" + std::to_string(u) + ", " + kinds[u % 6] + ", maturity: 1, model: m" +
            std::to_string(u) + "}\n";
  }
  for (const char* precision : {"double", "float"}) {
    for (const char* steps : {"0", "12"}) {
      for (const char* antithetic : {"false", "true"}) {
        const std::string run = yaml + "simulation: {paths: 1500002, steps_per_year: " + steps +
                                ", seed: 17, precision: " + precision +
                                ", antithetic: " + antithetic + "}\n";
        const auto none = engine::price(load(run + "engine: {device: gpu, backend: none}\n"));
        EXPECT_EQ(none.run.groups, 12);
        for (int block : {128, 32, 1024}) {
          const auto folded = engine::price(load(run +
                                                 "engine: {device: gpu, backend: inline, "
                                                 "block_size: " +
                                                 std::to_string(block) + "}\n"));
          EXPECT_EQ(bits_of(folded), bits_of(none))
              << precision << " steps_per_year " << steps << " antithetic " << antithetic
              << " block " << block;
        }
      }
    }
  }
}

TEST_F(Gpu, TerminalKernelsKeepEveryBit) {
  // A float book of one-step Europeans (the event grid: calls and puts, each its own group, so
  // every group of the launch is one-step terminal): under the fast profile `inline` launches
  // Black-Scholes float's terminal instantiation (the lean passes alone under
  // kernels::kTerminalRegisters), whose sums are the whole kernel's
  // (engine.terminal_kernels: false) and `none`'s, bit for bit, with and without
  // antithetic pairs, partial tiles and a partial last pass, blocks of 128, 32 and 1,024, each
  // thread block working through one block of paths or three (engine.terminal_blocks_per_cta:
  // thread blocks that cross from one group into the next, a last one short); the accurate
  // profile, which has none, the same.
  std::string yaml = "market:\n  underlyings:\n";
  for (int u = 0; u < 10; ++u)
    yaml += "    - {name: U" + std::to_string(u) + ", spot: " + std::to_string(80 + 4 * u) + "}\n";
  yaml += "  rates: {zero_rate: 0.02}\nmodels:\n";
  for (int u = 0; u < 10; ++u) {
    yaml += "  - {name: m" + std::to_string(u) + ", type: black_scholes, underlying: U" +
            std::to_string(u) + ", volatility: " + std::to_string(0.12 + 0.02 * u) + "}\n";
  }
  yaml += "instruments:\n";
  for (int u = 0; u < 10; ++u) {
    yaml += "  - {id: e" + std::to_string(u) +
            ", type: european, option: " + (u % 2 == 0 ? "call" : "put") +
            ", strike: 100, maturity: " + std::to_string(0.25 + 0.25 * u) + ", model: m" +
            std::to_string(u) + "}\n";
  }
  for (const char* math : {"accurate", "fast"}) {
    for (const char* antithetic : {"false", "true"}) {
      const std::string run = yaml +
                              "simulation: {paths: 1500002, steps_per_year: 0, seed: 23, "
                              "precision: float, " +
                              "math: " + math + ", antithetic: " + antithetic + "}\n";
      const auto none = engine::price(load(run + "engine: {device: gpu, backend: none}\n"));
      ASSERT_EQ(none.run.groups, 10);
      for (int block : {128, 32, 1024}) {
        const std::string engine_yaml =
            "engine: {device: gpu, backend: inline, block_size: " + std::to_string(block);
        for (int per_cta : {1, 3}) {
          const auto terminal = engine::price(load(
              run + engine_yaml + ", terminal_blocks_per_cta: " + std::to_string(per_cta) + "}\n"));
          EXPECT_EQ(bits_of(terminal), bits_of(none))
              << math << " antithetic " << antithetic << " block " << block << " per " << per_cta;
        }
        const auto whole = engine::price(load(run + engine_yaml + ", terminal_kernels: false}\n"));
        EXPECT_EQ(bits_of(whole), bits_of(none))
            << math << " antithetic " << antithetic << " block " << block;
      }
      // Which kernel ran: the terminal one only while the switch is on.
      const auto config = load(run + "engine: {device: gpu, backend: inline}\n");
      const auto plan = engine::make_plan(config);
      engine::ExecutionSettings settings;
      settings.precision = config.simulation.precision;
      settings.fast_math = config.simulation.math == config::MathProfile::fast;
      settings.paths = 1 << 16;
      settings.memory_cap = 1ull << 30;
      for (bool on : {true, false}) {
        settings.terminal_kernels = on;
        engine::KernelBench bench(plan.groups[0], settings);
        bench.time_launch_ms("inline", 4, *config::parse_padding("auto"));
        // Black-Scholes float has a terminal kernel under the fast profile only.
        EXPECT_EQ(bench.launched_terminal(), on && std::string(math) == "fast")
            << math << " antithetic " << antithetic;
      }
    }
  }
}

TEST_F(Gpu, PartialBlocksAndOnePathMatchTheCpu) {
  const auto book = standard_book(26);
  for (std::uint64_t paths : {1ull, 31ull, 1000ull, 8193ull}) {
    for (int block : {32, 128, 256}) {
      const std::string engine_yaml = ", block_size: " + std::to_string(block) + "}";
      const auto gpu = engine::price(
          load(book_yaml(book, paths, 26, "{device: gpu, backend: none" + engine_yaml)));
      const auto cpu =
          engine::price(load(book_yaml(book, paths, 26, "{device: cpu" + engine_yaml)));
      for (const auto& e : book) {
        const double c = find(cpu, e.id).price;
        const bool smooth =
            e.id == "call" || e.id == "put" || e.id.find("asian") != std::string::npos;
        if (smooth) {
          EXPECT_NEAR(find(gpu, e.id).price, c, 1e-10 * std::max(1.0, std::fabs(c)))
              << e.id << " paths " << paths << " block " << block;
        } else {
          // A digital or a barrier flips only on a path within rounding of its level: the same
          // price to rounding, or within a standard error where a path flipped (one path: no
          // standard error, and no flip expected).
          EXPECT_NEAR(find(gpu, e.id).price, c,
                      std::max(find(cpu, e.id).std_error, 1e-10 * std::max(1.0, std::fabs(c))))
              << e.id << " paths " << paths << " block " << block;
        }
      }
      EXPECT_EQ(find(gpu, "call").paths, paths);
    }
  }
}

TEST_F(Gpu, DeviceDrawsEqualHostDraws) {
  // cuRAND documents that device and host generators give the same sequence; the CPU backend's
  // claim to see the GPU's draws rests on it. Measured on an H100 (CUDA 13.0): the uniforms
  // agree but the normal transform rounds differently on about half the values, by at most
  // 3.1e-15. So: the same draws to a few ulps. Three tiles, produced 1 + 2 on the device.
  for (auto type :
       {config::RngType::mrg32k3a, config::RngType::sobol, config::RngType::scrambled_sobol}) {
    const int rows = 5;
    const bool quasi = type == config::RngType::sobol || type == config::RngType::scrambled_sobol;
    engine::NormalSource host(type, 9, engine::NormalSource::Memory::host, quasi ? rows : 0);
    engine::NormalSource device(type, 9, engine::NormalSource::Memory::device, quasi ? rows : 0);
    const std::size_t tile = static_cast<std::size_t>(rows) * kernels::kDrawTilePaths;
    const std::size_t n = 3 * tile;
    std::vector<double> expected(n), got(n);
    host.next_tiles(expected.data(), 3, rows);
    double* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, n * sizeof(double)), cudaSuccess);
    device.next_tiles(d, 1, rows);
    device.next_tiles(d + tile, 2, rows);
    ASSERT_EQ(cudaMemcpy(got.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(d);
    double worst = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      worst =
          std::max(worst, std::fabs(expected[i] - got[i]) / std::max(1.0, std::fabs(expected[i])));
    }
    EXPECT_LE(worst, 1e-14) << config::to_string(type);
  }
}

/// The generation kernel's Philox draws of `paths` paths × `rows` rows of group 3, from path
/// `first` (a tile's first), in the tile layout.
template <class Real>
std::vector<Real> device_philox_tiles(std::uint64_t first, std::uint64_t paths, int rows,
                                      bool fast = false) {
  const std::size_t n =
      kernels::draw_tiles_for(paths) * static_cast<std::size_t>(rows) * kernels::kDrawTilePaths;
  Real* d = nullptr;
  void* table = nullptr;
  EXPECT_EQ(cudaMalloc(&d, n * sizeof(Real)), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&table, kernels::generate_table_bytes(1)), cudaSuccess);
  kernels::generate_philox_draws<Real>({{d, first, paths, 3, rows}}, 99, fast, table, nullptr);
  std::vector<Real> out(n);
  EXPECT_EQ(cudaMemcpy(out.data(), d, n * sizeof(Real), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(table);
  cudaFree(d);
  return out;
}

template <class Real>
double philox_device_host_difference(bool fast = false) {
  // Two tiles from path 8,192 (a later chunk's), 5 rows; the host computes the same paths.
  const std::uint64_t first = 8192, paths = 2 * kernels::kDrawTilePaths - 6;
  const int rows = 5;
  const auto device = device_philox_tiles<Real>(first, paths, rows, fast);
  std::vector<Real> host(static_cast<std::size_t>(paths) * rows);
  engine::philox_normals_host(99, 3, first, static_cast<int>(paths), 0, rows, host.data(), paths,
                              fast);
  double worst = 0.0;
  for (int r = 0; r < rows; ++r) {
    for (std::uint64_t p = 0; p < paths; ++p) {
      const double h = host[static_cast<std::size_t>(r) * paths + p];
      const double d = device[kernels::draw_offset(p, static_cast<std::size_t>(r), rows)];
      worst = std::max(worst, std::fabs(h - d) / std::max(1.0, std::fabs(h)));
    }
  }
  return worst;
}

TEST_F(Gpu, PhiloxDeviceDrawsMatchTheHostsToTheTransformsAccuracy) {
  // The same Philox words and exact uniforms on both sides; the transform's functions differ
  // (kernels/counter_draws.cuh): double to a few ulps, float by the device's hardware sine and
  // cosine (absolute error below 2^-21.4 on the angle, times r <= 5.8: 2.2e-6).
  const double d = philox_device_host_difference<double>();
  const double f = philox_device_host_difference<float>();
  std::printf("philox device vs host draws: %.3g (double), %.3g (float)\n", d, f);
  EXPECT_LE(d, 1e-15);
  EXPECT_LE(f, 2.5e-6);
}

TEST_F(Gpu, FastProfileDrawsArePhilox7AndMatchTheHostsToTheApproximationsError) {
  // simulation.math: fast (models/math.cuh): the same Philox4x32-7 words on both sides; in float
  // the device takes ln u from __logf (relative error about 2^-21 in r = sqrt(-2 ln u) at most:
  // r <= 5.8 gives 1.4e-6) besides the hardware's sine and cosine (2.2e-6): 3.6e-6 together. In
  // double the functions are the accurate ones: a few ulps.
  const double d = philox_device_host_difference<double>(true);
  const double f = philox_device_host_difference<float>(true);
  std::printf("fast profile: philox-7 device vs host draws: %.3g (double), %.3g (float)\n", d, f);
  EXPECT_LE(d, 1e-15);
  EXPECT_LE(f, 3.6e-6);
  // And they are not the accurate profile's draws.
  const auto fast = device_philox_tiles<float>(0, 64, 1, true);
  const auto accurate = device_philox_tiles<float>(0, 64, 1, false);
  int same = 0;
  for (std::size_t i = 0; i < 64; ++i)
    same += fast[kernels::draw_offset(i, 0, 1)] == accurate[kernels::draw_offset(i, 0, 1)];
  EXPECT_EQ(same, 0);
}

TEST_F(Gpu, BlockSizeAndRoundsDoNotChangeABit) {
  // The reduction's order is fixed on paths (kernels/reduction_shape.cuh): the block size, the
  // paths per thread (`inline`: 2 or 4) and the rounds per block (1-step paths: many) are launch
  // shapes. 40,000 paths: a partial last tile.
  const auto book = standard_book(4);
  for (const char* precision : {"", ", precision: float"}) {
    for (const char* grid : {", steps_per_year: 0", ""}) {
      std::vector<std::vector<double>> runs;
      for (const char* backend : {"none", "inline", "scalar_batched"}) {
        for (int block : {32, 128, 512}) {
          const std::string e = "{device: gpu, backend: " + std::string(backend) +
                                ", block_size: " + std::to_string(block) + "}";
          std::string yaml = book_yaml(book, 40000, 12, e, precision);
          if (*grid) { // the event grid: one step for the Europeans
            yaml.replace(yaml.find("steps_per_year: 12"), 18, "steps_per_year: 0");
          }
          runs.push_back(bits_of(engine::price(load(yaml))));
        }
      }
      for (std::size_t k = 1; k < runs.size(); ++k)
        EXPECT_EQ(runs[k], runs[0]) << "run " << k << precision << grid;
    }
  }
}

TEST_F(Gpu, AutoTunesOnceThenUsesTheCacheAndKeepsTheBits) {
  std::remove(TuningCacheEnvironment::path().c_str());
  const auto book = standard_book(26);
  const auto reference =
      bits_of(engine::price(load(book_yaml(book, 30000, 26, "{device: gpu, backend: none}"))));
  // A run this short is not worth tuning: `auto` takes the default and says why.
  const auto short_run =
      engine::price(load(book_yaml(book, 30000, 26, "{device: gpu, backend: auto}")));
  ASSERT_EQ(short_run.run.group_backends.size(), 1u);
  EXPECT_EQ(short_run.run.group_backends[0].source.rfind("default: this run's", 0), 0u)
      << short_run.run.group_backends[0].source;
  EXPECT_EQ(short_run.run.group_backends[0].backend, "inline");
  EXPECT_NE(short_run.run.group_backends[0].source.find("(probed now)"), std::string::npos)
      << short_run.run.group_backends[0].source;
  EXPECT_EQ(bits_of(short_run), reference);
  // The probe is kept: the same shape again decides without launching it.
  const auto again =
      engine::price(load(book_yaml(book, 30000, 26, "{device: gpu, backend: auto}")));
  EXPECT_NE(again.run.group_backends[0].source.find("(probed earlier, cached)"), std::string::npos)
      << again.run.group_backends[0].source;
  EXPECT_EQ(bits_of(again), reference);
  // Always worth it: tuned once (within its budget), then read from the cache.
  engine::PriceOptions always;
  always.tune_worth_seconds = 0.0;
  const auto first =
      engine::price(load(book_yaml(book, 30000, 26, "{device: gpu, backend: auto}")), {}, always);
  const auto second =
      engine::price(load(book_yaml(book, 30000, 26, "{device: gpu, backend: auto}")), {}, always);
  ASSERT_EQ(first.run.group_backends.size(), 1u);
  EXPECT_EQ(first.run.group_backends[0].source.rfind("tuned now", 0), 0u)
      << first.run.group_backends[0].source;
  EXPECT_EQ(second.run.group_backends[0].source.rfind("tuning cache", 0), 0u)
      << second.run.group_backends[0].source;
  EXPECT_EQ(second.run.group_backends[0].backend, first.run.group_backends[0].backend);
  EXPECT_EQ(bits_of(first), reference);
  EXPECT_EQ(bits_of(second), reference);
  EXPECT_GT(second.run.copy_bandwidth_gbps, 100.0);
}

TEST_F(Gpu, TuningStaysWithinItsBudgetAndCountsTheGeneration) {
  // Quick mode with the run's budget: a 1M-path, 252-step group (its sample: 262,144 paths);
  // the buffer backends carry the generation of their draws, inline none.
  const auto config = load(book_yaml(standard_book(26), 1000000, 252, "{device: gpu}"));
  const auto plan = engine::make_plan(config);
  engine::ExecutionSettings settings;
  settings.precision = config.simulation.precision;
  settings.paths = config.simulation.paths;
  settings.memory_cap = 8ull << 30;
  engine::TuneOptions quick;
  quick.budget_seconds = engine::kTuneBudgetSeconds;
  const auto tuned = engine::tune_group(plan.groups[0], settings, quick);
  // No optional measurement starts once the budget is spent (the one under way finishes: its
  // time depends on what else the GPU and the host run, e.g. the other suites under ctest -j).
  EXPECT_LE(tuned.last_optional_start_seconds, engine::kTuneBudgetSeconds);
  EXPECT_LT(tuned.sample_paths, tuned.paths);
  for (const auto& m : tuned.all) {
    const bool computes = m.choice.backend == "inline";
    EXPECT_EQ(m.generation_ms == 0.0, computes) << m.choice.backend;
  }
  for (std::size_t k = 1; k < tuned.all.size(); ++k)
    EXPECT_LE(tuned.all[k - 1].total_ms(), tuned.all[k].total_ms());
}

TEST_F(Gpu, WideKernelsKeepEveryBit) {
  // Black-Scholes in double has wide instantiations (kernels::kWideRegisters registers a thread,
  // kernels/launcher_table.cuh) at distances 4, 6 and 8 and for the loaders of no distance. The
  // standard book's one group, 20,003 paths (157 blocks of 128 threads: one wave even at 128
  // registers), launched with each backend as a run of these paths takes it (wide) and as a
  // sample of a run too large for one wave (narrow, settings.launch_paths): every sum the same.
  const auto config = load(book_yaml(standard_book(26), 20003, 26, "{device: gpu}"));
  ASSERT_EQ(config.simulation.precision, config::Precision::float64);
  const auto plan = engine::make_plan(config);
  engine::ExecutionSettings wide_settings;
  wide_settings.precision = config.simulation.precision;
  wide_settings.paths = config.simulation.paths;
  wide_settings.memory_cap = 1ull << 30;
  engine::ExecutionSettings narrow_settings = wide_settings;
  narrow_settings.launch_paths = 1ull << 40;
  engine::KernelBench wide(plan.groups[0], wide_settings);
  engine::KernelBench narrow(plan.groups[0], narrow_settings);
  const auto device = engine::query_device();
  int compared = 0;
  // Every loader at 4, some at 6 and 8 (tests/gpu_coverage.cpp says which and why).
  for (const auto& c : testing::coverage::wide_cases()) {
    const auto& b = *kernels::find_backend(c.backend);
    if (!kernels::why_backend_cannot_run(b, device.compute_capability, device.name).empty())
      continue;
    const int d = c.distance;
    for (const char* padding : {"auto", "none"}) {
      if (!b.uses_padding && std::string(padding) == "none")
        continue;
      const auto pad = *config::parse_padding(padding);
      wide.time_launch_ms(b.name, d, pad);
      narrow.time_launch_ms(b.name, d, pad);
      EXPECT_TRUE(wide.launched_wide()) << b.name << " d" << d;
      EXPECT_FALSE(narrow.launched_wide()) << b.name << " d" << d;
      EXPECT_EQ(wide.totals(), narrow.totals()) << b.name << " d" << d << " padding " << padding;
      ++compared;
    }
  }
  EXPECT_GT(compared, 20);
}

// --- every backend gives the bits of `none` ---------------------------------------------------

// Black-Scholes in double and float: every loader at every distance (tests/gpu_coverage.cpp).
std::vector<testing::coverage::LoaderCase> black_scholes_cases() {
  return testing::coverage::loader_cases(
      [](const std::string& e) { return e == "black_scholes_f64" || e == "black_scholes_f32"; });
}

class BackendIdentity : public Gpu,
                        public ::testing::WithParamInterface<testing::coverage::LoaderCase> {};

/// Runs `yaml_of(engine mapping)` with `none` and with the case's backend at every padding it
/// takes; every price, standard error and the portfolio must be the same bits.
void expect_same_bits_as_none(const testing::coverage::LoaderCase& c,
                              const std::function<std::string(const std::string&)>& yaml_of) {
  const auto* info = kernels::find_backend(c.backend);
  ASSERT_NE(info, nullptr);
  const auto device = engine::query_device();
  if (!kernels::why_backend_cannot_run(*info, device.compute_capability, device.name).empty()) {
    GTEST_SKIP() << c.backend << " does not run on " << device.name;
  }
  const auto reference = bits_of(engine::price(load(yaml_of("{device: gpu, backend: none}"))));
  std::vector<std::string> paddings{"auto"};
  if (info->uses_padding)
    paddings = {"auto", "none", "3", "slot_major"};
  for (const auto& padding : paddings) {
    const std::string engine_yaml = "{device: gpu, backend: " + c.backend +
                                    ", prefetch_distance: " + std::to_string(c.distance) +
                                    ", padding: " + padding + "}";
    EXPECT_EQ(bits_of(engine::price(load(yaml_of(engine_yaml)))), reference)
        << c.entry << " " << c.backend << " distance " << c.distance << " padding " << padding;
  }
}

std::string precision_of(const testing::coverage::LoaderCase& c) {
  return testing::coverage::is_float(c.entry) ? ", precision: float" : "";
}

TEST_P(BackendIdentity, Book) {
  // 20,000 paths: a partial last block; 52 steps: not a multiple of 3, 6, 8, 12 or 16.
  const auto book = standard_book(26);
  expect_same_bits_as_none(GetParam(), [&](const std::string& engine_yaml) {
    return book_yaml(book, 20000, 52, engine_yaml, precision_of(GetParam()));
  });
}

TEST_P(BackendIdentity, FewerStepsThanTheDistanceOnePathAndManyChunks) {
  const auto book = standard_book(2);
  const std::string precision = precision_of(GetParam());
  // 4 steps: fewer than distances 6..16.
  expect_same_bits_as_none(
      GetParam(), [&](const std::string& e) { return book_yaml(book, 5000, 4, e, precision); });
  expect_same_bits_as_none(
      GetParam(), [&](const std::string& e) { return book_yaml(book, 1, 4, e, precision); });
  // 6 MiB: two draw buffers of one 8,192-path tile of 26 steps in double (2.4 MB each), not two:
  // 5 chunks, the last partial; 64-thread blocks. draw_batch_size 0: the group is tiled.
  expect_same_bits_as_none(GetParam(), [&](const std::string& e) {
    std::string capped = e;
    capped.insert(capped.size() - 1,
                  ", max_device_memory: 6MiB, block_size: 64, draw_batch_size: 0");
    return book_yaml(standard_book(26), 36000, 26, capped, precision);
  });
}

INSTANTIATE_TEST_SUITE_P(EveryBackendAndDistance, BackendIdentity,
                         ::testing::ValuesIn(black_scholes_cases()), [](const auto& info) {
                           return info.param.entry + "_" + info.param.backend + "_d" +
                                  std::to_string(info.param.distance);
                         });

// --- draw transforms: device against host ---------------------------------------------------

template <class Real>
std::vector<Real> host_normal_tiles(std::uint64_t tiles, int rows) {
  engine::NormalSource source(config::RngType::mrg32k3a, 17, engine::NormalSource::Memory::host);
  std::vector<Real> z(tiles * static_cast<std::size_t>(rows) * kernels::kDrawTilePaths);
  source.next_tiles(z.data(), tiles, rows);
  return z;
}

/// Runs `transform` on a device copy of `host` and returns the result.
template <class Real, class Transform>
std::vector<Real> on_device(const std::vector<Real>& host, Transform transform) {
  Real* d = nullptr;
  EXPECT_EQ(cudaMalloc(&d, host.size() * sizeof(Real)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, host.data(), host.size() * sizeof(Real), cudaMemcpyHostToDevice),
            cudaSuccess);
  transform(d);
  std::vector<Real> out(host.size());
  EXPECT_EQ(cudaMemcpy(out.data(), d, host.size() * sizeof(Real), cudaMemcpyDeviceToHost),
            cudaSuccess);
  cudaFree(d);
  return out;
}

template <class Real>
void expect_transforms_bitwise_equal() {
  // Two groups of one draw batch: a non-uniform grid with two factors, then a uniform one. The
  // device kernels and the host loops share their arithmetic (kernels/draw_transform.cuh, with
  // explicit fmas and IEEE division), so the bits must agree.
  engine::SimulationPlan plan;
  plan.groups = engine::GroupPlans(2);
  plan.groups[0].times = {0.0, 0.01, 0.05, 0.3, 0.31, 0.5, 0.9, 1.7, 2.0, 2.25};
  plan.groups[0].factors = 2;
  plan.groups[1].times = {0.0, 0.25, 0.5, 0.75, 1.0, 1.25};
  plan.groups[1].factors = 1;
  const std::uint64_t tiles = 3;
  const std::size_t g = kernels::kDrawTilePaths;
  const std::vector<std::size_t> offsets = {0, tiles * 18 * g};
  const std::size_t values = offsets[1] + tiles * 5 * g;
  auto expected = host_normal_tiles<Real>(1, static_cast<int>(values / g));
  const auto z = expected;
  for (bool antithetic : {false, true}) {
    expected = z;
    engine::DrawTransforms host(plan, antithetic, true);
    host.apply_host(expected.data(), values, {0, 1}, offsets, tiles);
    engine::DrawTransforms device(plan, antithetic, true);
    const auto got = on_device(z, [&](Real* d) {
      device.apply(d, values, {0, 1}, offsets, tiles, nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    });
    EXPECT_GT(device.device_bytes(), 0u);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < values; ++i)
      differ += std::memcmp(&expected[i], &got[i], sizeof(Real)) != 0;
    EXPECT_EQ(differ, 0u) << (sizeof(Real) == 4 ? "float" : "double") << " antithetic "
                          << antithetic;
  }
}

TEST_F(Gpu, DrawTransformsOnTheDeviceGiveTheHostsBits) {
  expect_transforms_bitwise_equal<float>();
  expect_transforms_bitwise_equal<double>();
  // Antithetic alone, on a stream.
  auto expected = host_normal_tiles<double>(2, 3);
  const auto z = expected;
  engine::apply_antithetic_host(expected.data(), expected.size());
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const auto got = on_device(z, [&](double* d) {
    engine::apply_antithetic(d, z.size(), stream);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  });
  cudaStreamDestroy(stream);
  EXPECT_EQ(got, expected);
}

template <class Real>
double scrambled_device_host_difference(int replicate) {
  // Three tiles, 1 + 2 on the device (on a stream of its own), 3 at once on the host.
  const int rows = 7;
  const std::size_t tile = static_cast<std::size_t>(rows) * kernels::kDrawTilePaths;
  engine::NormalSource host(config::RngType::scrambled_sobol, 9, engine::NormalSource::Memory::host,
                            rows, replicate);
  std::vector<Real> expected(3 * tile);
  host.next_tiles(expected.data(), 3, rows);
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::vector<Real> got;
  {
    engine::NormalSource device(config::RngType::scrambled_sobol, 9,
                                engine::NormalSource::Memory::device, rows, replicate);
    device.set_stream(stream);
    got = on_device(expected, [&](Real* d) {
      device.next_tiles(d, 1, rows);
      device.next_tiles(d + tile, 2, rows);
      EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    });
  }
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaStreamDestroy(stream);
  double worst = 0.0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(expected[i]) - got[i]) /
                                std::fabs(static_cast<double>(expected[i])));
  }
  return worst;
}

TEST_F(Gpu, ScrambledSobolReplicatesOnTheDeviceMatchTheHost) {
  // The host's Φ⁻¹ (engine::inverse_normal_cdf, 1.1e-15 measured) against CUDA's normcdfinv
  // (5 ulp documented), on the same shifted integers: relative agreement to 1e-12 in double;
  // float rounds the same double on both sides, so at most one float ulp (a rounding boundary).
  for (int replicate : {0, 5}) {
    const double d = scrambled_device_host_difference<double>(replicate);
    const double f = scrambled_device_host_difference<float>(replicate);
    std::printf("scrambled Sobol replicate %d: device vs host, relative %.3g (double), %.3g "
                "(float)\n",
                replicate, d, f);
    EXPECT_LE(d, 1e-12) << "replicate " << replicate;
    EXPECT_LE(f, 1.2e-7) << "replicate " << replicate;
  }
}

} // namespace
} // namespace pfmc
