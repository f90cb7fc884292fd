#pragma once
// The cp.async rings: the draws of step s + Distance are copied global → shared asynchronously
// (LDGSTS: no register holds them on the way) while step s is computed.
//
// `smem_rolling_async` is the loader of NVIDIA's prefetching post: each thread owns a ring of
// Distance slots per factor in shared memory (the thread-major or slot-major layouts of the other
// per-thread rings, engine/run/ring_layout.hpp, padded so that a thread-major stride is 2^k + 1).
// Every step it waits until its own copy of the step has landed (cp.async.wait_group
// Distance - 1), reads the slot, refills that slot with the step Distance ahead (one 4- or
// 8-byte __pipeline_memcpy_async per factor) and commits one group: a thread only ever reads
// what it copied itself, so the step loop has no block barrier. The slot is read before its
// refill is issued; the refill's shared-memory write lands only after its global read returns,
// and a thread's LDS and LDGSTS leave in program order, as in the post's loop. The steps' memory
// operations are the post's, one step at a time; their arithmetic goes to the path in groups of
// models::kMaxBatchBlock draws (four steps of one factor, two of two; the reads, copies and
// commits of a group's steps, then the group's steps as one batch). One step at a time, even
// free draws (`ideal` at distance 1) ran latency_bound at 1.67x `none` and this loader at 1.36x
// (docs/decisions.md#async-ring): the step's own dependent chain, which a batch shortens, was the
// limit, not the copies.
//
// `smem_batched_async` keeps that ring but works a lap of Distance steps at a time: the lap's
// values go to the path as one batch, and the next lap's copies are issued before it runs (see
// the class).
//
// `smem_block_async` (called smem_rolling_async before v13) is a block-wide ring of Distance + 1
// stages, each holding one step's draws of the whole block (every factor), filled with 16-byte
// cp.async.cg copies: the block's draws of one row are contiguous (kernels/draw_layout.hpp), so
// each copy moves 4 floats or 2 doubles of consecutive paths and the block shares the work.
// Because a thread reads values other threads copied, its step loop has a __syncthreads(): after
// this thread's wait_group (its own copies of the step have landed) the barrier makes everyone's
// visible, and it also guarantees that the slot refilled next was read by everyone one step
// earlier. Padding does not apply: the stages are slot-major by construction (conflict-free).

#include <cuda_pipeline_primitives.h>

#include "kernels/loader_common.cuh"
#include "kernels/ptx.cuh"
#include "models/path.cuh"

namespace pfmc::kernels {

template <class Real, int Factors, int Distance>
class SmemBlockAsyncLoader {
  static constexpr int kSlots = Distance + 1;
  static constexpr int kPerCopy = 16 / static_cast<int>(sizeof(Real));

public:
  static constexpr const char* name = "smem_block_async";
  static constexpr int register_budget =
      40; ///< look-ahead outside registers: 40 registers, occupancy 75% (no spills)
  static std::size_t shared_bytes(int block_size, const RingLayout&, int) {
    return sizeof(Real) * static_cast<std::size_t>(kSlots) * Factors * block_size;
  }

  static constexpr int paths_per_thread = 1;

  __device__ explicit SmemBlockAsyncLoader(unsigned char* shared)
      : stages_(reinterpret_cast<Real*>(shared)) {}

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) {
    in_ = in;
    __syncthreads(); // the previous round's reads of the stages are done
#pragma unroll
    for (int k = 0; k < Distance; ++k)
      issue(k, k);
    int read_slot = 0;
    int write_slot = Distance;
#pragma unroll 1
    for (int step = 0; step < in_.steps; ++step) {
      ptx::cp_async_wait<Distance - 1>(); // this thread's copies of `step` have landed
      __syncthreads();                    // ... and everyone's; slot step-1 is free
      issue(step + Distance, write_slot);
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = stage(read_slot, f)[threadIdx.x];
      body(step, z);
      read_slot = read_slot + 1 == kSlots ? 0 : read_slot + 1;
      write_slot = write_slot + 1 == kSlots ? 0 : write_slot + 1;
    }
    ptx::cp_async_wait<0>();
  }

private:
  __device__ __forceinline__ Real* stage(int slot, int factor) const {
    return stages_ + (slot * Factors + factor) * static_cast<int>(blockDim.x);
  }

  /// The block's copies of one step into a slot, then a commit (an empty group past the last
  /// step, so every thread counts the same groups).
  __device__ __forceinline__ void issue(int step, int slot) {
    if (step < in_.steps) {
      const int copies_per_row = static_cast<int>(blockDim.x) / kPerCopy;
      for (int c = threadIdx.x; c < Factors * copies_per_row; c += blockDim.x) {
        const int f = c / copies_per_row;
        const int offset = (c % copies_per_row) * kPerCopy;
        ptx::cp_async_16(stage(slot, f) + offset,
                         in_.block_draws +
                             static_cast<std::size_t>(step * Factors + f) * kRowStride + offset);
      }
    }
    ptx::cp_async_commit();
  }

  LoaderInputs<Real> in_;
  Real* stages_;
};

