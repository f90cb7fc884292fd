#pragma once
// Host launch wrapper of the path kernel: sizes dynamic shared memory (the loader's ring, then
// the reduction's scratch), raises the kernel's shared-memory limit when needed, launches on the
// given stream and checks the launch.

#include <cuda_runtime.h>

#include <string>

#include "kernels/error.hpp"
#include "kernels/fault_injection.hpp"
#include "kernels/path_kernel.cuh"

namespace pfmc::kernels {

/// Launches `blocks` blocks over the launch's group table (blocks = the groups' blocks summed).
template <class Model, class Real>
using PathKernelLauncher = void (*)(PathKernelParams<Model, Real>, int blocks, int block_size,
                                    cudaStream_t stream);

inline std::size_t align16(std::size_t bytes) {
  return (bytes + 15) / 16 * 16;
}

/// Loads the kernel's code onto the device now (with CUDA's lazy module loading the first launch
/// would), so that its cost is not counted as the kernel's time.
template <class Model, class Loader, class Real, bool Exercise = false, int Registers = 0>
void load_path_kernel() {
  cudaFuncAttributes attributes{};
  PFMC_CUDA_TRY(
      cudaFuncGetAttributes(&attributes, &path_kernel<Model, Loader, Real, Exercise, Registers>));
}

template <class Model, class Loader, class Real, bool Exercise = false, int Registers = 0>
void launch_path_kernel(PathKernelParams<Model, Real> params, int blocks, int block_size,
                        cudaStream_t stream) {
  PFMC_EXPECTS(block_size >= kWarpSize && block_size <= kMaxBlockSize &&
                   (block_size & (block_size - 1)) == 0,
               "block size must be a power of two in 32..1024");
  PFMC_EXPECTS(blocks > 0 && params.group_count > 0, "a launch needs at least one block");
  PFMC_EXPECTS(params.rounds >= 1 && (params.rounds & (params.rounds - 1)) == 0,
               "rounds per block must be a power of two");
  const std::size_t loader_bytes =
      Loader::shared_bytes(block_size, params.ring, params.prefetch_distance);
  params.scratch_offset = static_cast<int>(align16(loader_bytes));
  params.round_sums_offset =
      params.scratch_offset + static_cast<int>(reduction_scratch_bytes(block_size));
  const std::size_t shared =
      params.round_sums_offset + round_sums_bytes(params.rounds, params.round_values);
  auto* kernel = &path_kernel<Model, Loader, Real, Exercise, Registers>;
  if (shared > 48 * 1024) {
    PFMC_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(shared)));
  }
  // An injected fault (kernels/fault_injection.hpp) asks for 1 GiB of shared memory a block, more
  // than any GPU has: the runtime refuses the launch as it would a real misconfiguration.
  const std::size_t launched_shared = inject_fault(Fault::launch) ? std::size_t{1} << 30 : shared;
  kernel<<<blocks, block_size, launched_shared, stream>>>(params);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    throw CudaError("the path kernel's launch failed (" + std::to_string(blocks) + " blocks of " +
                    std::to_string(block_size) + " threads, " + std::to_string(launched_shared) +
                    " bytes of shared memory a block): " + cudaGetErrorName(status) + ": " +
                    cudaGetErrorString(status));
  }
}

} // namespace pfmc::kernels
