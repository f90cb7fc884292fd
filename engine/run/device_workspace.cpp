#include "engine/run/device_workspace.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "engine/core/device_info.hpp"

namespace pfmc::engine {

namespace {

constexpr std::size_t kPinnedAlignment = 64;
/// The first pinned block, made at open; a run that needs more adds blocks of twice the last
/// (kept for later runs).
constexpr std::size_t kPinnedBlockBytes = std::size_t{1} << 20;

/// The process's kept workspaces, by (device, slot). Never destroyed: their CUDA resources would
/// outlive the runtime at exit.
struct KeptWorkspaces {
  std::mutex mutex;
  std::map<std::pair<int, int>,
           std::pair<std::unique_ptr<DeviceWorkspace>, std::unique_ptr<std::mutex>>>
      by_slot;
};

KeptWorkspaces& kept_workspaces() {
  static auto* kept = new KeptWorkspaces; // never destroyed (see above)
  return *kept;
}

} // namespace

void* PinnedArena::take_bytes(std::size_t bytes) {
  bytes = (std::max<std::size_t>(bytes, 1) + kPinnedAlignment - 1) / kPinnedAlignment *
          kPinnedAlignment;
  while (block_ < blocks_.size() && used_ + bytes > blocks_[block_]->size()) {
    ++block_; // the next kept block, from its start
    used_ = 0;
  }
  if (block_ == blocks_.size()) {
    const std::size_t last = blocks_.empty() ? kPinnedBlockBytes / 2 : blocks_.back()->size();
    blocks_.push_back(std::make_unique<PinnedBuffer<unsigned char>>(std::max(bytes, 2 * last)));
    used_ = 0;
  }
  void* piece = blocks_[block_]->data() + used_;
  used_ += bytes;
  return piece;
}

DeviceWorkspace::DeviceWorkspace(int device)
    : device_(device), draws_(rng_stream_.get(), compute_stream_.get()) {
  retain_device_memory_pool();
  multiprocessors_ = device_properties(device).multiprocessors;
  // What a fresh device's first run paid before its first launch, paid here instead (at open,
  // beside the caller's planning): the first pinned block, the pool's first allocation and the
  // runtime's staging of a copy from pageable memory (15–17 ms of the first unit's set-up on an
  // H200, docs/decisions.md#device-workspace).
  (void)pinned_.take<unsigned char>(1);
  pinned_.reset();
  {
    DeviceBuffer<unsigned char> first(std::size_t{4} << 20, compute_stream_.get());
    const unsigned char byte = 0;
    PFMC_CUDA_TRY(
        cudaMemcpyAsync(first.data(), &byte, 1, cudaMemcpyHostToDevice, compute_stream_.get()));
  }
  compute_stream_.synchronize();
}

void DeviceWorkspace::begin_run(std::uint64_t memory_cap) {
  pinned_.reset();
  if (memory_cap > 0 && draws_.bytes() > memory_cap)
    draws_.release();
}

WorkspaceLease::WorkspaceLease(int slot) {
  int device = 0;
  PFMC_CUDA_TRY(cudaGetDevice(&device));
  KeptWorkspaces& kept = kept_workspaces();
  std::unique_ptr<DeviceWorkspace>* slot_workspace = nullptr;
  {
    const std::lock_guard<std::mutex> lock(kept.mutex);
    auto& entry = kept.by_slot[{device, slot}]; // a map's nodes stay where they are
    if (entry.second == nullptr)
      entry.second = std::make_unique<std::mutex>();
    hold_ = std::unique_lock<std::mutex>(*entry.second, std::try_to_lock);
    slot_workspace = &entry.first;
  }
  if (hold_.owns_lock()) { // made outside the map's lock: other devices' leases do not wait
    if (*slot_workspace == nullptr)
      *slot_workspace = std::make_unique<DeviceWorkspace>(device);
    workspace_ = slot_workspace->get();
  }
  if (workspace_ == nullptr) { // another run holds the kept one
    own_ = std::make_unique<DeviceWorkspace>(device);
    workspace_ = own_.get();
  }
}

WorkspaceLease::~WorkspaceLease() = default;

} // namespace pfmc::engine
