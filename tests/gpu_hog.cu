// A second process that holds most of a GPU's memory, for the GPU fault suite
// (tests/gpu_faults.sh): allocates all but LEAVE MiB of the free memory of device 0, prints one
// line ("holding X MiB, Y MiB free"), and keeps it until SIGTERM/SIGINT or SECONDS pass.
// Usage: pfmc_gpu_hog LEAVE_MIB [SECONDS]
#include <cuda_runtime.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include <unistd.h>

#include "engine/core/cuda_resources.hpp"

namespace {
volatile std::sig_atomic_t stop_requested = 0;
void request_stop(int) {
  stop_requested = 1;
}
} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: pfmc_gpu_hog LEAVE_MIB [SECONDS]\n");
    return 2;
  }
  const std::size_t leave = std::strtoull(argv[1], nullptr, 10) << 20;
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 600;
  std::signal(SIGTERM, request_stop);
  std::signal(SIGINT, request_stop);
  try {
    pfmc::engine::CudaStream stream;
    std::size_t free = 0, total = 0;
    PFMC_CUDA_TRY(cudaMemGetInfo(&free, &total));
    // The pool rounds sizes up: take what is asked in 256 MiB pieces, then smaller ones, until the
    // free memory left is at most `leave`.
    std::size_t piece = std::size_t{256} << 20;
    std::vector<pfmc::engine::DeviceBuffer<unsigned char>> held;
    while (piece >= (std::size_t{2} << 20)) {
      PFMC_CUDA_TRY(cudaMemGetInfo(&free, &total));
      if (free <= leave + piece) {
        piece /= 2;
        continue;
      }
      held.emplace_back(piece, stream.get());
      stream.synchronize();
    }
    PFMC_CUDA_TRY(cudaMemGetInfo(&free, &total));
    std::size_t holding = 0;
    for (const auto& buffer : held)
      holding += buffer.bytes();
    std::printf("holding %zu MiB, %zu MiB free of %zu MiB\n", holding >> 20, free >> 20,
                total >> 20);
    std::fflush(stdout);
    for (int tick = 0; tick < seconds * 10 && stop_requested == 0; ++tick)
      usleep(100000);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pfmc_gpu_hog: %s\n", e.what());
    return 1;
  }
  return 0;
}
