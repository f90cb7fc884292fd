#pragma once
// The start of a run, the same for every front end (`pfmc price`, Python's pfmc.price): CUDA
// shown only the GPUs the run needs (engine/core/visible_devices.hpp: for a process that makes
// one run, the CLI's), device 0's context created on a thread while the config is read (on an
// H100 about a tenth of a second), then the run's other devices opened beside it
// (engine/scale/device_threads.hpp).

#include <string>
#include <thread>

#include "config/run_config.hpp"

namespace pfmc::engine {

class Communicator;

struct DeviceStartOptions {
  /// The front end put the run on the CPU (--device cpu, device="cpu"): nothing starts.
  bool on_cpu = false;
  /// Narrow CUDA_VISIBLE_DEVICES to the run's GPUs before the first CUDA call. Only for a process
  /// that makes one run: a narrowing holds for the process (a Python session's later runs could
  /// not use the other GPUs), and it takes no effect after CUDA has started.
  bool narrow = false;
  /// The devices as the command line gave them (config/setting_rules.hpp's check_devices text);
  /// empty: `config_file`'s engine.devices, read without loading the whole config.
  std::string devices;
  std::string config_file;
  /// The MPI ranks splitting the run (null: none): a rank of a `first` run takes its host's GPU
  /// by its local rank.
  const Communicator* processes = nullptr;
};

/// Starts the run's devices; finish() (or the destructor) waits for device 0's context.
class DeviceStart {
public:
  explicit DeviceStart(const DeviceStartOptions& options);
  ~DeviceStart();
  DeviceStart(const DeviceStart&) = delete;
  DeviceStart& operator=(const DeviceStart&) = delete;

  /// Once the config is read: the run's other devices start opening (engine::prepare_devices),
  /// then device 0's context is waited for. The milliseconds its creation took (0 when nothing
  /// started), for the run's device time.
  double finish(const config::RunConfig& config);
  /// Waits for device 0's context without opening the others (the config could not be read).
  void join();

private:
  std::thread thread_;
  double context_ms_ = 0.0;
};

} // namespace pfmc::engine
