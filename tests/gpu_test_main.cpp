// test_gpu's main: runs the GPU suites and, where there is no usable GPU, says so and how many
// tests that skipped, and exits 77 (CTest's SKIP_RETURN_CODE for test_gpu), so that a machine
// without a GPU (CI) reports the suite as skipped instead of passed. The GPU suites run on a GPU
// machine only: scripts/gpu-check.sh test. With a GPU it first compiles, in parallel on the
// host's cores, the kernels the suites launch that the binary does not build in
// (tests/gpu_coverage.cpp), so that the tests find them in the kernel cache instead of compiling
// them one after another, and says afterwards how many the tests still compiled themselves
// (PFMC_TEST_WARM=0 leaves them to first use;
// PFMC_TEST_WARM_ARCH=90 only compiles them, for sm_90, GPU or not, and exits;
// PFMC_TEST_WARM_ENTRIES=pathwise_ only those of the model list's entries whose names contain
// it, for a run of those suites alone).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/core/device_info.hpp"
#include "engine/run/kernel_inventory.hpp"
#include "gpu_coverage.hpp"
#include "kernels/compile/compiled_kernels.hpp"

namespace {

/// Compiles the suites' kernels into the cache for `arch` (the GPU's, or $PFMC_TEST_WARM_ARCH's
/// on a host without one: scripts/carry-build.sh prepares the GPU machine's cache so), the
/// longest first (tests/gpu_coverage.cpp). False when a kernel did not compile (each failure
/// printed).
bool warm_the_suites_kernels(int arch) {
  std::vector<pfmc::engine::KernelInfo> wanted;
  const char* entries = std::getenv("PFMC_TEST_WARM_ENTRIES");
  for (const auto& k : pfmc::testing::coverage::suite_kernels()) {
    if (entries == nullptr || k.entry.find(entries) != std::string::npos)
      wanted.push_back(k);
  }
  const auto warmed = pfmc::engine::warm_kernels(wanted, arch, 0, /*progress=*/false);
  std::printf("test_gpu: %zu kernels not built in, ready in %.1f s (%zu compiled, %zu from the "
              "cache %s; the %s tier)\n",
              warmed.kernels, warmed.seconds, warmed.compiled, warmed.kernels - warmed.compiled,
              pfmc::kernels::compile::cache_dir().c_str(),
              pfmc::testing::coverage::tier() == pfmc::testing::coverage::Tier::standard
                  ? "standard"
                  : "exhaustive");
  for (const auto& failure : warmed.failures)
    std::printf("test_gpu: %s\n", failure.c_str());
  std::fflush(stdout);
  return warmed.failures.empty();
}

} // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (const char* arch = std::getenv("PFMC_TEST_WARM_ARCH"); arch != nullptr && *arch != '\0') {
    return warm_the_suites_kernels(std::atoi(arch)) ? 0 : 1;
  }
  const char* warm = std::getenv("PFMC_TEST_WARM");
  const auto device = pfmc::engine::query_device();
  // Listing the tests (--gtest_list_tests) compiles nothing.
  if (device.available && (warm == nullptr || std::string(warm) != "0") &&
      !GTEST_FLAG_GET(list_tests))
    warm_the_suites_kernels(device.compute_capability);
  // What the tests' runs compile (each run counts its own, and this counter sees them all).
  pfmc::kernels::compile::CompileCounter tests;
  int status = 0;
  {
    const pfmc::kernels::compile::CompileScope counting(&tests);
    status = RUN_ALL_TESTS();
  }
  // A kernel the tests compiled themselves is one the warm list lacks: each such compile made a
  // test wait (its name is on standard error: "pfmc: compiled ... (first use").
  const auto compiled = tests.totals();
  if (compiled.compiled > 0) {
    std::printf("test_gpu: %d kernels compiled on first use during the tests (%.1f s of NVRTC), "
                "not in tests/gpu_coverage.cpp's list\n",
                compiled.compiled, compiled.compile_ms / 1000.0);
  }
  const auto* unit = ::testing::UnitTest::GetInstance();
  const int skipped = unit->skipped_test_count();
  const int ran = unit->test_to_run_count();
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
