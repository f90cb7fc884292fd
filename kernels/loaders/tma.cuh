#pragma once
// `tma` (sm_90): the bulk-copy engine fills a shared-memory ring of distance + 1 stages, one
// step of the block's draws (every factor) per stage; each stage completes on its own mbarrier
// (arrive.expect_tx by the issuing thread, complete_tx by the copies). One thread issues; every
// thread waits on the stage's barrier phase, then reads its own path's value. A __syncthreads()
// per step guarantees that a slot is refilled only after every thread has read it. Distance at
// run time.

#include <cstdint>

#include "kernels/loader_common.cuh"
#include "kernels/ptx.cuh"

namespace pfmc::kernels {

template <class Real, int Factors, int Distance>
class TmaLoader {
  static constexpr int kBarrierBytes = 256; ///< room for 17 barriers, keeps stages 128-aligned

public:
  static constexpr const char* name = "tma";
  static constexpr int register_budget =
      40; ///< look-ahead outside registers: 40 registers, occupancy 75% (no spills)
  static std::size_t shared_bytes(int block_size, const RingLayout&, int distance) {
    return kBarrierBytes +
           sizeof(Real) * static_cast<std::size_t>(distance + 1) * Factors * block_size;
  }

  __device__ TmaLoader(unsigned char* shared, const LoaderInputs<Real>& in)
      : in_(in), barriers_(reinterpret_cast<std::uint64_t*>(shared)),
        stages_(reinterpret_cast<Real*>(shared + kBarrierBytes)), slots_(in.prefetch_distance + 1) {
    if (threadIdx.x == 0) {
      for (int k = 0; k < slots_; ++k)
        ptx::mbarrier_init(&barriers_[k], 1);
      ptx::fence_mbarrier_init();
    }
    __syncthreads();
  }

  template <class Body>
  __device__ __forceinline__ void run(Body&& body) {
    const int distance = in_.prefetch_distance;
    for (int k = 0; k < distance; ++k)
      issue(k, k);
    int read_slot = 0;
    int write_slot = distance;
    std::uint32_t parity = 0; // of read_slot's current use; flips each lap of the ring
#pragma unroll 1
    for (int step = 0; step < in_.steps; ++step) {
      __syncthreads(); // slot step-1 has been read by everyone: refill it
      issue(step + distance, write_slot);
      ptx::mbarrier_wait_parity(&barriers_[read_slot], parity);
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = stage(read_slot, f)[threadIdx.x];
      body(step, z);
      if (++read_slot == slots_) {
        read_slot = 0;
        parity ^= 1u;
      }
      write_slot = write_slot + 1 == slots_ ? 0 : write_slot + 1;
    }
  }

private:
  __device__ __forceinline__ Real* stage(int slot, int factor) const {
    return stages_ + (slot * Factors + factor) * static_cast<int>(blockDim.x);
  }

  __device__ __forceinline__ void issue(int step, int slot) {
    if (threadIdx.x != 0 || step >= in_.steps)
      return;
    const auto row_bytes = static_cast<std::uint32_t>(blockDim.x * sizeof(Real));
    ptx::mbarrier_arrive_expect_tx(&barriers_[slot], Factors * row_bytes);
#pragma unroll
    for (int f = 0; f < Factors; ++f) {
      ptx::bulk_copy_to_shared(stage(slot, f),
                               in_.block_draws +
                                   static_cast<std::size_t>(step * Factors + f) * kRowStride,
                               row_bytes, &barriers_[slot]);
    }
  }

  LoaderInputs<Real> in_;
  std::uint64_t* barriers_;
  Real* stages_;
  int slots_;
};

} // namespace pfmc::kernels
