// Every reference case (tests/reference_cases.hpp: one per model, every product kind it prices,
// every Greek) on the CPU backend, against references computed apart from the engine by
// tests/references/make_references.py. kSigmas (test_support.hpp) combined standard errors
// of pfmc and of a Monte Carlo reference, plus the allowance the script derived and states.
#include <gtest/gtest.h>

#include <string>

#include "engine/pricer.hpp"
#include "reference_check.hpp"

namespace pfmc {
namespace {

using testing::references::ReferenceCase;

class ReferenceCases : public ::testing::TestWithParam<ReferenceCase> {};

TEST_P(ReferenceCases, CpuMatchesEveryIndependentReference) {
  const auto& c = GetParam();
  const auto result =
      engine::price(testing::load(testing::reference_case_yaml(c, "{device: cpu}")));
  EXPECT_FALSE(result.run.on_gpu);
  testing::print_tally(std::string(c.name) + " (cpu)",
                       testing::expect_matches_reference_case(c, result));
}

INSTANTIATE_TEST_SUITE_P(AllModels, ReferenceCases,
                         ::testing::ValuesIn(testing::references::reference_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

} // namespace
} // namespace pfmc
