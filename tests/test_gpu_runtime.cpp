// Compile on first use on the GPU (skipped without a device): a kernel compiled by NVRTC gives
// the bits of the same instantiation built into the binary, for every model kind, precision, the
// Greeks' and early exercise's kernels and the wide instantiations; and a run reports what it
// compiled.
#include <gtest/gtest.h>

#include <string>

#include "engine/pricer.hpp"
#include "gpu_test_support.hpp"
#include "kernels/compile/compiled_kernels.hpp"
#include "test_support.hpp"

namespace pfmc {
namespace {

using testing::bits_of;
using testing::load;

class GpuRuntimeCompile : public testing::GpuTest {
protected:
  /// `yaml`'s results with the kernels built in, then with every kernel compiled on first use
  /// (engine.compile_at_runtime).
  static void expect_same_bits(const std::string& yaml, const std::string& what) {
    const auto built_in = engine::price(load(yaml));
    auto config = load(yaml);
    config.engine.compile_at_runtime = true;
    const auto compiled = engine::price(config);
    // (What the second run compiled or read depends on what this process loaded before: the
    // runtime-compiled kernels are loaded once a process.)
    EXPECT_EQ(bits_of(built_in), bits_of(compiled)) << what;
  }
};

const std::string kMarket =
    "market:\n  underlyings: [{name: A, spot: 100, dividend_yield: 0.02}, {name: B, spot: 95}, "
    "{name: C, spot: 105}]\n  rates: {zero_rate: 0.03}\n";

std::string book(const std::string& model, const std::string& instruments, std::uint64_t paths,
                 const std::string& engine, const std::string& extra = "") {
  return kMarket + "models: [" + model + "]\ninstruments:\n" + instruments +
         "simulation: {paths: " + std::to_string(paths) + ", steps_per_year: 52, seed: 5" + extra +
         "}\nengine: " + engine + "\n";
}

const std::string kSingle =
    "  - {id: c, type: european, option: call, strike: 100, maturity: 1, model: m}\n"
    "  - {id: a, type: asian, average: arithmetic, option: call, strike: 100, maturity: 1, "
    "fixings: 12, model: m}\n"
    "  - {id: b, type: barrier, option: call, strike: 100, barrier: 80, barrier_type: "
    "down_and_out, monitoring: 52, maturity: 1, model: m}\n";

TEST_F(GpuRuntimeCompile, GivesTheBuiltInKernelsBitsOnEveryModelKind) {
  const std::string models[] = {
      "{name: m, type: black_scholes, underlying: A, volatility: 0.25}",
      "{name: m, type: heston, underlying: A, v0: 0.04, kappa: 2, theta: 0.04, xi: 0.5, rho: "
      "-0.6}",
      "{name: m, type: local_vol, underlying: A, surface: {times: [0.25, 1], log_moneyness: "
      "[-0.3, 0, 0.3], vols: [[0.3, 0.22, 0.2], [0.28, 0.21, 0.2]]}}",
  };
  const std::string basket =
      "{name: m, type: multi_black_scholes, underlyings: [A, B, C], volatilities: [0.2, 0.3, "
      "0.25], correlation: [[1, 0.3, 0.2], [0.3, 1, 0.4], [0.2, 0.4, 1]]}";
  const std::string basket_instruments =
      "  - {id: w, type: basket, payoff: weighted, weights: [0.3, 0.3, 0.4], option: call, "
      "strike: 100, maturity: 1, model: m}\n";
  // The kinds of kernel built in (kernels/ahead_of_time.hpp): `none`, `inline` and the register
  // ring (its distance 4 and 8 are one loader's code; tests/gpu_coverage.cpp warms these twins).
  for (const char* engine_yaml : {"{device: gpu, backend: none}", "{device: gpu, backend: inline}",
                                  "{device: gpu, backend: scalar_batched, prefetch_distance: 8}"}) {
    for (const char* precision : {"", ", precision: float"}) {
      for (const auto& model : models) {
        expect_same_bits(book(model, kSingle, 20000, engine_yaml, precision),
                         model + " " + engine_yaml + precision);
      }
      expect_same_bits(book(basket, basket_instruments, 20000, engine_yaml, precision),
                       std::string("basket ") + engine_yaml + precision);
    }
    // The Greeks' scenario kernels (double; auto would take Heston's pathwise).
    const std::string greeks = ", greeks: [delta, vega], greeks_method: bump";
    expect_same_bits(book(models[1], kSingle, 5000, engine_yaml, greeks),
                     std::string("heston greeks ") + engine_yaml);
    expect_same_bits(book(basket, basket_instruments, 5000, engine_yaml, greeks),
                     std::string("basket greeks ") + engine_yaml);
  }
}

TEST_F(GpuRuntimeCompile, GivesTheBuiltInBitsForEarlyExerciseAndWideKernels) {
  // Early exercise's kernel.
  expect_same_bits(book("{name: m, type: black_scholes, underlying: A, volatility: 0.25}",
                        "  - {id: p, type: european, option: put, strike: 100, maturity: 1, "
                        "model: m, exercise: american}\n",
                        20000, "{device: gpu, backend: inline}"),
                   "american put");
  // Few paths in double on Black-Scholes: one wave, the wide instantiations (kernels::
  // kWideRegisters).
  expect_same_bits(book("{name: m, type: black_scholes, underlying: A, volatility: 0.25}", kSingle,
                        2048, "{device: gpu, backend: scalar_batched, prefetch_distance: 8}"),
                   "wide");
}

TEST_F(GpuRuntimeCompile, ARunSaysWhatItCompiledAndTheCacheServesTheNext) {
  // A distance Heston does not list, so not built in: compiled now or read from the cache.
  const std::string yaml =
      book("{name: m, type: heston, underlying: A, v0: 0.04, kappa: 2, theta: 0.04, xi: 0.5, "
           "rho: -0.6}",
           kSingle, 5000, "{device: gpu, backend: smem_rolling, prefetch_distance: 12}");
  const auto first = engine::price(load(yaml));
  const auto second = engine::price(load(yaml));
  // This process loads each kernel once: the second run neither compiles nor reads the cache.
  EXPECT_EQ(second.run.kernels_compiled + second.run.kernels_from_cache, 0);
  EXPECT_EQ(bits_of(first), bits_of(second));
  if (first.run.kernels_compiled > 0)
    EXPECT_GT(first.run.compile_ms, 0.0);
}

} // namespace
} // namespace pfmc
