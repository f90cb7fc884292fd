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

  static constexpr int paths_per_thread = 1;

  __device__ explicit ThreadPrefetchLoader(unsigned char*) {}

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) {
    const int distance = in.prefetch_distance;
    for (int k = 0; k < distance && k < in.steps; ++k) {
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        Prefetch::prefetch(draw_address<Factors>(in, k, f));
    }
#pragma unroll 1
    for (int step = 0; step < in.steps; ++step) {
      if (step + distance < in.steps) {
#pragma unroll
        for (int f = 0; f < Factors; ++f) {
          Prefetch::prefetch(draw_address<Factors>(in, step + distance, f));
        }
      }
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = ptx::load(draw_address<Factors>(in, step, f));
      body(step, z);
    }
  }
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

  static constexpr int paths_per_thread = 1;

  __device__ explicit BulkL2Loader(unsigned char*) {}

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) {
    const int distance = in.prefetch_distance;
    const bool issuer = threadIdx.x == 0;
    if (issuer) {
      for (int k = 0; k < distance && k < in.steps; ++k)
        prefetch_step(in, k);
    }
#pragma unroll 1
    for (int step = 0; step < in.steps; ++step) {
      if (issuer && step + distance < in.steps)
        prefetch_step(in, step + distance);
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = ptx::load(draw_address<Factors>(in, step, f));
      body(step, z);
    }
  }

private:
  /// The block's whole row (blockDim.x paths, inside the draw tile even for a partial block).
  __device__ __forceinline__ static void prefetch_step(const LoaderInputs<Real>& in, int step) {
    const auto bytes = static_cast<std::uint32_t>(blockDim.x * sizeof(Real));
#pragma unroll
    for (int f = 0; f < Factors; ++f) {
      ptx::bulk_prefetch_l2(
          in.block_draws + static_cast<std::size_t>(step * Factors + f) * kRowStride, bytes);
    }
  }
};

} // namespace pfmc::kernels
