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
// slot-major); the distance is a run-time value. Plain loads go through a register on their way
// to shared memory, so each refill is stored one step after it was issued: a loop iteration of
// latency is hidden, however far ahead the ring reaches (cp.async, in `smem_rolling_async`,
// has no such limit).

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
  static constexpr int register_budget = 64; ///< look-ahead in registers: up to 64
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
  static constexpr int register_budget =
      40; ///< look-ahead outside registers: 40 registers, occupancy 75% (no spills)
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
    // The value loaded at step s - 1 (for step s - 1 + distance) is stored at step s: one step
    // of the loop hides its latency before the store needs it. It goes into the slot step s - 1
    // used, which is read again at step s - 1 + distance >= s (for distance 1, right after the
    // store).
    Real pending[Factors];
    int pending_slot = -1;
    int slot = 0;
#pragma unroll 1
    for (int step = 0; step < in_.steps; ++step) {
      if (pending_slot >= 0) {
#pragma unroll
        for (int f = 0; f < Factors; ++f)
          ring_[ring_index(in_.ring, pending_slot, f)] = pending[f];
      }
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = ring_[ring_index(in_.ring, slot, f)];
      pending_slot = -1;
      if (step + distance < in_.steps) {
#pragma unroll
        for (int f = 0; f < Factors; ++f) {
          pending[f] = ptx::load(draw_address<Factors>(in_, step + distance, f));
        }
        pending_slot = slot;
      }
      body(step, z);
      slot = slot + 1 == distance ? 0 : slot + 1;
    }
  }

private:
  LoaderInputs<Real> in_;
  Real* ring_;
};

} // namespace pfmc::kernels
