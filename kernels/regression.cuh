#pragma once
// Early exercise's backward induction on the device (models/exercise.cuh): one launch per
// exercise date of one instrument, over the regression paths' records. It first applies the
// decision of the date fitted before it (or the maturity's payoff) to each path's cash flow, then
// reduces the sums of the next date's regression (models::RegressionLayout) in the fixed order
// of kernels/reduction_shape.cuh — the blocks of a tile combined by its last block, the tiles in
// order by the last tile — so that the fit does not depend on anything but the paths. The engine
// reads the sums back, fits the date's coefficients on the host (engine/run/exercise.hpp) and
// passes them to the next launch by value.

#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/block_reduce.cuh"
#include "models/exercise.cuh"

namespace pfmc::kernels {

/// One launch's work (kernel parameters, by value).
template <class Real>
struct RegressionStep {
  const Real* levels;    ///< the instrument's level: [date][path]
  const Real* variances; ///< two-variable basis: [date][path]; else null
  double* cash_flows;    ///< [path]: discounted to today
  std::uint64_t paths;
  models::ExerciseView rule; ///< the instrument in the base scenario
  models::RegressionBasis basis;
  double variance_scale;
  int update_date;     ///< the date whose decision is applied first (-1: none)
  int update_maturity; ///< 1: it is the maturity (every path takes its payoff)
  double update_discount;
  double coefficients[models::kMaxRegressionBasis]; ///< update_date's fit (before the maturity)
  int sum_date; ///< the date whose regression sums are reduced (-1: none)
  ReductionTarget target;
};

/// Threads per block, one path each: a tile of kTilePaths paths is kRegressionBlocksPerTile
/// blocks, combined by the tile's last block (the same tree as any other launch shape). Small
/// blocks of one round: a million regression paths are 3,907 blocks, many per multiprocessor,
/// where blocks of a whole tile (1,024 threads, 8 rounds) were 123 and left the loads' latency
/// exposed (82 us per launch at 30% of the SMs' issue slots: docs/decisions.md#regression-blocks).
inline constexpr int kRegressionThreads = 256;
inline constexpr int kRegressionBlocksPerTile = kTilePaths / kRegressionThreads;

/// Blocks of a launch over `paths` regression paths.
inline std::uint64_t regression_blocks(std::uint64_t paths) {
  return (paths + kRegressionThreads - 1) / kRegressionThreads;
}

/// At least this many blocks per multiprocessor (64 registers a thread): without it ptxas took
/// enough registers to hold 2 blocks, 24% occupancy, and the launch ran slower (122 us) than the
/// tile-sized blocks it replaced (82 us).
inline constexpr int kRegressionMinBlocks = 4;

template <class Real>
__global__ void __launch_bounds__(kRegressionThreads, kRegressionMinBlocks)
    regression_step_kernel(const __grid_constant__ RegressionStep<Real> p) {
  __shared__ double scratch[(kRegressionThreads / kWarpSize) * kReduceBatch]; // the warps' sums
  const models::RegressionLayout layout{p.basis.size()};
  const int values = layout.size();
  const int block = static_cast<int>(blockIdx.x);
  const std::uint64_t path = static_cast<std::uint64_t>(block) * kRegressionThreads + threadIdx.x;
  const bool in_range = path < p.paths;
  double y = 0.0;
  bool in_the_money = false;
  double phi[models::kMaxRegressionBasis];
  const auto scaled_variance = [&](int date) {
    return p.variances != nullptr
               ? static_cast<double>(
                     p.variances[static_cast<std::uint64_t>(date) * p.paths + path]) /
                     p.variance_scale
               : 0.0;
  };
  if (in_range) {
    y = p.cash_flows[path];
    if (p.update_date >= 0) {
      const double level =
          static_cast<double>(p.levels[static_cast<std::uint64_t>(p.update_date) * p.paths + path]);
      const double value = models::exercise_decision(
          p.basis, p.coefficients, p.rule, p.update_discount, level,
          p.update_maturity ? 0.0 : scaled_variance(p.update_date), p.update_maturity != 0);
      if (value >= 0.0) {
        y = value;
        p.cash_flows[path] = y;
      }
    }
    if (p.sum_date >= 0) {
      const double level =
          static_cast<double>(p.levels[static_cast<std::uint64_t>(p.sum_date) * p.paths + path]);
      in_the_money =
          models::regression_basis_at(p.basis, p.rule, level, scaled_variance(p.sum_date), phi);
    }
  }
  if (p.sum_date < 0)
    return; // uniform: no reduction
  const RoundPosition at{block, 0, 1, nullptr};
  for (int first = 0; first < values; first += kReduceBatch) {
    const int count = values - first < kReduceBatch ? values - first : kReduceBatch;
    round_partials(scratch, p.target, at, first, count, [&](int k) {
      return models::regression_value(layout, in_the_money, phi, y, first + k);
    });
  }
  finish_block(p.target, block, 1, 1, nullptr);
  finish_in_last_block(p.target, block, static_cast<int>(gridDim.x), kRegressionBlocksPerTile);
}

/// Launches one step over the regression paths' tiles on `stream` (kernels/regression.cu).
template <class Real>
void launch_regression_step(const RegressionStep<Real>& step, cudaStream_t stream);

} // namespace pfmc::kernels
