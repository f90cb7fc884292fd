// The models and methods of issue 5 on the CPU reference backend: Heston against the
// semi-analytic price, local volatility against Black-Scholes and no-arbitrage, correlated
// baskets against Stulz, and the variance reductions and Greeks against theory. Every Monte
// Carlo comparison is within testing::kSigmas standard errors (test_support.hpp says why 4) of a
// reference with the estimator's own mean (a scheme's bias, a finite difference's) where it has
// one, and no allowance beyond: the reference cases' from make_references.py, the others' from
// tests/references/make_method_references.py (tests/method_references.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "engine/analytic/analytic.hpp"
#include "engine/pricer.hpp"
#include "method_references.hpp"
#include "reference_check.hpp"
#include "test_support.hpp"

namespace pfmc {
namespace {

using testing::basket_yaml;
using testing::bs_yaml;
using testing::find;
using testing::kSigmas;
using testing::load;
namespace refs = testing::method_references;

// The issue's Heston case (Lewis's semi-analytic price 16.070154917028834 for K = 100).
std::string heston_yaml(std::uint64_t paths, int steps_per_year, const std::string& scheme,
                        const std::string& extra = "") {
  return "market:\n  underlyings: [{name: S, spot: 100, dividend_yield: 0.02}]\n"
         "  rates: {zero_rate: 0.01}\n"
         "models: [{name: h, type: heston, underlying: S, v0: 0.04, kappa: 4, theta: 0.25, "
         "xi: 1, rho: -0.5, scheme: " +
         scheme +
         "}]\ninstruments:\n"
         "  - {id: c80, type: european, option: call, strike: 80, maturity: 1, model: h}\n"
         "  - {id: c100, type: european, option: call, strike: 100, maturity: 1, model: h}\n"
         "  - {id: c120, type: european, option: call, strike: 120, maturity: 1, model: h}\n"
         "  - {id: p90, type: european, option: put, strike: 90, maturity: 1, model: h}\n"
         "simulation: {paths: " +
         std::to_string(paths) + ", steps_per_year: " + std::to_string(steps_per_year) +
         ", seed: 11" + extra + "}\nengine: {device: cpu}\n";
}

double heston_reference(analytic::OptionKind kind, double strike) {
  return analytic::heston(kind, 100, strike, 1, 0.01, 0.02, 0.04, 4, 0.25, 1, -0.5);
}

TEST(Heston, SemiAnalyticReferenceOfTheIssue) {
  EXPECT_NEAR(heston_reference(analytic::OptionKind::call, 100), 16.070154917028834, 1e-8);
}

TEST(Heston, QeMatchesSemiAnalyticWithinFourSigmaPlusDiscretisation) {
  // The reference case "heston_lewis" is this file's Heston case (QE at 52 steps a year): each
  // option against QuantLib's AnalyticHestonEngine, with the scheme's discretisation bias at this
  // grid measured by the independent Monte Carlo of the same scheme as the allowance, and against
  // that Monte Carlo itself (tests/references/make_references.py).
  const auto& c = testing::reference_case("heston_lewis");
  const auto result = engine::price(load(testing::reference_case_yaml(c, "{device: cpu}")));
  testing::print_tally("heston_lewis (cpu)", testing::expect_matches_reference_case(c, result));
  // The case is this file's: pfmc's own semi-analytic price agrees with QuantLib's.
  EXPECT_NE(std::string(c.yaml).find("kappa: 4.0, theta: 0.25, xi: 1.0, rho: -0.5"),
            std::string::npos);
  for (const auto& [id, kind, strike] : {std::tuple{"c100", analytic::OptionKind::call, 100.0},
                                         std::tuple{"c120", analytic::OptionKind::call, 120.0},
                                         std::tuple{"p90", analytic::OptionKind::put, 90.0}}) {
    for (const auto& in : c.instruments) {
      if (std::string(in.id) == id && in.price.size() > 1)
        EXPECT_NEAR(heston_reference(kind, strike), in.price[1].value, 1e-6) << id;
    }
  }
}

TEST(Heston, EachSchemeCarriesItsOwnBiasAtQuarterlySteps) {
  // Quarterly steps with xi = 1 and kappa dt = 1: both schemes are visibly biased (at K = 100
  // QE-M by -0.091, full truncation by +0.262). Each scheme's price against the independent
  // Monte Carlo of the same scheme on the same grid (tests/method_references.hpp, 16M paths),
  // within kSigmas combined standard errors and nothing else: its error from the semi-analytic
  // price must be that scheme's bias. 2M paths (SE ~0.02 at K = 100): the band, ~0.085 there,
  // is a quarter of the distance between the two schemes' biases.
  for (const std::string scheme : {"qe", "full_truncation"}) {
    const auto run = engine::price(load(heston_yaml(2000000, 4, scheme)));
    int checked = 0;
    for (const auto& ref : refs::kHestonSchemes) {
      if (ref.scheme != scheme || ref.steps_per_year != 4)
        continue;
      const auto& got = find(run, ref.id);
      std::printf("  heston dt=1/4 %-15s %-4s %.5f ± %.5f  error %+.4f, the scheme's bias %+.4f ± "
                  "%.4f\n",
                  scheme.c_str(), ref.id, got.price, got.std_error, got.price - ref.exact,
                  ref.price - ref.exact, ref.std_error);
      EXPECT_NEAR(got.price, ref.price, kSigmas * std::hypot(got.std_error, ref.std_error))
          << scheme << " " << ref.id;
      ++checked;
    }
    EXPECT_EQ(checked, 4) << scheme;
  }
}

std::string local_vol_yaml(const std::string& surface, std::uint64_t paths,
                           const std::string& model_type = "local_vol") {
  std::string model = model_type == "local_vol"
                          ? "{name: m, type: local_vol, underlying: S, surface: " + surface + "}"
                          : "{name: m, type: black_scholes, underlying: S, volatility: 0.2}";
  std::string instruments;
  for (int k : {80, 90, 100, 110, 120}) {
    instruments += "  - {id: c" + std::to_string(k) +
                   ", type: european, option: call, strike: " + std::to_string(k) +
                   ", maturity: 1, model: m}\n";
  }
  instruments +=
      "  - {id: p100, type: european, option: put, strike: 100, maturity: 1, model: m}\n";
  return "market:\n  underlyings: [{name: S, spot: 100, dividend_yield: 0.01}]\n"
         "  rates: {zero_rate: 0.03}\nmodels: [" +
         model + "]\ninstruments:\n" + instruments +
         "simulation: {paths: " + std::to_string(paths) +
         ", steps_per_year: 52, seed: 3}\nengine: {device: cpu}\n";
}

TEST(LocalVol, FlatSurfaceReproducesBlackScholesOnTheSameDraws) {
  const std::string flat = "{times: [0.5, 2], log_moneyness: [-1, 0, 1], "
                           "vols: [[0.2, 0.2, 0.2], [0.2, 0.2, 0.2]]}";
  const auto lv = engine::price(load(local_vol_yaml(flat, 20000)));
  const auto bs = engine::price(load(local_vol_yaml(flat, 20000, "black_scholes")));
  for (std::size_t i = 0; i < lv.instruments.size(); ++i) {
    // Same draws, the same exact log step up to the rounding of the per-step variance.
    EXPECT_NEAR(lv.instruments[i].price, bs.instruments[i].price, 1e-10 * bs.instruments[i].price)
        << lv.instruments[i].id;
    const double reference = analytic::black_scholes(
        lv.instruments[i].id[0] == 'c' ? analytic::OptionKind::call : analytic::OptionKind::put,
        100, std::stod(lv.instruments[i].id.substr(1)), 1, 0.03, 0.01, 0.2);
    EXPECT_NEAR(lv.instruments[i].price, reference, kSigmas * lv.instruments[i].std_error);
  }
}

TEST(LocalVol, SkewedSurfaceGivesArbitrageConsistentCalls) {
  // Equity-like skew: higher vol below the forward. Arbitrage only: the prices of a skewed
  // surface are checked against its Euler chain's transition-density recursion and against a
  // Crank-Nicolson PDE in test_references.cpp (the reference case "local_vol").
  const std::string skew = "{times: [0.25, 1, 2], log_moneyness: [-0.5, -0.25, 0, 0.25, 0.5], "
                           "vols: [[0.40, 0.31, 0.24, 0.20, 0.19], [0.36, 0.29, 0.23, 0.20, 0.19],"
                           " [0.33, 0.27, 0.22, 0.20, 0.19]]}";
  const auto r = engine::price(load(local_vol_yaml(skew, 50000)));
  const double c[5] = {find(r, "c80").price, find(r, "c90").price, find(r, "c100").price,
                       find(r, "c110").price, find(r, "c120").price};
  for (int i = 0; i + 1 < 5; ++i)
    EXPECT_GT(c[i], c[i + 1]) << "calls decrease in strike";
  for (int i = 0; i + 2 < 5; ++i)
    EXPECT_GT(c[i] - 2 * c[i + 1] + c[i + 2], 0.0) << "calls are convex in strike";
  // Put-call parity with the model's own forward (exact per path, up to the martingale error).
  const double forward_pv = 100 * std::exp(-0.01) - 100 * std::exp(-0.03);
  EXPECT_NEAR(c[2] - find(r, "p100").price, forward_pv,
              kSigmas * (find(r, "c100").std_error + find(r, "p100").std_error));
  // The skew lifts low strikes above the flat at-the-money vol's Black-Scholes price.
  EXPECT_GT(c[0],
            analytic::black_scholes(analytic::OptionKind::call, 100, 80, 1, 0.03, 0.01, 0.23));
}

TEST(Basket, TwoAssetMaxAndMinCallsMatchStulz) {
  const std::string m = ", option: call, strike: 100, maturity: 1, model: ab}\n";
  const auto r = engine::price(load(basket_yaml("  - {id: max, type: basket, payoff: max" + m +
                                                    "  - {id: min, type: basket, payoff: min" + m,
                                                200000)));
  // Against quadrature to ~1e-10 (tests/method_references.hpp): no allowance beyond the error.
  EXPECT_NEAR(find(r, "max").price, refs::kMaxCall, kSigmas * find(r, "max").std_error);
  EXPECT_NEAR(find(r, "min").price, refs::kMinCall, kSigmas * find(r, "min").std_error);
}

TEST(Basket, SingleLegWeightsPriceEachMarginalAsBlackScholes) {
  // Weights (1, 0, 0) and (0, 0, 1) price a European on A and on C: each Cholesky row must give
  // its asset unit variance.
  const std::string m = ", option: call, strike: 95, maturity: 1, model: abc}\n";
  const auto r = engine::price(
      load(basket_yaml("  - {id: a, type: basket, payoff: weighted, weights: [1, 0, 0]" + m +
                           "  - {id: c, type: basket, payoff: weighted, weights: [0, 0, 1]" + m,
                       100000)));
  EXPECT_NEAR(find(r, "a").price,
              analytic::black_scholes(analytic::OptionKind::call, 100, 95, 1, 0.05, 0, 0.2),
              kSigmas * find(r, "a").std_error);
  EXPECT_NEAR(find(r, "c").price,
              analytic::black_scholes(analytic::OptionKind::call, 90, 95, 1, 0.05, 0.02, 0.4),
              kSigmas * find(r, "c").std_error);
}

const std::string kCall =
    "  - {id: call, type: european, option: call, strike: 105, maturity: 1, model: bs}\n";
const std::string kPut =
    "  - {id: put, type: european, option: put, strike: 95, maturity: 1, model: bs}\n";
/// Expects a run's standard error to be `moments.sd / sqrt(n)` (n samples: paths, or antithetic
/// pairs) within kSigmas of its estimate's own spread: the sample variance's standard deviation
/// is sd² sqrt((kurtosis - 1) / n), so the standard error's relative spread is half of
/// sqrt((kurtosis - 1) / n) (the delta method; 0.4% for the plain call at 100,000 paths).
void expect_std_error(const engine::InstrumentResult& got, const refs::SampleMoments& moments,
                      double n, const char* what) {
  const double expected = moments.sd / std::sqrt(n);
  const double spread = 0.5 * expected * std::sqrt((moments.kurtosis - 1) / n);
  EXPECT_NEAR(got.std_error, expected, kSigmas * spread) << what;
  std::printf("  %s: se %.5f, expected %.5f ± %.5f\n", what, got.std_error, expected, spread);
}

TEST(VarianceReduction, AntitheticCutsTheErrorOfAMonotonePayoff) {
  // A call is monotone in every draw, so f(z) and f(-z) are negatively correlated: the pair
  // mean's variance is below half a path's. Each run's standard error against the one the
  // payoff's moments give (tests/method_references.hpp, by quadrature): the antithetic one is
  // 0.830 of the plain one at equal paths (bands of ±2%); pairs of independent draws would give
  // 1.0, as would the spread of single paths, pairs not negated (f(z), f(z)) 1.41, the pairs'
  // spread divided by the count of paths, not of pairs, 0.59.
  const double reference =
      analytic::black_scholes(analytic::OptionKind::call, 100, 105, 1, 0.04, 0.01, 0.25);
  const auto plain = find(engine::price(load(bs_yaml(kCall, 100000, ""))), "call");
  const auto anti = find(engine::price(load(bs_yaml(kCall, 100000, ", antithetic: true"))), "call");
  EXPECT_NEAR(plain.price, reference, kSigmas * plain.std_error);
  EXPECT_NEAR(anti.price, reference, kSigmas * anti.std_error);
  expect_std_error(plain, refs::kCallPath, 100000, "plain call, 100,000 paths");
  expect_std_error(anti, refs::kCallPair, 50000, "antithetic call, 50,000 pairs");
}

TEST(VarianceReduction, ControlVariatesCutTheErrorOfEuropeansAndArithmeticAsians) {
  // The reference case "controlled_asian" (this file's call and Asian): Black-Scholes and
  // QuantLib's finite differences for the arithmetic Asian (tests/references/), checked with
  // and without the controls.
  const auto& c = testing::reference_case("controlled_asian");
  const std::string controlled_yaml = testing::reference_case_yaml(c, "{device: cpu}");
  std::string plain_yaml = controlled_yaml;
  plain_yaml.replace(plain_yaml.find("control_variate: true"), 21, "control_variate: false");
  const auto cv = engine::price(load(controlled_yaml));
  const auto plain = engine::price(load(plain_yaml));
  testing::print_tally("controlled_asian, controls (cpu)",
                       testing::expect_matches_reference_case(c, cv));
  testing::print_tally("controlled_asian, plain (cpu)",
                       testing::expect_matches_reference_case(c, plain));
  EXPECT_TRUE(find(cv, "call").has_control);
  EXPECT_TRUE(find(cv, "asian").has_control);
  // The terminal spot explains most of a call's variance; the geometric Asian almost all of
  // the arithmetic one's (correlation > 0.99).
  EXPECT_LT(find(cv, "call").std_error, 0.7 * find(plain, "call").std_error);
  EXPECT_LT(find(cv, "asian").std_error, 0.2 * find(plain, "asian").std_error);
  std::printf("  control variates: call se %.5f vs %.5f, asian se %.6f vs %.5f (beta %.3f)\n",
              find(cv, "call").std_error, find(plain, "call").std_error,
              find(cv, "asian").std_error, find(plain, "asian").std_error,
              find(cv, "asian").control_beta);
}

TEST(Greeks, EuropeansMatchBlackScholesClosedForms) {
  // Bump-and-revalue on common random numbers over exact log steps: each bumped estimator's
  // mean is the Black-Scholes price's finite difference at pfmc's bumps (1% spot, 1 vol point,
  // 10 bp, theta's one day forward), and the pathwise delta's the derivative. Against those
  // (tests/method_references.hpp) within kSigmas standard errors and nothing else; the
  // differences' bias from the closed forms (theta's -0.0035, vega's -0.0031 on the put, the
  // rest below 1e-4) is printed.
  const auto r = engine::price(
      load(bs_yaml(kCall + kPut, 200000,
                   ", greeks: [delta, gamma, vega, rho, theta], greeks_method: bump", 52)));
  for (const auto& ref : refs::kBumpedGreeks) {
    const auto& got = find(r, ref.id);
    ASSERT_EQ(got.greeks.size(), 5u);
    EXPECT_TRUE(got.greeks[0].pathwise) << "a European's delta is pathwise";
    EXPECT_FALSE(got.greeks[1].pathwise) << "gamma is bump-and-revalue";
    for (int k = 0; k < 5; ++k) {
      const auto& e = got.greeks[static_cast<std::size_t>(k)];
      EXPECT_TRUE(e.has_std_error);
      EXPECT_NEAR(e.value, ref.expected[k], kSigmas * e.std_error)
          << ref.id << " " << config::to_string(e.greek);
      std::printf("  %s %-5s mc %.5f ± %.5f  bumped closed form %.5f (derivative %.5f)\n", ref.id,
                  config::to_string(e.greek), e.value, e.std_error, ref.expected[k],
                  ref.closed_form[k]);
    }
  }
}

TEST(Greeks, PathwiseDeltaAgreesWithBumpAndRevalueWhereBothApply) {
  // Under bumps (greeks_method: bump), a digital's delta can only be bumped; a European's is
  // pathwise. On a local-vol model (not spot-homogeneous to the bumps' delta) every delta is
  // bumped: the flat surface gives the Black-Scholes delta. (auto takes local vol's tangents:
  // tests/test_pathwise.cpp.)
  const std::string flat = "{times: [0.5, 2], log_moneyness: [-1, 0, 1], "
                           "vols: [[0.2, 0.2, 0.2], [0.2, 0.2, 0.2]]}";
  std::string yaml = local_vol_yaml(flat, 100000);
  yaml.replace(yaml.find("seed: 3}"), 8, "seed: 3, greeks: [delta], greeks_method: bump}");
  const auto r = engine::price(load(yaml));
  const auto& c = find(r, "c100");
  EXPECT_FALSE(c.greeks[0].pathwise);
  // The flat surface's log-Euler step is exact: the bumped delta's mean is Black-Scholes' central
  // difference at ±1% of the spot (tests/method_references.hpp; 6e-5 below the derivative).
  EXPECT_NEAR(c.greeks[0].value, refs::kFlatLocalVolBumpedDelta, kSigmas * c.greeks[0].std_error);
}

TEST(Greeks, ABasketHasDeltaGammaAndVegaPerUnderlyingMatchingStulz) {
  // A max call and a min call on two assets beside a single-asset call: every instrument gets
  // its Greeks, the baskets' delta, gamma and vega per underlying. The bumped Monte Carlo
  // estimate's mean is the central difference of the true price at the same bump (common random
  // numbers, unbiased prices): against Stulz's closed form bumped alike, within kSigmas standard
  // errors and nothing else. (The pathwise Greeks: tests/test_pathwise.cpp.)
  std::string yaml =
      basket_yaml("  - {id: mx, type: basket, payoff: max, option: call, strike: 100, "
                  "maturity: 1, model: ab}\n"
                  "  - {id: mn, type: basket, payoff: min, option: call, strike: 95, "
                  "maturity: 1, model: ab}\n",
                  100000, ", greeks: [delta, gamma, vega, rho], greeks_method: bump");
  yaml.replace(yaml.find("instruments:\n"), 13,
               "  - {name: a_bs, type: black_scholes, underlying: A, volatility: 0.3}\n"
               "instruments:\n  - {id: c, type: european, option: call, strike: 100, "
               "maturity: 1, model: a_bs}\n");
  yaml.replace(yaml.find("steps_per_year: 4"), 17, "steps_per_year: 1");
  const auto r = engine::price(load(yaml));
  EXPECT_EQ(find(r, "c").greeks.size(), 4u);
  const auto price = [](bool max, double s1, double s2, double strike, double v1, double v2) {
    return max ? analytic::stulz_max_call(s1, s2, strike, 1, 0.05, 0, 0, v1, v2, 0.9)
               : analytic::stulz_min_call(s1, s2, strike, 1, 0.05, 0, 0, v1, v2, 0.9);
  };
  for (const bool max : {true, false}) {
    const auto& basket = find(r, max ? "mx" : "mn");
    const double k = max ? 100 : 95;
    ASSERT_EQ(basket.greeks.size(), 7u); // delta, gamma, vega per underlying, then rho
    const double h = 1.0;                // 1% of each spot of 100
    const double v0 = price(max, 100, 100, k, 0.3, 0.3);
    const double expected[6] = {
        (price(max, 101, 100, k, 0.3, 0.3) - price(max, 99, 100, k, 0.3, 0.3)) / (2 * h),
        (price(max, 100, 101, k, 0.3, 0.3) - price(max, 100, 99, k, 0.3, 0.3)) / (2 * h),
        (price(max, 101, 100, k, 0.3, 0.3) - 2 * v0 + price(max, 99, 100, k, 0.3, 0.3)) / (h * h),
        (price(max, 100, 101, k, 0.3, 0.3) - 2 * v0 + price(max, 100, 99, k, 0.3, 0.3)) / (h * h),
        (price(max, 100, 100, k, 0.31, 0.3) - price(max, 100, 100, k, 0.29, 0.3)) / 0.02,
        (price(max, 100, 100, k, 0.3, 0.31) - price(max, 100, 100, k, 0.3, 0.29)) / 0.02};
    const char* names[6] = {"delta", "delta", "gamma", "gamma", "vega", "vega"};
    const char* underlyings[6] = {"A", "B", "A", "B", "A", "B"};
    for (int i = 0; i < 6; ++i) {
      const auto& g = basket.greeks[static_cast<std::size_t>(i)];
      EXPECT_EQ(config::to_string(g.greek), std::string(names[i]));
      EXPECT_EQ(g.underlying, underlyings[i]);
      EXPECT_FALSE(g.pathwise);
      EXPECT_NEAR(g.value, expected[i], kSigmas * g.std_error)
          << basket.id << " " << names[i] << "[" << underlyings[i] << "]";
    }
    EXPECT_EQ(basket.greeks[6].greek, config::Greek::rho);
    EXPECT_TRUE(basket.greeks[6].underlying.empty());
  }
  for (const auto& n : r.run.notices)
    EXPECT_EQ(n.find("no Greeks"), std::string::npos) << n;
}

TEST(Greeks, TheShippedFourAssetBasketsTakeEveryGreek) {
  // config/examples/basket.yaml as shipped, with all five Greeks: a 4-asset basket has 20
  // scenarios, and each reads one observation (its level at maturity) plus its knock's, not one
  // per leg (80 slots over the 64 a model has: refused before v14). Every price and Greek (per
  // underlying) against the reference case "shipped_basket": the same file run by an independent
  // Monte Carlo on 16 times the paths (tests/references/make_references.py), whose Greeks are
  // the bumps' central differences (bumped here; the pathwise ones: tests/test_pathwise.cpp).
  const auto& c = testing::reference_case("shipped_basket");
  std::ifstream file(PFMC_SOURCE_DIR "/config/examples/basket.yaml");
  std::string yaml((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::string cases = c.yaml;
  auto simulation = cases.substr(cases.find("simulation:"));
  simulation.insert(simulation.find('}'), ", greeks_method: bump");
  yaml.replace(yaml.find("simulation:"),
               yaml.find('\n', yaml.find("simulation:")) + 1 - yaml.find("simulation:"),
               simulation);
  yaml += "engine: {device: cpu}\n";
  const auto r = engine::price(load(yaml));
  testing::print_tally("shipped_basket (cpu)", testing::expect_matches_reference_case(c, r));
  const auto& plain = find(r, "index_basket_call");
  const auto& knocked = find(r, "index_basket_call_ko80");
  ASSERT_EQ(plain.greeks.size(), 14u); // delta, gamma, vega per underlying; rho; theta
  ASSERT_EQ(knocked.greeks.size(), 14u);
  ASSERT_EQ(find(r, "max_call").greeks.size(), 8u);
  EXPECT_LE(knocked.price, plain.price);
}

TEST(QuasiRandom, ScrambledSobolGivesAnErrorFromReplicatesAndPlainSobolNone) {
  const auto plain = engine::price(load(bs_yaml(kCall, 16384, ", rng: sobol")));
  EXPECT_FALSE(find(plain, "call").has_std_error);
  const auto scrambled = engine::price(load(bs_yaml(kCall, 16384, ", rng: scrambled_sobol")));
  EXPECT_TRUE(find(scrambled, "call").has_std_error);
  EXPECT_EQ(scrambled.run.replicates, 16);
  const double reference =
      analytic::black_scholes(analytic::OptionKind::call, 100, 105, 1, 0.04, 0.01, 0.25);
  EXPECT_NEAR(find(scrambled, "call").price, reference,
              kSigmas * find(scrambled, "call").std_error);
}

TEST(QuasiRandom, ScrambledSobolWithBridgeConvergesFasterThanPhilox) {
  // A smooth payoff over 12 steps (the bridge puts the terminal value in the first Sobol
  // dimension). The error against paths: Philox falls as N^-1/2, randomised QMC faster; at
  // the largest N its replicate standard error must be well below Philox's.
  const double reference =
      analytic::black_scholes(analytic::OptionKind::call, 100, 105, 1, 0.04, 0.01, 0.25);
  double last_qmc = 0.0, last_mc = 0.0;
  std::printf("  paths    philox |err|   se        scrambled_sobol+bridge |err|   se\n");
  for (std::uint64_t n : {4096u, 16384u, 65536u}) {
    const auto mc = find(engine::price(load(bs_yaml(kCall, n, ""))), "call");
    const auto qmc = find(
        engine::price(load(bs_yaml(kCall, n, ", rng: scrambled_sobol, replicates: 16"))), "call");
    std::printf("  %6llu   %.5f   %.5f   %.6f   %.6f\n", static_cast<unsigned long long>(n),
                std::fabs(mc.price - reference), mc.std_error, std::fabs(qmc.price - reference),
                qmc.std_error);
    // Each replicate is a random digital shift of the Sobol set: every point uniform (on the
    // 2^-32 grid), the mean unbiased. Nothing beyond the replicates' standard error.
    EXPECT_NEAR(qmc.price, reference, kSigmas * qmc.std_error);
    last_qmc = qmc.std_error;
    last_mc = mc.std_error;
  }
  EXPECT_LT(last_qmc, 0.25 * last_mc);
}

} // namespace
} // namespace pfmc
