#pragma once
// What the GPU suites share: a fixture that skips without a device.

#include <gtest/gtest.h>

#include <string>

#include "engine/core/device_info.hpp"
#include "test_support.hpp"

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

/// The GPU suites' n-asset basket model `m` (n = 2..4 of the assets A, B, C, D: vols 0.25 and 0.3
/// in turn, every correlation 0.4) as a YAML flow mapping, and its equal weights (0.25 each) as
/// a YAML list body.
struct BasketModel {
  std::string model;
  std::string weights;
};
inline BasketModel basket_model(int n) {
  const std::string names[4] = {"A", "B", "C", "D"};
  std::string u, v, corr, w;
  for (int i = 0; i < n; ++i) {
    u += (i ? ", " : "") + names[i];
    v += std::string(i ? ", " : "") + (i % 2 ? "0.3" : "0.25");
    w += std::string(i ? ", " : "") + "0.25";
    corr += std::string(i ? ", " : "") + "[";
    for (int j = 0; j < n; ++j)
      corr += std::string(j ? ", " : "") + (i == j ? "1" : "0.4");
    corr += "]";
  }
  return {"{name: m, type: multi_black_scholes, underlyings: [" + u + "], volatilities: [" + v +
              "], correlation: [" + corr + "]}",
          w};
}

} // namespace pfmc::testing
