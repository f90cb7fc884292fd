#include "engine/device_start.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include "base/trace.hpp"
#include "config/load_config.hpp"
#include "config/setting_rules.hpp"
#include "engine/core/device_info.hpp"
#include "engine/core/visible_devices.hpp"
#include "engine/pricer.hpp"
#include "engine/scale/device_threads.hpp"

namespace pfmc::engine {

namespace {

/// Before the process's first CUDA call: CUDA shows only the GPUs the run will use (the
/// command line's devices, else the config's engine.devices; an MPI rank's GPU by its local
/// rank). A config that cannot be read narrows nothing: the run reports what is wrong with it.
void narrow_devices(const DeviceStartOptions& o) {
  std::optional<config::DeviceList> devices;
  if (!o.devices.empty()) {
    devices = config::detail::check_devices(o.devices).value;
  } else if (!o.config_file.empty()) {
    devices = config::peek_engine_devices(o.config_file);
  }
  if (!devices)
    return;
  using Kind = config::DeviceList::Kind;
  switch (devices->kind) {
  case Kind::first:
    if (o.processes == nullptr) {
      narrow_visible_devices(1);
    } else if (const int gpus = gpus_without_cuda(); gpus > 0) {
      narrow_to_device(local_rank() % gpus);
    }
    break;
  case Kind::count:
    narrow_visible_devices(devices->count);
    break;
  case Kind::list:
    narrow_visible_devices(*std::max_element(devices->ordinals.begin(), devices->ordinals.end()) +
                           1);
    break;
  case Kind::all:
    break;
  }
}

} // namespace

DeviceStart::DeviceStart(const DeviceStartOptions& options) {
  if (options.on_cpu)
    return;
  if (options.narrow)
    narrow_devices(options);
  thread_ = std::thread([this] {
    const auto start = std::chrono::steady_clock::now();
    const base::TraceSpan span("CUDA start: device 0's context");
    if (query_device().available) {
      try {
        open_device_here(0); // its workspace too, before the run asks for it
      } catch (const std::exception&) {
        // the run meets the same failure and reports it
      }
    }
    context_ms_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  });
}

DeviceStart::~DeviceStart() {
  join();
}

void DeviceStart::join() {
  if (thread_.joinable())
    thread_.join();
}

double DeviceStart::finish(const config::RunConfig& config) {
  prepare_devices(config); // the other devices open beside device 0's start
  join();
  return context_ms_;
}

} // namespace pfmc::engine
