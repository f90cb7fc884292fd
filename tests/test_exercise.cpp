// Early exercise (Longstaff-Schwartz) on the CPU backend: Longstaff and Schwartz's own American
// puts against QuantLib's finite differences, a Heston put against QuantLib's Heston finite
// differences, the max-call of Andersen and Broadie, the orderings European <= Bermudan <=
// American, the American call without dividends, the bits kept under chunking and threads,
// Greeks, and the config's refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "config/config_error.hpp"
#include "engine/analytic/analytic.hpp"
#include "engine/pricer.hpp"
#include "exercise_references.hpp"
#include "reference_check.hpp"
#include "test_support.hpp"

namespace pfmc {
namespace {

using testing::find;
using testing::load;

/// The Longstaff-Schwartz estimate is low-biased: its rule, fitted on finitely many paths with a
/// cubic in the spot, is at best the optimal one; and another regression fits another rule.
/// Neither is guessed: tests/references/make_exercise_references.py measures both with an
/// independent implementation of the method at pfmc's sizes (tests/exercise_references.hpp) and
/// each test expects |pfmc - (converged + bias)| <= kSigmas sqrt(se² + bias_se² + noise²).
void expect_measured(double value, double std_error, const testing::exercise::Measured& m,
                     const std::string& what, double extra_allowance = 0.0) {
  const double expected = m.converged + m.bias;
  const double spread =
      std::sqrt(std_error * std_error + m.bias_se * m.bias_se + m.noise * m.noise);
  EXPECT_NEAR(value, expected, testing::kSigmas * spread + extra_allowance)
      << what << ": converged " << m.converged << ", the method's measured bias " << m.bias << " ± "
      << m.bias_se << ", its rule's noise " << m.noise;
}

using testing::exercise::kPuts;
using testing::exercise::PutCase;

/// Every put of kPuts on a model of its own, american on a grid of 73 steps a year: exercise
/// dates every 5 days, the Bermudan of the reference.
std::string longstaff_schwartz_book(std::uint64_t paths, const std::string& engine) {
  std::string underlyings, models, instruments;
  for (std::size_t k = 0; k < std::size(kPuts); ++k) {
    const PutCase& c = kPuts[k];
    const std::string n = std::to_string(k);
    underlyings += "    - {name: S" + n + ", spot: " + std::to_string(c.spot) + "}\n";
    models += "  - {name: m" + n + ", type: black_scholes, underlying: S" + n +
              ", volatility: " + std::to_string(c.volatility) + "}\n";
    instruments += "  - {id: put" + n + ", type: european, option: put, strike: 40, maturity: " +
                   std::to_string(c.years) + ", model: m" + n + ", exercise: american}\n";
  }
  return "market:\n  underlyings:\n" + underlyings + "  rates: {zero_rate: 0.06}\nmodels:\n" +
         models + "instruments:\n" + instruments + "simulation: {paths: " + std::to_string(paths) +
         ", steps_per_year: 73, seed: 11}\nengine: " + engine + "\n";
}

TEST(Exercise, LongstaffSchwartzPutsAgreeWithQuantLibsFiniteDifferences) {
  const auto result = engine::price(load(longstaff_schwartz_book(40000, "{device: cpu}")));
  for (std::size_t k = 0; k < std::size(kPuts); ++k) {
    const PutCase& c = kPuts[k];
    const auto& put = find(result, "put" + std::to_string(k));
    expect_measured(put.price, put.std_error, c.bermudan, "put " + std::to_string(k));
    // The early-exercise premium is there: well above the European.
    EXPECT_GT(put.price, c.european + 0.5 * (c.bermudan.converged - c.european)) << k;
    EXPECT_EQ(put.exercise, "american");
    EXPECT_EQ(put.exercise_dates, 73 * c.years);
    EXPECT_EQ(put.regression_paths, 40000u);
  }
  EXPECT_GT(result.run.regression_ms, 0.0);
}

TEST(Exercise, EuropeanBermudanAmericanInThatOrder) {
  const std::string instruments =
      "  - {id: eu, type: european, option: put, strike: 110, maturity: 1, model: bs}\n"
      "  - {id: berm, type: european, option: put, strike: 110, maturity: 1, model: bs, "
      "exercise: bermudan, exercise_dates: 4}\n"
      "  - {id: am, type: european, option: put, strike: 110, maturity: 1, model: bs, exercise: "
      "american}\n";
  const auto r =
      engine::price(load(testing::yaml_run({}, instruments, 200000, ", steps_per_year: 50")));
  const auto& eu = find(r, "eu");
  const auto& berm = find(r, "berm");
  const auto& am = find(r, "am");
  const double closed_form =
      analytic::black_scholes(analytic::OptionKind::put, 100, 110, 1, 0.05, 0.0, 0.2);
  EXPECT_NEAR(eu.price, closed_form, testing::kSigmas * eu.std_error);
  // Four dates are worth less than fifty, which are worth more than none: the gaps (QuantLib's
  // finite differences: European 10.71, Bermudan 11.72, American 11.97) are many standard
  // errors (0.02) wide.
  EXPECT_GT(berm.price, eu.price + testing::kSigmas * (berm.std_error + eu.std_error));
  EXPECT_GT(am.price, berm.price + testing::kSigmas * (am.std_error + berm.std_error));
  EXPECT_EQ(berm.exercise_dates, 4);
}

TEST(Exercise, AnAmericanCallWithoutDividendsIsTheEuropean) {
  const std::string instruments =
      "  - {id: am, type: european, option: call, strike: 100, maturity: 1, model: bs, exercise: "
      "american}\n";
  // 40,000 regression paths fit the rule; 400,000 priced paths hold its price's standard error
  // to 0.023 (at 40,000 it was 0.074, a band of ±0.35 around 10.45).
  const auto r = engine::price(load(
      testing::yaml_run({}, instruments, 400000, ", steps_per_year: 50, regression_paths: 40000")));
  const auto& am = find(r, "am");
  const double european =
      analytic::black_scholes(analytic::OptionKind::call, 100, 100, 1, 0.05, 0.0, 0.2);
  // The rule must learn never to exercise: what it gives away by exercising early is what the
  // independent implementation measured at these sizes (kAmericanCall: its bias, that bias's
  // standard error and the rule's noise, on common random numbers). The band, kSigmas sqrt(se²
  // + bias_se² + noise²), is printed: about ±0.1, a hundredth of the price.
  EXPECT_NEAR(testing::exercise::kAmericanCall.converged, european, 1e-5);
  expect_measured(am.price, am.std_error, testing::exercise::kAmericanCall, "american call");
  const auto& m = testing::exercise::kAmericanCall;
  std::printf("  american call %.5f ± %.5f against %.5f, band ±%.4f\n", am.price, am.std_error,
              m.converged + m.bias,
              testing::kSigmas * std::sqrt(am.std_error * am.std_error + m.bias_se * m.bias_se +
                                           m.noise * m.noise));
}

/// The put on Heston of HestonPutRegressesOnSpotAndVarianceAndAgreesWithQuantLib, with
/// `simulation` (its keys).
std::string heston_put_yaml(const std::string& simulation) {
  return R"(market:
  underlyings: [{name: S, spot: 100}]
  rates: {zero_rate: 0.05}
models:
  - {name: h, type: heston, underlying: S, v0: 0.04, kappa: 2, theta: 0.04, xi: 0.3, rho: -0.7}
instruments:
  - {id: put, type: european, option: put, strike: 100, maturity: 1, model: h, exercise: american}
simulation: {)" +
         simulation + "}\nengine: {device: cpu}\n";
}

/// Andersen and Broadie's max-call of MaxCallOfAndersenAndBroadie at 40,000 paths, with `extra`
/// simulation keys.
std::string max_call_yaml(const std::string& extra = "") {
  return R"(market:
  underlyings: [{name: A, spot: 100, dividend_yield: 0.1}, {name: B, spot: 100, dividend_yield: 0.1}]
  rates: {zero_rate: 0.05}
models:
  - {name: ab, type: multi_black_scholes, underlyings: [A, B], volatilities: [0.2, 0.2],
     correlation: [[1, 0], [0, 1]]}
instruments:
  - {id: maxcall, type: basket, payoff: max, option: call, strike: 100, maturity: 3, model: ab,
     exercise: bermudan, exercise_dates: 9}
simulation: {paths: 40000, steps_per_year: 0, seed: 5)" +
         extra + "}\nengine: {device: cpu}\n";
}

TEST(Exercise, HestonPutRegressesOnSpotAndVarianceAndAgreesWithQuantLib) {
  // tests/references/quantlib_american.py: FdHestonVanillaEngine, Bermudan every 5 days
  // (European 5.517007); the method's bias and noise at these sizes: exercise_references.hpp.
  const auto r = engine::price(
      load(heston_put_yaml("paths: 40000, steps_per_year: 73, seed: 3, regression_degree: 2")));
  const auto& put = find(r, "put");
  expect_measured(put.price, put.std_error, testing::exercise::kHestonPut, "heston put");
}

TEST(Exercise, LocalVolBermudanPutAgreesWithAPde) {
  // The reference cases' skewed surface: Crank-Nicolson with the 12 exercise dates gives the
  // continuous-time price; the method's bias on pfmc's Euler chain (52 steps a year), measured
  // apart, includes the scheme's (tests/exercise_references.hpp).
  const std::string yaml = R"(market:
  underlyings: [{name: S, spot: 100, dividend_yield: 0.01}]
  rates: {zero_rate: 0.03}
models:
  - {name: lv, type: local_vol, underlying: S,
     surface: {times: [0.25, 0.5, 1.0, 2.0], log_moneyness: [-0.4, -0.1, 0.1, 0.4],
               vols: [[0.42, 0.30, 0.24, 0.21], [0.38, 0.28, 0.23, 0.21],
                      [0.34, 0.26, 0.22, 0.20], [0.30, 0.24, 0.21, 0.20]]}}
instruments:
  - {id: put, type: european, option: put, strike: 100, maturity: 1, model: lv,
     exercise: bermudan, exercise_dates: 12}
  - {id: eu, type: european, option: put, strike: 100, maturity: 1, model: lv}
simulation: {paths: 40000, steps_per_year: 52, seed: 19}
engine: {device: cpu}
)";
  const auto r = engine::price(load(yaml));
  const auto& put = find(r, "put");
  expect_measured(put.price, put.std_error, testing::exercise::kLocalVolBermudanPut,
                  "local-vol bermudan put");
  EXPECT_EQ(put.exercise_dates, 12);
  // The early-exercise premium (0.15, about 4 of this run's standard errors): above the European
  // on the same surface and grid (the reference case local_vol's put_100, by its Euler chain's
  // recursion).
  double european = 0.0;
  for (const auto& in : testing::reference_case("local_vol").instruments) {
    if (std::string(in.id) == "put_100")
      european = in.price.front().value;
  }
  ASSERT_GT(european, 0.0);
  EXPECT_GT(put.price, european);
}

TEST(Exercise, MaxCallOfAndersenAndBroadie) {
  // A Bermudan call on the larger of two independent assets (Andersen and Broadie 2004, Table 2;
  // Glasserman 2004, Example 8.1.2): S = 100, K = 100, r = 5%, dividend yields 10%, sigma = 20%,
  // rho = 0, T = 3, exercisable at t = i/3, i = 1..9. Its price lies in [13.892, 13.934] (95%,
  // their duality bounds). pfmc regresses on the basket's level alone (a cubic in max(S1, S2)),
  // a poorer basis than theirs (12 functions of both spots): what its rule gives away at 40,000
  // paths is measured by the independent implementation (exercise_references.hpp).
  const auto r = engine::price(load(max_call_yaml()));
  const auto& call = find(r, "maxcall");
  EXPECT_LE(call.price, 13.934 + testing::kSigmas * call.std_error);
  expect_measured(call.price, call.std_error, testing::exercise::kMaxCall, "max-call",
                  testing::exercise::kMaxCallHalfInterval);
  EXPECT_EQ(call.exercise_dates, 9);
}

TEST(Exercise, ChunksThreadsAndBookmatesKeepTheBits) {
  const std::string instruments =
      "  - {id: am, type: european, option: put, strike: 100, maturity: 1, model: bs, exercise: "
      "american}\n"
      "  - {id: b, type: european, option: call, strike: 95, maturity: 0.5, model: bs, exercise: "
      "bermudan, exercise_times: [0.1, 0.25]}\n"
      "  - {id: eu, type: european, option: call, strike: 100, maturity: 1, model: bs}\n";
  const std::string portfolio = "  - {instrument: am, quantity: 2}\n  - {instrument: b, "
                                "quantity: -1}\n  - {instrument: eu, quantity: 1}\n";
  const auto run = [&](const std::string& engine) {
    return testing::bits_of(engine::price(load(
        testing::yaml_run({}, instruments, 20000, ", steps_per_year: 12", engine, portfolio))));
  };
  const auto reference = run("{device: cpu, cpu_threads: 1}");
  EXPECT_EQ(run("{device: cpu, cpu_threads: 2}"), reference);
  // A cap that cuts the priced paths into chunks of one tile; the regression's records fit.
  EXPECT_EQ(run("{device: cpu, cpu_threads: 2, max_device_memory: 4MiB}"), reference);
}

TEST(Exercise, TheRegressionPathsAreTheirOwn) {
  const std::string instruments =
      "  - {id: am, type: european, option: put, strike: 100, maturity: 1, model: bs, exercise: "
      "american}\n"
      "  - {id: eu, type: european, option: put, strike: 100, maturity: 1, model: bs}\n";
  const auto priced = [&](const std::string& simulation) {
    return engine::price(load(testing::yaml_run({}, instruments, 20000, simulation)));
  };
  const auto same = priced(", steps_per_year: 12");
  const auto fewer = priced(", steps_per_year: 12, regression_paths: 5000");
  // Another regression fits another rule: the American moves, within its error; the European,
  // on paths of its own, keeps its bits.
  EXPECT_NE(find(same, "am").price, find(fewer, "am").price);
  EXPECT_NEAR(find(same, "am").price, find(fewer, "am").price,
              testing::kSigmas * find(same, "am").std_error);
  EXPECT_EQ(find(same, "eu").price, find(fewer, "eu").price);
  EXPECT_EQ(find(fewer, "am").regression_paths, 5000u);
}

/// The American put of AmericanPutGreeksAgreeWithQuantLibs (S = K = 40, kPuts[4]) asked for
/// `greeks` by `method`, its rule fitted on `regression_paths` (0: as many as `paths`).
std::string american_put_yaml(std::uint64_t paths, const std::string& greeks,
                              const std::string& method, std::uint64_t regression_paths = 0) {
  return R"(market:
  underlyings: [{name: S, spot: 40}]
  rates: {zero_rate: 0.06}
models:
  - {name: bs, type: black_scholes, underlying: S, volatility: 0.2}
instruments:
  - {id: put, type: european, option: put, strike: 40, maturity: 1, model: bs, exercise: american}
simulation: {paths: )" +
         std::to_string(paths) + ", steps_per_year: 73, seed: 13" +
         (regression_paths > 0 ? ", regression_paths: " + std::to_string(regression_paths) : "") +
         (greeks.empty() ? "" : ", greeks: [" + greeks + "], greeks_method: " + method) +
         "}\nengine: {device: cpu}\n";
}

/// Each Greek of `in`, in order, against its row of `rows` (expect_measured), each taken
/// pathwise or bumped as `pathwise` says; prints each band.
void expect_greeks_measured(const engine::InstrumentResult& in,
                            const std::vector<testing::exercise::Measured>& rows, bool pathwise) {
  ASSERT_EQ(in.greeks.size(), rows.size()) << in.id;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto& g = in.greeks[k];
    const auto& m = rows[k];
    const std::string what = in.id + " " + config::to_string(g.greek) +
                             (g.underlying.empty() ? "" : "[" + g.underlying + "]");
    EXPECT_EQ(g.pathwise, pathwise) << what;
    expect_measured(g.value, g.std_error, m, what);
    std::printf("  %-14s %.6f ± %.6f against %.6f, band ±%.6f\n", what.c_str(), g.value,
                g.std_error, m.converged + m.bias,
                testing::kSigmas * std::sqrt(g.std_error * g.std_error + m.bias_se * m.bias_se +
                                             m.noise * m.noise));
  }
}

