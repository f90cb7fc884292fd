// The backend catalogue, the launcher registry and the ring layouts agree with each other.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "engine/core/device_info.hpp"
#include "engine/run/gpu_engine.hpp"
#include "engine/run/kernel_choice.hpp"
#include "engine/run/kernel_inventory.hpp"
#include "engine/run/ring_layout.hpp"
#include "kernels/catalog.hpp"
#include "models/black_scholes.cuh"
#include "models/heston.cuh"
#include "models/path.cuh"

namespace pfmc {
namespace {

TEST(Registry, EveryCatalogueBackendAndDistanceHasAnInstantiation) {
  // In every build: built in or compiled on first use (kernels/ahead_of_time.hpp).
  for (const auto& backend : kernels::backend_catalog()) {
    if (!backend.uses_prefetch_distance) {
      EXPECT_TRUE(engine::has_launcher(backend.name, 0)) << backend.name;
      continue;
    }
    for (int distance : kernels::prefetch_distances()) {
      EXPECT_TRUE(engine::has_launcher(backend.name, distance))
          << backend.name << " at distance " << distance;
    }
  }
}

TEST(Registry, EveryModelEntryHasEveryBackendAtEveryDistance) {
  std::map<std::string, std::set<std::pair<std::string, int>>> have;
  std::map<std::string, int> exercise;
  for (const auto& k : engine::kernel_inventory()) {
    if (k.exercise)
      ++exercise[k.entry];
    else if (!k.wide && !k.terminal)
      have[k.entry].insert({k.backend, k.distance});
    EXPECT_EQ(k.name.rfind("&pfmc::kernels::path_kernel<", 0), 0u) << k.name;
  }
  // The lines of kernels/model_list.cuh: 18 accurate, 12 fast, 14 pathwise Greeks' models (double
  // and float; two of them Black-Scholes' spot and vol tangents alone).
  EXPECT_EQ(have.size(), 44u);
  for (const auto& [entry, combinations] : have) {
    // One early-exercise kernel each (the pathwise models': first-order Greeks, the rule held
    // fixed).
    EXPECT_EQ(exercise[entry], 1) << entry;
    for (const auto& backend : kernels::backend_catalog()) {
      if (!backend.uses_prefetch_distance) {
        EXPECT_EQ(combinations.count({backend.name, 0}), 1u) << entry << " " << backend.name;
        continue;
      }
      // At each distance, or once for all (a loader that takes its distance at run time).
      const bool any = combinations.count({backend.name, 0}) == 1;
      for (int distance : kernels::prefetch_distances()) {
        EXPECT_TRUE(any || combinations.count({backend.name, distance}) == 1)
            << entry << " " << backend.name << " at " << distance;
      }
    }
  }
}

TEST(Registry, UnknownNamesAndDistancesHaveNone) {
  EXPECT_FALSE(engine::has_launcher("no_such_backend", 4));
  for (const auto& backend : kernels::backend_catalog()) {
    if (backend.uses_prefetch_distance) {
      EXPECT_FALSE(engine::has_launcher(backend.name, 5)) << backend.name;
    }
  }
}

TEST(Catalogue, NamesAreUniqueAndDescribed) {
  std::set<std::string> names;
  for (const auto& backend : kernels::backend_catalog()) {
    EXPECT_TRUE(names.insert(backend.name).second) << backend.name;
    EXPECT_GT(std::string(backend.description).size(), 10u) << backend.name;
    EXPECT_EQ(kernels::find_backend(backend.name), &backend);
  }
  EXPECT_EQ(kernels::find_backend("nope"), nullptr);
  EXPECT_EQ(kernels::prefetch_distance_list(), "1, 2, 3, 4, 6, 8, 12, 16");
}

TEST(Catalogue, WideKernelsOnlyWhereTheLaunchRunsInOneWave) {
  // 128 registers a thread: four 128-thread blocks an SM (65,536 registers), sixteen of 32
  // threads, one of 512; 1,024 threads never.
  EXPECT_TRUE(kernels::fits_one_wide_wave(132, 128, 132));
  EXPECT_TRUE(kernels::fits_one_wide_wave(528, 128, 132));
  EXPECT_FALSE(kernels::fits_one_wide_wave(529, 128, 132));
  EXPECT_TRUE(kernels::fits_one_wide_wave(16 * 132, 32, 132));
  EXPECT_FALSE(kernels::fits_one_wide_wave(16 * 132 + 1, 32, 132));
  EXPECT_TRUE(kernels::fits_one_wide_wave(132, 512, 132));
  EXPECT_FALSE(kernels::fits_one_wide_wave(133, 512, 132));
  EXPECT_FALSE(kernels::fits_one_wide_wave(1, 1024, 132));
}

TEST(Catalogue, WideKernelsAskForBlackScholesStepDataAhead) {
  // The wide instantiations' paths ask for the model's next batch of step data
  // (models::Path<..., PrefetchModel>): only a model that declares prefetch<Count>(params, first)
  // is asked; a signature that drifted would silently turn the prefetch off (latency_bound's best
  // kernel 1.22 -> 1.42 ms, docs/decisions.md#step-data-ahead).
  EXPECT_TRUE(models::HasPrefetch<models::BlackScholes<double>>::value);
  EXPECT_TRUE(models::HasPrefetch<models::BlackScholes<float>>::value);
  EXPECT_FALSE(models::HasPrefetch<models::Heston<double>>::value);
  // On the host the hint compiles and reads nothing (run under the sanitizers by scripts/fuzz.sh;
  // a real array: an offset from a null pointer is undefined behaviour, which clang's UBSan
  // reports).
  using Model = models::BlackScholes<double>;
  const Model::Step steps[12] = {};
  Model::prefetch<4>(Model::Params{steps, 0.0}, 7);
}

TEST(Catalogue, BackendsThisDeviceCannotRunAreRefusedWithTheReason) {
  const auto* tma = kernels::find_backend("tma");
  ASSERT_NE(tma, nullptr);
  EXPECT_EQ(kernels::why_backend_cannot_run(*tma, 80, "NVIDIA A100-SXM4-80GB"),
            "backend 'tma' needs compute capability 9.0 (sm_90); NVIDIA A100-SXM4-80GB has 8.0");
  EXPECT_EQ(kernels::why_backend_cannot_run(*tma, 90, "NVIDIA H100 80GB HBM3"), "");
  const auto* none = kernels::find_backend("none");
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(kernels::why_backend_cannot_run(*none, 70, "Tesla V100"), "");
}

TEST(RingLayout, AutoPaddingMakesAnOddPowerOfTwoPlusOneStride) {
  const config::Padding padding{config::Padding::Mode::automatic, 0};
  const std::pair<int, int> expected[] = {{1, 3}, {2, 3}, {3, 3},   {4, 5},
                                          {6, 9}, {8, 9}, {12, 17}, {16, 17}};
  for (const auto& [distance, stride] : expected) {
    const auto layout = engine::ring_layout(padding, distance, 128);
    EXPECT_EQ(layout.thread_stride, stride) << distance;
    EXPECT_EQ(layout.slot_stride, 1);
    EXPECT_EQ(layout.factor_stride, stride * 128);
    EXPECT_EQ(engine::ring_padding(padding, distance), stride - distance);
  }
}

TEST(RingLayout, NoneFixedAndSlotMajor) {
  const auto none = engine::ring_layout({config::Padding::Mode::none, 0}, 8, 128);
  EXPECT_EQ(none.thread_stride, 8);
  const auto fixed = engine::ring_layout({config::Padding::Mode::fixed, 3}, 8, 128);
  EXPECT_EQ(fixed.thread_stride, 11);
  const auto slot_major = engine::ring_layout({config::Padding::Mode::slot_major, 0}, 8, 256);
  EXPECT_EQ(slot_major.thread_stride, 1);
  EXPECT_EQ(slot_major.slot_stride, 256);
  EXPECT_EQ(slot_major.factor_stride, 8 * 256);
}

} // namespace
} // namespace pfmc
