#pragma once
// The GPU runner's stream discipline (engine/run/gpu_engine.cu): two draw buffers whose
// generation (rng stream) and reads (compute stream) are ordered by events, and a pacer that
// keeps the host at most two launches ahead of the GPU.

#include <cuda_runtime.h>

#include <cstddef>

#include "base/trace.hpp"
#include "engine/core/cuda_resources.hpp"

namespace pfmc::engine {

/// Two draw buffers: the generation of one overlaps the kernels reading the other. They grow to
/// the largest request and are kept (engine/run/device_workspace.hpp keeps them between runs).
class DrawSlots {
public:
  DrawSlots(cudaStream_t rng_stream, cudaStream_t compute_stream)
      : rng_stream_(rng_stream), compute_stream_(compute_stream) {}

  /// The next slot, with room for `values` draws, ready for generation on the rng stream (after
  /// the kernels that last read it).
  template <class Real>
  Real* acquire(std::size_t values) {
    current_ = 1 - current_;
    Slot& s = slots_[current_];
    if (s.used)
      PFMC_CUDA_TRY(cudaStreamWaitEvent(rng_stream_, s.free.get(), 0));
    const std::size_t bytes = values * sizeof(Real);
    if (s.buffer.size() < bytes) {
      const base::TraceSpan span("grow a draw buffer");
      s.buffer = DeviceBuffer<unsigned char>(bytes, rng_stream_);
    }
    return reinterpret_cast<Real*>(s.buffer.data()); // the allocator aligns to 256 bytes
  }
  /// The generation into the current slot is enqueued: kernels may read it.
  void generated() {
    Slot& s = slots_[current_];
    s.ready.record(rng_stream_);
    PFMC_CUDA_TRY(cudaStreamWaitEvent(compute_stream_, s.ready.get(), 0));
  }
  /// The kernels reading the current slot are enqueued: generation may overwrite it after them.
  void consumed() {
    Slot& s = slots_[current_];
    s.free.record(compute_stream_);
    s.used = true;
  }
  /// Device memory the slots hold.
  [[nodiscard]] std::size_t bytes() const {
    return slots_[0].buffer.size() + slots_[1].buffer.size();
  }
  /// Gives the buffers back to the device's pool, after the kernels that last read them (a run
  /// that stopped early may have left some queued).
  void release() {
    for (Slot& s : slots_) {
      if (s.used)
        PFMC_CUDA_TRY(cudaStreamWaitEvent(rng_stream_, s.free.get(), 0));
      s.buffer = DeviceBuffer<unsigned char>();
    }
  }

private:
  struct Slot {
    DeviceBuffer<unsigned char> buffer;
    CudaEvent ready, free;
    bool used = false;
  };
  cudaStream_t rng_stream_, compute_stream_;
  Slot slots_[2];
  int current_ = 1;
};

/// At most two path-kernel launches ahead of the GPU. Unpaced, the host enqueued a whole run in
/// its first milliseconds, and a stop request — which withholds new launches — waited for all of
/// it (the portfolio at 400,000,000 paths stopped 7 s after Ctrl-C). After enqueuing launch k the
/// host waits for launch k−1, so launch k+1 is queued while k runs: the GPU does not idle for it.
class LaunchPacer {
public:
  void launched(cudaStream_t stream) {
    events_[next_].record(stream);
    recorded_[next_] = true;
    next_ ^= 1;
    if (recorded_[next_]) {
      const base::TraceSpan span("pace: wait for the launch before");
      PFMC_CUDA_TRY(cudaEventSynchronize(events_[next_].get()));
    }
  }

private:
  CudaEvent events_[2];
  bool recorded_[2] = {false, false};
  int next_ = 0;
};

} // namespace pfmc::engine
