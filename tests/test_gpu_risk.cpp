// Risk runs on the GPU (engine/risk/risk_run.hpp; tests/risk_check.hpp holds the checks the CPU
// suite runs too): every model kind's scenario values against separate GPU prices of the shifted
// markets on the same seed, and ladders against closed forms at a million paths.

#include <gtest/gtest.h>

#include "gpu_test_support.hpp"
#include "risk_check.hpp"

namespace pfmc {
namespace {

class GpuRisk : public testing::GpuTest {};

TEST_F(GpuRisk, ScenarioValuesEqualSeparatePricesOfTheShiftedMarketOnEveryModel) {
  testing::expect_scenarios_equal_separate_prices("{device: gpu}", 100000);
}

TEST_F(GpuRisk, LaddersOfEuropeansAndDigitalsMatchClosedFormsAtAMillionPaths) {
  testing::expect_ladders_match_closed_forms("{device: gpu}", 1000000);
}

} // namespace
} // namespace pfmc
