#pragma once
// A host thread for each worker of a split run (engine/scale/split_run.hpp): one per device and
// slot (slot k: the k-th worker on that device), made on first use and kept for the process, so
// that it sets its device once and a warm process's next run starts at once. Each runs the tasks
// given to it in order. open_devices() starts the devices of a run opening on their threads at
// once — context, memory pool, workspace (engine/run/device_workspace.hpp) — while the caller
// goes on reading the config and planning: a fresh process paid about 130 ms a further device,
// one after another (issue 35).

#include <functional>
#include <future>
#include <vector>

namespace pfmc::engine {

/// Runs `task` on the thread of (device, slot), after the tasks given to it before; the future
/// holds its exception.
std::future<void> run_on_device(int device, int slot, std::function<void()> task);

/// Starts opening each of `devices` on its thread (a repeated ordinal: its next slot); returns
/// at once. Opening an open device costs nothing; a failure shows where the run uses the device.
void open_devices(const std::vector<int>& devices);

/// Opens `device` on the calling thread (its context, memory pool and slot-0 workspace), as
/// open_devices does on the device's own thread; throws what CUDA says.
void open_device_here(int device);

/// The slot of each position of `devices`: how many times its ordinal came before it.
std::vector<int> device_slots(const std::vector<int>& devices);

} // namespace pfmc::engine
