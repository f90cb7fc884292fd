#pragma once
// `none`: the baseline. Each step loads its draws right where the body needs them; whether
// the compiler overlaps them with earlier steps is left to it (`#pragma unroll 1` keeps it from
// issuing several steps' loads together, which is what `unroll` does on purpose).

#include "kernels/loader_common.cuh"
#include "kernels/ptx.cuh"

namespace pfmc::kernels {

template <class Real, int Factors, int Distance>
class NoneLoader {
public:
  static constexpr const char* name = "none";
  static constexpr int register_budget =
      40; ///< look-ahead outside registers: 40 registers, occupancy 75% (no spills)
  static std::size_t shared_bytes(int /*block_size*/, const RingLayout&, int /*distance*/) {
    return 0;
  }

  static constexpr int paths_per_thread = 1;

  __device__ explicit NoneLoader(unsigned char* /*shared*/) {}

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) const {
#pragma unroll 1
    for (int step = 0; step < in.steps; ++step) {
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f) {
        z[f] = ptx::load(draw_address<Factors>(in, step, f));
      }
      body(step, z);
    }
  }
};

} // namespace pfmc::kernels
