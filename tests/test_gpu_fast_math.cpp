// The fast math profile (`simulation.math: fast`, models/math.cuh) on the GPU: its prices against
// the closed forms and the independent references the accurate profile meets, every backend
// against `none` bit for bit, the CPU backend within the approximations' error, and the profile
// really taken (other bits than the accurate profile's). Skipped without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "config/config_error.hpp"
#include "config/setting_rules.hpp"
#include "engine/core/execution.hpp"
#include "engine/plan/plan.hpp"
#include "engine/pricer.hpp"
#include "engine/tune/kernel_bench.hpp"
#include "gpu_coverage.hpp"
#include "gpu_test_support.hpp"
#include "kernels/catalog.hpp"
#include "pricing_book.hpp"
#include "reference_check.hpp"

namespace pfmc {
namespace {

using testing::book_yaml;
using testing::find;
using testing::load;
using testing::standard_book;

class GpuFastMath : public testing::GpuTest {};

constexpr const char* kFast = ", math: fast";

TEST_F(GpuFastMath, BookMatchesClosedFormsAtTenMillionPaths) {
  // 10^7 paths (standard errors 0.002-0.005): Europeans, digitals, geometric Asians and
  // discretely monitored barriers against their closed forms, in float with `inline` (the
  // draws computed in the step loop) and in double with `none` (the generation kernel's).
  const auto book = standard_book(52);
  for (const std::string precision : {", precision: float", ""}) {
    const std::string engine_yaml =
        precision.empty() ? "{device: gpu, backend: none}" : "{device: gpu, backend: inline}";
    const auto result =
        engine::price(load(book_yaml(book, 10'000'000, 52, engine_yaml, kFast + precision)));
    EXPECT_TRUE(result.run.on_gpu);
    const double worst = testing::expect_matches_references(book, result);
    std::printf("fast profile%s, 10^7 paths: worst %.2f standard errors\n", precision.c_str(),
                worst);
  }
}

class GpuFastMathReferences
    : public GpuFastMath,
      public ::testing::WithParamInterface<testing::references::ReferenceCase> {};

TEST_P(GpuFastMathReferences, PricesMatchTheIndependentReferences) {
  // The independent references of every model (Heston, local vol, baskets, early exercise ...):
  // the prices, double with `none` and float with `inline`.
  const auto& c = GetParam();
  const auto doubles = engine::price(
      load(testing::reference_case_yaml(c, "{device: gpu, backend: none}", kFast, false)));
  testing::print_tally(std::string(c.name) + " (gpu, double, fast)",
                       testing::expect_matches_reference_case(c, doubles, false));
  const auto floats = engine::price(load(testing::reference_case_yaml(
      c, "{device: gpu, backend: inline}", std::string(kFast) + ", precision: float", false)));
  testing::print_tally(std::string(c.name) + " (gpu, float, fast)",
                       testing::expect_matches_reference_case(c, floats, false));
}

INSTANTIATE_TEST_SUITE_P(AllModels, GpuFastMathReferences,
                         ::testing::ValuesIn(testing::references::reference_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

class GpuFastMathBackends : public GpuFastMath,
                            public ::testing::WithParamInterface<testing::coverage::LoaderCase> {};

TEST_P(GpuFastMathBackends, GiveNonesBits) {
  // Each backend at distance 4, in float (the profile's target), and `inline` and
  // scalar_batched in double too (tests/gpu_coverage.cpp): the profile's draws are the same pure
  // function of (seed, group, path, step, factor) whoever computes them.
  const auto& c = GetParam();
  const auto* info = kernels::find_backend(c.backend);
  ASSERT_NE(info, nullptr);
  const auto device = engine::query_device();
  if (!kernels::why_backend_cannot_run(*info, device.compute_capability, device.name).empty())
    GTEST_SKIP() << c.backend << " does not run on " << device.name;
  const auto book = standard_book(26);
  const std::string precision = testing::coverage::is_float(c.entry) ? ", precision: float" : "";
  const auto reference = testing::bits_of(engine::price(
      load(book_yaml(book, 20000, 52, "{device: gpu, backend: none}", kFast + precision))));
  const std::string engine_yaml = "{device: gpu, backend: " + c.backend +
                                  ", prefetch_distance: " + std::to_string(c.distance) + "}";
  EXPECT_EQ(testing::bits_of(
                engine::price(load(book_yaml(book, 20000, 52, engine_yaml, kFast + precision)))),
            reference)
      << c.entry << " " << c.backend;
}

INSTANTIATE_TEST_SUITE_P(
    EveryBackend, GpuFastMathBackends,
    ::testing::ValuesIn(testing::coverage::loader_cases([](const std::string& e) {
      return e.rfind("black_scholes_", 0) == 0 && e.find("_fast") != std::string::npos;
    })),
    [](const auto& info) { return info.param.entry + "_" + info.param.backend; });

TEST_F(GpuFastMath, MatchesTheCpuWithinTheApproximationsErrorAndIsNotTheAccurateProfile) {
  // The CPU backend computes the same Philox4x32-7 words with the host's accurate functions: in
  // double the same arithmetic (smooth payoffs to rounding, barriers and digitals within a
  // standard error, as for the accurate profile); in float the device's __expf and __logf differ
  // by a few 1e-7 relative a path (models/math.cuh), well inside a standard error.
  const auto book = standard_book(52);
  for (const std::string precision : {"", ", precision: float"}) {
    const auto gpu = engine::price(
        load(book_yaml(book, 50000, 52, "{device: gpu, backend: none}", kFast + precision)));
    const auto cpu =
        engine::price(load(book_yaml(book, 50000, 52, "{device: cpu}", kFast + precision)));
    const auto accurate =
        engine::price(load(book_yaml(book, 50000, 52, "{device: gpu, backend: none}", precision)));
    for (const auto& e : book) {
      const auto& g = find(gpu, e.id);
      const auto& c = find(cpu, e.id);
      const bool smooth =
          e.id == "call" || e.id == "put" || e.id.find("asian") != std::string::npos;
      const double tolerance = smooth ? (precision.empty() ? 1e-10 : 1e-5) * std::fabs(c.price)
                                      : std::max(c.std_error, 1e-12);
      EXPECT_NEAR(g.price, c.price, tolerance) << e.id << precision;
      EXPECT_NE(g.price, find(accurate, e.id).price) << e.id << precision << ": other draws";
    }
  }
}

TEST_F(GpuFastMath, DoubleBlackScholesTakesItsWideKernelAndKeepsItsBits) {
  // As the accurate profile's (Gpu.WideKernelsKeepEveryBit): a one-wave run of Black-Scholes in
  // double launches the wide instantiation, with the narrow one's sums.
  const auto config = load(book_yaml(standard_book(26), 20003, 26, "{device: gpu}", kFast));
  ASSERT_EQ(config.simulation.math, config::MathProfile::fast);
  const auto plan = engine::make_plan(config);
  engine::ExecutionSettings wide_settings;
  wide_settings.precision = config.simulation.precision;
  wide_settings.fast_math = true;
  wide_settings.paths = config.simulation.paths;
  wide_settings.memory_cap = 1ull << 30;
  engine::ExecutionSettings narrow_settings = wide_settings;
  narrow_settings.launch_paths = 1ull << 40;
  engine::KernelBench wide(plan.groups[0], wide_settings);
  engine::KernelBench narrow(plan.groups[0], narrow_settings);
  for (const char* backend : {"inline", "none"}) {
    const auto pad = *config::parse_padding("auto");
    wide.time_launch_ms(backend, 4, pad);
    narrow.time_launch_ms(backend, 4, pad);
    EXPECT_TRUE(wide.launched_wide()) << backend;
    EXPECT_FALSE(narrow.launched_wide()) << backend;
    EXPECT_EQ(wide.totals(), narrow.totals()) << backend;
  }
}

TEST_F(GpuFastMath, GreeksAreRefusedByName) {
  const auto book = standard_book(52);
  try {
    (void)engine::price(load(book_yaml(book, 1000, 52, "{device: gpu, backend: none}",
                                       std::string(kFast) + ", greeks: [delta]")));
    FAIL() << "a fast run with Greeks priced";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("the fast math profile prices without Greeks"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace pfmc
