#pragma once
// The payoff stage of prices alone (no control variates, no Greeks): every instrument of a group
// paid off on a thread's paths and reduced over the block's round (pay_prices), and a group of one
// instrument's price paid off into its pass's leaf (pay_single).

#include "kernels/block_reduce.cuh"
#include "kernels/path/leaves.cuh"
#include "kernels/value_layout.cuh"
#include "models/payoff.cuh"

namespace pfmc::kernels {

/// Prices only (no control variates, no Greeks): every instrument of the group paid off on the
/// thread's P paths (the first `valid` of them in range; the others are +0.0) and reduced over
/// the block's round. Never inlined (as pay_estimates): the kernels of one model (every loader
/// and distance) share one copy, and the common case keeps a small register footprint of its
/// own (measured with both cases in one function: 0.8-1.7 KB of spills a thread per call).
/// Every thread of the block must call it.
template <class Group, class Real, int P>
__device__ __noinline__ void pay_prices(const Group& group,
                                        const Real (*observed)[models::kMaxObservations], int valid,
                                        RoundPosition at, double* scratch) {
  const RoundSink sink{scratch, group.reduction, at};
  const int n = group.instrument_count;
  const int items = n + (group.portfolio ? 1 : 0); // the instruments, then the portfolio
  {
    // Prices only: values in passes; item j < n contributes (payoff, payoff²) of instrument j,
    // item n the portfolio's (complete by then: items go in order): the ValueLayout of
    // kPriceValues values per item.
    constexpr int kItemsPerPass =
        P > kReduceBatch / kPriceValues ? 1 : kReduceBatch / kPriceValues / P;
    double portfolio[P];
#pragma unroll
    for (int p = 0; p < P; ++p)
      portfolio[p] = 0.0;
    for (int first = 0; first < items; first += kItemsPerPass) {
      const int count = min(kItemsPerPass, items - first);
      double value[kItemsPerPass][P];
#pragma unroll
      for (int k = 0; k < kItemsPerPass; ++k) {
        const int j = first + k;
        if (j < n) {
          const models::InstrumentView& instrument = group.instruments[j];
          models::discounted_payoffs<P>(
              instrument, [&](int p, int o) { return observed[p][o]; }, value[k]);
#pragma unroll
          for (int p = 0; p < P; ++p) {
            if (p >= valid)
              value[k][p] = 0.0;
          }
          if (group.portfolio) {
            const double quantity = instrument.quantity;
#pragma unroll
            for (int p = 0; p < P; ++p)
              portfolio[p] = math::add_rn(portfolio[p], math::mul_rn(value[k][p], quantity));
          }
        } else {
#pragma unroll
          for (int p = 0; p < P; ++p)
            value[k][p] = j == n ? portfolio[p] : 0.0;
        }
      }
      if (group.antithetic) {
#pragma unroll
        for (int k = 0; k < kItemsPerPass; ++k)
          pair_means<P>(value[k]);
      }
      sink(kPriceValues * first, kPriceValues * count, [&](int m) {
        const int k = m / kPriceValues;
        return thread_tree_sum<P>([&](int p) {
          const double x = value[k][p];
          return m % kPriceValues ? math::mul_rn(x, x) : x; // [x, x²]
        });
      });
    }
  }
}

/// The group's one instrument paid off on the thread's P paths (pair means with antithetic).
/// Never inlined, as pay_prices (measured inlined: the book's kernels as fast, 14.18 against
/// 14.10 ms, but the multi-step `inline` kernels in double spilled 2-3× more: Heston 1,964/2,560
/// bytes of spill stores/loads against 640/1,080). Every lane of the warp must call it.
template <class Group, class Real, int P>
__device__ __noinline__ PriceLeaf pay_single(const Group& group,
                                             const Real (*observed)[models::kMaxObservations],
                                             int valid) {
  double value[P];
  models::discounted_payoffs<P>(
      group.instruments[0], [&](int p, int o) { return observed[p][o]; }, value);
  return price_leaf<P>(value, valid, group.antithetic);
}

} // namespace pfmc::kernels
