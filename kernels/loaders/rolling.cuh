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
// slot-major); the distance is a run-time value. Plain loads go through a register on their way
// to shared memory, so each refill waits in a two-deep register queue before its store: two
// loop iterations of latency are hidden, however far ahead the ring reaches (cp.async, in
// `smem_rolling_async`, has no such limit).

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
      if (base + Distance <= in_.steps) {
        // A whole lap of the ring: take the Distance values, refill every slot with the step
        // Distance ahead, hand the lap to the path as one batch.
        Real z[Distance][Factors];
#pragma unroll
        for (int k = 0; k < Distance; ++k) {
#pragma unroll
          for (int f = 0; f < Factors; ++f)
            z[k][f] = ring[k][f];
          if (base + k + Distance < in_.steps) {
#pragma unroll
            for (int f = 0; f < Factors; ++f) {
              ring[k][f] = Load::load(draw_address<Factors>(in_, base + k + Distance, f));
            }
          }
        }
        body.template batch<Distance>(base, z);
      } else {
#pragma unroll
        for (int k = 0; k < Distance; ++k) {
          if (base + k < in_.steps) {
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
    // Plain loads reach shared memory through registers, and the store waits for the load. A
    // value loaded at step s (for step s + distance) waits in a two-deep register queue and is
    // stored at step s + 2, into the slot step s used; that slot is read again at step
    // s + distance. So two loads are in flight; for distance 1 and 2 the store comes earlier,
    // right before the slot is read.
    constexpr int kQueue = 2;
    Real queued[kQueue][Factors];
    int queued_slot[kQueue] = {-1, -1};
    int slot = 0;
#pragma unroll 1
    for (int step = 0; step < in_.steps; ++step) {
      // Store the oldest queued value, or any value whose slot is read now.
#pragma unroll
      for (int q = 0; q < kQueue; ++q) {
        if (queued_slot[q] >= 0 && (q == 0 || queued_slot[q] == slot)) {
#pragma unroll
          for (int f = 0; f < Factors; ++f) {
            ring_[ring_index(in_.ring, queued_slot[q], f)] = queued[q][f];
          }
          queued_slot[q] = -1;
        }
      }
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = ring_[ring_index(in_.ring, slot, f)];
        // Shift the queue and load the step `distance` ahead into its tail.
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        queued[0][f] = queued[1][f];
      queued_slot[0] = queued_slot[1];
      queued_slot[1] = -1;
      if (step + distance < in_.steps) {
#pragma unroll
        for (int f = 0; f < Factors; ++f) {
          queued[1][f] = ptx::load(draw_address<Factors>(in_, step + distance, f));
        }
        queued_slot[1] = slot;
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
