#include "engine/core/device_info.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#ifndef PFMC_KERNEL_SET
#error "PFMC_KERNEL_SET: CMakeLists.txt defines it from PFMC_KERNELS"
#endif

namespace pfmc::engine {

namespace {

/// Whether this build's kernels may be launched: a build for GPUs (`ahead` or `all`: what is not
/// built in is compiled on first use), or the check set where the build asked for it
/// (PFMC_LAUNCH_CHECK_SET, diagnostics: then anything else is compiled on first use too).
bool launchable_set() {
  return std::strcmp(PFMC_KERNEL_SET, "ahead") == 0 || std::strcmp(PFMC_KERNEL_SET, "all") == 0 ||
         (PFMC_LAUNCH_CHECK_SET != 0 && std::strcmp(PFMC_KERNEL_SET, "check") == 0);
}

/// What does not change during a process: read once (cudaGetDeviceProperties reads every
/// attribute of the device and is not free).
DeviceInfo static_device_info(int ordinal) {
  DeviceInfo info;
  cudaRuntimeGetVersion(&info.runtime_version);
  cudaDriverGetVersion(&info.driver_version);
  if (!launchable_set()) {
    info.unavailable_reason =
        "this build compiled no kernel it can launch (PFMC_KERNELS=" + std::string(kernel_set()) +
        "); rebuild with -DPFMC_KERNELS=ahead to use the GPU";
    return info;
  }
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    (void)cudaGetLastError(); // clear the sticky-free error state
    info.unavailable_reason = status == cudaErrorInsufficientDriver ? "no CUDA driver"
                              : status == cudaErrorNoDevice || count == 0
                                  ? "no CUDA device"
                                  : cudaGetErrorString(status);
    return info;
  }
  if (ordinal < 0 || ordinal >= count) {
    info.unavailable_reason = "no CUDA device " + std::to_string(ordinal) + " (this host has " +
                              std::to_string(count) + ")";
    return info;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) {
    info.unavailable_reason = "cannot read the properties of device " + std::to_string(ordinal);
    return info;
  }
  info.available = true;
  info.name = prop.name;
  info.compute_capability = prop.major * 10 + prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
  info.total_memory = prop.totalGlobalMem;
  return info;
}

} // namespace

const char* kernel_set() {
  return PFMC_KERNEL_SET;
}

DeviceInfo device_properties(int ordinal) {
  static std::mutex mutex;
  static std::map<int, DeviceInfo> fixed;
  const std::lock_guard<std::mutex> lock(mutex);
  auto at = fixed.find(ordinal);
  if (at == fixed.end())
    at = fixed.emplace(ordinal, static_device_info(ordinal)).first;
  return at->second;
}

DeviceInfo query_device(int ordinal) {
  DeviceInfo info = device_properties(ordinal);
  if (info.available) {
    int current = 0;
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    if (cudaGetDevice(&current) == cudaSuccess && current != ordinal) {
      // Another device's free memory: read on it, then back.
      if (cudaSetDevice(ordinal) == cudaSuccess &&
          cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
        info.free_memory = free_bytes;
      (void)cudaSetDevice(current);
    } else if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      info.free_memory = free_bytes;
    }
  }
  return info;
}

DeviceInfo query_device() {
  int current = 0;
  if (launchable_set() && cudaGetDevice(&current) != cudaSuccess) {
    (void)cudaGetLastError();
    current = 0;
  }
  return query_device(current);
}

int device_count() {
  if (!device_properties(0).available) // no context needed
    return 0;
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

std::string describe_bytes(std::size_t bytes) {
  char text[32];
  const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
  if (mib >= 1024.0)
    std::snprintf(text, sizeof text, "%.2f GiB", mib / 1024.0);
  else if (mib >= 1.0)
    std::snprintf(text, sizeof text, "%.1f MiB", mib);
  else if (bytes >= 1024)
    std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  else
    std::snprintf(text, sizeof text, "%zu bytes", bytes);
  return text;
}

} // namespace pfmc::engine
