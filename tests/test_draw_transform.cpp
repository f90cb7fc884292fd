// Draw transforms on the host: antithetic pairs, the Brownian bridge on uniform and non-uniform
// grids, and the digital shift of randomised QMC with its inverse normal CDF.
#include <gtest/gtest.h>

#include <curand.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "engine/draws/draw_transform.hpp"
#include "engine/draws/normal_source.hpp"
#include "kernels/draw_layout.hpp"
#include "kernels/draw_transform.cuh"

namespace pfmc {
namespace {

using engine::BrownianBridge;
using engine::NormalSource;
constexpr int G = kernels::kDrawTilePaths;

template <class Real>
std::vector<Real> normal_tiles(std::uint64_t tiles, int rows, std::uint64_t seed = 5) {
  NormalSource source(config::RngType::mrg32k3a, seed, NormalSource::Memory::host);
  std::vector<Real> z(tiles * static_cast<std::size_t>(rows) * G);
  source.next_tiles(z.data(), tiles, rows);
  return z;
}

TEST(Antithetic, OddPathsAreTheNegatedEvenPathsInEveryRowOfEveryTile) {
  const int rows = 7;
  const auto original = normal_tiles<double>(3, rows);
  auto z = original;
  engine::apply_antithetic_host(z.data(), z.size());
  for (std::size_t path = 0; path < 3 * std::size_t{G}; path += 2) {
    for (int r = 0; r < rows; ++r) {
      const std::size_t even = kernels::draw_offset(path, r, rows);
      const std::size_t odd = kernels::draw_offset(path + 1, r, rows);
      ASSERT_EQ(z[even], original[even]);
      ASSERT_EQ(z[odd], -original[even]) << "path " << path + 1 << " row " << r;
    }
  }
  std::vector<float> f = {1.5f, 2.0f, -3.0f, 4.0f};
  engine::apply_antithetic_host(f.data(), f.size());
  EXPECT_EQ(f, (std::vector<float>{1.5f, -1.5f, -3.0f, 3.0f}));
}

struct Grid {
  const char* name;
  std::vector<double> times;
  int factors;
};

std::vector<double> uniform_times(int steps, double horizon) {
  std::vector<double> t(static_cast<std::size_t>(steps) + 1);
  for (int s = 0; s <= steps; ++s)
    t[static_cast<std::size_t>(s)] = horizon * s / steps;
  return t;
}

class Bridge : public ::testing::TestWithParam<Grid> {};

TEST_P(Bridge, MatchesATextbookBridge) {
  // Reference: W on the grid by time index, each new point from its nearest known neighbours
  // (found by search, not from the tables), in the order of points().
  const Grid& grid = GetParam();
  BrownianBridge bridge(grid.times, grid.factors);
  const int rows = bridge.rows(), steps = bridge.steps(), factors = grid.factors;
  const auto z = normal_tiles<double>(1, rows, 21);
  auto x = z;
  bridge.apply_host(x.data(), 1, rows);
  const auto& t = grid.times;
  for (std::size_t p = 0; p < std::size_t{G}; p += 31) {
    for (int f = 0; f < factors; ++f) {
      std::vector<double> w(static_cast<std::size_t>(steps) + 1, 0.0);
      std::vector<bool> known(static_cast<std::size_t>(steps) + 1, false);
      known[0] = true;
      for (int k = 0; k < steps; ++k) {
        const auto j = static_cast<std::size_t>(bridge.points()[static_cast<std::size_t>(k)]);
        const double zk = z[kernels::draw_offset(p, k * factors + f, rows)];
        std::size_t l = j - 1;
        while (!known[l])
          --l;
        std::size_t r = j + 1;
        while (r <= static_cast<std::size_t>(steps) && !known[r])
          ++r;
        if (r > static_cast<std::size_t>(steps)) { // no right neighbour: from the left alone
          w[j] = w[l] + std::sqrt(t[j] - t[l]) * zk;
        } else {
          const double mean = w[l] + (t[j] - t[l]) / (t[r] - t[l]) * (w[r] - w[l]);
          w[j] = mean + std::sqrt((t[j] - t[l]) * (t[r] - t[j]) / (t[r] - t[l])) * zk;
        }
        known[j] = true;
      }
      for (int s = 0; s < steps; ++s) {
        const auto u = static_cast<std::size_t>(s);
        const double expected = (w[u + 1] - w[u]) / std::sqrt(t[u + 1] - t[u]);
        ASSERT_NEAR(x[kernels::draw_offset(p, s * factors + f, rows)], expected,
                    1e-12 * std::max(1.0, std::fabs(expected)))
            << grid.name << " path " << p << " step " << s << " factor " << f;
      }
    }
  }
}

TEST_P(Bridge, IsAnOrthogonalMap) {
  // The bridge builds W = L·z with L·Lᵀ = Cov(W(t_1..t_n)); the standardized increments are
  // then A·z with A·Aᵀ = I. Path k of a tile gets the unit vector e_k, so its output column is
  // column k of A: exact up to rounding, no statistics.
  const Grid& grid = GetParam();
  BrownianBridge bridge(grid.times, grid.factors);
  const int rows = bridge.rows();
  ASSERT_LE(rows, G);
  std::vector<double> z(static_cast<std::size_t>(rows) * G, 0.0);
  for (int k = 0; k < rows; ++k)
    z[kernels::draw_offset(static_cast<std::size_t>(k), k, rows)] = 1.0;
  bridge.apply_host(z.data(), 1, rows);
  double worst = 0.0;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < rows; ++j) {
      double dot = 0.0; // (A Aᵀ)_{ij} = Σ_k A_ik A_jk, A_ik = output row i of path k
      for (int k = 0; k < rows; ++k) {
        dot += z[kernels::draw_offset(static_cast<std::size_t>(k), i, rows)] *
               z[kernels::draw_offset(static_cast<std::size_t>(k), j, rows)];
      }
      worst = std::max(worst, std::fabs(dot - (i == j ? 1.0 : 0.0)));
    }
  }
  EXPECT_LT(worst, 1e-12) << grid.name;
}