template <std::size_t N>
void expect_greeks_measured(const engine::InstrumentResult& in,
                            const testing::exercise::Measured (&rows)[N], bool pathwise) {
  expect_greeks_measured(in, std::vector<testing::exercise::Measured>(rows, rows + N), pathwise);
}

TEST(Exercise, AmericanPutGreeksAgreeWithQuantLibs) {
  // S = 40, K = 40, sigma = 0.2, r = 6%, T = 1 (kPuts[4]); QuantLib's FD Bermudan (every 5
  // days), every Greek bumped as pfmc bumps (tests/references/quantlib_american.py's
  // bermudan_put_greeks), and what the method with its rule held fixed gives away on each,
  // measured apart (tests/exercise_references.hpp).
  using testing::exercise::kPutGreeks;
  // Delta, vega and rho at 40,000 paths: bands of about 7%, 8% and 33% of each (kPutGreeks).
  const auto r = engine::price(load(american_put_yaml(40000, "delta, vega, rho", "bump")));
  expect_greeks_measured(find(r, "put"), {kPutGreeks[0], kPutGreeks[2], kPutGreeks[3]}, false);
  // Gamma and theta: a path whose exercise date moves under the bump jumps, so their per-path
  // spread is large (at 40,000 paths gamma's standard error is half of gamma, theta's 0.58
  // against -0.72: bands of ±200% and ±2.4, a flipped sign passing). At 800,000 priced paths
  // on a rule of 40,000 regression paths, with the bias and the rule's noise measured on common
  // random numbers at these sizes (kPutGammaTheta), theta's band is narrower than theta itself
  // (a flipped sign, or zero, fails) and gamma's about half of gamma; within 10% of gamma needs
  // some 3 * 10^7 paths: the GPU suite's (test_gpu_exercise.cpp).
  const auto wide = engine::price(load(american_put_yaml(800000, "gamma, theta", "bump", 40000)));
  expect_greeks_measured(find(wide, "put"), testing::exercise::kPutGammaTheta, false);
}

