#pragma once
// What the GPU suites share: a fixture that skips without a device.

#include <gtest/gtest.h>

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

} // namespace pfmc::testing
