// The CPU reference backend against closed forms, and the engine's invariants (exact
// identities on shared paths, chunk and thread invariance, determinism, the reduction order).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/plan.hpp"
#include "engine/pricer.hpp"
#include "kernels/reduction_shape.hpp"
#include "models/analytic.hpp"
#include "pricing_book.hpp"

namespace pfmc {
namespace {

using testing::book_yaml;
using testing::find;
using testing::load;
using testing::standard_book;

constexpr int kMonitoring = 52;

TEST(CpuPricing, BookMatchesClosedForms) {
  const auto book = standard_book(kMonitoring);
  const auto result = engine::price(load(book_yaml(book, 200000, 52, "{device: cpu}")));
  testing::expect_matches_references(book, result);
  EXPECT_FALSE(result.run.on_gpu);
  EXPECT_EQ(result.run.backend, "cpu");
}

TEST(CpuPricing, FloatPrecisionMatchesClosedForms) {
  const auto book = standard_book(kMonitoring);
  const auto result =
      engine::price(load(book_yaml(book, 100000, 52, "{device: cpu}", ", precision: float")));
  testing::expect_matches_references(book, result);
}

TEST(CpuPricing, MrgAndScrambledSobolMatchClosedForms) {
  const auto book = standard_book(kMonitoring);
  testing::expect_matches_references(
      book, engine::price(load(book_yaml(book, 100000, 52, "{device: cpu}", ", rng: mrg32k3a"))));
  // Plain Sobol: no standard error; the European must still be close (QMC error ≪ 0.05 here).
  const auto sobol =
      engine::price(load(book_yaml(book, 65536, 52, "{device: cpu}", ", rng: sobol")));
  const auto& call = find(sobol, "call");
  EXPECT_FALSE(call.has_std_error);
  EXPECT_NEAR(call.price, *book[0].reference, 0.05);
  EXPECT_FALSE(sobol.portfolio.has_std_error);
  // Scrambled Sobol: 16 random digital shifts, a standard error from their spread.
  const auto scrambled =
      engine::price(load(book_yaml(book, 65536, 52, "{device: cpu}", ", rng: scrambled_sobol")));
  testing::expect_matches_references(book, scrambled);
  EXPECT_TRUE(scrambled.portfolio.has_std_error);
}

TEST(CpuPricing, TermStructuresMatchBlackScholesWithEffectiveParameters) {
  const std::string yaml =
      "market:\n  underlyings: [{name: S, spot: 100, dividend_yield: 0.01}]\n"
      "  rates: {tenors: [0.25, 1.0, 3.0], zero_rates: [0.01, 0.03, 0.04]}\n"
      "models: [{name: m, type: black_scholes, underlying: S,"
      " volatility: {tenors: [0.25, 1.0, 2.0], vols: [0.35, 0.25, 0.22]}}]\n"
      "instruments:\n"
      "  - {id: c6m, type: european, option: call, strike: 100, maturity: 0.5, model: m}\n"
      "  - {id: p18m, type: european, option: put, strike: 95, maturity: 1.5, model: m}\n"
      "  - {id: c2y, type: european, option: call, strike: 110, maturity: 2.0, model: m}\n"
      "simulation: {paths: 200000, steps_per_year: 12, seed: 5}\nengine: {device: cpu}\n";
  const auto config = load(yaml);
  const auto result = engine::price(config);
  for (const auto& [id, kind, K, T] : {std::tuple{"c6m", analytic::OptionKind::call, 100.0, 0.5},
                                       std::tuple{"p18m", analytic::OptionKind::put, 95.0, 1.5},
                                       std::tuple{"c2y", analytic::OptionKind::call, 110.0, 2.0}}) {
    const double r = -std::log(engine::discount_factor(config.market.zero_rates, T)) / T;
    const double vol = std::sqrt(engine::total_variance(config.models[0].volatility, T) / T);
    const double reference = analytic::black_scholes(kind, 100, K, T, r, 0.01, vol);
    const auto& got = find(result, id);
    EXPECT_NEAR(got.price, reference, testing::kSigmas * got.std_error) << id;
  }
}

TEST(CpuPricing, InAndOutBarriersAddUpToVanillaPlusRebateOnSharedPaths) {
  // Per path, in + out = vanilla + rebate exactly: the sums agree to rounding, far inside any SE.
  const std::string m = ", maturity: 1, model: bs}\n";
  const std::string instruments = "  - {id: v, type: european, option: put, strike: 100" + m +
                                  "  - {id: di, type: barrier, option: put, strike: 100, barrier: "
                                  "90, rebate: 1.5, barrier_type: down_and_in, monitoring: 52" +
                                  m +
                                  "  - {id: do, type: barrier, option: put, strike: 100, barrier: "
                                  "90, rebate: 1.5, barrier_type: down_and_out, monitoring: 52" +
                                  m;
  const auto result =
      engine::price(load(testing::yaml_run({}, instruments, 50000, ", steps_per_year: 52")));
  const double discount = std::exp(-0.05);
  EXPECT_NEAR(find(result, "di").price + find(result, "do").price,
              find(result, "v").price + 1.5 * discount, 1e-12);
}

TEST(CpuPricing, PortfolioValueIsTheQuantityWeightedSum) {
  const auto book = standard_book(kMonitoring);
  const auto result = engine::price(load(book_yaml(book, 20000, 52, "{device: cpu}")));
  ASSERT_TRUE(result.portfolio.present);
  double value = 0.0;
  for (const auto& e : book)
    value += e.quantity * find(result, e.id).price;
  EXPECT_NEAR(result.portfolio.value, value, 1e-9 * std::fabs(value));
  EXPECT_GT(result.portfolio.std_error, 0.0);
}

using testing::bits_of;

class PriceChunkInvariance : public ::testing::TestWithParam<std::string> {};

TEST_P(PriceChunkInvariance, OneChunkOrManyGiveTheSameBits) {
  // 30,000 paths = 4 reduction tiles of 8,192 (the last partial); a 4 MiB cap holds one tile of
  // 52 steps in double (two in float), so the second run takes 4 (2) chunks. draw_batch_size 0:
  // the group is tiled (a draw batch is one generation call and never cut).
  const auto book = standard_book(kMonitoring);
  const auto one = engine::price(
      load(book_yaml(book, 30000, 52, "{device: cpu, draw_batch_size: 0}", GetParam())));
  const auto many = engine::price(load(book_yaml(
      book, 30000, 52, "{device: cpu, max_device_memory: 4MiB, draw_batch_size: 0}", GetParam())));
  // A scrambled Sobol run is a set of replicates (random digital shifts), each chunked alike.
  const std::uint64_t runs = GetParam() == ", rng: scrambled_sobol, replicates: 2" ? 2u : 1u;
  EXPECT_EQ(one.run.chunks, runs);
  EXPECT_GE(many.run.chunks, 2 * runs);
  EXPECT_EQ(bits_of(one), bits_of(many));
}

INSTANTIATE_TEST_SUITE_P(Generators, PriceChunkInvariance,
                         ::testing::Values(", rng: philox", ", rng: mrg32k3a, precision: float",
                                           ", rng: sobol",
                                           ", rng: scrambled_sobol, replicates: 2"));

TEST(CpuPricing, BatchedGroupsMatchClosedForms) {
  // Three models on three underlyings: small groups, one draw batch, one launch on a GPU.
  std::string yaml = "market:\n  underlyings:\n";
  for (const char* name : {"A", "B", "C"}) {
    yaml += std::string("    - {name: ") + name + ", spot: 100, dividend_yield: 0.01}\n";
  }
  yaml += "  rates: {zero_rate: 0.03}\nmodels:\n";
  const double vols[] = {0.15, 0.25, 0.35};
  for (int m = 0; m < 3; ++m) {
    yaml += "  - {name: m" + std::to_string(m) +
            ", type: black_scholes, underlying: " + std::string(1, static_cast<char>('A' + m)) +
            ", volatility: " + std::to_string(vols[m]) + "}\n";
  }
  yaml += "instruments:\n";
  for (int m = 0; m < 3; ++m) {
    yaml += "  - {id: c" + std::to_string(m) +
            ", type: european, option: call, strike: 105, maturity: 1, model: m" +
            std::to_string(m) + "}\n";
  }
  yaml += "simulation: {paths: 200000, steps_per_year: 12, seed: 3}\nengine: {device: cpu}\n";
  const auto result = engine::price(load(yaml));
  for (int m = 0; m < 3; ++m) {
    const auto& r = find(result, "c" + std::to_string(m));
    const double reference =
        analytic::black_scholes(analytic::OptionKind::call, 100, 105, 1, 0.03, 0.01, vols[m]);
    EXPECT_NEAR(r.price, reference, testing::kSigmas * r.std_error) << m;
  }
  EXPECT_EQ(result.run.chunks, 3u); // one batch: each group counts its one launch
  // The same run without batches (one call per draw tile, per group) prices them as well.
  const auto tiled = engine::price(
      load(yaml.replace(yaml.find("{device: cpu}"), 13, "{device: cpu, draw_batch_size: 0}")));
  EXPECT_EQ(tiled.run.chunks, 3u);
  for (int m = 0; m < 3; ++m) {
    const auto& r = find(tiled, "c" + std::to_string(m));
    const double reference =
        analytic::black_scholes(analytic::OptionKind::call, 100, 105, 1, 0.03, 0.01, vols[m]);
    EXPECT_NEAR(r.price, reference, testing::kSigmas * r.std_error) << m;
  }
}

TEST(CpuPricing, ThreadCountAndRepetitionDoNotChangeABit) {
  const auto book = standard_book(kMonitoring);
  const auto one = engine::price(load(book_yaml(book, 20000, 52, "{device: cpu, cpu_threads: 1}")));
  const auto two = engine::price(load(book_yaml(book, 20000, 52, "{device: cpu, cpu_threads: 2}")));
  const auto again =
      engine::price(load(book_yaml(book, 20000, 52, "{device: cpu, cpu_threads: 2}")));
  EXPECT_EQ(bits_of(one), bits_of(two));
  EXPECT_EQ(bits_of(two), bits_of(again));
}

TEST(CpuPricing, OnePathHasAPriceButNoStandardError) {
  const auto book = standard_book(kMonitoring);
  const auto result = engine::price(load(book_yaml(book, 1, 52, "{device: cpu}")));
  for (const auto& in : result.instruments) {
    EXPECT_FALSE(in.has_std_error) << in.id;
    EXPECT_TRUE(std::isfinite(in.price)) << in.id;
    EXPECT_EQ(in.paths, 1u);
  }
}

TEST(Reduction, WarpTreeSumsInTheShuffleOrder) {
  // Values chosen so that every association order gives a different double: the tree must be
  // ((x0+x16)+(x8+x24)) + ... exactly as __shfl_down_sync with offsets 16, 8, 4, 2, 1.
  double lanes[32];
  for (int i = 0; i < 32; ++i)
    lanes[i] = std::ldexp(1.0 + i, (i * 7) % 60 - 30);
  double v[32];
  for (int i = 0; i < 32; ++i)
    v[i] = lanes[i];
  for (int offset : {16, 8, 4, 2, 1}) {
    for (int lane = 0; lane < offset; ++lane)
      v[lane] = v[lane] + v[lane + offset];
  }
  EXPECT_EQ(kernels::warp_tree_sum(lanes), v[0]);
  double sequential = 0.0;
  for (double x : lanes)
    sequential += x;
  EXPECT_NE(kernels::warp_tree_sum(lanes), sequential); // the order is observable
}

TEST(Statistics, EstimateFromSums) {
  // Values 1, 2, 3, 4: mean 2.5, sample variance 5/3, SE sqrt(5/12).
  const auto e = engine::estimate(10.0, 30.0, 4);
  EXPECT_DOUBLE_EQ(e.mean, 2.5);
  EXPECT_NEAR(e.variance, 5.0 / 3.0, 1e-15);
  EXPECT_NEAR(e.std_error, std::sqrt(5.0 / 12.0), 1e-15);
  EXPECT_TRUE(e.has_error);
  EXPECT_FALSE(engine::estimate(3.0, 9.0, 1).has_error);
}

} // namespace
} // namespace pfmc
