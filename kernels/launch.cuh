#pragma once
// Host launch wrappers of the path kernel: size dynamic shared memory (the loader's ring, then
// the reduction's scratch), raise the kernel's shared-memory limit when needed, launch on the
// given stream and check the launch. One wrapper per way a kernel comes to be: built ahead of
// time (its __global__ instantiation in this binary) or compiled on first use (NVRTC through
// kernels/compile/, no device code here). Both launch the same code the same way.

#include <cuda_runtime.h>

#include <atomic>
#include <string>
#include <typeinfo>

#include "kernels/compile/compiled_kernels.hpp"
#include "base/error.hpp"
#include "kernels/launch_detail.hpp"
#include "kernels/path_kernel.cuh"

namespace pfmc::kernels {

/// Launches `blocks` thread blocks over the launch's group table: the groups' blocks of paths
/// summed (params.total_blocks), divided by params.blocks_per_cta.
template <class Model, class Real>
using PathKernelLauncher = void (*)(PathKernelParams<Model, Real>, int blocks, int block_size,
                                    cudaStream_t stream);

inline std::size_t align16(std::size_t bytes) {
  return (bytes + 15) / 16 * 16;
}

/// Launches `kernel` (a __global__ function's address or a cudaKernel_t) of loader `Loader`.
template <class Loader, class Model, class Real>
void launch_kernel(const void* kernel, PathKernelParams<Model, Real> params, int blocks,
                   int block_size, cudaStream_t stream) {
  PFMC_EXPECTS(block_size >= kWarpSize && block_size <= kMaxBlockSize &&
                   (block_size & (block_size - 1)) == 0,
               "block size must be a power of two in 32..1024");
  const std::size_t loader_bytes =
      Loader::shared_bytes(block_size, params.ring, params.prefetch_distance);
  params.scratch_offset = static_cast<int>(align16(loader_bytes));
  params.round_sums_offset =
      params.scratch_offset + static_cast<int>(reduction_scratch_bytes(block_size));
  params.warp_sums_offset = static_cast<int>(
      align16(params.round_sums_offset + round_sums_bytes(params.rounds, params.round_values)));
  // The warps' sums of a pathwise launch's values (pay_pathwise), where they fit.
  const std::size_t warp_sums = warp_sums_bytes(block_size, params.round_values);
  params.warp_sums_values =
      models::kIsPathwise<Model> &&
              warp_sums_bytes(kWarpSize, params.round_values) <= kMaxWarpSumsBytes
          ? params.round_values
          : 0;
  const std::size_t shared =
      params.warp_sums_offset + (params.warp_sums_values > 0 ? warp_sums : 0);
  detail::launch_sized(kernel, &params, blocks, block_size, params.group_count, params.rounds,
                       shared, stream);
}

// --- built ahead of time ------------------------------------------------------------------------

/// Loads the kernel's code onto the device now (with CUDA's lazy module loading the first launch
/// would), so that its cost is not counted as the kernel's time.
template <class Model, class Loader, class Real, bool Exercise = false, int Registers = 0>
void load_path_kernel() {
  detail::load_kernel(
      reinterpret_cast<const void*>(&path_kernel<Model, Loader, Real, Exercise, Registers>));
}

template <class Model, class Loader, class Real, bool Exercise = false, int Registers = 0>
void launch_path_kernel(PathKernelParams<Model, Real> params, int blocks, int block_size,
                        cudaStream_t stream) {
  launch_kernel<Loader>(
      reinterpret_cast<const void*>(&path_kernel<Model, Loader, Real, Exercise, Registers>), params,
      blocks, block_size, stream);
}

// --- compiled on first use --------------------------------------------------------------------

/// Carries a path kernel's template arguments to the host compiler's type names (never defined
/// as a kernel: naming it instantiates no device code).
template <class Model, class Loader, class Real, bool Exercise, int Registers>
struct PathKernelTag {};

/// The name expression NVRTC compiles for this instantiation.
template <class Model, class Loader, class Real, bool Exercise = false, int Registers = 0>
const std::string& path_kernel_name() {
  static const std::string name = compile::path_kernel_expression(
      typeid(PathKernelTag<Model, Loader, Real, Exercise, Registers>).name());
  return name;
}

/// The runtime-compiled kernel of this instantiation (compiled, or read from the cache, on the
/// first call of the process for the device's architecture).
template <class Model, class Loader, class Real, bool Exercise = false, int Registers = 0,
          int Distance = 0>
const void* runtime_path_kernel() {
  static detail::RuntimeKernelSlot slot;
  return detail::runtime_kernel(slot, &path_kernel_name<Model, Loader, Real, Exercise, Registers>,
                                typeid(Model).name(), Loader::name, Distance, Exercise, Registers);
}

template <class Model, class Loader, class Real, bool Exercise = false, int Registers = 0,
          int Distance = 0>
void load_runtime_path_kernel() {
  detail::load_kernel(runtime_path_kernel<Model, Loader, Real, Exercise, Registers, Distance>());
}

template <class Model, class Loader, class Real, bool Exercise = false, int Registers = 0,
          int Distance = 0>
void launch_runtime_path_kernel(PathKernelParams<Model, Real> params, int blocks, int block_size,
                                cudaStream_t stream) {
  launch_kernel<Loader>(runtime_path_kernel<Model, Loader, Real, Exercise, Registers, Distance>(),
                        params, blocks, block_size, stream);
}

} // namespace pfmc::kernels
