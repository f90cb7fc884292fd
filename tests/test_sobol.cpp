// Plain (unrandomised) Sobol on path-dependent products, on the CPU backend: arithmetic and
// geometric Asians and discretely monitored knock-outs over 12 monthly steps (12 Sobol dimensions,
// paths by the Brownian bridge), each against the same point set's estimate computed apart from
// the engine, and against a reference price within what a Sobol set of this size errs by; both
// from tests/references/make_method_references.py (tests/method_references.hpp). Plain Sobol
// reports no standard error: these bounds are the whole check.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

#include "engine/pricer.hpp"
#include "method_references.hpp"
#include "test_support.hpp"

namespace pfmc {
namespace {

namespace refs = testing::method_references;
using testing::find;
using testing::kSigmas;
using testing::load;

TEST(PlainSobol, PathDependentPricesAreTheirPointSetsAndWithinItsError) {
  // The script's products (sobol_case): bs_yaml's market, monthly fixings and observations.
  const std::string asian = ", type: asian, option: call, strike: 100, fixings: 12, maturity: 1, "
                            "model: bs}\n";
  const std::string instruments =
      "  - {id: arithmetic, average: arithmetic" + asian +
      "  - {id: geometric, average: geometric" + asian +
      "  - {id: down_out, type: barrier, option: call, strike: 100, barrier: 85, barrier_type: "
      "down_and_out, monitoring: 12, maturity: 1, model: bs}\n"
      "  - {id: up_out, type: barrier, option: put, strike: 100, barrier: 115, barrier_type: "
      "up_and_out, monitoring: 12, maturity: 1, model: bs}\n";
  const auto run =
      engine::price(load(testing::bs_yaml(instruments, refs::kSobolPoints, ", rng: sobol", 12)));
  ASSERT_EQ(run.instruments.size(), std::size(refs::kSobolReferences));
  for (const auto& ref : refs::kSobolReferences) {
    const auto& got = find(run, ref.id);
    EXPECT_FALSE(got.has_std_error) << ref.id;
    // The same point set's estimate, computed apart from the engine (scipy's unscrambled Sobol
    // points, the script's bridge, refmc's paths and payoffs): the two differ by double
    // rounding, ~1e-11 relative over 65,536 paths (a knock decided otherwise by a rounding: a
    // chance of ~1e-7 a run). One point more or less moves a price by up to 6e-4 (the script:
    // points 2..N+1 for the Asians, the origin in place of point N for the up-and-out).
    EXPECT_NEAR(got.price, ref.same_points, 1e-9 * ref.value) << ref.id;
    // And the price itself: an unscrambled set errs by what scrambled sets of its size spread
    // by (the script asserts that its estimate does, within kSigmas of their root-mean-square
    // error), plus the reference's own error.
    EXPECT_NEAR(got.price, ref.value, kSigmas * ref.rms_error + ref.reference_error)
        << ref.id << " (" << ref.origin << ")";
    std::printf("  %-10s sobol %.9f, the same points apart %.9f; reference %.6f, error %+.2e "
                "(%.1f scrambled sets' rms)\n",
                ref.id, got.price, ref.same_points, ref.value, got.price - ref.value,
                (got.price - ref.value) / ref.rms_error);
  }
}

} // namespace
} // namespace pfmc
