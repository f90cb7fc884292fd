#pragma once
// Rolling prefetching: the draws of step s + Distance are requested while step s is computed.
//
// `scalar_rolling` keeps a register ring. Indexed by `step % Distance` it would live in local
// memory (the slowdown reported in the post this design follows); here the loop goes a whole
// lap of the ring at a time, so every ring index is a compile-time constant and the ring stays
// in registers, and the lap is handed to the path as one batch. `l2_hint_256b` is the same ring
// with loads that ask L2 for whole 256-byte blocks
// (.L2::256B), so a warp's load also brings the next warp's line.
//
// `smem_rolling` keeps the ring in the thread's own slots of shared memory (padded or
// slot-major): every step's slot is refilled with the step Distance ahead. Plain loads reach
// shared memory through a register and the store waits for the load, so a refill stored right
// away (or one or two steps later, both measured) left the bandwidth-bound kernel 8-12% slower
// than `none`; here a lap's refills are stored after the lap has run.

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

  static constexpr int paths_per_thread = 1;

  __device__ explicit RegisterRingLoader(unsigned char*) {}

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) {
    Real ring[Distance][Factors];
#pragma unroll
    for (int k = 0; k < Distance; ++k) {
      if (k < in.steps) {
#pragma unroll
        for (int f = 0; f < Factors; ++f) {
          ring[k][f] = Load::load(draw_address<Factors>(in, k, f));
        }
      }
    }
#pragma unroll 1
    for (int base = 0; base < in.steps; base += Distance) {
      if (base + Distance <= in.steps) {
        // A whole lap of the ring: take the Distance values, refill every slot with the step
        // Distance ahead, hand the lap to the path as one batch.
        Real z[Distance][Factors];
#pragma unroll
        for (int k = 0; k < Distance; ++k) {
#pragma unroll
          for (int f = 0; f < Factors; ++f)
            z[k][f] = ring[k][f];
          if (base + k + Distance < in.steps) {
#pragma unroll
            for (int f = 0; f < Factors; ++f) {
              ring[k][f] = Load::load(draw_address<Factors>(in, base + k + Distance, f));
            }
          }
        }
        body.template batch<Distance>(base, z);
      } else {
#pragma unroll
        for (int k = 0; k < Distance; ++k) {
          if (base + k < in.steps) {
            Real z[Factors];
#pragma unroll
            for (int f = 0; f < Factors; ++f)
              z[f] = ring[k][f];
            body(base + k, z);
          }
        }
      }
    }
  }
};

template <class Real, int Factors, int Distance>
using ScalarRollingLoader = RegisterRingLoader<Real, Factors, Distance, PlainLoad>;
template <class Real, int Factors, int Distance>
using L2Hint256Loader = RegisterRingLoader<Real, Factors, Distance, Load256B>;

template <class Real, int Factors, int Distance>
class SmemRollingLoader {
public:
  static constexpr const char* name = "smem_rolling";
  /// The lap's refills wait in registers until its bodies have run: up to 64.
  static constexpr int register_budget = 64;
  static std::size_t shared_bytes(int, const RingLayout& ring, int) {
    return per_thread_ring_bytes<Real, Factors>(ring);
  }

  static constexpr int paths_per_thread = 1;

  __device__ explicit SmemRollingLoader(unsigned char* shared)
      : ring_(reinterpret_cast<Real*>(shared)) {}

  /// The ring is the thread's own: no barrier between rounds.
  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) {
#pragma unroll
    for (int k = 0; k < Distance; ++k) {
      if (k < in.steps) {
#pragma unroll
        for (int f = 0; f < Factors; ++f) {
          ring_[ring_index(in.ring, k, f)] = ptx::load(draw_address<Factors>(in, k, f));
        }
      }
    }
#pragma unroll 1
    for (int base = 0; base < in.steps; base += Distance) {
      // One lap of the ring: read the lap's Distance steps from shared memory, issue the load
      // of the step Distance ahead for every slot, run the lap, then store the refills (their
      // latency hidden behind the lap's work).
      Real z[Distance][Factors];
      Real refill[Distance][Factors];
#pragma unroll
      for (int k = 0; k < Distance; ++k) {
        if (base + k < in.steps) {
#pragma unroll
          for (int f = 0; f < Factors; ++f)
            z[k][f] = ring_[ring_index(in.ring, k, f)];
        }
        if (base + k + Distance < in.steps) {
#pragma unroll
          for (int f = 0; f < Factors; ++f) {
            refill[k][f] = ptx::load(draw_address<Factors>(in, base + k + Distance, f));
          }
        }
      }
      if (base + Distance <= in.steps) {
        body.template batch<Distance>(base, z);
      } else {
#pragma unroll
        for (int k = 0; k < Distance; ++k) {
          if (base + k < in.steps)
            body(base + k, z[k]);
        }
      }
#pragma unroll
      for (int k = 0; k < Distance; ++k) {
        if (base + k + Distance < in.steps) {
#pragma unroll
          for (int f = 0; f < Factors; ++f)
            ring_[ring_index(in.ring, k, f)] = refill[k][f];
        }
      }
    }
  }

private:
  Real* ring_;
};

} // namespace pfmc::kernels
