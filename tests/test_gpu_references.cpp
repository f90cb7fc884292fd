// The reference cases of test_references.cpp on the GPU: in double with `none` (prices and
// Greeks) and in float with `inline` (prices: Greeks run in double only), against the same
// independent references. Skipped without a GPU.
#include <gtest/gtest.h>

#include <string>

#include "engine/pricer.hpp"
#include "gpu_test_support.hpp"
#include "reference_check.hpp"

namespace pfmc {
namespace {

using testing::references::ReferenceCase;

class GpuReferenceCases : public testing::GpuTest,
                          public ::testing::WithParamInterface<ReferenceCase> {};

TEST_P(GpuReferenceCases, GpuMatchesEveryIndependentReference) {
  const auto& c = GetParam();
  const auto doubles =
      engine::price(testing::load(testing::reference_case_yaml(c, "{device: gpu, backend: none}")));
  EXPECT_TRUE(doubles.run.on_gpu);
  testing::print_tally(std::string(c.name) + " (gpu, double)",
                       testing::expect_matches_reference_case(c, doubles));
  // Greeks run in double only (a float run with them is refused): the prices alone in float.
  const auto floats = engine::price(testing::load(testing::reference_case_yaml(
      c, "{device: gpu, backend: inline}", ", precision: float", false)));
  EXPECT_TRUE(floats.run.on_gpu);
  testing::print_tally(std::string(c.name) + " (gpu, float)",
                       testing::expect_matches_reference_case(c, floats, false));
}

INSTANTIATE_TEST_SUITE_P(AllModels, GpuReferenceCases,
                         ::testing::ValuesIn(testing::references::reference_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

} // namespace
} // namespace pfmc
