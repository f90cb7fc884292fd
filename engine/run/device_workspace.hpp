#pragma once
// What a GPU run sets up on its device and a warm process keeps for the next run there: the two
// streams, the two draw buffers (grown to the largest run so far, under each run's memory cap),
// the page-locked host memory the sums come back to, and the launch pacer. Made once per device
// and worker slot (a split run may put two workers on one device: slots 0 and 1); a run leases
// it, and a second run on the same slot at the same time (two Python threads) gets one of its
// own for that run. So a warm run makes no stream and no page-locked allocation, and frees none
// (cudaFreeHost waits for the whole device); a fresh device's runner took 2–6 ms to set up
// before (docs/decisions.md#device-workspace).

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/core/cuda_resources.hpp"
#include "engine/run/gpu_streams.hpp"

namespace pfmc::engine {

/// Page-locked host memory handed out in pieces until reset(): blocks grow, none is given back.
class PinnedArena {
public:
  /// Room for `count` T's (64-byte aligned), valid until reset().
  template <class T>
  T* take(std::size_t count) {
    return static_cast<T*>(take_bytes(count * sizeof(T)));
  }
  /// Every piece free again (nothing may still be copied into them).
  void reset() {
    block_ = 0;
    used_ = 0;
  }

private:
  void* take_bytes(std::size_t bytes);
  std::vector<std::unique_ptr<PinnedBuffer<unsigned char>>> blocks_;
  std::size_t block_ = 0; ///< the block pieces come from
  std::size_t used_ = 0;  ///< bytes of it handed out
};

class DeviceWorkspace {
public:
  /// Made on `device`, which must be the calling thread's current device.
  explicit DeviceWorkspace(int device);
  DeviceWorkspace(const DeviceWorkspace&) = delete;
  DeviceWorkspace& operator=(const DeviceWorkspace&) = delete;

  [[nodiscard]] int device() const { return device_; }
  [[nodiscard]] int multiprocessors() const { return multiprocessors_; }
  /// cuRAND's generators run on the rng stream, which keeps the legacy default stream's order: a
  /// scrambled-Sobol run under a loaded GPU twice read other draws than it should (v15: the
  /// chunked run against the whole, the GPU against the CPU) while everything of ours there is
  /// ordered by the streams and events; what cuRAND's host API may issue outside the generator's
  /// stream is then ordered too. Philox draws never touch the legacy stream: no cost to them.
  [[nodiscard]] cudaStream_t rng_stream() const { return rng_stream_.get(); }
  [[nodiscard]] cudaStream_t compute_stream() const { return compute_stream_.get(); }
  DrawSlots& draws() { return draws_; }
  PinnedArena& pinned() { return pinned_; }
  LaunchPacer& pacer() { return pacer_; }
  /// A run begins: its pieces of pinned memory are free again, and draw buffers larger than its
  /// memory cap (kept from a larger run) go back to the device's pool.
  void begin_run(std::uint64_t memory_cap);

private:
  int device_;
  int multiprocessors_ = 1;
  // Declared first: the streams outlive the buffers and events ordered on them.
  CudaStream rng_stream_{CudaStream::Ordering::with_legacy_stream};
  CudaStream compute_stream_;
  DrawSlots draws_;
  PinnedArena pinned_;
  LaunchPacer pacer_;
};

/// A workspace for one run on the calling thread's current device, slot `slot`: the process's
/// kept one where no other run holds it, else one made for this run alone.
class WorkspaceLease {
public:
  explicit WorkspaceLease(int slot = 0);
  WorkspaceLease(const WorkspaceLease&) = delete;
  WorkspaceLease& operator=(const WorkspaceLease&) = delete;
  ~WorkspaceLease();
  DeviceWorkspace& operator*() const { return *workspace_; }
  DeviceWorkspace* operator->() const { return workspace_; }

private:
  DeviceWorkspace* workspace_ = nullptr;
  std::unique_lock<std::mutex> hold_;
  std::unique_ptr<DeviceWorkspace> own_;
};

} // namespace pfmc::engine
