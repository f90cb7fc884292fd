#pragma once
// `ideal`: a diagnostic for `pfmc bench`, never offered to `price` or `tune` (the catalog marks it
// bench-only). The same step loop as `none`, but a step's draws cost almost nothing: each is a
// value computed from the thread and the step in four instructions (two integer multiply-adds,
// a conversion, a multiply), uniform on [-sqrt(3), sqrt(3)] (mean 0, variance 1, so the paths,
// their barriers and their exps behave as with normals). What it times is the path kernel with
// free draws: the ceiling of every loader, so that a backend's time reads as a fraction of it.
// Its prices mean nothing.

#include <cstdint>

#include "kernels/loader_common.cuh"

namespace pfmc::kernels {

template <class Real, int Factors, int Distance>
class IdealLoader {
public:
  static constexpr const char* name = "ideal";
  /// As `none`: nothing to keep in flight.
  static constexpr int register_budget = 40;
  static std::size_t shared_bytes(int, const RingLayout&, int) { return 0; }

  static constexpr int paths_per_thread = 1;

  __device__ explicit IdealLoader(unsigned char*) {}

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) const {
    const std::uint32_t thread = (blockIdx.x * blockDim.x + threadIdx.x) * 0x9E3779B1u;
#pragma unroll 1
    for (int step = 0; step < in.steps; ++step) {
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f) {
        const std::uint32_t h =
            thread ^ (static_cast<std::uint32_t>(step * Factors + f) * 0x85EBCA77u);
        z[f] = static_cast<Real>(static_cast<std::int32_t>(h)) * Real(8.06549009e-10); // √3 / 2^31
      }
      body(step, z);
    }
  }
};

} // namespace pfmc::kernels
