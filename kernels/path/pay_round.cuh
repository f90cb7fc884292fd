#pragma once
// After a round's step loop, the payoff stage a group takes: prices alone, pathwise estimates in
// registers, or estimates (control variates, Greeks).

#include "kernels/path/pay_estimates.cuh"
#include "kernels/path/pay_pathwise.cuh"
#include "kernels/path/pay_prices.cuh"

namespace pfmc::kernels {

/// After a round's step loop: the group's instruments paid off on the thread's paths and their
/// values reduced (pay_prices, or pay_estimates with control variates or Greeks).
/// The group's reduction target is read by the callee from the group (shared memory): built in
/// the kernel it was held in registers across the step loop (measured: spills in
/// scalar_batched d8 in float, 92% of the copy bandwidth against 100%).
template <class Group, class Real, int P>
__device__ __forceinline__ void
pay_round(const Group& group, const Real (*observed)[models::kMaxObservations], int valid,
          RoundPosition at, double* scratch, double* warp_sums) {
  if (group.values_per_instrument == kPriceValues && group.scenarios == 1) {
    pay_prices<Group, Real, P>(group, observed, valid, at, scratch);
    return;
  }
  if constexpr (models::kIsDual<Real>) {
    if (pathwise_in_registers(group, warp_sums)) {
      if (group.values_per_instrument <= 8)
        pay_pathwise<Group, Real, P, 8>(group, observed, valid, at, warp_sums);
      else
        pay_pathwise<Group, Real, P, kPathwiseSlots>(group, observed, valid, at, warp_sums);
      return;
    }
  }
  pay_estimates<Group, Real, P>(group, observed, valid, at, scratch);
}

} // namespace pfmc::kernels