TEST_P(Bridge, IncrementsAreIndependentStandardNormals) {
  // 16 tiles = 32768 Philox columns. Per row the sample mean has sd 1/√n and the sample
  // variance sd √(2/n); per pair of rows the sample covariance has sd 1/√n. Bounds are 5σ
  // (two-sided tail 5.7e-7): with at most ~6,300 checked quantities (111 rows) the
  // false-failure rate is below 4e-3, and the seed is fixed, so the outcome is too.
  const Grid& grid = GetParam();
  BrownianBridge bridge(grid.times, grid.factors);
  const int rows = bridge.rows();
  const std::uint64_t tiles = 16;
  auto x = normal_tiles<double>(tiles, rows);
  bridge.apply_host(x.data(), tiles, rows);
  const double n = static_cast<double>(tiles) * G;
  std::vector<double> mean(static_cast<std::size_t>(rows), 0.0);
  for (std::size_t p = 0; p < tiles * G; ++p) {
    for (int r = 0; r < rows; ++r)
      mean[static_cast<std::size_t>(r)] += x[kernels::draw_offset(p, r, rows)] / n;
  }
  for (int r = 0; r < rows; ++r)
    EXPECT_NEAR(mean[static_cast<std::size_t>(r)], 0.0, 5.0 / std::sqrt(n)) << "row " << r;
  for (int i = 0; i < rows; ++i) {
    for (int j = i; j < rows; ++j) {
      double cov = 0.0;
      for (std::size_t p = 0; p < tiles * G; ++p) {
        cov += (x[kernels::draw_offset(p, i, rows)] - mean[static_cast<std::size_t>(i)]) *
               (x[kernels::draw_offset(p, j, rows)] - mean[static_cast<std::size_t>(j)]);
      }
      cov /= n;
      if (i == j) {
        EXPECT_NEAR(cov, 1.0, 5.0 * std::sqrt(2.0 / n)) << grid.name << " row " << i;
      } else {
        EXPECT_NEAR(cov, 0.0, 5.0 / std::sqrt(n)) << grid.name << " rows " << i << ", " << j;
      }
    }
  }
}

