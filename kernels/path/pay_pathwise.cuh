#pragma once
// The payoff stage of a pathwise model's group: its estimates in registers, its values through the
// warps' slots into the warps' sums (the same bits as pay_estimates).

#include "kernels/block_reduce.cuh"
#include "kernels/path/leaves.cuh"
#include "kernels/value_layout.cuh"
#include "models/pathwise.cuh"
#include "models/pathwise_heston.cuh"
#include "models/pathwise_local_vol.cuh"
#include "models/payoff.cuh"

namespace pfmc::kernels {

/// A pathwise group's estimates in registers (pay_pathwise): y and up to 7 Greeks an
/// instrument, their values [x, x²] the warp's slots (warp_slot_sums).
inline constexpr int kPathwiseSlots = 16;

/// True where pay_pathwise takes the group's estimates: a pathwise model's group (one scenario)
/// without control variates, of at most kPathwiseSlots values an instrument, whose launch keeps
/// the warps' sums of all its values (warp_sums not null). Uniform across the block.
template <class Group>
__device__ __forceinline__ bool pathwise_in_registers(const Group& group, const double* warp_sums) {
  return warp_sums != nullptr && group.pathwise_greeks != nullptr && group.scenarios == 1 &&
         !group.control_variate && group.values_per_instrument <= kPathwiseSlots;
}

/// pay_estimates for the groups of pathwise_in_registers, the same values to the bit: each
/// instrument's raw estimates (models::pathwise_estimates) on the thread's P paths stay in
/// registers (static indices: at most S / 2 of them), and its values go through the warp's
/// slots at once (warp_slot_sums: 9 or 16 shuffles for all of them) into the warp's sums in shared
/// memory; the block's warps are folded once, after the last instrument (fold_warp_sums). No
/// barrier between instruments, no local arrays (ncu, docs/decisions.md#estimates-in-registers:
/// pay_estimates took 68% of the portfolio's delta + vega launch, about 70 local accesses an
/// instrument and two block barriers a pass; with this pass the launch ran 1.18 ms against 2.08).
/// S = 8 where an instrument has at most 8 values, else 16. Every thread of the block must call
/// it.
template <class Group, class Real, int P, int S>
__device__ __noinline__ void pay_pathwise(const Group& group,
                                          const Real (*observed)[models::kMaxObservations],
                                          int valid, RoundPosition at, double* warp_sums) {
  constexpr int kEstimates = S / 2;
  const int n = group.instrument_count;
  const ValueLayout layout{n, 0, group.greek_count, group.portfolio};
  const int estimates = layout.estimates(); // uniform, at most kEstimates
  const int lane = threadIdx.x % kWarpSize;
  const int slot = warp_slot<S>(lane);
  double* sums =
      warp_sums + static_cast<std::size_t>(threadIdx.x / kWarpSize) * group.reduction.values;
  // The warp's sums of one item's `count` raw estimates e[k] (their [x, x²] at values first ..):
  // pair means with antithetic paths, the thread's subtrees, then the warp's.
  const auto reduce = [&](double(&e)[kEstimates][P], int count, int first) {
    if (group.antithetic) {
#pragma unroll
      for (int k = 0; k < kEstimates; ++k) {
        if (k < count) // uniform: pair means shuffle with one path a thread
          pair_means<P>(e[k]);
      }
    }
    double x[S];
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const int k = s / 2;
      x[s] = k < count ? thread_tree_sum<P>([&](int p) {
        const double v = e[k][p];
        return s % 2 ? math::mul_rn(v, v) : v; // [x, x²]
      })
                       : 0.0;
    }
    const double sum = warp_slot_sums<S>(x);
    if (lane < S && slot < 2 * count)
      sums[first + slot] = sum;
  };
  double portfolio[kEstimates][P];
#pragma unroll
  for (int p = 0; p < P; ++p)
    portfolio[0][p] = 0.0;
  for (int j = 0; j < n; ++j) {
    const models::InstrumentView& instrument = group.instruments[j];
    double e[kEstimates][P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
#pragma unroll
      for (int k = 0; k < kEstimates; ++k)
        e[k][p] = 0.0;
      if (p < valid) {
        models::pathwise_estimates<kEstimates, (Group::PathModel::assets > 1)>(
            instrument, group.pathwise_greeks, group.greek_count,
            [&](int o) -> const Real& { return observed[p][o]; },
            [&](int k, double x) {
#pragma unroll
              for (int m = 0; m < kEstimates; ++m) // static indices (k is one where unrolled)
                e[m][p] = m == k ? x : e[m][p];
            });
      }
      if (group.portfolio && p < valid)
        portfolio[0][p] = math::add_rn(portfolio[0][p], math::mul_rn(e[0][p], instrument.quantity));
    }
    reduce(e, estimates, layout.instrument(j));
  }
  if (group.portfolio)
    reduce(portfolio, 1, layout.portfolio_value());
  fold_warp_sums(warp_sums, group.reduction, at, layout.size());
}

} // namespace pfmc::kernels
