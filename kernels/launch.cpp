// The non-template parts of the path kernel's launch (kernels/launch.cuh): one copy for the
// thousands of instantiations the launcher tables name.

#include <cuda_runtime.h>

#include <string>

#include "kernels/compile/compiled_kernels.hpp"
#include "base/error.hpp"
#include "kernels/fault_injection.hpp"
#include "kernels/launch_detail.hpp"

namespace pfmc::kernels {

namespace detail {

void launch_sized(const void* kernel, void* params, int blocks, int block_size, int group_count,
                  int rounds, std::size_t shared, cudaStream_t stream) {
  PFMC_EXPECTS(blocks > 0 && group_count > 0, "a launch needs at least one block");
  PFMC_EXPECTS(rounds >= 1 && (rounds & (rounds - 1)) == 0,
               "rounds per block must be a power of two");
  if (shared > 48 * 1024) {
    PFMC_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(shared)));
  }
  // An injected fault (kernels/fault_injection.hpp) asks for 1 GiB of shared memory a block, more
  // than any GPU has: the runtime refuses the launch as it would a real misconfiguration.
  const std::size_t launched_shared = inject_fault(Fault::launch) ? std::size_t{1} << 30 : shared;
  void* arguments[] = {params};
  cudaError_t status =
      cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(blocks)),
                       dim3(static_cast<unsigned>(block_size)), arguments, launched_shared, stream);
  if (status == cudaSuccess)
    status = cudaGetLastError();
  if (status != cudaSuccess) {
    throw CudaError("the path kernel's launch failed (" + std::to_string(blocks) + " blocks of " +
                    std::to_string(block_size) + " threads, " + std::to_string(launched_shared) +
                    " bytes of shared memory a block): " + cudaGetErrorName(status) + ": " +
                    cudaGetErrorString(status));
  }
}

void load_kernel(const void* kernel) {
  cudaFuncAttributes attributes{};
  PFMC_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
}

const void* runtime_kernel(RuntimeKernelSlot& slot, const std::string& (*name)(),
                           const char* model_type, const char* backend, int distance, bool exercise,
                           int registers) {
  int device = 0;
  PFMC_CUDA_TRY(cudaGetDevice(&device));
  const bool cached = device >= 0 && device < RuntimeKernelSlot::kDevices;
  if (cached) {
    if (const void* kernel = slot.by_device[device].load(std::memory_order_acquire))
      return kernel;
  }
  // "Heston<float>: tma (distance 4)", for the notice of a compilation.
  std::string label = compile::short_type_name(model_type) + ": " + backend;
  if (distance > 0)
    label += " (distance " + std::to_string(distance) + ")";
  if (exercise)
    label += ", early exercise";
  if (registers > 0)
    label += ", " + std::to_string(registers) + " registers";
  const void* kernel = compile::runtime_kernel(name(), label);
  if (cached)
    slot.by_device[device].store(kernel, std::memory_order_release);
  return kernel;
}

} // namespace detail
} // namespace pfmc::kernels
