#pragma once
// The non-template parts of a path-kernel launch (defined in kernels/launch.cpp, one copy for
// the thousands of instantiations kernels/launch.cuh's templates name).

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <string>

namespace pfmc::kernels::detail {

/// What every path-kernel launch does once its shared memory is sized (and its block size
/// checked): checks the rest of the shape, raises
/// the kernel's shared-memory limit where needed, launches `kernel` (a __global__ function's
/// address or a cudaKernel_t) with `params` (its PathKernelParams) and checks the launch.
void launch_sized(const void* kernel, void* params, int blocks, int block_size, int group_count,
                  int rounds, std::size_t shared, cudaStream_t stream);
/// cudaFuncGetAttributes on `kernel`: loads its code onto the device now.
void load_kernel(const void* kernel);

/// A runtime-compiled kernel's handle per device, once known (the launch path's cache in front of
/// compile::runtime_kernel, which takes a lock and builds strings).
struct RuntimeKernelSlot {
  static constexpr int kDevices = 64;
  std::atomic<const void*> by_device[kDevices] = {};
};
/// The handle for the current device: from `slot`, else from compile::runtime_kernel (compiled,
/// or read from the disk cache) and kept in `slot`. `name` builds the name expression; the rest
/// names the kernel in a notice ("Heston<float>: tma (distance 4)").
const void* runtime_kernel(RuntimeKernelSlot& slot, const std::string& (*name)(),
                           const char* model_type, const char* backend, int distance, bool exercise,
                           int registers);

} // namespace pfmc::kernels::detail