TEST_P(Bridge, TerminalPointIsTheFirstNormalTimesSqrtT) {
  // Σ_s √Δt_s · increment_s telescopes to W(T) = √T·z₀ (row f for factor f); only rounding
  // separates them.
  const Grid& grid = GetParam();
  BrownianBridge bridge(grid.times, grid.factors);
  const int rows = bridge.rows();
  const auto z = normal_tiles<double>(2, rows);
  auto x = z;
  bridge.apply_host(x.data(), 2, rows);
  const double horizon = grid.times.back();
  for (std::size_t p = 0; p < 2 * std::size_t{G}; p += 97) {
    for (int f = 0; f < grid.factors; ++f) {
      double w = 0.0;
      for (int s = 0; s < bridge.steps(); ++s) {
        const double dt =
            grid.times[static_cast<std::size_t>(s) + 1] - grid.times[static_cast<std::size_t>(s)];
        w += std::sqrt(dt) * x[kernels::draw_offset(p, s * grid.factors + f, rows)];
      }
      const double expected = std::sqrt(horizon) * z[kernels::draw_offset(p, f, rows)];
      EXPECT_NEAR(w, expected, 1e-12 * std::max(1.0, std::fabs(expected)))
          << grid.name << " path " << p << " factor " << f;
    }
  }
}

TEST_P(Bridge, IsOddBitwiseAndActsOnEachTileAlone) {
  const Grid& grid = GetParam();
  BrownianBridge bridge(grid.times, grid.factors);
  const int rows = bridge.rows();
  const std::size_t tile = static_cast<std::size_t>(rows) * G;
  const auto z = normal_tiles<double>(3, rows);
  auto plus = z;
  auto minus = z;
  for (double& v : minus)
    v = -v;
  bridge.apply_host(plus.data(), 3, rows);
  bridge.apply_host(minus.data(), 3, rows);
  for (std::size_t i = 0; i < plus.size(); ++i) {
    const double negated = -plus[i];
    ASSERT_EQ(std::memcmp(&negated, &minus[i], sizeof(double)), 0) << i;
  }
  // Tile by tile (as chunks of one tile would) gives the same bits.
  auto one = z;
  for (std::size_t t = 0; t < 3; ++t)
    bridge.apply_host(one.data() + t * tile, 1, rows);
  EXPECT_EQ(one, plus);
  // Float: the same map to float accuracy.
  std::vector<float> f(z.begin(), z.end());
  bridge.apply_host(f.data(), 3, rows);
  for (std::size_t i = 0; i < f.size(); ++i)
    ASSERT_NEAR(f[i], plus[i], 2e-5 * std::max(1.0, std::fabs(plus[i]))) << i;
}

