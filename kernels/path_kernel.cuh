#pragma once
// The path kernel: one thread owns one path. The loader runs the step loop and hands each
// step's draws to the model; observations are updated at their dates; at the end every
// instrument of the group is paid off (a runtime switch over payoff kinds) and the per-path
// values are reduced by the deterministic last-block reduction.

#include <cstddef>
#include <type_traits>

#include "kernels/block_reduce.cuh"
#include "kernels/loader_common.cuh"
#include "models/path.cuh"
#include "models/payoff.cuh"
#include "models/scenarios.cuh"

namespace pfmc::kernels {

inline constexpr int kMaxBlockSize = 1024;
inline constexpr int kMaxGreeks = 5;

/// One simulation group (or one chunk of one) in a launch; launches carry a table of them in
/// device memory (trivially copyable; pointers are device memory).
template <class Model, class Real>
struct GroupParams {
  typename Model::Params model;
  const Real* normals; ///< the chunk's draw tiles (kernels/draw_layout.hpp)
  int chunk_paths;
  int steps;
  int first_block; ///< the group's first block in the launch
  int blocks;      ///< its blocks: ceil(chunk_paths / block size)
  models::PathSchedule schedule;
  const models::InstrumentView* instruments; ///< [instrument][scenario]
  int instrument_count;                      ///< base instruments
  int scenarios;                             ///< 1, or the Greeks' scenarios
  int values_per_instrument;                 ///< engine::GroupPlan::values_per_instrument()
  int control_variate;                       ///< 1: reduce each instrument's control too
  int antithetic;                            ///< 1: paths in pairs (lanes 2k, 2k + 1)
  int greek_count;
  const double* greek_weights; ///< [greek][scenario]
  int delta_greek; ///< which Greek is delta (-1: none): pathwise where the instrument allows
  ReductionTarget reduction;
};

/// Antithetic pairs are adjacent lanes: the even lane gets the pair's mean, the odd lane 0, so
/// sums and sums of squares are over pair means (whose variance is the estimator's). Every
/// lane of the warp must call it. The CPU backend computes (x_even + x_odd) * 0.5 the same way.
__device__ __forceinline__ double pair_mean(double x) {
  const double other = __shfl_xor_sync(0xffffffffu, x, 1);
  return (threadIdx.x & 1) ? 0.0 : (x + other) * 0.5;
}

/// After the step loop: every instrument of the group paid off on this path (with its control
/// and Greek estimates when asked), the values reduced by the last-block reduction. A separate,
/// never-inlined function of the group type: the kernels of one model (every loader and
/// distance) share one copy, which keeps the build time and the kernels' register pressure in
/// check — it runs once per path. Every thread of the block must call it.
template <class Group, class Real>
__device__ __noinline__ void pay_and_reduce(const Group& group, const Real* observed, bool active,
                                            int block, double* scratch) {
  const auto observed_at = [&](int o) { return observed[o]; };
  if (group.values_per_instrument == 2 && group.scenarios == 1) {
    // Prices only: values in passes of kReduceBatch; pair j < instruments is (payoff,
    // payoff²) of instrument j, pair `instruments` is the portfolio's (complete by then: pairs
    // go in order).
    constexpr int kPairsPerPass = kReduceBatch / 2;
    const int pairs = group.instrument_count + 1;
    double portfolio = 0.0;
    for (int first = 0; first < pairs; first += kPairsPerPass) {
      const int count = min(kPairsPerPass, pairs - first);
      double value[kPairsPerPass];
#pragma unroll
      for (int k = 0; k < kPairsPerPass; ++k) {
        const int j = first + k;
        value[k] = 0.0;
        if (j < group.instrument_count) {
          if (active) {
            const models::InstrumentView& instrument = group.instruments[j];
            value[k] = models::discounted_payoff(instrument, observed_at);
            portfolio += value[k] * instrument.quantity;
          }
        } else if (j == group.instrument_count) {
          value[k] = portfolio;
        }
      }
      if (group.antithetic) {
#pragma unroll
        for (int k = 0; k < kPairsPerPass; ++k)
          value[k] = pair_mean(value[k]);
      }
      block_partials(scratch, group.reduction, block, 2 * first, 2 * count, [&](int k) {
        const double x = value[k / 2];
        return k % 2 ? x * x : x;
      });
    }
  } else {
    // Control variates and/or Greeks: per base instrument its payoff y, control c and Greek
    // estimates g (combinations of the scenarios' payoffs on this path), then
    // [y, y², (c, c², y c), (g, g²)...]. Dynamic indices: these arrays live in local memory,
    // once per path.
    const int K = group.values_per_instrument;
    const int S = group.scenarios;
    const int n = group.instrument_count;
    const int per_pass = kReduceBatch / K;
    double portfolio = 0.0;
    for (int first = 0; first <= n; first += per_pass) {
      double vals[kReduceBatch];
      int count = 0;
      for (int i = 0; i < per_pass && first + i <= n; ++i) {
        const int j = first + i;
        if (j == n) {
          const double x = group.antithetic ? pair_mean(portfolio) : portfolio;
          vals[count++] = x;
          vals[count++] = x * x;
          continue;
        }
        double y = 0.0, c = 0.0;
        double g[kMaxGreeks];
        for (int k = 0; k < kMaxGreeks; ++k)
          g[k] = 0.0;
        if (active) {
          double v[models::kMaxScenarios];
          for (int sc = 0; sc < S; ++sc)
            v[sc] = models::discounted_payoff(group.instruments[j * S + sc], observed_at);
          y = v[0];
          portfolio += y * group.instruments[j * S].quantity;
          if (group.control_variate)
            c = models::discounted_control(group.instruments[j * S], observed_at);
          const models::InstrumentView& base = group.instruments[j * S];
          for (int k = 0; k < group.greek_count; ++k) {
            double e = 0.0;
            if (k == group.delta_greek && base.pathwise_delta != 0.0) {
              e = models::pathwise_delta(base, observed_at);
            } else {
              for (int sc = 0; sc < S; ++sc)
                e += group.greek_weights[k * S + sc] * v[sc];
            }
            g[k] = e;
          }
        }
        if (group.antithetic) {
          y = pair_mean(y);
          c = pair_mean(c);
          for (int k = 0; k < group.greek_count; ++k)
            g[k] = pair_mean(g[k]);
        }
        vals[count++] = y;
        vals[count++] = y * y;
        if (group.control_variate) {
          vals[count++] = c;
          vals[count++] = c * c;
          vals[count++] = y * c;
        }
        for (int k = 0; k < group.greek_count; ++k) {
          vals[count++] = g[k];
          vals[count++] = g[k] * g[k];
        }
      }
      block_partials(scratch, group.reduction, block, first * K, count,
                     [&](int k) { return vals[k]; });
    }
  }
  finish_in_last_block(group.reduction, block, group.blocks);
}

/// What a launch shares, by value.
template <class Model, class Real>
struct PathKernelParams {
  const GroupParams<Model, Real>* groups; ///< ordered by first_block
  int group_count;
  RingLayout ring;
  int prefetch_distance; ///< for loaders that take it at run time
  int scratch_offset;    ///< bytes of dynamic shared memory before the reduction's scratch
  int reduce;            ///< 0: stop after the step loop (to measure the reduction's cost)
};

template <class Model>
constexpr auto requires_register_floor(int) -> decltype(Model::register_floor, bool()) {
  return true;
}
template <class Model>
constexpr bool requires_register_floor(...) {
  return false;
}

/// A model may ask for more registers than a loader's budget (Model::register_floor, at most 64
/// so that a 1024-thread block still launches): Heston in double spilled 380 bytes a thread at
/// the 40-register budget of `none`.
template <class Model>
constexpr int model_register_floor() {
  if constexpr (requires_register_floor<Model>(0))
    return Model::register_floor;
  return 0;
}

template <class Model, class Loader, class Real>
// Registers: each loader states its budget (Loader::register_budget, at most 64 so that a
// 1024-thread block always launches). Left to itself under __launch_bounds__(1024, 1) ptxas
// took 55-64 registers for every loader (occupancy 56% with 128-thread blocks, sm_90, nvcc
// 13.0); loaders whose look-ahead lives in shared memory or L2 run without spills in 40
// (occupancy 75%), register rings need up to 64.
__global__ void __maxnreg__(Loader::register_budget > model_register_floor<Model>()
                                ? Loader::register_budget
                                : model_register_floor<Model>())
    path_kernel(const __grid_constant__ PathKernelParams<Model, Real> p) {
  static_assert(std::is_trivially_copyable_v<PathKernelParams<Model, Real>>);
  static_assert(std::is_trivially_copyable_v<GroupParams<Model, Real>>);
  extern __shared__ __align__(16) unsigned char shared[];

  // Which group this block works for (the last one whose first block is at or below it), its
  // parameters staged in shared memory for the whole block.
  __shared__ GroupParams<Model, Real> group;
  if (threadIdx.x == 0) {
    int lo = 0;
    int hi = p.group_count - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (p.groups[mid].first_block <= static_cast<int>(blockIdx.x)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    group = p.groups[lo];
  }
  __syncthreads();
  const int block = static_cast<int>(blockIdx.x) - group.first_block;

  const int block_first = block * static_cast<int>(blockDim.x);
  const int path = block_first + static_cast<int>(threadIdx.x);
  const bool active = path < group.chunk_paths;
  const std::size_t rows = static_cast<std::size_t>(group.steps) * Model::factors;
  const LoaderInputs<Real> inputs{
      group.normals +
          draw_offset(static_cast<std::size_t>(active ? path : group.chunk_paths - 1), 0, rows),
      group.normals + draw_offset(static_cast<std::size_t>(block_first), 0, rows),
      min(static_cast<int>(blockDim.x), group.chunk_paths - block_first),
      group.steps,
      p.prefetch_distance,
      p.ring};
  Loader loader(shared, inputs);

  Real observed[models::kMaxObservations];
  models::Path<Model, Real> simulated(group.model, group.schedule, observed);
  loader.run(models::PathStepper<Model, Real>{simulated});
  if (!p.reduce) {
    // Benchmark of the kernel without its reduction: a store that depends on every path keeps
    // the path alive (never taken for a finite path).
    if (simulated.is_nan())
      group.reduction.totals[0] = 1.0;
    return;
  }
  simulated.finish();

  double* scratch = reinterpret_cast<double*>(shared + p.scratch_offset);
  pay_and_reduce(group, static_cast<const Real*>(observed), active, block, scratch);
}

} // namespace pfmc::kernels
