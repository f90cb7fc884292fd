// The counter-based draws (kernels/counter_draws.cuh, engine/draws/cpu_draws.hpp): a draw is a pure
// function of (seed, group, path, step, factor), checked against Random123 called directly and
// against a long-double Box–Muller of the same words.
#include <gtest/gtest.h>

#include <Random123/philox.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/draws/cpu_draws.hpp"
#include "kernels/counter_draws.cuh"

namespace pfmc {
namespace {

using kernels::kPathsPerCall;

TEST(CounterDraws, WordsAreRandom123sPhilox4x32_10OfTheDocumentedCounter) {
  // Spot checks over the counter's fields, each against the library called directly.
  const struct {
    std::uint64_t seed;
    std::uint32_t group;
    std::uint64_t call;
    std::uint32_t row;
  } cases[] = {{42, 0, 0, 0},
               {42, 0, 1, 0},
               {42, 0, 0, 1},
               {42, 1, 0, 0},
               {0xDEADBEEFCAFEF00Dull, 7, 123456789012ull, 4096},
               {1, 8191, (1ull << 32) + 5, 364}};
  for (const auto& c : cases) {
    r123::Philox4x32 philox;
    const r123::Philox4x32::ctr_type counter = {{static_cast<std::uint32_t>(c.call),
                                                 static_cast<std::uint32_t>(c.call >> 32), c.row,
                                                 c.group}};
    const r123::Philox4x32::key_type key = {
        {static_cast<std::uint32_t>(c.seed), static_cast<std::uint32_t>(c.seed >> 32)}};
    const auto expected = philox(counter, key);
    const auto words = kernels::philox_words(c.seed, c.group, c.call, c.row);
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(words.w[k], expected.v[k]) << c.call << " " << c.row << " word " << k;
  }
  // Every field matters.
  const auto base = kernels::philox_words(42, 0, 0, 0).w[0];
  EXPECT_NE(kernels::philox_words(43, 0, 0, 0).w[0], base);
  EXPECT_NE(kernels::philox_words(42, 1, 0, 0).w[0], base);
  EXPECT_NE(kernels::philox_words(42, 0, 1, 0).w[0], base);
  EXPECT_NE(kernels::philox_words(42, 0, 0, 1).w[0], base);
  EXPECT_NE(kernels::philox_words(42, 0, 1ull << 32, 0).w[0], base);
}

/// The draw of `path` for `row` in long double from the generator's words: Box–Muller on the
/// documented uniforms.
template <class Real, class Profile = math::Accurate>
long double reference_draw(std::uint64_t seed, std::uint32_t group, std::uint64_t path,
                           std::uint32_t row) {
  constexpr int P = kPathsPerCall<Real>;
  const auto words = kernels::philox_words<Profile>(seed, group, path / P, row);
  const auto in = kernels::box_muller_inputs(words, Real());
  const int slot = static_cast<int>(path % P);
  const long double u = in.u[slot / 2];
  const long double h = in.h[slot / 2];
  // The uniforms are exact: u in (0, 1), h in (−1, 1).
  EXPECT_GT(u, 0.0L);
  EXPECT_LT(u, 1.0L);
  EXPECT_GT(h, -1.0L);
  EXPECT_LT(h, 1.0L);
  const long double r = std::sqrt(-2.0L * std::log(u));
  const long double angle = 3.14159265358979323846264338327950288L * h;
  return slot % 2 == 0 ? r * std::cos(angle) : r * std::sin(angle);
}

template <class Real, class Profile = math::Accurate>
void expect_host_draws_match_the_reference(double ulps) {
  const std::uint64_t seed = 20261123;
  const std::uint32_t group = 3;
  const int paths = 1000; // not a multiple of the vector widths
  const int rows = 7;
  std::vector<Real> z(static_cast<std::size_t>(paths) * rows);
  engine::philox_normals_host(seed, group, 0, paths, 0, rows, z.data(), paths, Profile::fast);
  double worst = 0.0;
  for (int r = 0; r < rows; ++r) {
    for (int p = 0; p < paths; ++p) {
      const long double ref = reference_draw<Real, Profile>(
          seed, group, static_cast<std::uint64_t>(p), static_cast<std::uint32_t>(r));
      const double x = z[static_cast<std::size_t>(r) * paths + p];
      // Relative to the radius's scale (a normal near 0 is r times a small sine).
      const double scale = std::max(1.0, std::fabs(static_cast<double>(ref)));
      const double err =
          std::fabs(x - static_cast<double>(ref)) / (scale * std::numeric_limits<Real>::epsilon());
      worst = std::max(worst, err);
    }
  }
  EXPECT_LE(worst, ulps) << engine::host_draws_isa();
}

TEST(CounterDraws, HostFloatDrawsAreBoxMullerOfTheWordsToAFewUlps) {
  expect_host_draws_match_the_reference<float>(4.0);
}
TEST(CounterDraws, HostDoubleDrawsAreBoxMullerOfTheWordsToAFewUlps) {
  expect_host_draws_match_the_reference<double>(4.0);
}

TEST(CounterDraws, FastProfileWordsAreRandom123sPhilox4x32_7) {
  // simulation.math: fast (models/math.cuh): the same counter and key, 7 rounds.
  const std::uint64_t seed = 0xDEADBEEFCAFEF00Dull, call = 123456789012ull;
  const std::uint32_t group = 7, row = 4096;
  r123::Philox4x32_R<7> philox7;
  const r123::Philox4x32_R<7>::ctr_type counter = {
      {static_cast<std::uint32_t>(call), static_cast<std::uint32_t>(call >> 32), row, group}};
  const r123::Philox4x32_R<7>::key_type key = {
      {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  const auto expected = philox7(counter, key);
  const auto fast = kernels::philox_words<math::Fast>(seed, group, call, row);
  const auto accurate = kernels::philox_words<math::Accurate>(seed, group, call, row);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(fast.w[k], expected.v[k]) << "word " << k;
    EXPECT_NE(fast.w[k], accurate.w[k]) << "word " << k;
  }
}
TEST(CounterDraws, FastProfileHostDrawsAreBoxMullerOfItsWordsToAFewUlps) {
  // The CPU backend's fast draws: the 7-round words, the host's accurate transform.
  expect_host_draws_match_the_reference<float, math::Fast>(4.0);
  expect_host_draws_match_the_reference<double, math::Fast>(4.0);
}

template <class Real>
void expect_pure_function_of_indices() {
  // The draws of a block of paths and rows are the same bits wherever the block starts and
  // however it is cut: the batching, chunking and launch shape cannot change a draw.
  const std::uint64_t seed = 7;
  const int paths = 2048;
  const int rows = 12;
  std::vector<Real> all(static_cast<std::size_t>(paths) * rows);
  engine::philox_normals_host(seed, 5, 0, paths, 0, rows, all.data(), paths);
  const int first = 4 * 97; // a generator call's first path, inside the block
  const int count = 333;    // an odd count
  const int row0 = 5;
  std::vector<Real> part(static_cast<std::size_t>(count) * 4);
  engine::philox_normals_host(seed, 5, first, count, row0, 4, part.data(), count);
  for (int r = 0; r < 4; ++r) {
    for (int p = 0; p < count; ++p) {
      ASSERT_EQ(part[static_cast<std::size_t>(r) * count + p],
                all[static_cast<std::size_t>(row0 + r) * paths + first + p])
          << "row " << row0 + r << " path " << first + p;
    }
  }
  // And another group or seed gives other draws.
  std::vector<Real> other(static_cast<std::size_t>(paths));
  engine::philox_normals_host(seed, 6, 0, paths, 0, 1, other.data(), paths);
  EXPECT_NE(other[0], all[0]);
  engine::philox_normals_host(seed + 1, 5, 0, paths, 0, 1, other.data(), paths);
  EXPECT_NE(other[0], all[0]);
}

TEST(CounterDraws, FloatDrawsArePureFunctionsOfTheirIndices) {
  expect_pure_function_of_indices<float>();
}
TEST(CounterDraws, DoubleDrawsArePureFunctionsOfTheirIndices) {
  expect_pure_function_of_indices<double>();
}

template <class Real>
void expect_standard_normal_moments() {
  // 2^20 draws (16 rows of 65,536 paths): the sample mean has sd 1/1024, the variance
  // sqrt(2)/1024, the fourth moment sqrt(96)/1024; 5σ bounds (a false failure about 6e-7).
  const int paths = 65536;
  const int rows = 16;
  std::vector<Real> z(static_cast<std::size_t>(paths) * rows);
  engine::philox_normals_host(42, 0, 0, paths, 0, rows, z.data(), paths);
  double sum = 0.0, sum2 = 0.0, sum4 = 0.0;
  int beyond_3 = 0;
  for (Real x : z) {
    sum += x;
    sum2 += static_cast<double>(x) * x;
    sum4 += static_cast<double>(x) * x * x * x;
    beyond_3 += std::fabs(x) > 3;
  }
  const double n = static_cast<double>(z.size());
  EXPECT_NEAR(sum / n, 0.0, 5.0 / 1024);
  EXPECT_NEAR(sum2 / n, 1.0, 5.0 * std::sqrt(2.0) / 1024);
  EXPECT_NEAR(sum4 / n, 3.0, 5.0 * std::sqrt(96.0) / 1024);
  // P(|Z| > 3) = 0.0026998: 2,831 expected, sd 53.
  EXPECT_NEAR(beyond_3, 0.0026998 * n, 5 * 53);
}

TEST(CounterDraws, FloatDrawsAreStandardNormal) {
  expect_standard_normal_moments<float>();
}
TEST(CounterDraws, DoubleDrawsAreStandardNormal) {
  expect_standard_normal_moments<double>();
}

TEST(CounterDraws, OneDrawIsOneSlotOfItsCall) {
  // philox_draw (the reference definition) picks the path's slot of its call.
  for (std::uint64_t path : {0ull, 1ull, 2ull, 3ull, 4ull, 1001ull}) {
    float calls[4];
    kernels::philox_normals<float>(9, 2, path / 4, 3, calls);
    EXPECT_EQ(kernels::philox_draw<float>(9, 2, path, 3), calls[path % 4]);
    double pair[2];
    kernels::philox_normals<double>(9, 2, path / 2, 3, pair);
    EXPECT_EQ(kernels::philox_draw<double>(9, 2, path, 3), pair[path % 2]);
  }
}

} // namespace
} // namespace pfmc
