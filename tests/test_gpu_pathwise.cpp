// GPU suites of the pathwise Greeks (issue 37; skipped without a device): the pathwise models'
// kernels bit-identical to `none` on every backend, the GPU against the CPU backend on the same
// draws, and against the closed forms at full size.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/analytic/analytic.hpp"
#include "engine/core/device_info.hpp"
#include "engine/pricer.hpp"
#include "gpu_coverage.hpp"
#include "gpu_test_support.hpp"
#include "heston_greeks.hpp"
#include "kernels/catalog.hpp"
#include "test_support.hpp"

namespace pfmc {
namespace {

using testing::bits_of;
using testing::find;
using testing::kSigmas;
using testing::load;

class GpuPathwise : public testing::GpuTest {};

/// A book every Greek of which is pathwise: Europeans and Asians on Black-Scholes with a rate
/// curve (kind "black_scholes"; "black_scholes_spot_vol": delta, gamma and vega alone, whose paths
/// carry the spot's and the vol's tangents only, with a digital and a knock too), on Heston
/// ("heston_qe", "heston_full_truncation") or on local vol ("local_vol"; these two with a digital
/// and a knock too), or weighted, max and min baskets of n correlated assets ("basket2" ..
/// "basket4"), with a position.
std::string pathwise_book(const std::string& kind, std::uint64_t paths, const std::string& engine,
                          const std::string& extra = "") {
  const std::string market =
      "market:\n  underlyings: [{name: A, spot: 100, dividend_yield: 0.02}, {name: B, spot: 95}, "
      "{name: C, spot: 105, dividend_yield: 0.01}, {name: D, spot: 100}]\n"
      "  rates: {tenors: [0.5, 2], zero_rates: [0.01, 0.02]}\n";
  std::string model, instruments, greeks;
  const bool heston = kind.rfind("heston_", 0) == 0;
  const bool spot_vol = kind == "black_scholes_spot_vol";
  if (kind == "black_scholes" || spot_vol || kind == "local_vol" || heston) {
    if (heston) {
      model = "{name: m, type: heston, underlying: A, v0: 0.04, kappa: 2, theta: 0.06, xi: 0.5, "
              "rho: -0.7, scheme: " +
              kind.substr(7) + "}";
    } else if (kind == "local_vol") { // skewed in moneyness and in time
      model = "{name: m, type: local_vol, underlying: A, surface: {times: [0.25, 1, 2], "
              "log_moneyness: [-0.3, 0, 0.3], vols: [[0.35, 0.25, 0.2], [0.3, 0.23, 0.2], "
              "[0.28, 0.22, 0.2]]}}";
    } else {
      model = "{name: m, type: black_scholes, underlying: A, volatility: {tenors: [0.5, 1], "
              "vols: [0.22, 0.25]}}";
    }
    instruments =
        "  - {id: c, type: european, option: call, strike: 100, maturity: 1, model: m}\n"
        "  - {id: p, type: european, option: put, strike: 90, maturity: 0.75, model: m}\n"
        "  - {id: a, type: asian, average: arithmetic, option: call, strike: 100, maturity: 1, "
        "fixings: 12, model: m}\n"
        "  - {id: g, type: asian, average: geometric, option: put, strike: 100, maturity: 1, "
        "fixings: 52, model: m}\n";
    if (heston || kind == "local_vol" || spot_vol) {
      instruments +=
          "  - {id: d, type: digital, option: call, strike: 105, cash: 10, maturity: 1, model: m}\n"
          "  - {id: k, type: barrier, option: call, strike: 100, barrier: 85, barrier_type: "
          "down_and_out, monitoring: 52, maturity: 1, model: m}\n";
    }
    greeks =
        spot_vol ? ", greeks: [delta, gamma, vega]" : ", greeks: [delta, gamma, vega, rho, theta]";
  } else {
    const int n = kind.back() - '0';
    const auto basket = testing::basket_model(n);
    model = basket.model;
    const std::string& w = basket.weights;
    const std::string tail = ", strike: 100, maturity: 1, model: m}\n";
    // The knocked call: at the money, out at 85% of the basket's start (weights of 0.25).
    const double spots[4] = {100, 95, 105, 100};
    double start = 0;
    for (int a = 0; a < n; ++a)
      start += 0.25 * spots[a];
    // The max, the min and the knock: their gammas read the level or the extreme on the paths
    // with each spot moved (engine/plan/instruments.cpp, add_moved_levels).
    instruments = "  - {id: c, type: basket, payoff: weighted, weights: [" + w + "], option: call" +
                  tail + "  - {id: mx, type: basket, payoff: max, option: call" + tail +
                  "  - {id: mn, type: basket, payoff: min, option: put" + tail +
                  "  - {id: k, type: basket, payoff: weighted, weights: [" + w +
                  "], option: call, strike: " + std::to_string(start) +
                  ", maturity: 1, model: m, knock: {type: down_and_out, level: " +
                  std::to_string(0.85 * start) + ", monitoring: 52}}\n";
    greeks = ", greeks: [delta, gamma, vega, rho, theta]";
  }
  return market + "models: [" + model + "]\ninstruments:\n" + instruments +
         "portfolio: [{instrument: c, quantity: 2}]\nsimulation: {paths: " + std::to_string(paths) +
         ", steps_per_year: 52, seed: 17" + greeks + ", greeks_method: pathwise" + extra +
         "}\nengine: " + engine + "\n";
}

const char* const kKinds[] = {
    "black_scholes", "black_scholes_spot_vol", "basket2", "basket3", "basket4", "local_vol",
    "heston_qe",     "heston_full_truncation"};

/// The pathwise entries' cases in both precisions (tests/gpu_coverage.cpp says which loaders).
std::vector<testing::coverage::LoaderCase> backend_cases() {
  return testing::coverage::loader_cases(
      [](const std::string& e) { return e.rfind("pathwise_", 0) == 0; });
}

/// The pathwise books of an entry: its kind's (Heston's two schemes share a kernel).
std::vector<std::string> kinds_of(const std::string& entry) {
  if (entry.rfind("pathwise_spot_vol_", 0) == 0)
    return {"black_scholes_spot_vol"};
  const std::string kind = testing::coverage::model_kind(entry);
  if (kind == "heston")
    return {"heston_qe", "heston_full_truncation"};
  return {kind};
}

/// The model list's pathwise entry of a book kind.
std::string pathwise_entry(const std::string& kind, const std::string& precision) {
  const std::string suffix = precision == "float" ? "_f32" : "_f64";
  if (kind == "black_scholes_spot_vol")
    return "pathwise_spot_vol_black_scholes" + suffix;
  if (kind.rfind("heston_", 0) == 0)
    return "pathwise_heston" + suffix;
  if (kind.rfind("basket", 0) == 0)
    return "pathwise_multi" + kind.substr(6) + suffix;
  return "pathwise_" + kind + suffix;
}

class PathwiseBackendIdentity
    : public GpuPathwise,
      public ::testing::WithParamInterface<testing::coverage::LoaderCase> {};

TEST_P(PathwiseBackendIdentity, GivesTheBitsOfNone) {
  const auto& c = GetParam();
  const auto* info = kernels::find_backend(c.backend);
  ASSERT_NE(info, nullptr);
  const auto device = engine::query_device();
  if (!kernels::why_backend_cannot_run(*info, device.compute_capability, device.name).empty())
    GTEST_SKIP() << c.backend << " does not run on " << device.name;
  const std::string engine_yaml = "{device: gpu, backend: " + c.backend +
                                  ", prefetch_distance: " + std::to_string(c.distance) + "}";
  const std::string none = "{device: gpu, backend: none}";
  const bool f32 = testing::coverage::is_float(c.entry);
  // 10,000 paths: a partial last block; 52 steps: not a multiple of 8.
  for (const auto& kind : kinds_of(c.entry)) {
    for (const std::string extra : {"", ", antithetic: true, control_variate: true"}) {
      const std::string precision = f32 ? ", precision: float" : "";
      const auto got =
          engine::price(load(pathwise_book(kind, 10000, engine_yaml, extra + precision)));
      const auto want = engine::price(load(pathwise_book(kind, 10000, none, extra + precision)));
      EXPECT_EQ(got.run.precision, f32 ? "float" : "double");
      EXPECT_EQ(bits_of(got), bits_of(want)) << c.entry << " " << kind << extra << " " << c.backend;
      ASSERT_FALSE(got.instruments.empty());
      EXPECT_TRUE(got.instruments[0].greeks.at(0).pathwise) << kind;
      if (f32) // the float kernels' controls: one book is enough
        break;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, PathwiseBackendIdentity,
                         ::testing::ValuesIn(backend_cases()), [](const auto& info) {
                           return info.param.entry + "_" + info.param.backend;
                         });

TEST_F(GpuPathwise, MatchesTheCpuBackendOnTheSameDraws) {
  // In float the device's and the host's transcendentals may differ by a few ulps a call (CUDA's
  // expf and logf: 2 and 1 ulps at most): over a path's 52 steps its values move by up to ~1e-6
  // of themselves, so float Greeks agree to 1e-5 of their value (gamma: a standard error).
  // Heston QE branches on psi and Φ(z) (tests/test_gpu_models.cpp: 1e-7 in double), local vol's
  // slope on its knots; in float a
  // last-ulp difference moves a path across a branch or a jump's kernel edge often enough that
  // one path's move (about a standard error over sqrt(paths)) is the tolerance's scale: a
  // standard error.
  for (const std::string precision : {"double", "float"}) {
    const double relative = precision == "float" ? 1e-5 : 1e-7;       // a Greek
    const double price_relative = precision == "float" ? 1e-5 : 1e-9; // a price
    for (const std::string kind : kKinds) {
      // Heston, and local vol (whose vol's slope changes at the surface's knots).
      const bool heston = kind.rfind("heston_", 0) == 0 || kind == "local_vol";
      const bool heston_float = heston && precision == "float";
      const std::string extra = ", precision: " + precision;
      // `auto` where the suite compiles the entry's default kernel (tests/gpu_coverage.hpp).
      const auto gpu = engine::price(load(pathwise_book(
          kind, 8192, testing::coverage::gpu_engine(pathwise_entry(kind, precision)), extra)));
      const auto cpu = engine::price(load(pathwise_book(kind, 8192, "{device: cpu}", extra)));
      ASSERT_EQ(gpu.instruments.size(), cpu.instruments.size());
      for (std::size_t i = 0; i < gpu.instruments.size(); ++i) {
        const auto& g = gpu.instruments[i];
        const auto& c = cpu.instruments[i];
        const bool jump = g.id == "d" || g.id == "k"; // digitals and knocks
        EXPECT_NEAR(g.price, c.price,
                    heston_float || jump
                        ? g.std_error
                        : (heston ? 1e-7 : price_relative) * std::fabs(g.price) + 1e-12)
            << precision << " " << kind << " " << g.id;
        ASSERT_EQ(g.greeks.size(), c.greeks.size());
        for (std::size_t k = 0; k < g.greeks.size(); ++k) {
          // Gamma's slopes switch where a path's spot crosses the strike ± 1%: a last-ulp
          // difference between the device's and the host's exp can move one path across.
          const double tolerance = g.greeks[k].greek == config::Greek::gamma || heston_float || jump
                                       ? g.greeks[k].std_error
                                       : relative * std::fabs(g.greeks[k].value) + 1e-9;
          EXPECT_NEAR(g.greeks[k].value, c.greeks[k].value, tolerance)
              << precision << " " << kind << " " << g.id << " "
              << config::to_string(g.greeks[k].greek);
        }
      }
    }
  }
}

TEST_F(GpuPathwise, CrossGammasMatchTheCpuBackendOnTheSameDraws) {
  // A weighted basket's cross-gammas (each pair, pathwise) on 2, 3 and 4 assets: the GPU's
  // against the CPU backend's on the same draws, within a standard error (as gamma: a path whose
  // moved level crosses the strike by a last ulp moves one path's slope).
  for (int assets = 2; assets <= 4; ++assets) {
    const auto basket = testing::basket_model(assets);
    const auto book = [&](const std::string& engine) {
      return "market:\n  underlyings: [{name: A, spot: 100}, {name: B, spot: 95}, "
             "{name: C, spot: 105, dividend_yield: 0.01}, {name: D, spot: 100}]\n"
             "  rates: {zero_rate: 0.02}\nmodels: [" +
             basket.model +
             "]\ninstruments:\n  - {id: c, type: basket, payoff: weighted, weights: [" +
             basket.weights +
             "], option: call, strike: 100, maturity: 1, model: m}\n"
             "  - {id: mx, type: basket, payoff: max, option: call, strike: 100, maturity: 1, "
             "model: m}\n"
             "simulation: {paths: 8192, steps_per_year: 52, seed: 17, greeks: [delta, "
             "cross_gamma], greeks_method: pathwise}\nengine: " +
             engine + "\n";
    };
    const auto gpu = engine::price(load(book("{device: gpu}")));
    const auto cpu = engine::price(load(book("{device: cpu}")));
    ASSERT_EQ(gpu.instruments.size(), 2u); // the weighted call, and the max (its level moved)
    for (std::size_t i = 0; i < gpu.instruments.size(); ++i) {
      const auto& g = gpu.instruments.at(i);
      const auto& c = cpu.instruments.at(i);
      ASSERT_EQ(g.greeks.size(), static_cast<std::size_t>(assets + assets * (assets - 1) / 2));
      ASSERT_EQ(g.greeks.size(), c.greeks.size());
      for (std::size_t k = 0; k < g.greeks.size(); ++k) {
        EXPECT_EQ(g.greeks[k].underlying, c.greeks[k].underlying);
        EXPECT_NEAR(g.greeks[k].value, c.greeks[k].value, g.greeks[k].std_error + 1e-9)
            << assets << " assets " << g.id << " " << config::to_string(g.greeks[k].greek) << "["
            << g.greeks[k].underlying << "]";
      }
    }
  }
}

TEST_F(GpuPathwise, EuropeansMatchBlackScholesAtFullSize) {
  for (const std::string precision : {"double", "float"}) {
    const std::string yaml =
        "market:\n  underlyings: [{name: S, spot: 100, dividend_yield: 0.01}]\n"
        "  rates: {zero_rate: 0.04}\n"
        "models: [{name: bs, type: black_scholes, underlying: S, volatility: 0.25}]\n"
        "instruments:\n"
        "  - {id: call, type: european, option: call, strike: 105, maturity: 1, model: bs}\n"
        "  - {id: put, type: european, option: put, strike: 95, maturity: 1, model: bs}\n"
        "simulation: {paths: 4000000, steps_per_year: 12, seed: 3, "
        "greeks: [delta, gamma, vega, rho, theta], greeks_method: pathwise, precision: " +
        precision + "}\nengine: {device: gpu}\n";
    const auto r = engine::price(load(yaml));
    EXPECT_EQ(r.run.precision, precision);
    for (const auto& [id, kind, strike] : {std::tuple{"call", analytic::OptionKind::call, 105.0},
                                           std::tuple{"put", analytic::OptionKind::put, 95.0}}) {
      const auto g = analytic::black_scholes_greeks(kind, 100, strike, 1, 0.04, 0.01, 0.25);
      // Gamma: the pathwise delta's central difference at ±1% of the spot, whose distance from
      // gamma comes from the closed form (tests/test_pathwise.cpp says so at length).
      const auto up = analytic::black_scholes_greeks(kind, 101, strike, 1, 0.04, 0.01, 0.25);
      const auto down = analytic::black_scholes_greeks(kind, 99, strike, 1, 0.04, 0.01, 0.25);
      const double gamma_bias = std::fabs((up.delta - down.delta) / 2 - g.gamma);
      const auto& got = find(r, id);
      const double expected[5] = {g.delta, g.gamma, g.vega, g.rho, g.theta};
      const double allowance[5] = {1e-9, 1.1 * gamma_bias + 1e-9, 1e-7, 1e-7, 1e-7};
      ASSERT_EQ(got.greeks.size(), 5u);
      for (int k = 0; k < 5; ++k) {
        const auto& e = got.greeks[static_cast<std::size_t>(k)];
        EXPECT_TRUE(e.pathwise);
        EXPECT_NEAR(e.value, expected[k], kSigmas * e.std_error + allowance[k])
            << id << " " << config::to_string(e.greek);
        std::printf("  gpu %s %s %-5s %.6f ± %.6f  closed form %.6f\n", precision.c_str(), id,
                    config::to_string(e.greek), e.value, e.std_error, expected[k]);
      }
    }
  }
}

TEST_F(GpuPathwise, HestonEuropeansMatchQuantLibsAnalyticDerivativesAtFullSize) {
  // The CPU suite's check (tests/test_pathwise.cpp) at 2M paths: both schemes, double and
  // float, every Greek of the Heston reference cases' call and put against QuantLib's
  // derivatives within kSigmas plus the scheme's allowance (tests/heston_greeks.hpp).
  for (const char* name : {"heston_qe", "heston_full_truncation"}) {
    for (const char* precision : {"double", "float"}) {
      const auto r = engine::price(load(testing::reference_case_yaml_at(
          name, "{device: gpu}", std::string(", greeks_method: pathwise, precision: ") + precision,
          2000000)));
      EXPECT_EQ(r.run.precision, precision);
      testing::expect_heston_greeks_match_quantlib(name, precision, r);
    }
  }
}

} // namespace
} // namespace pfmc