INSTANTIATE_TEST_SUITE_P(
    Grids, Bridge,
    ::testing::Values(
        Grid{"uniform16", uniform_times(16, 1.0), 1}, Grid{"uniform1", uniform_times(1, 2.0), 1},
        Grid{"nonuniform9", {0.0, 0.01, 0.05, 0.3, 0.31, 0.5, 0.9, 1.7, 2.0, 2.25}, 1},
        Grid{"nonuniform13_two_factors",
             {0.0, 1.0 / 365, 0.02, 0.08, 0.25, 0.2501, 0.26, 0.5, 0.75, 0.76, 1.0, 1.01, 1.3, 1.5},
             2},
        Grid{"uniform37_three_factors", uniform_times(37, 0.5), 3}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Bridge, FirstSlotsAreTheTerminalPointAndTheCoarsestLevels) {
  BrownianBridge bridge(uniform_times(8, 1.0), 1);
  EXPECT_EQ(bridge.points(), (std::vector<int>{8, 4, 2, 6, 1, 3, 5, 7}));
}

// --- randomised QMC ------------------------------------------------------------------------------

double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

TEST(InverseNormalCdf, RoundTripsThroughErfcToMachinePrecision) {
  // The relative error of x = Φ⁻¹(u), measured as |Φ(x) − u| / (φ(x)·|x|) with Φ from std::erfc
  // (in the lower tail by symmetry, and from erf near the centre, so that Φ(x) − u does not
  // cancel). Measured (glibc 2.36): 1.1e-15 at worst over 200,014 points; the bound leaves
  // room for other libms.
  const double sqrt_two_pi = std::sqrt(2.0 * M_PI);
  double worst = 0.0;
  std::vector<double> us = {0x1p-33, 0x1p-20, 1e-4,    0.02425,       0.0243,
                            0.1,     0.3,     0.49,    0.5 - 0x1p-33, 0.5 + 0x1p-33,
                            0.75,    0.9,     0.97575, 1.0 - 0x1p-33};
  for (std::uint64_t i = 0; i < 200000; ++i) // random cells (k + ½)/2³²
    us.push_back((static_cast<double>(kernels::splitmix64(i) >> 32) + 0.5) * 0x1p-32);
  for (double u : us) {
    const double x = engine::inverse_normal_cdf(u);
    const double density = std::exp(-0.5 * x * x) / sqrt_two_pi;
    double residual;
    if (std::fabs(u - 0.5) <= 0.25) {
      residual = 0.5 * std::erf(x / std::sqrt(2.0)) - (u - 0.5);
    } else {
      const double p = std::min(u, 1.0 - u);
      residual = normal_cdf(-std::fabs(x)) - p;
    }
    const double relative = std::fabs(residual) / (density * std::fabs(x));
    worst = std::max(worst, relative);
    EXPECT_LT(relative, 1e-14) << "u = " << u << " x = " << x;
    // Exactly odd about ½ where 1 − u is exact (every (k + ½)/2³²): replicates stay unbiased.
    if (1.0 - (1.0 - u) == u) {
      EXPECT_EQ(engine::inverse_normal_cdf(1.0 - u), -x) << u;
    }
  }
  RecordProperty("worst_relative_error", std::to_string(worst));
  std::printf("inverse_normal_cdf: worst relative error %.3g over %zu points\n", worst, us.size());
  EXPECT_NEAR(engine::inverse_normal_cdf(0x1p-33), -6.3375, 1e-3);
  EXPECT_EQ(engine::inverse_normal_cdf(0.5), 0.0);
}

TEST(DigitalShift, IsCuRandsIntegersXorAMaskThenTheInverseCdf) {
  // Reference: one cuRAND call for points 0 .. 2G − 1 of 3 dimensions; tile k of the source
  // must be points kG .. (k+1)G − 1, shifted by the mask of (seed, replicate, dimension).
  const int rows = 3;
  const std::uint64_t seed = 77;
  const int replicate = 4;
  curandGenerator_t reference;
  ASSERT_EQ(curandCreateGeneratorHost(&reference, CURAND_RNG_QUASI_SCRAMBLED_SOBOL32),
            CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandSetQuasiRandomGeneratorDimensions(reference, rows), CURAND_STATUS_SUCCESS);
  std::vector<unsigned int> points(static_cast<std::size_t>(rows) * 2 * G);
  ASSERT_EQ(curandGenerate(reference, points.data(), points.size()), CURAND_STATUS_SUCCESS);
  curandDestroyGenerator(reference);

  NormalSource source(config::RngType::scrambled_sobol, seed, NormalSource::Memory::host, rows,
                      replicate);
  std::vector<double> tiles(2 * static_cast<std::size_t>(rows) * G);
  source.next_tiles(tiles.data(), 1, rows);
  source.next_tiles(tiles.data() + static_cast<std::size_t>(rows) * G, 1, rows);
  for (int tile = 0; tile < 2; ++tile) {
    for (int r = 0; r < rows; ++r) {
      const std::uint32_t mask = kernels::digital_shift_mask(seed, replicate, r);
      for (int i = 0; i < G; i += 13) {
        const std::uint32_t point = points[static_cast<std::size_t>(r) * 2 * G + tile * G + i];
        const double expected =
            engine::inverse_normal_cdf((static_cast<double>(point ^ mask) + 0.5) * 0x1p-32);
        ASSERT_EQ(tiles[kernels::draw_offset(tile * G + i, r, rows)], expected)
            << "tile " << tile << " row " << r << " point " << i;
      }
    }
  }
}

template <class Real>
std::vector<Real> scrambled(std::uint64_t seed, int replicate, int rows, std::uint64_t tiles,
                            config::RngType type = config::RngType::scrambled_sobol) {
  NormalSource source(type, seed, NormalSource::Memory::host, rows, replicate);
  std::vector<Real> z(tiles * static_cast<std::size_t>(rows) * G);
  source.next_tiles(z.data(), tiles, rows);
  return z;
}

TEST(DigitalShift, ReplicatesAndSeedsAreDifferentRandomisationsAndRepeatable) {
  const int rows = 5;
  const auto r0 = scrambled<double>(42, 0, rows, 1);
  const auto r1 = scrambled<double>(42, 1, rows, 1);
  const auto other_seed = scrambled<double>(43, 0, rows, 1);
  EXPECT_EQ(scrambled<double>(42, 1, rows, 1), r1);
  std::size_t same = 0, same_seed = 0;
  for (std::size_t i = 0; i < r0.size(); ++i) {
    same += r0[i] == r1[i];
    same_seed += r0[i] == other_seed[i];
  }
  // Equal values would need equal 32-bit integers: masks agree on a dimension with 2^-32.
  EXPECT_EQ(same, 0u);
  EXPECT_EQ(same_seed, 0u);
  // Float: the double values rounded.
  const auto f1 = scrambled<float>(42, 1, rows, 1);
  for (std::size_t i = 0; i < f1.size(); ++i)
    ASSERT_EQ(f1[i], static_cast<float>(r1[i])) << i;
  // Plain Sobol has no randomisation.
  EXPECT_EQ(scrambled<double>(42, 3, rows, 1, config::RngType::sobol),
            scrambled<double>(42, 0, rows, 1, config::RngType::sobol));
  EXPECT_THROW(scrambled<double>(42, -1, rows, 1), LogicError);
}

TEST(DigitalShift, EveryDimensionIsStandardNormal) {
  // 8 tiles = 16384 points per dimension; 5σ Monte Carlo bounds on the mean (1/√n) and the
  // variance (√(2/n)) — loose for QMC points, whose errors are far smaller.
  const int rows = 6;
  const std::uint64_t tiles = 8;
  for (int replicate : {0, 1, 7}) {
    const auto z = scrambled<double>(9, replicate, rows, tiles);
    const double n = static_cast<double>(tiles) * G;
    for (int r = 0; r < rows; ++r) {
      double sum = 0.0, sum2 = 0.0;
      for (std::size_t p = 0; p < tiles * G; ++p) {
        const double x = z[kernels::draw_offset(p, r, rows)];
        sum += x;
        sum2 += x * x;
      }
      EXPECT_NEAR(sum / n, 0.0, 5.0 / std::sqrt(n)) << "replicate " << replicate << " dim " << r;
      EXPECT_NEAR(sum2 / n - (sum / n) * (sum / n), 1.0, 5.0 * std::sqrt(2.0 / n))
          << "replicate " << replicate << " dim " << r;
    }
  }
}

} // namespace
} // namespace pfmc