template <class Real, int Factors, int Distance>
class SmemRollingAsyncLoader {
  static_assert(sizeof(Real) == 4 || sizeof(Real) == 8, "cp.async copies 4 or 8 bytes here");
  /// Steps whose arithmetic runs as one batch: the path's basic-block size in draws
  /// (models::kMaxBatchBlock steps of one factor; a basket's four factors go one step at a time,
  /// as before v23 — four steps of them spilled 3.6 KB a thread in double at 64 registers:
  /// docs/decisions.md#batch-block).
  static constexpr int kGroup =
      models::kMaxBatchBlock / Factors > 1 ? models::kMaxBatchBlock / Factors : 1;

public:
  static constexpr const char* name = "smem_rolling_async";
  /// Look-ahead in shared memory; a group's draws and steps in registers: up to 64, as
  /// scalar_batched.
  static constexpr int register_budget = 64;
  static std::size_t shared_bytes(int, const RingLayout& ring, int) {
    return per_thread_ring_bytes<Real, Factors>(ring);
  }

  static constexpr int paths_per_thread = 1;

  __device__ explicit SmemRollingAsyncLoader(unsigned char* shared)
      : ring_(reinterpret_cast<Real*>(shared)) {}

  /// The ring is the thread's own: no barrier anywhere, and every copy has landed on return
  /// (the next round may reuse the slots at once).
  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) {
#pragma unroll
    for (int k = 0; k < Distance; ++k)
      copy(in, k, k);
    int slot = 0;
    int step = 0;
    if constexpr (kGroup > 1) {
#pragma unroll 1
      for (; step + kGroup <= in.steps; step += kGroup) {
        Real z[kGroup][Factors];
#pragma unroll
        for (int k = 0; k < kGroup; ++k)
          take(in, step + k, slot, z[k]);
        body.template batch<kGroup>(step, z);
      }
    }
#pragma unroll 1
    for (; step < in.steps; ++step) { // fewer than a group left (every step where kGroup is 1)
      Real z[Factors];
      take(in, step, slot, z);
      body(step, z);
    }
    ptx::cp_async_wait<0>();
  }

private:
  /// One step's memory operations, as in the post's loop: wait for this thread's group of
  /// `step`, read its slot, refill the slot with step + Distance (and commit), move to the next
  /// slot.
  __device__ __forceinline__ void take(const LoaderInputs<Real>& in, int step, int& slot,
                                       Real (&z)[Factors]) {
    ptx::cp_async_wait<Distance - 1>(); // this thread's group of `step` has landed
#pragma unroll
    for (int f = 0; f < Factors; ++f)
      z[f] = ring_[ring_index(in.ring, slot, f)];
    copy(in, step + Distance, slot);
    slot = slot + 1 == Distance ? 0 : slot + 1;
  }

  /// This thread's copies of one step into a slot, then a commit (an empty group past the last
  /// step, so that wait_group counts the same groups every step).
  __device__ __forceinline__ void copy(const LoaderInputs<Real>& in, int step, int slot) {
    if (step < in.steps) {
#pragma unroll
      for (int f = 0; f < Factors; ++f) {
        __pipeline_memcpy_async(&ring_[ring_index(in.ring, slot, f)],
                                draw_address<Factors>(in, step, f), sizeof(Real));
      }
    }
    ptx::cp_async_commit();
  }

  Real* ring_;
};

/// `smem_batched_async`: the same per-thread ring, consumed a lap at a time. At the start of each
/// lap of Distance steps the thread waits for the lap's copies (issued a whole lap earlier), reads
/// the lap's Distance slots into registers, refills every slot with the step Distance ahead (one
/// commit for the lap) and hands the lap to the path as one batch (models::Path::advance_batch,
/// the dependent chain that batching shortens). The copies land while a lap computes; nothing
/// holds them in registers on the way.
template <class Real, int Factors, int Distance>
class SmemBatchedAsyncLoader {
  static_assert(sizeof(Real) == 4 || sizeof(Real) == 8, "cp.async copies 4 or 8 bytes here");

public:
  static constexpr const char* name = "smem_batched_async";
  /// The lap's values go to the path in registers: up to 64, as scalar_batched.
  static constexpr int register_budget = 64;
  static std::size_t shared_bytes(int, const RingLayout& ring, int) {
    return per_thread_ring_bytes<Real, Factors>(ring);
  }

  static constexpr int paths_per_thread = 1;

  __device__ explicit SmemBatchedAsyncLoader(unsigned char* shared)
      : ring_(reinterpret_cast<Real*>(shared)) {}

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) {
    copy_lap(in, 0);
#pragma unroll 1
    for (int base = 0; base < in.steps; base += Distance) {
      ptx::cp_async_wait<0>(); // the lap's copies have landed
      Real z[Distance][Factors];
#pragma unroll
      for (int k = 0; k < Distance; ++k) {
#pragma unroll
        for (int f = 0; f < Factors; ++f)
          z[k][f] = ring_[ring_index(in.ring, k, f)];
      }
      copy_lap(in, base + Distance);
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
    ptx::cp_async_wait<0>();
  }

private:
  /// The copies of steps first .. first + Distance - 1 (those that exist) into slots 0 ..
  /// Distance - 1, one commit.
  __device__ __forceinline__ void copy_lap(const LoaderInputs<Real>& in, int first) {
#pragma unroll
    for (int k = 0; k < Distance; ++k) {
      if (first + k < in.steps) {
#pragma unroll
        for (int f = 0; f < Factors; ++f) {
          __pipeline_memcpy_async(&ring_[ring_index(in.ring, k, f)],
                                  draw_address<Factors>(in, first + k, f), sizeof(Real));
        }
      }
    }
    ptx::cp_async_commit();
  }

  Real* ring_;
};

} // namespace pfmc::kernels
