#pragma once
// What pfmc needs to know about a GPU (the calling thread's current device, device 0 unless a
// split run set another), and whether there is one at all.

#include <cstddef>
#include <string>

namespace pfmc::engine {

struct DeviceInfo {
  bool available = false;
  std::string unavailable_reason; ///< when !available, e.g. "no CUDA driver"
  std::string name;
  int compute_capability = 0; ///< major*10+minor
  int multiprocessors = 0;
  std::size_t total_memory = 0;
  std::size_t free_memory = 0;
  std::size_t l2_bytes = 0;
  std::size_t shared_memory_per_block_optin = 0;
  int runtime_version = 0;
  int driver_version = 0;
};

/// Which path kernels this build built ahead (CMake's PFMC_KERNELS): "ahead" (kernels/
/// ahead_of_time.hpp's list; the rest compiled on first use); "all"; "check" (each loader and
/// model kind compiled once, none launched: a build without a GPU); "none".
const char* kernel_set();

/// The calling thread's current device (device 0 unless cudaSetDevice chose another): its fixed
/// properties read once per process, its free memory at each call; never throws. Unavailable,
/// with the reason, in a build whose kernel set is not "ahead" or "all".
DeviceInfo query_device();
/// Device `ordinal` (its free memory read on it); unavailable past the last device.
DeviceInfo query_device(int ordinal);
/// Device `ordinal`'s fixed properties alone (free_memory 0), read once per process without
/// creating its context: what tells devices apart (engine::device_key) before they are opened.
DeviceInfo device_properties(int ordinal);
/// A size for a message: "1.50 GiB", "12.0 MiB", "4.0 KiB", "96 bytes".
std::string describe_bytes(std::size_t bytes);

/// GPUs this process can use (0 without a driver or in a build of no launchable kernel).
int device_count();

} // namespace pfmc::engine
