#pragma once
// `ideal`: a diagnostic for `pfmc bench`, never offered to `price` or `tune` (the catalog marks it
// bench-only). The step loop of `scalar_batched` — batches of Distance steps handed to the path
// together (models::Path::advance_batch), which is what shortens a step's dependent chain — but
// the draws cost almost nothing: each is a value computed from the thread and the step in four
// instructions, uniform on [-sqrt(3), sqrt(3)] (mean 0, variance 1, so the paths, their barriers
// and their exps behave as with normals). What it times is the path kernel with free draws: the
// bench takes its fastest distance as the ceiling of every loader, so that a backend's time reads
// as a fraction of it. Its prices mean nothing.

#include <cstdint>

#include "kernels/loader_common.cuh"

namespace pfmc::kernels {

template <class Real, int Factors, int Distance>
class IdealLoader {
public:
  static constexpr const char* name = "ideal";
  /// As scalar_batched: a batch of Distance steps' values in registers, up to 64.
  static constexpr int register_budget = 64;
  static std::size_t shared_bytes(int, const RingLayout&, int) { return 0; }

  static constexpr int paths_per_thread = 1;

  __device__ explicit IdealLoader(unsigned char*) {}

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) const {
    const std::uint32_t thread = (blockIdx.x * blockDim.x + threadIdx.x) * 0x9E3779B1u;
#pragma unroll 1
    for (int base = 0; base < in.steps; base += Distance) {
      if (base + Distance <= in.steps) {
        Real z[Distance][Factors];
#pragma unroll
        for (int k = 0; k < Distance; ++k)
          values(thread, base + k, z[k]);
        body.template batch<Distance>(base, z);
      } else {
#pragma unroll 1
        for (int step = base; step < in.steps; ++step) {
          Real z[Factors];
          values(thread, step, z);
          body(step, z);
        }
      }
    }
  }

private:
  /// The step's values: an integer multiply, an xor, a conversion and a multiply each.
  __device__ __forceinline__ static void values(std::uint32_t thread, int step,
                                                Real (&z)[Factors]) {
#pragma unroll
    for (int f = 0; f < Factors; ++f) {
      const std::uint32_t h =
          thread ^ (static_cast<std::uint32_t>(step * Factors + f) * 0x85EBCA77u);
      z[f] = static_cast<Real>(static_cast<std::int32_t>(h)) * Real(8.06549009e-10); // √3 / 2^31
    }
  }
};

} // namespace pfmc::kernels