TEST(Exercise, PathwiseGreeksWithTheRuleHeldFixedAgreeWithTheIndependentReference) {
  // Delta, vega, rho and theta pathwise (models/exercise.cuh: each path's cash flow
  // differentiated at its own exercise date, the rule fitted once on the base market). Another
  // estimator than the bumps': it leaves out what a move does at the exercise boundary, which the
  // bumps keep, so its bias against the converged Greeks is its own. Measured apart by the
  // independent implementation (reflsm.pathwise_with_rule, exercise_references.hpp).
  const auto pathwise =
      engine::price(load(american_put_yaml(40000, "delta, vega, rho, theta", "pathwise")));
  const auto& put = find(pathwise, "put");
  expect_greeks_measured(put, testing::exercise::kPutPathwiseGreeks, true);
  ASSERT_EQ(put.greeks.size(), 4u);
  // Against pfmc's bumps on the same draws (the same rule: one regression on the same paths):
  // the two estimators differ by their two measured biases, within kSigmas of every error the
  // reference measured (both runs' standard errors, both biases' and both rules' noise).
  const auto bumped =
      engine::price(load(american_put_yaml(40000, "delta, vega, rho, theta", "bump")));
  const auto& bumped_put = find(bumped, "put");
  const std::size_t bump_row[] = {0, 2, 3, 4}; // kPutGreeks: delta, gamma, vega, rho, theta
  for (std::size_t k = 0; k < 4; ++k) {
    const auto& p = put.greeks[k];
    const auto& b = bumped_put.greeks[k];
    ASSERT_EQ(p.greek, b.greek);
    const auto& mp = testing::exercise::kPutPathwiseGreeks[k];
    const auto& mb = testing::exercise::kPutGreeks[bump_row[k]];
    const double spread =
        std::sqrt(p.std_error * p.std_error + b.std_error * b.std_error + mp.bias_se * mp.bias_se +
                  mb.bias_se * mb.bias_se + mp.noise * mp.noise + mb.noise * mb.noise);
    EXPECT_NEAR(p.value - b.value, mp.bias - mb.bias, testing::kSigmas * spread)
        << config::to_string(p.greek);
  }
  // The paths' values are the plain model's: the price is the price-only run's, bit for bit.
  const auto priced = engine::price(load(american_put_yaml(40000, "", "")));
  EXPECT_EQ(put.price, find(priced, "put").price);
  EXPECT_EQ(put.std_error, find(priced, "put").std_error);
  // Delta and vega: no larger a standard error than the bumps' on the same paths (pathwise
  // differentiates the payoff where the bumps difference two prices' noise).
  for (std::size_t k : {0u, 1u})
    EXPECT_LE(put.greeks[k].std_error, bumped_put.greeks[k].std_error) << k;
}

