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

namespace pfmc::kernels {

inline constexpr int kMaxBlockSize = 1024;

/// Everything one launch needs, by value (trivially copyable; pointers are device memory).
template <class Model, class Real>
struct PathKernelParams {
  typename Model::Params model;
  const Real* normals; ///< the chunk's draw tiles (kernels/draw_layout.hpp)
  int chunk_paths;
  int steps;
  models::PathSchedule schedule;
  const models::InstrumentView* instruments;
  int instrument_count;
  RingLayout ring;
  int prefetch_distance; ///< for loaders that take it at run time
  int scratch_offset;    ///< bytes of dynamic shared memory before the reduction's scratch
  int reduce;            ///< 0: stop after the step loop (to measure the reduction's cost)
  ReductionTarget reduction;
};

template <class Model, class Loader, class Real>
// Registers: each loader states its budget (Loader::register_budget, at most 64 so that a
// 1024-thread block always launches). Left to itself under __launch_bounds__(1024, 1) ptxas
// took 55-64 registers for every loader (occupancy 56% with 128-thread blocks, sm_90, nvcc
// 13.0); loaders whose look-ahead lives in shared memory or L2 run without spills in 40
// (occupancy 75%), register rings need up to 64.
__global__ void __maxnreg__(Loader::register_budget)
    path_kernel(const __grid_constant__ PathKernelParams<Model, Real> p) {
  static_assert(std::is_trivially_copyable_v<PathKernelParams<Model, Real>>);
  extern __shared__ __align__(16) unsigned char shared[];

  const int block_first = static_cast<int>(blockIdx.x * blockDim.x);
  const int path = block_first + static_cast<int>(threadIdx.x);
  const bool active = path < p.chunk_paths;
  const std::size_t rows = static_cast<std::size_t>(p.steps) * Model::factors;
  const LoaderInputs<Real> inputs{
      p.normals + draw_offset(static_cast<std::size_t>(active ? path : p.chunk_paths - 1), 0, rows),
      p.normals + draw_offset(static_cast<std::size_t>(block_first), 0, rows),
      min(static_cast<int>(blockDim.x), p.chunk_paths - block_first),
      p.steps,
      p.prefetch_distance,
      p.ring};
  Loader loader(shared, inputs);

  Real observed[models::kMaxObservations];
  models::Path<Model, Real> simulated(p.model, p.schedule, observed);
  loader.run(models::PathStepper<Model, Real>{simulated});
  if (!p.reduce) {
    // Benchmark of the kernel without its reduction: a store that depends on every path keeps
    // the path alive (never taken for a finite path).
    if (simulated.is_nan())
      p.reduction.totals[0] = 1.0;
    return;
  }
  simulated.finish();

  // Values in passes of kReduceBatch: pair j < instruments is (payoff, payoff²) of instrument j,
  // pair `instruments` is the portfolio's (complete by then: pairs go in order).
  double* scratch = reinterpret_cast<double*>(shared + p.scratch_offset);
  constexpr int kPairsPerPass = kReduceBatch / 2;
  const int pairs = p.instrument_count + 1;
  double portfolio = 0.0;
  for (int first = 0; first < pairs; first += kPairsPerPass) {
    const int count = min(kPairsPerPass, pairs - first);
    double value[kPairsPerPass];
#pragma unroll
    for (int k = 0; k < kPairsPerPass; ++k) {
      const int j = first + k;
      value[k] = 0.0;
      if (j < p.instrument_count) {
        if (active) {
          const models::InstrumentView& instrument = p.instruments[j];
          value[k] = models::discounted_payoff(instrument, [&](int o) { return observed[o]; });
          portfolio += value[k] * instrument.quantity;
        }
      } else if (j == p.instrument_count) {
        value[k] = portfolio;
      }
    }
    block_partials(scratch, p.reduction, 2 * first, 2 * count, [&](int k) {
      const double x = value[k / 2];
      return k % 2 ? x * x : x;
    });
  }
  finish_in_last_block(p.reduction);
}

} // namespace pfmc::kernels
