// Draws: tiles come out in order whatever the call pattern, quasi-random tiles are the right
// points, and the host generator gives standard normals.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/draws/normal_source.hpp"
#include "kernels/draw_layout.hpp"
#include "base/error.hpp"

namespace pfmc {
namespace {

using engine::NormalSource;
constexpr int G = kernels::kDrawTilePaths;

class DrawTiles : public ::testing::TestWithParam<config::RngType> {};

template <class Real>
void expect_tiles_independent_of_call_pattern(config::RngType type) {
  const int rows = 7;
  const bool quasi = type == config::RngType::sobol || type == config::RngType::scrambled_sobol;
  const std::size_t tile = static_cast<std::size_t>(rows) * G;
  NormalSource one_call(type, 11, NormalSource::Memory::host, quasi ? rows : 0);
  std::vector<Real> all(5 * tile);
  one_call.next_tiles(all.data(), 5, rows);

  // The same five tiles produced 1 + 3 + 1 at a time (as chunks of 1, 3 and 1 tiles would).
  NormalSource pieces(type, 11, NormalSource::Memory::host, quasi ? rows : 0);
  std::vector<Real> part(3 * tile);
  std::size_t done = 0;
  for (std::uint64_t n : {1u, 3u, 1u}) {
    pieces.next_tiles(part.data(), n, rows);
    for (std::size_t i = 0; i < n * tile; ++i) {
      ASSERT_EQ(part[i], all[done * tile + i]) << "tile " << done + i / tile;
    }
    done += n;
  }
  // Another seed gives other draws (quasi-random sequences have no seed).
  if (!quasi) {
    NormalSource other(type, 12, NormalSource::Memory::host);
    std::vector<Real> first(tile);
    other.next_tiles(first.data(), 1, rows);
    EXPECT_NE(first[0], all[0]);
  }
}

TEST_P(DrawTiles, FloatTilesDoNotDependOnTheCallPattern) {
  expect_tiles_independent_of_call_pattern<float>(GetParam());
}
TEST_P(DrawTiles, DoubleTilesDoNotDependOnTheCallPattern) {
  expect_tiles_independent_of_call_pattern<double>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(AllGenerators, DrawTiles,
                         ::testing::Values(config::RngType::mrg32k3a, config::RngType::sobol,
                                           config::RngType::scrambled_sobol),
                         [](const auto& info) {
                           return std::string(config::to_string(info.param));
                         });

TEST(NormalSource, SobolTilesAreConsecutivePointsOfEveryDimension) {
  // Reference: one cuRAND call for points 1 .. 2G of 3 dimensions (plain Sobol skips point 0);
  // quasi-random points are addressable, so tile k must be points kG+1 .. (k+1)G.
  const int rows = 3;
  curandGenerator_t reference;
  ASSERT_EQ(curandCreateGeneratorHost(&reference, CURAND_RNG_QUASI_SOBOL32), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandSetQuasiRandomGeneratorDimensions(reference, rows), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandSetGeneratorOffset(reference, 1), CURAND_STATUS_SUCCESS);
  std::vector<double> points(static_cast<std::size_t>(rows) * 2 * G);
  ASSERT_EQ(curandGenerateNormalDouble(reference, points.data(), points.size(), 0.0, 1.0),
            CURAND_STATUS_SUCCESS);
  curandDestroyGenerator(reference);

  NormalSource source(config::RngType::sobol, 0, NormalSource::Memory::host, rows);
  std::vector<double> tiles(2 * static_cast<std::size_t>(rows) * G);
  source.next_tiles(tiles.data(), 2, rows);
  for (int tile = 0; tile < 2; ++tile) {
    for (int r = 0; r < rows; ++r) {
      for (int i = 0; i < G; ++i) {
        ASSERT_EQ(tiles[kernels::draw_offset(tile * G + i, r, rows)],
                  points[static_cast<std::size_t>(r) * 2 * G + tile * G + i])
            << "tile " << tile << " row " << r << " point " << i;
      }
    }
  }
}

TEST(NormalSource, StandardNormalMoments) {
  // 2^20 draws: the sample mean has sd 1/1024 and the sample variance sd sqrt(2)/1024; 5σ bounds.
  NormalSource source(config::RngType::mrg32k3a, 3, NormalSource::Memory::host);
  std::vector<double> z(std::size_t{512} * G);
  source.next_tiles(z.data(), 1, 512);
  ASSERT_EQ(z.size(), 1u << 20);
  double sum = 0.0, sum2 = 0.0;
  for (double x : z) {
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / z.size();
  const double var = sum2 / z.size() - mean * mean;
  EXPECT_NEAR(mean, 0.0, 5.0 / 1024);
  EXPECT_NEAR(var, 1.0, 5.0 * std::sqrt(2.0) / 1024);
}

TEST(NormalSource, DrawBatchesArePseudoRandomOnly) {
  NormalSource sobol(config::RngType::sobol, 0, NormalSource::Memory::host, 3);
  std::vector<double> out(3 * G);
  EXPECT_THROW(sobol.generate(out.data(), out.size()), LogicError);
  NormalSource mrg(config::RngType::mrg32k3a, 5, NormalSource::Memory::host);
  mrg.generate(out.data(), out.size());
  EXPECT_NE(out[0], out[1]);
  // Philox is not cuRAND's here: its draws are counter-based.
  EXPECT_THROW(NormalSource(config::RngType::philox, 5, NormalSource::Memory::host), LogicError);
}

TEST(NormalSource, PlainSobolSkipsTheOrigin) {
  NormalSource source(config::RngType::sobol, 0, NormalSource::Memory::host, 2);
  std::vector<float> z(2 * G);
  source.next_tiles(z.data(), 1, 2);
  for (float x : z)
    ASSERT_LT(std::fabs(x), 5.0f); // the origin would map to about -6
}

} // namespace
} // namespace pfmc
