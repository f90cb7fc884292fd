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
  static constexpr int kMaxSlots = 17;      ///< distance 16 + 1
  static constexpr int kBarrierBytes = 256; ///< room for 17 barriers, keeps stages 128-aligned

public:
  static constexpr const char* name = "tma";
  static constexpr int register_budget =
      40; ///< look-ahead outside registers: 40 registers, occupancy 75% (no spills)
  static std::size_t shared_bytes(int block_size, const RingLayout&, int distance) {
    return kBarrierBytes +
           sizeof(Real) * static_cast<std::size_t>(distance + 1) * Factors * block_size;
  }

  static constexpr int paths_per_thread = 1;

  /// The barriers are initialised once per block; the ring's read position and each slot's
  /// phase carry over from round to round (a round ends with every issued copy consumed).
  __device__ explicit TmaLoader(unsigned char* shared)
      : barriers_(reinterpret_cast<std::uint64_t*>(shared)),
        stages_(reinterpret_cast<Real*>(shared + kBarrierBytes)) {
    if (threadIdx.x == 0) {
      for (int k = 0; k < kMaxSlots; ++k)
        ptx::mbarrier_init(&barriers_[k], 1);
      ptx::fence_mbarrier_init();
    }
    __syncthreads();
  }

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) {
    in_ = in;
    slots_ = in.prefetch_distance + 1;
    const int distance = in.prefetch_distance;
    __syncthreads(); // the previous round's reads of the stages are done
    int write_slot = read_slot_;
    for (int k = 0; k < distance; ++k) {
      issue(k, write_slot);
      write_slot = write_slot + 1 == slots_ ? 0 : write_slot + 1;
    }
#pragma unroll 1
    for (int step = 0; step < in.steps; ++step) {
      __syncthreads(); // slot step-1 has been read by everyone: refill it
      issue(step + distance, write_slot);
      ptx::mbarrier_wait_parity(&barriers_[read_slot_], (phases_ >> read_slot_) & 1u);
      phases_ ^= 1u << read_slot_;
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = stage(read_slot_, f)[threadIdx.x];
      body(step, z);
      read_slot_ = read_slot_ + 1 == slots_ ? 0 : read_slot_ + 1;
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

  LoaderInputs<Real> in_{};
  std::uint64_t* barriers_;
  Real* stages_;
  int slots_ = 1;
  int read_slot_ = 0;
  std::uint32_t phases_ = 0; ///< bit s: the parity slot s's barrier completes next
};

} // namespace pfmc::kernels
