#pragma once
// Rolling prefetching: the draws of step s + Distance are requested while step s is computed.
//
// `scalar_rolling` keeps a register ring. Indexed by `step % Distance` it would live in local
// memory (the slowdown reported in the post this design follows); here the loop is unrolled
// Distance times so every ring index is a compile-time constant and the ring stays in
// registers. `l2_hint_256b` is the same ring with loads that ask L2 for whole 256-byte blocks
// (.L2::256B), so a warp's load also brings the next warp's line.
//
// `smem_rolling` keeps the ring in the thread's own slots of shared memory (padded or
// slot-major); the distance is a run-time value. The refill's load is issued before the step's
// body and stored after it, so its latency overlaps one body.

#include "kernels/loader_common.cuh"
#include "kernels/ptx.cuh"

namespace pfmc::kernels {

struct PlainLoad {
  static constexpr const char* name = "scalar_rolling";
  template <class Real>
  __device__ __forceinline__ static Real load(const Real* p) {
    return ptx::load(p);
  }
};

struct Load256B {
  static constexpr const char* name = "l2_hint_256b";
  template <class Real>
  __device__ __forceinline__ static Real load(const Real* p) {
    return ptx::load_l2_256b(p);
  }
};

template <class Real, int Factors, int Distance, class Load>
class RegisterRingLoader {
public:
  static constexpr const char* name = Load::name;
  static std::size_t shared_bytes(int, const RingLayout&, int) { return 0; }

  __device__ RegisterRingLoader(unsigned char*, const LoaderInputs<Real>& in) : in_(in) {}

  template <class Body>
  __device__ __forceinline__ void run(Body&& body) {
    Real ring[Distance][Factors];
#pragma unroll
    for (int k = 0; k < Distance; ++k) {
      if (k < in_.steps) {
#pragma unroll
        for (int f = 0; f < Factors; ++f) {
          ring[k][f] = Load::load(draw_address<Factors>(in_, k, f));
        }
      }
    }
#pragma unroll 1
    for (int base = 0; base < in_.steps; base += Distance) {
#pragma unroll
      for (int k = 0; k < Distance; ++k) {
        const int step = base + k;
        if (step < in_.steps) {
          Real z[Factors];
#pragma unroll
          for (int f = 0; f < Factors; ++f)
            z[f] = ring[k][f];
          if (step + Distance < in_.steps) {
#pragma unroll
            for (int f = 0; f < Factors; ++f) {
              ring[k][f] = Load::load(draw_address<Factors>(in_, step + Distance, f));
            }
          }
          body(step, z);
        }
      }
    }
  }

private:
  LoaderInputs<Real> in_;
};

template <class Real, int Factors, int Distance>
using ScalarRollingLoader = RegisterRingLoader<Real, Factors, Distance, PlainLoad>;
template <class Real, int Factors, int Distance>
using L2Hint256Loader = RegisterRingLoader<Real, Factors, Distance, Load256B>;

/// Distance at run time (the template's Distance is 0).
template <class Real, int Factors, int Distance>
class SmemRollingLoader {
public:
  static constexpr const char* name = "smem_rolling";
  static std::size_t shared_bytes(int, const RingLayout& ring, int) {
    return per_thread_ring_bytes<Real, Factors>(ring);
  }

  __device__ SmemRollingLoader(unsigned char* shared, const LoaderInputs<Real>& in)
      : in_(in), ring_(reinterpret_cast<Real*>(shared)) {}

  template <class Body>
  __device__ __forceinline__ void run(Body&& body) {
    const int distance = in_.prefetch_distance;
    for (int k = 0; k < distance && k < in_.steps; ++k) {
#pragma unroll
      for (int f = 0; f < Factors; ++f) {
        ring_[ring_index(in_.ring, k, f)] = ptx::load(draw_address<Factors>(in_, k, f));
      }
    }
    int slot = 0;
#pragma unroll 1
    for (int step = 0; step < in_.steps; ++step) {
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = ring_[ring_index(in_.ring, slot, f)];
      const bool refill = step + distance < in_.steps;
      Real next[Factors];
      if (refill) {
#pragma unroll
        for (int f = 0; f < Factors; ++f) {
          next[f] = ptx::load(draw_address<Factors>(in_, step + distance, f));
        }
      }
      body(step, z);
      if (refill) {
#pragma unroll
        for (int f = 0; f < Factors; ++f)
          ring_[ring_index(in_.ring, slot, f)] = next[f];
      }
      slot = slot + 1 == distance ? 0 : slot + 1;
    }
  }

private:
  LoaderInputs<Real> in_;
  Real* ring_;
};

} // namespace pfmc::kernels
