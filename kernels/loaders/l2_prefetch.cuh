#pragma once
// L2 prefetching: plain loads of each step, plus a request that L2 fetch the draws of step
// s + distance (distance at run time).
//   `l2_prefetch`            prefetch.global.L2 by every thread for its own draw
//   `l2_prefetch_evict_last` the same with the ::evict_last priority
//   `bulk_l2` (sm_90)        one thread per block: cp.async.bulk.prefetch.L2 of the block's
//                            contiguous row of the step (all its paths at once)

#include "kernels/loader_common.cuh"
#include "kernels/ptx.cuh"

namespace pfmc::kernels {

struct PrefetchL2 {
  static constexpr const char* name = "l2_prefetch";
  __device__ __forceinline__ static void prefetch(const void* p) { ptx::prefetch_l2(p); }
};
struct PrefetchL2EvictLast {
  static constexpr const char* name = "l2_prefetch_evict_last";
  __device__ __forceinline__ static void prefetch(const void* p) { ptx::prefetch_l2_evict_last(p); }
};

template <class Real, int Factors, int Distance, class Prefetch>
class ThreadPrefetchLoader {
public:
  static constexpr const char* name = Prefetch::name;
  static constexpr int register_budget =
      40; ///< look-ahead outside registers: 40 registers, occupancy 75% (no spills)
  static std::size_t shared_bytes(int, const RingLayout&, int) { return 0; }

  __device__ ThreadPrefetchLoader(unsigned char*, const LoaderInputs<Real>& in) : in_(in) {}

  template <class Body>
  __device__ __forceinline__ void run(Body&& body) {
    const int distance = in_.prefetch_distance;
    for (int k = 0; k < distance && k < in_.steps; ++k) {
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        Prefetch::prefetch(draw_address<Factors>(in_, k, f));
    }
#pragma unroll 1
    for (int step = 0; step < in_.steps; ++step) {
      if (step + distance < in_.steps) {
#pragma unroll
        for (int f = 0; f < Factors; ++f) {
          Prefetch::prefetch(draw_address<Factors>(in_, step + distance, f));
        }
      }
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = ptx::load(draw_address<Factors>(in_, step, f));
      body(step, z);
    }
  }

private:
  LoaderInputs<Real> in_;
};

template <class Real, int Factors, int Distance>
using L2PrefetchLoader = ThreadPrefetchLoader<Real, Factors, Distance, PrefetchL2>;
template <class Real, int Factors, int Distance>
using L2PrefetchEvictLastLoader =
    ThreadPrefetchLoader<Real, Factors, Distance, PrefetchL2EvictLast>;

template <class Real, int Factors, int Distance>
class BulkL2Loader {
public:
  static constexpr const char* name = "bulk_l2";
  static constexpr int register_budget =
      40; ///< look-ahead outside registers: 40 registers, occupancy 75% (no spills)
  static std::size_t shared_bytes(int, const RingLayout&, int) { return 0; }

  __device__ BulkL2Loader(unsigned char*, const LoaderInputs<Real>& in) : in_(in) {}

  template <class Body>
  __device__ __forceinline__ void run(Body&& body) {
    const int distance = in_.prefetch_distance;
    const bool issuer = threadIdx.x == 0;
    if (issuer) {
      for (int k = 0; k < distance && k < in_.steps; ++k)
        prefetch_step(k);
    }
#pragma unroll 1
    for (int step = 0; step < in_.steps; ++step) {
      if (issuer && step + distance < in_.steps)
        prefetch_step(step + distance);
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = ptx::load(draw_address<Factors>(in_, step, f));
      body(step, z);
    }
  }

private:
  /// The block's whole row (blockDim.x paths, inside the draw tile even for a partial block).
  __device__ __forceinline__ void prefetch_step(int step) const {
    const auto bytes = static_cast<std::uint32_t>(blockDim.x * sizeof(Real));
#pragma unroll
    for (int f = 0; f < Factors; ++f) {
      ptx::bulk_prefetch_l2(
          in_.block_draws + static_cast<std::size_t>(step * Factors + f) * kRowStride, bytes);
    }
  }

  LoaderInputs<Real> in_;
};

} // namespace pfmc::kernels