TEST(Exercise, PathwiseGreeksOfABasketAndOfHestonAgreeWithTheirReferences) {
  // The max-call of Andersen and Broadie (MaxCallOfAndersenAndBroadie), its delta and vega per
  // underlying (its level the larger leg: each path's winner's tangents), rho and theta
  // pathwise, against the independent implementation's mean of the same estimator at these sizes
  // (exercise_references.hpp).
  const auto priced = [](const std::string& yaml) { return engine::price(load(yaml)); };
  const std::string greeks = ", greeks: [delta, vega, rho, theta], greeks_method: ";
  const auto call = find(priced(max_call_yaml(greeks + "pathwise")), "maxcall");
  expect_greeks_measured(call, testing::exercise::kMaxCallPathwiseGreeks, true);
  EXPECT_EQ(call.price, find(priced(max_call_yaml()), "maxcall").price);
  // The Heston put (its rule regresses on the spot and the variance: the pathwise model's
  // values), against the independent implementation's mean of the same estimator at these sizes
  // (kHestonPutPathwiseGreeks: its rule fitted apart, each path's cash flow differentiated at
  // its own exercise date by central differences of its own Heston paths, no tangent of pfmc's;
  // the rule's noise on common random numbers).
  const std::string heston = "paths: 20000, steps_per_year: 24, seed: 3, regression_degree: 2";
  const auto pathwise = find(priced(heston_put_yaml(heston + greeks + "pathwise")), "put");
  expect_greeks_measured(pathwise, testing::exercise::kHestonPutPathwiseGreeks, true);
  EXPECT_EQ(pathwise.price, find(priced(heston_put_yaml(heston)), "put").price);
}

