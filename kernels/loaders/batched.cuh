#pragma once
// Batched prefetching: every Distance steps, load the next Distance steps' draws at once, then
// hand them to the path as one batch (models::Path::advance_batch: the batch's work is one
// basic block). `scalar_batched` keeps the batch in registers (compile-time indices: no
// local memory); `smem_batched` stores it in the thread's own slots of a shared-memory ring
// (padded or slot-major, engine/run/ring_layout.hpp) and reads each step back from there.

#include "kernels/loader_common.cuh"
#include "kernels/ptx.cuh"

namespace pfmc::kernels {

template <class Real, int Factors, int Distance>
class ScalarBatchedLoader {
public:
  static constexpr const char* name = "scalar_batched";
  static constexpr int register_budget = 64; ///< look-ahead in registers: up to 64
  static std::size_t shared_bytes(int, const RingLayout&, int) { return 0; }

  static constexpr int paths_per_thread = 1;

  __device__ explicit ScalarBatchedLoader(unsigned char*) {}

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) {
#pragma unroll 1
    for (int base = 0; base < in.steps; base += Distance) {
      Real z[Distance][Factors];
#pragma unroll
      for (int k = 0; k < Distance; ++k) {
        if (base + k < in.steps) {
#pragma unroll
          for (int f = 0; f < Factors; ++f) {
            z[k][f] = ptx::load(draw_address<Factors>(in, base + k, f));
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
    }
  }
};

template <class Real, int Factors, int Distance>
class SmemBatchedLoader {
public:
  static constexpr const char* name = "smem_batched";
  /// The batch goes back through registers to the path (advance_batch): up to 64.
  static constexpr int register_budget = 64;
  static std::size_t shared_bytes(int, const RingLayout& ring, int) {
    return per_thread_ring_bytes<Real, Factors>(ring);
  }

  static constexpr int paths_per_thread = 1;

  __device__ explicit SmemBatchedLoader(unsigned char* shared)
      : ring_(reinterpret_cast<Real*>(shared)) {}

  /// The ring is the thread's own: no barrier between rounds.
  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) {
#pragma unroll 1
    for (int base = 0; base < in.steps; base += Distance) {
#pragma unroll
      for (int k = 0; k < Distance; ++k) {
        if (base + k < in.steps) {
#pragma unroll
          for (int f = 0; f < Factors; ++f) {
            ring_[ring_index(in.ring, k, f)] = ptx::load(draw_address<Factors>(in, base + k, f));
          }
        }
      }
      Real z[Distance][Factors];
#pragma unroll
      for (int k = 0; k < Distance; ++k) {
        if (base + k < in.steps) {
#pragma unroll
          for (int f = 0; f < Factors; ++f)
            z[k][f] = ring_[ring_index(in.ring, k, f)];
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
    }
  }

private:
  Real* ring_;
};

} // namespace pfmc::kernels
