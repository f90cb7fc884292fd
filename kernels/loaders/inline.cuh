#pragma once
// `inline`: no draw buffer and no generation pass. Each step's draws are computed in the step
// loop from the counter-based generator (kernels/counter_draws.cuh), in registers: a thread
// simulates the kPathsPerCall<Real> consecutive paths that one generator call serves (4 in
// float, 2 in double), so every word of every call is used. The draws are the same bits the
// generation kernel writes for the other backends, so `inline` prices are those of `none`.
//
// Steps go to the path in batches of kBatch (models::Path::advance_batch): the batch's
// generator calls are independent of the path's state, so they fill the issue slots the path's
// dependent chain leaves idle.

#include "kernels/counter_draws.cuh"
#include "kernels/loader_common.cuh"

namespace pfmc::kernels {

/// Steps per batch of `inline`: 4 in float; 2 in double, whose draws and states take twice the
/// registers (measured: 4 in double spilled 1.1 KB a thread under the 64-register budget).
template <class Real>
inline constexpr int kInlineBatch = sizeof(Real) == 8 ? 2 : 4;

template <class Real, int Factors, int Distance, int kBatch, class Profile = math::Accurate>
class InlineBatchLoader {
public:
  static constexpr const char* name = "inline";
  static constexpr int paths_per_thread = kPathsPerCall<Real>;
  /// The batch's draws and the generator's state live in registers: up to 64.
  static constexpr int register_budget = 64;
  static std::size_t shared_bytes(int, const RingLayout&, int) { return 0; }

  __device__ explicit InlineBatchLoader(unsigned char*) {}

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) const {
    constexpr int P = paths_per_thread;
#pragma unroll 1
    for (int base = 0; base < in.steps; base += kBatch) {
      if (base + kBatch <= in.steps) {
        Real z[kBatch][P][Factors];
#pragma unroll
        for (int d = 0; d < kBatch; ++d)
          draws(in, base + d, z[d]);
        body.template batch<kBatch>(base, z);
      } else {
#pragma unroll 1
        for (int step = base; step < in.steps; ++step) {
          Real z[P][Factors];
          draws(in, step, z);
          body(step, z);
        }
      }
    }
  }

private:
  /// The thread's paths' draws of every factor of one step.
  __device__ __forceinline__ static void draws(const LoaderInputs<Real>& in, int step,
                                               Real (&z)[paths_per_thread][Factors]) {
    constexpr int P = paths_per_thread;
#pragma unroll
    for (int f = 0; f < Factors; ++f) {
      Real n[P];
      philox_normals<Real, Profile>(in.seed, in.group, in.first_call,
                                    static_cast<std::uint32_t>(step * Factors + f), n);
#pragma unroll
      for (int p = 0; p < P; ++p) {
        // Antithetic pairs (2k, 2k + 1) lie inside one call: the odd path takes −z of the even.
        z[p][f] = (p & 1) && in.antithetic ? -n[p - 1] : n[p];
      }
    }
  }
};

/// `inline` as the registry names it (kernels/launcher_table.cuh), for a model of math profile
/// Profile (its Model::Math: the draws are that profile's).
template <class Profile>
struct InlineLoaders {
  template <class Real, int Factors, int Distance>
  using Batch = InlineBatchLoader<Real, Factors, Distance, kInlineBatch<Real>, Profile>;
  template <class Real, int Factors, int Distance>
  using Step = InlineBatchLoader<Real, Factors, Distance, 1, Profile>;
};
template <class Real, int Factors, int Distance>
using InlineLoader =
    typename InlineLoaders<math::Accurate>::template Batch<Real, Factors, Distance>;

/// One step at a time: early exercise's kernel, whose steps may each end on an exercise date
/// (batches would copy the exercise decision into every step of the batch: measured, the
/// 3-asset float basket's kernel took ptxas 5 minutes).
template <class Real, int Factors, int Distance>
using InlineStepLoader =
    typename InlineLoaders<math::Accurate>::template Step<Real, Factors, Distance>;

} // namespace pfmc::kernels