void expect_refused(const std::string& yaml, const std::string& needle) {
  try {
    engine::price(load(yaml));
    FAIL() << "accepted: " << needle;
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Exercise, TheConfigRefusesWhatItCannotPrice) {
  const std::string put = "  - {id: p, type: european, option: put, strike: 100, maturity: 1, "
                          "model: bs, ";
  expect_refused(testing::yaml_run({}, put + "exercise: american, exercise_dates: 4}\n", 100),
                 "exercise_dates: an american option may be exercised at every step");
  expect_refused(testing::yaml_run({}, put + "exercise_dates: 4}\n", 100),
                 "exercise dates need exercise: bermudan");
  expect_refused(testing::yaml_run({}, put + "exercise: bermudan}\n", 100),
                 "missing required key 'exercise_dates' (or 'exercise_times')");
  expect_refused(
      testing::yaml_run({}, put + "exercise: bermudan, exercise_times: [0.5, 1.5]}\n", 100),
      "must be <= the maturity 1");
  expect_refused(testing::yaml_run({}, put + "exercise: sometimes}\n", 100),
                 "must be one of: european, american, bermudan");
  expect_refused(testing::yaml_run({},
                                   put +
                                       "exercise: american, knock: {type: down_and_out, level: 80, "
                                       "monitoring: 12}}\n",
                                   100),
                 "early exercise does not combine with a knock");
  expect_refused(testing::yaml_run({}, put + "exercise: american}\n", 100, ", steps_per_year: 0"),
                 "the event grid (steps_per_year 0) has no steps between its dates");
  expect_refused(testing::yaml_run({}, put + "exercise: american}\n", 100, ", rng: sobol"),
                 "early exercise (model 'bs') needs rng: philox");
  expect_refused(
      testing::yaml_run({}, put + "exercise: american}\n", 100, ", regression_degree: 4"),
      "regression_degree: must be <= 3");
  expect_refused(
      testing::yaml_run({}, put + "exercise: american}\n", 100,
                        ", steps_per_year: 365, regression_paths: 1000000",
                        "{device: cpu, max_device_memory: 64MiB}"),
      "simulation.regression_paths: the early-exercise regression on model 'bs' records 365 "
      "dates of 1000000 paths");
  // A digital has no early exercise.
  expect_refused(testing::yaml_run({},
                                   "  - {id: d, type: digital, option: put, strike: 100, "
                                   "maturity: 1, model: bs, exercise: american}\n",
                                   100),
                 "unknown key 'exercise'");
}

} // namespace
} // namespace pfmc
