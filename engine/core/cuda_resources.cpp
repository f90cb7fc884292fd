#include "engine/core/cuda_resources.hpp"

#include <string>

#include "engine/core/device_info.hpp"
#include "kernels/fault_injection.hpp"

namespace pfmc::engine {

namespace {

// What the user reads when the card cannot hold a buffer: how much was asked, how much the card
// has free now (another process may hold the rest), and the setting that bounds pfmc's share.
[[noreturn]] void throw_out_of_device_memory(std::size_t bytes) {
  (void)cudaGetLastError(); // an allocation failure is not sticky; leave no error behind
  int device = 0;
  std::size_t free = 0;
  std::size_t total = 0;
  std::string where = "the GPU";
  if (cudaGetDevice(&device) == cudaSuccess) {
    where = "GPU " + std::to_string(device);
    if (cudaMemGetInfo(&free, &total) == cudaSuccess)
      where += " (" + describe_bytes(free) + " free of " + describe_bytes(total) + ")";
    else
      (void)cudaGetLastError();
  }
  throw RuntimeError("out of GPU memory: " + describe_bytes(bytes) + " could not be allocated on " +
                     where +
                     "; another process may hold it: free the GPU or lower "
                     "engine.max_device_memory (--max-device-memory)");
}

} // namespace

void* allocate_device_bytes(std::size_t bytes, cudaStream_t stream) {
  // An injected fault asks for 2^52 bytes (4 PiB): the runtime's own out-of-memory error follows.
  const std::size_t asked = inject_fault(Fault::allocation) ? std::size_t{1} << 52 : bytes;
  void* data = nullptr;
  const cudaError_t status = cudaMallocAsync(&data, asked, stream);
  if (status == cudaErrorMemoryAllocation)
    throw_out_of_device_memory(bytes);
  PFMC_CUDA_TRY(status);
  return data;
}

} // namespace pfmc::engine
