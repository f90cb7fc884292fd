#include "engine/scale/device_threads.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "base/error.hpp"
#include "base/trace.hpp"
#include "engine/run/device_workspace.hpp"
#include "kernels/compile/compiled_kernels.hpp"

namespace pfmc::engine {

namespace {

/// One worker's thread and its queue. Never joined: it waits for tasks until the process ends
/// (its CUDA resources would outlive the runtime's teardown at exit otherwise).
class DeviceThread {
public:
  DeviceThread(int device, int slot) : device_(device), slot_(slot) {
    std::thread([this] { serve(); }).detach();
  }
  std::future<void> submit(std::function<void()> task) {
    // The task counts its compiles where its submitter does (a run's, kernels/compile).
    std::packaged_task<void()> packaged(
        [task = std::move(task), counter = kernels::compile::current_counter()] {
          const kernels::compile::CompileScope scope(counter);
          task();
        });
    std::future<void> done = packaged.get_future();
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(packaged));
    }
    ready_.notify_one();
    return done;
  }
  /// Whether opening was asked for already.
  bool mark_opening() { return std::exchange(opening_, true); }
  [[nodiscard]] int slot() const { return slot_; }
  [[nodiscard]] int device() const { return device_; }

private:
  void serve() {
    // The device is set once; a failure here shows in every task (the next cudaSetDevice).
    (void)cudaSetDevice(device_);
    for (;;) {
      std::packaged_task<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  int device_;
  int slot_;
  bool opening_ = false; ///< under the registry's lock
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<void()>> tasks_;
};

struct Registry {
  std::mutex mutex;
  std::map<std::pair<int, int>, std::unique_ptr<DeviceThread>> threads;
};

Registry& registry() {
  static auto* r = new Registry; // never destroyed: its threads run until the process ends
  return *r;
}

DeviceThread& thread_of(int device, int slot) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  auto& t = r.threads[{device, slot}];
  if (t == nullptr)
    t = std::make_unique<DeviceThread>(device, slot);
  return *t;
}

/// The device's context (its creation is most of a fresh device's cost), memory pool and the
/// slot's workspace.
void open_device(int device, int slot) {
  const base::TraceSpan span("open device", device);
  PFMC_CUDA_TRY(cudaSetDevice(device));
  {
    const base::TraceSpan context("context", device);
    PFMC_CUDA_TRY(cudaFree(nullptr));
  }
  const WorkspaceLease workspace(slot);
}

} // namespace

std::future<void> run_on_device(int device, int slot, std::function<void()> task) {
  return thread_of(device, slot).submit([device, task = std::move(task)] {
    PFMC_CUDA_TRY(cudaSetDevice(device));
    task();
  });
}

void open_device_here(int device) {
  open_device(device, 0);
}

void open_devices(const std::vector<int>& devices) {
  const std::vector<int> slots = device_slots(devices);
  for (std::size_t k = 0; k < devices.size(); ++k) {
    DeviceThread& t = thread_of(devices[k], slots[k]);
    bool asked = false;
    {
      const std::lock_guard<std::mutex> lock(registry().mutex);
      asked = t.mark_opening();
    }
    if (!asked) {
      // The future is dropped: a failure shows again when the run uses the device.
      (void)t.submit([device = devices[k], slot = slots[k]] {
        try {
          open_device(device, slot);
        } catch (...) {
        }
      });
    }
  }
}

std::vector<int> device_slots(const std::vector<int>& devices) {
  std::vector<int> slots;
  for (std::size_t k = 0; k < devices.size(); ++k)
    slots.push_back(static_cast<int>(std::count(devices.begin(), devices.begin() + k, devices[k])));
  return slots;
}

} // namespace pfmc::engine
