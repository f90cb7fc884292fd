// test_gpu's main: runs the GPU suites and, where there is no usable GPU, says so and how many
// tests that skipped, and exits 77 (CTest's SKIP_RETURN_CODE for test_gpu), so that a machine
// without a GPU (CI) reports the suite as skipped instead of passed. The GPU suites run on a GPU
// machine only: scripts/gpu-check.sh test.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/core/device_info.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const auto* unit = ::testing::UnitTest::GetInstance();
  const int skipped = unit->skipped_test_count();
  const int ran = unit->test_to_run_count();
  const auto device = pfmc::engine::query_device();
  if (!device.available) {
    std::printf("test_gpu: %d of %d tests skipped for want of a GPU (%s); the GPU suites run on "
                "a GPU machine only: scripts/gpu-check.sh test\n",
                skipped, ran, device.unavailable_reason.c_str());
    if (status == 0 && skipped == ran)
      return 77;
  } else if (skipped > 0) {
    std::printf("test_gpu: %d of %d tests skipped on %s\n", skipped, ran, device.name.c_str());
  }
  return status;
}
