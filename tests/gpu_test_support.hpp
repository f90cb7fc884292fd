#pragma once
// What the GPU suites share: a fixture that skips without a device, and the bits of a result
// that backends must reproduce exactly.

#include <gtest/gtest.h>

#include <vector>

#include "engine/device_info.hpp"
#include "engine/pricer.hpp"

namespace pfmc::testing {

/// Skips the test cleanly when there is no usable GPU.
class GpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto device = engine::query_device();
    if (!device.available)
      GTEST_SKIP() << "no GPU: " << device.unavailable_reason;
  }
};

/// Every price, standard error and Greek of a run, and the portfolio's value and error.
inline std::vector<double> bits_of(const engine::RunResult& r) {
  std::vector<double> p;
  for (const auto& in : r.instruments) {
    p.push_back(in.price);
    p.push_back(in.std_error);
    for (const auto& g : in.greeks) {
      p.push_back(g.value);
      p.push_back(g.std_error);
    }
  }
  p.push_back(r.portfolio.value);
  p.push_back(r.portfolio.std_error);
  return p;
}

} // namespace pfmc::testing
