// The CPU reference backend against closed forms, and the engine's invariants (exact
// identities on shared paths, chunk and thread invariance, determinism, the reduction order).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/analytic/analytic.hpp"
#include "engine/plan/plan.hpp"
#include "engine/pricer.hpp"
#include "kernels/reduction_shape.cuh"
#include "pricing_book.hpp"
#include "reference_check.hpp"

namespace pfmc {
namespace {

using testing::book_yaml;
using testing::find;
using testing::load;
using testing::standard_book;

constexpr int kMonitoring = 52;

TEST(CpuPricing, TheStandardBookIsTheReferenceCasesBook) {
  // pricing_book.hpp takes the standard book's references from the reference case
  // "black_scholes" by instrument id: every one of its instruments must be that case's, field by
  // field (an edited strike or date here would be checked against another option's price).
  const auto book = load(book_yaml(standard_book(kMonitoring), 1000, 52, "{device: cpu}"));
  const auto cases =
      load(testing::reference_case_yaml(testing::reference_case("black_scholes"), "{device: cpu}"));
  const auto& market = cases.market.underlyings[0];
  EXPECT_EQ(book.market.underlyings[0].spot, market.spot);
  EXPECT_EQ(book.market.underlyings[0].dividend_yield, market.dividend_yield);
  EXPECT_EQ(book.market.zero_rates.values, cases.market.zero_rates.values);
  EXPECT_EQ(book.models[0].volatility.values, cases.models[0].volatility.values);
  int compared = 0;
  for (const auto& mine : book.instruments) {
    for (const auto& theirs : cases.instruments) {
      if (mine.id != theirs.id)
        continue;
      EXPECT_EQ(mine.type, theirs.type) << mine.id;
      EXPECT_EQ(mine.option, theirs.option) << mine.id;
      EXPECT_EQ(mine.strike, theirs.strike) << mine.id;
      EXPECT_EQ(mine.maturity, theirs.maturity) << mine.id;
      EXPECT_EQ(mine.cash, theirs.cash) << mine.id;
      EXPECT_EQ(mine.average, theirs.average) << mine.id;
      EXPECT_TRUE(mine.fixing_times == theirs.fixing_times.times()) << mine.id;
      EXPECT_EQ(mine.knock, theirs.knock) << mine.id;
      EXPECT_EQ(mine.barrier, theirs.barrier) << mine.id;
      EXPECT_EQ(mine.barrier_type, theirs.barrier_type) << mine.id;
      EXPECT_EQ(mine.rebate, theirs.rebate) << mine.id;
      EXPECT_TRUE(mine.monitoring_times == theirs.monitoring_times.times()) << mine.id;
      ++compared;
    }
  }
  EXPECT_EQ(compared, static_cast<int>(book.instruments.size()));
}

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

TEST(CpuPricing, FastMathProfileMatchesClosedFormsOnOtherDraws) {
  // simulation.math: fast: Philox4x32-7 draws (kernels/counter_draws.cuh), the same closed forms
  // in double and float; not the accurate profile's bits.
  const auto book = standard_book(kMonitoring);
  for (const std::string precision : {"", ", precision: float"}) {
    const auto fast = engine::price(
        load(book_yaml(book, 100000, 52, "{device: cpu}", ", math: fast" + precision)));
    testing::expect_matches_references(book, fast);
    const auto accurate =
        engine::price(load(book_yaml(book, 100000, 52, "{device: cpu}", precision)));
    EXPECT_NE(testing::bits_of(fast), testing::bits_of(accurate)) << precision;
  }
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

/// A generator and the memory cap that cuts its run into chunks.
struct ChunkCase {
  std::string simulation;
  std::string cap;
};

class PriceChunkInvariance : public ::testing::TestWithParam<ChunkCase> {};

TEST_P(PriceChunkInvariance, OneChunkOrManyGiveTheSameBits) {
  // 30,000 paths = 4 reduction tiles of 8,192 (the last partial). cuRAND's generators: a 4 MiB
  // cap holds one tile of draws of 52 steps in double (two in float), so the second run takes
  // 4 (2) chunks; draw_batch_size 0: the group is tiled (a draw batch is one generation call and
  // never cut). Philox draws need no buffer on the CPU: a 48 KiB cap holds one tile's partial sums.
  const auto book = standard_book(kMonitoring);
  const ChunkCase& c = GetParam();
  const auto one = engine::price(
      load(book_yaml(book, 30000, 52, "{device: cpu, draw_batch_size: 0}", c.simulation)));
  const auto many = engine::price(load(book_yaml(
      book, 30000, 52, "{device: cpu, max_device_memory: " + c.cap + ", draw_batch_size: 0}",
      c.simulation)));
  // A scrambled Sobol run is a set of replicates (random digital shifts), each chunked alike.
  const std::uint64_t runs = c.simulation == ", rng: scrambled_sobol, replicates: 2" ? 2u : 1u;
  EXPECT_EQ(one.run.chunks, runs);
  EXPECT_GE(many.run.chunks, 2 * runs);
  EXPECT_EQ(bits_of(one), bits_of(many));
}

INSTANTIATE_TEST_SUITE_P(Generators, PriceChunkInvariance,
                         ::testing::Values(ChunkCase{", rng: philox", "48KiB"},
                                           ChunkCase{", rng: philox, precision: float", "48KiB"},
                                           ChunkCase{", rng: mrg32k3a, precision: float", "4MiB"},
                                           ChunkCase{", rng: sobol", "4MiB"},
                                           ChunkCase{", rng: scrambled_sobol, replicates: 2",
                                                     "4MiB"}));

TEST(CpuPricing, PhiloxPricesDoNotDependOnTheDrawBatchSize) {
  // Counter-based draws: batching groups into one generation call changes nothing (it did with
  // cuRAND's Philox, whose output depends on each call's size).
  const auto book = standard_book(kMonitoring);
  const auto batched = engine::price(load(book_yaml(book, 20000, 52, "{device: cpu}")));
  const auto tiled =
      engine::price(load(book_yaml(book, 20000, 52, "{device: cpu, draw_batch_size: 0}")));
  EXPECT_EQ(bits_of(batched), bits_of(tiled));
}

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
  EXPECT_EQ(bits_of(result), bits_of(tiled)); // Philox draws depend on their indices alone
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

// --- the event grid (simulation.steps_per_year: 0) --------------------------------------------
// Black-Scholes and multi_black_scholes step exactly over any interval, so pricing on the grid of
// the instruments' dates alone leaves only Monte Carlo error against the closed forms. Each
// comparison allows kSigmas = 4 standard errors: a correct estimator (error ~ N(0, SE²)) fails it
// with probability 2(1 - Φ(4)) ≈ 6.3e-5; the seeds are fixed, so the runs are deterministic and a
// failure is a change in the engine, not bad luck.

/// The plan's steps of each group of `config`.
std::vector<int> group_steps(const config::RunConfig& config) {
  std::vector<int> steps;
  for (const auto& g : engine::make_plan(config).groups)
    steps.push_back(g.steps());
  return steps;
}

TEST(EventGrid, EuropeansAndDigitalsTakeOneExactStep) {
  using analytic::OptionKind;
  const double S = 100, q = 0.02, r = 0.05, v = 0.25, T = 1.0; // book_yaml's market
  const std::string m = ", maturity: 1, model: bs}\n";
  const std::vector<testing::BookEntry> book = {
      {"call", "{id: call, type: european, option: call, strike: 100" + m,
       analytic::black_scholes(OptionKind::call, S, 100, T, r, q, v), 0.0, 1},
      {"put", "{id: put, type: european, option: put, strike: 110" + m,
       analytic::black_scholes(OptionKind::put, S, 110, T, r, q, v), 0.0, -1},
      {"digital_call", "{id: digital_call, type: digital, option: call, strike: 105, cash: 10" + m,
       analytic::cash_or_nothing(OptionKind::call, S, 105, T, r, q, v, 10), 0.0, 0},
      {"digital_put", "{id: digital_put, type: digital, option: put, strike: 90, cash: 10" + m,
       analytic::cash_or_nothing(OptionKind::put, S, 90, T, r, q, v, 10), 0.0, 0},
  };
  const auto config = load(book_yaml(book, 200000, 0, "{device: cpu}"));
  EXPECT_EQ(group_steps(config), std::vector<int>{1});
  const auto result = engine::price(config);
  EXPECT_EQ(result.run.steps, 1);
  testing::expect_matches_references(book, result);
}

TEST(EventGrid, TermStructuresAreIntegratedOverEachLongStep) {
  // Three maturities, three steps of 0.5 to 1 year across the pillars of both curves: each step
  // must carry its interval's integrated rate and variance.
  const std::string yaml =
      "market:\n  underlyings: [{name: S, spot: 100, dividend_yield: 0.01}]\n"
      "  rates: {tenors: [0.25, 1.0, 3.0], zero_rates: [0.01, 0.03, 0.04]}\n"
      "models: [{name: m, type: black_scholes, underlying: S,"
      " volatility: {tenors: [0.25, 1.0, 2.0], vols: [0.35, 0.25, 0.22]}}]\n"
      "instruments:\n"
      "  - {id: c6m, type: european, option: call, strike: 100, maturity: 0.5, model: m}\n"
      "  - {id: p18m, type: european, option: put, strike: 95, maturity: 1.5, model: m}\n"
      "  - {id: c2y, type: european, option: call, strike: 110, maturity: 2.0, model: m}\n"
      "simulation: {paths: 100000, steps_per_year: 0, seed: 5}\nengine: {device: cpu}\n";
  const auto config = load(yaml);
  EXPECT_EQ(group_steps(config), std::vector<int>{3});
  const auto result = engine::price(config);
  for (const auto& [id, kind, K, T] : {std::tuple{"c6m", analytic::OptionKind::call, 100.0, 0.5},
                                       std::tuple{"p18m", analytic::OptionKind::put, 95.0, 1.5},
                                       std::tuple{"c2y", analytic::OptionKind::call, 110.0, 2.0}}) {
    const double rate = -std::log(engine::discount_factor(config.market.zero_rates, T)) / T;
    const double vol = std::sqrt(engine::total_variance(config.models[0].volatility, T) / T);
    const double reference = analytic::black_scholes(kind, 100, K, T, rate, 0.01, vol);
    const auto& got = find(result, id);
    EXPECT_NEAR(got.price, reference, testing::kSigmas * got.std_error) << id;
  }
}

TEST(EventGrid, TwoAssetBasketsTakeOneExactStep) {
  // Unequal spots, yields and vols, so a swapped leg or a wrong Cholesky row would show.
  const double s1 = 100, s2 = 95, q1 = 0.01, q2 = 0.03, v1 = 0.25, v2 = 0.35, rho = 0.5;
  const double r = 0.05, K = 100, T = 1;
  const std::string m = ", strike: 100, maturity: 1, model: ab}\n";
  const std::string yaml =
      "market:\n  underlyings: [{name: A, spot: 100, dividend_yield: 0.01},"
      " {name: B, spot: 95, dividend_yield: 0.03}]\n  rates: {zero_rate: 0.05}\n"
      "models:\n  - {name: ab, type: multi_black_scholes, underlyings: [A, B],"
      " volatilities: [0.25, 0.35], correlation: [[1, 0.5], [0.5, 1]]}\n"
      "instruments:\n"
      "  - {id: max_call, type: basket, payoff: max, option: call" +
      m + "  - {id: min_call, type: basket, payoff: min, option: call" + m +
      "  - {id: max_put, type: basket, payoff: max, option: put" + m +
      "  - {id: min_put, type: basket, payoff: min, option: put" + m +
      // The weighted basket has no closed form; weights (0, 1) make it a European on B, through
      // the second Cholesky row.
      "  - {id: b_call, type: basket, payoff: weighted, weights: [0, 1], option: call" + m +
      "simulation: {paths: 200000, steps_per_year: 0, seed: 11}\nengine: {device: cpu}\n";
  const auto config = load(yaml);
  EXPECT_EQ(group_steps(config), std::vector<int>{1});
  const auto result = engine::price(config);
  const std::pair<const char*, double> references[] = {
      {"max_call", analytic::stulz_max_call(s1, s2, K, T, r, q1, q2, v1, v2, rho)},
      {"min_call", analytic::stulz_min_call(s1, s2, K, T, r, q1, q2, v1, v2, rho)},
      {"max_put", analytic::stulz_max_put(s1, s2, K, T, r, q1, q2, v1, v2, rho)},
      {"min_put", analytic::stulz_min_put(s1, s2, K, T, r, q1, q2, v1, v2, rho)},
      {"b_call", analytic::black_scholes(analytic::OptionKind::call, s2, K, T, r, q2, v2)},
  };
  for (const auto& [id, reference] : references) {
    const auto& got = find(result, id);
    EXPECT_NEAR(got.price, reference, testing::kSigmas * got.std_error) << id;
  }
}

TEST(EventGrid, GeometricAsianStepsFromFixingToFixing) {
  // Twelve monthly fixings: twelve steps, each ending on a fixing; the discrete geometric Asian
  // is exact under Black-Scholes on any grid that contains its fixings.
  const auto book = standard_book(kMonitoring);
  std::vector<testing::BookEntry> asian;
  for (const auto& e : book) {
    if (e.id == "geo_asian")
      asian.push_back(e);
  }
  ASSERT_EQ(asian.size(), 1u);
  const auto config = load(book_yaml(asian, 100000, 0, "{device: cpu}"));
  EXPECT_EQ(group_steps(config), std::vector<int>{12});
  testing::expect_matches_references(asian, engine::price(config));
}

/// The balanced pairwise tree, written recursively: left half + right half.
double tree(const double* x, int n) {
  return n == 1 ? x[0] : tree(x, n / 2) + tree(x + n / 2, n / 2);
}

TEST(Reduction, PairwiseSumIsTheBalancedTreeOfNeighbours) {
  // Values chosen so that every association order gives a different double: the order of
  // kernels/reduction_shape.cuh is observable.
  std::vector<double> x(64);
  for (int i = 0; i < 64; ++i)
    x[i] = std::ldexp(1.0 + i, (i * 7) % 60 - 30);
  for (int n : {1, 2, 4, 8, 32, 64}) {
    EXPECT_EQ(kernels::pairwise_sum(n, [&](int i) { return x[i]; }), tree(x.data(), n)) << n;
  }
  double sequential = 0.0;
  for (double v : x)
    sequential += v;
  EXPECT_NE(kernels::pairwise_sum(64, [&](int i) { return x[i]; }), sequential);
  // A subtree computed on its own and combined gives the same bits (what threads, warps and
  // blocks do): the tree of 64 is the tree of its two halves, of its four quarters...
  const double halves = tree(x.data(), 32) + tree(x.data() + 32, 32);
  EXPECT_EQ(kernels::pairwise_sum(64, [&](int i) { return x[i]; }), halves);
  const double quarters =
      kernels::pairwise_sum(4, [&](int q) { return tree(x.data() + 16 * q, 16); });
  EXPECT_EQ(kernels::pairwise_sum(64, [&](int i) { return x[i]; }), quarters);
}

/// The standard book's call (quantity 10) and put (-5), the put on a copy of the call's model:
/// two simulation groups, drawing from independent streams. Their references are the reference
/// case "black_scholes"'s Black-Scholes values (pricing_book.hpp); the event grid steps each
/// exactly.
std::vector<testing::BookEntry> call_and_put() {
  std::vector<testing::BookEntry> book;
  for (const auto& e : standard_book(kMonitoring)) {
    if (e.id == "call" || e.id == "put")
      book.push_back(e);
  }
  return book;
}

std::string two_group_yaml(std::uint64_t paths, const std::string& extra_simulation) {
  std::string yaml = book_yaml(call_and_put(), paths, 0, "{device: cpu}", extra_simulation);
  const auto model = yaml.find("  - {name: bs,");
  const auto end = yaml.find('\n', model) + 1;
  std::string copy = yaml.substr(model, end - model);
  copy.replace(copy.find("name: bs,"), 9, "name: bs2,");
  yaml.insert(end, copy);
  const auto on = yaml.find("model: bs}", yaml.find("{id: put,"));
  yaml.replace(on, 10, "model: bs2}");
  return yaml;
}

TEST(Statistics, PortfolioErrorOfIndependentGroupsIsTheQuadratureSumOfTheirs) {
  // Each group holds one position and the groups' draws are independent: the portfolio's
  // variance of the mean is the sum of (quantity x standard error)^2 over the positions, to
  // rounding. (10 x 0.28 and 5 x 0.23 here: summed, not squared, they would give 2.0, not 3.0.)
  const auto result = engine::price(load(two_group_yaml(4000, "")));
  ASSERT_EQ(result.run.groups, 2);
  ASSERT_TRUE(result.portfolio.has_std_error);
  const auto book = call_and_put();
  double variance = 0.0;
  for (const auto& e : book)
    variance += std::pow(e.quantity * find(result, e.id).std_error, 2);
  EXPECT_NEAR(result.portfolio.std_error, std::sqrt(variance), 1e-10 * std::sqrt(variance));
}

/// A run's reported standard errors against the spread of kRuns independent runs (seeds apart)
/// of the same book: no formula of pfmc's in the reference, only the runs' values.
class ReplicatedRuns : public ::testing::TestWithParam<bool> {}; // antithetic

TEST_P(ReplicatedRuns, ReportedStandardErrorsMatchTheSpreadOfIndependentRuns) {
  // Each run's value is a mean of 1000 paths (500 antithetic pairs): close to N(mu, sigma^2),
  // so (K - 1) s^2 / sigma^2 ~ chi^2 with K - 1 degrees of freedom, s^2 the sample variance of
  // the K runs' values. sigma^2 is taken as the mean of the K reported variances (their own
  // relative error sqrt((2 + kurtosis) / 1000 / K) < 0.5% here, against s^2's sqrt(2 / 999) =
  // 4.5%). Band for a false-failure rate of 1e-6 per check (5e-7 each side), K = 1000:
  //   scipy.stats.chi2.ppf([5e-7, 1 - 5e-7], 999) / 999 = [0.7962, 1.2344].
  // Measured at K = 4000 (seeds 1000..4999): 1.00 to 1.04. The mean of the K runs (1,000,000
  // paths) must match Black-Scholes within kSigmas of s / sqrt(K).
  // What it catches: an error that counts antithetic pairs as paths halves the mean and puts its
  // square into the variance; a portfolio error summed from the groups' errors, not their
  // squares, is sqrt(5.5 + 2.3) where the runs spread by sqrt(5.5^2 + 2.3^2).
  constexpr int kRuns = 1000;
  constexpr double kLow = 0.7962, kHigh = 1.2344;
  const bool antithetic = GetParam();
  auto config =
      load(two_group_yaml(1000, antithetic ? ", antithetic: true" : ", antithetic: false"));
  const auto book = call_and_put();
  struct Spread {
    std::string what;
    double reference;
    std::vector<double> values;
    double reported_variance = 0.0; ///< summed over the runs
  };
  std::vector<Spread> spreads;
  double portfolio_reference = 0.0;
  for (const auto& e : book) {
    ASSERT_TRUE(e.reference.has_value()) << e.id;
    EXPECT_EQ(e.allowance, 0.0) << e.id; // closed forms
    spreads.push_back({e.id, *e.reference, {}});
    portfolio_reference += e.quantity * *e.reference;
  }
  spreads.push_back({"portfolio", portfolio_reference, {}});
  for (int k = 0; k < kRuns; ++k) {
    config.simulation.seed = 1000 + static_cast<std::uint64_t>(k);
    const auto result = engine::price(config);
    for (std::size_t i = 0; i < book.size(); ++i) {
      const auto& got = find(result, book[i].id);
      ASSERT_TRUE(got.has_std_error);
      spreads[i].values.push_back(got.price);
      spreads[i].reported_variance += got.std_error * got.std_error;
    }
    ASSERT_TRUE(result.portfolio.has_std_error);
    spreads.back().values.push_back(result.portfolio.value);
    spreads.back().reported_variance += result.portfolio.std_error * result.portfolio.std_error;
  }
  for (const auto& s : spreads) {
    double mean = 0.0;
    for (double v : s.values)
      mean += v / kRuns;
    double variance = 0.0;
    for (double v : s.values)
      variance += (v - mean) * (v - mean) / (kRuns - 1);
    const double ratio = variance / (s.reported_variance / kRuns);
    EXPECT_GE(ratio, kLow) << s.what << ": the runs spread less than their errors say";
    EXPECT_LE(ratio, kHigh) << s.what << ": the runs spread more than their errors say";
    EXPECT_NEAR(mean, s.reference, testing::kSigmas * std::sqrt(variance / kRuns)) << s.what;
    std::printf("  %-9s antithetic %d: spread^2 / reported se^2 = %.3f, mean %.4f (ref %.4f)\n",
                s.what.c_str(), antithetic, ratio, mean, s.reference);
  }
}

INSTANTIATE_TEST_SUITE_P(PlainAndAntithetic, ReplicatedRuns, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "antithetic" : "plain"; });

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
