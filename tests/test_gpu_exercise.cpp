// Early exercise on the GPU (skipped without a device): the device's regression and pricing
// passes against the CPU backend's on the same draws (prices, bumped and pathwise Greeks), the bits
// kept by chunks, block sizes and named backends, and Longstaff and Schwartz's puts at full size
// against QuantLib's finite differences (tests/test_exercise.cpp has the CPU side and the
// references' script).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

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

TEST_F(GpuExercise, MatchesTheCpuBackendOnTheSameDraws) {
  // The Greeks bumped, and pathwise (first order, the rule held fixed: every model's pathwise
  // early-exercise kernel, the baskets' per underlying).
  for (const char* extra : {"", ", antithetic: true", ", greeks: [delta, gamma, vega, rho, theta]",
                            ", greeks: [delta, vega, rho, theta], greeks_method: pathwise"}) {
    const auto gpu = engine::price(load(exercise_book("{device: gpu}", extra)));
    const auto cpu = engine::price(load(exercise_book("{device: cpu}", extra)));
    ASSERT_EQ(gpu.instruments.size(), cpu.instruments.size());
    for (std::size_t i = 0; i < gpu.instruments.size(); ++i) {
      const auto& g = gpu.instruments[i];
      const auto& c = cpu.instruments[i];
      // The same draws and the same arithmetic but the math libraries' last ulps: a path whose
      // payoff sits on the exercise boundary (or a regression sum's last digit) may decide the
      // other way. Measured on the H100: see bench/NOTES.md v14.
      EXPECT_NEAR(g.price, c.price, 1e-6 * std::fabs(c.price) + 1e-3 * c.std_error)
          << extra << " " << g.id;
      ASSERT_EQ(g.greeks.size(), c.greeks.size()) << extra << " " << g.id;
      for (std::size_t k = 0; k < g.greeks.size(); ++k) {
        EXPECT_EQ(g.greeks[k].pathwise, c.greeks[k].pathwise) << extra << " " << g.id;
        EXPECT_NEAR(g.greeks[k].value, c.greeks[k].value, c.greeks[k].std_error)
            << extra << " " << g.id << " greek " << k;
      }
    }
  }
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
  // scripts/references/make_exercise_references.py (tests/exercise_references.hpp).
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
