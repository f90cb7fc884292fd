// Early exercise on the GPU (skipped without a device): the device's regression and pricing
// passes against the CPU backend's on the same draws (prices, bumped and pathwise Greeks), the bits
// kept by chunks, block sizes and named backends, and Longstaff and Schwartz's puts and the
// American put's Greeks (bumped and pathwise) at full size against QuantLib's finite differences
// (tests/test_exercise.cpp has the CPU side and the references' script).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "engine/pricer.hpp"
#include "exercise_references.hpp"
#include "gpu_test_support.hpp"
#include "test_support.hpp"

namespace pfmc {
namespace {

using testing::bits_of;
using testing::find;
using testing::load;

class GpuExercise : public testing::GpuTest {};

/// American and Bermudan instruments on each model kind with a European beside them, and a
/// portfolio.
std::string exercise_book(const std::string& engine, const std::string& extra = "",
                          std::uint64_t paths = 20000) {
  return R"(market:
  underlyings: [{name: A, spot: 100, dividend_yield: 0.02}, {name: B, spot: 95}]
  rates: {tenors: [0.5, 2], zero_rates: [0.03, 0.04]}
models:
  - {name: bs, type: black_scholes, underlying: A, volatility: 0.25}
  - {name: h, type: heston, underlying: A, v0: 0.04, kappa: 2, theta: 0.05, xi: 0.4, rho: -0.6}
  - {name: lv, type: local_vol, underlying: B, surface: {times: [0.25, 1], log_moneyness: [-0.3, 0, 0.3], vols: [[0.3, 0.22, 0.2], [0.28, 0.21, 0.2]]}}
  - {name: ab, type: multi_black_scholes, underlyings: [A, B], volatilities: [0.25, 0.3], correlation: [[1, 0.4], [0.4, 1]]}
instruments:
  - {id: am_put, type: european, option: put, strike: 105, maturity: 1, model: bs, exercise: american}
  - {id: berm_call, type: european, option: call, strike: 95, maturity: 0.75, model: bs, exercise: bermudan, exercise_dates: 6}
  - {id: eu_put, type: european, option: put, strike: 105, maturity: 1, model: bs}
  - {id: h_put, type: european, option: put, strike: 100, maturity: 1, model: h, exercise: american}
  - {id: lv_put, type: european, option: put, strike: 95, maturity: 0.5, model: lv, exercise: american}
  - {id: max_call, type: basket, payoff: max, option: call, strike: 100, maturity: 1, model: ab, exercise: bermudan, exercise_dates: 4}
  - {id: w_put, type: basket, payoff: weighted, weights: [0.5, 0.5], option: put, strike: 100, maturity: 1, model: ab, exercise: american}
portfolio:
  - {instrument: am_put, quantity: 3}
  - {instrument: h_put, quantity: -1}
  - {instrument: max_call, quantity: 2}
simulation: {paths: )" +
         std::to_string(paths) + ", steps_per_year: 24, seed: 17" + extra + "}\nengine: " + engine +
         "\n";
}

/// How far the GPU's value of a mean over `paths` paths (a price or a Greek) may be from the
/// CPU's on the same draws. The two backends run the same estimator in double on the same draws:
/// they differ only in the math libraries' last bits (CUDA's exp and log within 2 ulp, glibc's
/// within 1; the regression's sums are reduced in one fixed order and solved on the host by the
/// same code), which move each path's cash flows by about 1e-14 of themselves: 1e-12 of the
/// value covers what a mean and a bump's difference carry of that. Beyond it, a path can only
/// decide the other way where its exercise value and its fitted continuation agree to that
/// rounding; then that one path's estimate changes, by at most the span of the estimates
/// (|mean| + 10 per-path standard deviations, se √paths, either way), so one flipped path moves
/// the mean by at most 2 (|mean| + 10 se √paths) / paths: at 20,000 paths 1e-4 of the value and
/// 0.14 of its standard error. One flip is allowed per value; more would be a difference of
/// the backends, not of their rounding. `std_error` must be of the mean over independent paths
/// (an antithetic run's is of pair means, whose spread is smaller than a path's: take the plain
/// run's).
double same_draws_allowance(double value, double std_error, std::uint64_t paths) {
  const double n = static_cast<double>(paths);
  return 1e-12 * std::fabs(value) + 2.0 * (std::fabs(value) + 10.0 * std_error * std::sqrt(n)) / n;
}

TEST_F(GpuExercise, MatchesTheCpuBackendOnTheSameDraws) {
  // The Greeks bumped, and pathwise (first order, the rule held fixed: every model's pathwise
  // early-exercise kernel, the baskets' per underlying).
  const auto plain = engine::price(load(exercise_book("{device: cpu}")));
  for (const char* extra : {"", ", antithetic: true", ", greeks: [delta, gamma, vega, rho, theta]",
                            ", greeks: [delta, vega, rho, theta], greeks_method: pathwise"}) {
    const auto gpu = engine::price(load(exercise_book("{device: gpu}", extra)));
    const auto cpu = engine::price(load(exercise_book("{device: cpu}", extra)));
    ASSERT_EQ(gpu.instruments.size(), cpu.instruments.size());
    ASSERT_EQ(plain.instruments.size(), cpu.instruments.size());
    for (std::size_t i = 0; i < gpu.instruments.size(); ++i) {
      const auto& g = gpu.instruments[i];
      const auto& c = cpu.instruments[i];
      // The price's per-path spread from the plain run (the antithetic run's error is of pairs).
      EXPECT_NEAR(g.price, c.price,
                  same_draws_allowance(c.price, plain.instruments[i].std_error, c.paths))
          << extra << " " << g.id;
      ASSERT_EQ(g.greeks.size(), c.greeks.size()) << extra << " " << g.id;
      for (std::size_t k = 0; k < g.greeks.size(); ++k) {
        const auto& x = g.greeks[k];
        const auto& y = c.greeks[k];
        EXPECT_EQ(x.pathwise, y.pathwise) << extra << " " << g.id;
        EXPECT_NEAR(x.value, y.value, same_draws_allowance(y.value, y.std_error, c.paths))
            << extra << " " << g.id << " " << config::to_string(y.greek) << "[" << y.underlying
            << "]";
      }
    }
  }
}

/// The American put of the CPU suite's AmericanPutGreeksAgreeWithQuantLibs (S = K = 40, sigma =
/// 0.2, r = 6%, T = 1, american on 73 steps a year: kPuts[4]) on the GPU, its rule fitted on
/// 1,000,000 regression paths, `paths` priced, `greeks` taken by `method`.
std::string full_size_put_yaml(std::uint64_t paths, const std::string& greeks,
                               const std::string& method) {
  return "market:\n  underlyings: [{name: S, spot: 40}]\n  rates: {zero_rate: 0.06}\nmodels:\n"
         "  - {name: bs, type: black_scholes, underlying: S, volatility: 0.2}\ninstruments:\n"
         "  - {id: put, type: european, option: put, strike: 40, maturity: 1, model: bs, "
         "exercise: american}\nsimulation: {paths: " +
         std::to_string(paths) +
         ", regression_paths: 1000000, steps_per_year: 73, seed: 23, greeks: [" + greeks +
         "], greeks_method: " + method + "}\nengine: {device: gpu}\n";
}

/// Each Greek of `in`, in order, against its row of `rows`: |pfmc - (converged + bias)| <=
/// kSigmas sqrt(se² + bias_se² + noise²), as the CPU suite checks (tests/test_exercise.cpp,
/// expect_measured); prints each band.
void expect_greeks_measured(const engine::InstrumentResult& in,
                            const std::vector<testing::exercise::Measured>& rows, bool pathwise) {
  ASSERT_EQ(in.greeks.size(), rows.size()) << in.id;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto& g = in.greeks[k];
    const auto& m = rows[k];
    EXPECT_EQ(g.pathwise, pathwise) << config::to_string(g.greek);
    const double band = testing::kSigmas * std::sqrt(g.std_error * g.std_error +
                                                     m.bias_se * m.bias_se + m.noise * m.noise);
    EXPECT_NEAR(g.value, m.converged + m.bias, band)
        << config::to_string(g.greek) << (pathwise ? " pathwise" : " bumped") << ": converged "
        << m.converged << ", the method's measured bias " << m.bias << " ± " << m.bias_se
        << ", its rule's noise " << m.noise;
    std::printf("  %s %-5s %.6f ± %.6f against %.6f, band ±%.6f (%.1f%% of it)\n",
                pathwise ? "pathwise" : "bumped  ", config::to_string(g.greek), g.value,
                g.std_error, m.converged + m.bias, band,
                100.0 * band / std::fabs(m.converged + m.bias));
  }
}

TEST_F(GpuExercise, AmericanPutGreeksAtFullSizeAgreeWithQuantLibs) {
  // QuantLib's FD Bermudan Greeks bumped as pfmc bumps and what the method gives away on each
  // at these sizes, measured apart by the independent implementation on common random numbers
  // (tests/exercise_references.hpp: kPutGreeksAtFullSize, kPutPathwiseGreeksAtFullSize), as the
  // CPU suite checks them at 40,000 paths. Bumped: delta, vega, rho and theta at 4,000,000
  // priced paths (theta's band about a third of theta); gamma, whose per-path spread is the
  // largest (a path whose exercise date moves under ±1% of the spot jumps), at 32,000,000,
  // where its band is within 10% of gamma. Pathwise: delta, vega, rho and theta at 4,000,000.
  using testing::exercise::kPutGreeksAtFullSize;
  const auto bumped =
      engine::price(load(full_size_put_yaml(4000000, "delta, vega, rho, theta", "bump")));
  expect_greeks_measured(find(bumped, "put"),
                         {kPutGreeksAtFullSize[0], kPutGreeksAtFullSize[2], kPutGreeksAtFullSize[3],
                          kPutGreeksAtFullSize[4]},
                         false);
  const auto gamma = engine::price(load(full_size_put_yaml(32000000, "gamma", "bump")));
  expect_greeks_measured(find(gamma, "put"), {kPutGreeksAtFullSize[1]}, false);
  const auto& g = find(gamma, "put").greeks.at(0);
  const auto& m = kPutGreeksAtFullSize[1];
  EXPECT_LT(testing::kSigmas *
                std::sqrt(g.std_error * g.std_error + m.bias_se * m.bias_se + m.noise * m.noise),
            0.1 * std::fabs(m.converged + m.bias))
      << "gamma's band is no longer within 10% of gamma";
  const auto pathwise =
      engine::price(load(full_size_put_yaml(4000000, "delta, vega, rho, theta", "pathwise")));
  const auto& rows = testing::exercise::kPutPathwiseGreeksAtFullSize;
  expect_greeks_measured(find(pathwise, "put"),
                         std::vector<testing::exercise::Measured>(std::begin(rows), std::end(rows)),
                         true);
}

TEST_F(GpuExercise, ChunksBlockSizesAndNamedBackendsKeepTheBits) {
  for (const char* precision : {"", ", precision: float"}) {
    const auto reference = bits_of(engine::price(load(exercise_book("{device: gpu}", precision))));
    // Chunks of one tile of priced paths; blocks of 32 and 1024 threads.
    EXPECT_EQ(bits_of(engine::price(
                  load(exercise_book("{device: gpu, max_device_memory: 48MiB}", precision)))),
              reference)
        << precision;
    EXPECT_EQ(
        bits_of(engine::price(load(exercise_book("{device: gpu, block_size: 32}", precision)))),
        reference)
        << precision;
    EXPECT_EQ(
        bits_of(engine::price(load(exercise_book("{device: gpu, block_size: 1024}", precision)))),
        reference)
        << precision;
    // A named backend prices the European; early exercise keeps its own kernel, and says so.
    const auto named =
        engine::price(load(exercise_book("{device: gpu, backend: scalar_batched}", precision)));
    EXPECT_EQ(bits_of(named), reference) << precision;
    bool said = false;
    for (const auto& n : named.run.notices)
      said = said || n.find("early-exercise instruments run their own kernel") != std::string::npos;
    EXPECT_TRUE(said);
  }
}

TEST_F(GpuExercise, LongstaffSchwartzPutsAtFullSize) {
  // K = 40, r = 6%, american on 73 steps a year (every 5 days): QuantLib's Bermudan and what
  // the method gives away at 10^6 regression and 10^6 priced paths, measured apart by
  // tests/references/make_exercise_references.py (tests/exercise_references.hpp).
  for (const auto& p : testing::exercise::kPutsAtFullSize) {
    const std::string yaml =
        "market:\n  underlyings: [{name: S, spot: " + std::to_string(p.spot) +
        "}]\n  rates: {zero_rate: 0.06}\nmodels:\n  - {name: bs, type: black_scholes, "
        "underlying: S, volatility: " +
        std::to_string(p.volatility) +
        "}\ninstruments:\n  - {id: put, type: european, option: put, strike: 40, maturity: " +
        std::to_string(p.years) +
        ", model: bs, exercise: american}\nsimulation: {paths: 1000000, steps_per_year: 73, "
        "seed: 21}\nengine: {device: gpu}\n";
    const auto run = engine::price(load(yaml));
    const auto& put = find(run, "put");
    const auto& m = p.bermudan;
    const double spread =
        std::sqrt(put.std_error * put.std_error + m.bias_se * m.bias_se + m.noise * m.noise);
    EXPECT_NEAR(put.price, m.converged + m.bias, testing::kSigmas * spread)
        << p.spot << ": converged " << m.converged << ", measured bias " << m.bias;
  }
}

} // namespace
} // namespace pfmc
