#pragma once
// `unroll`: the baseline loop unrolled Distance times by the compiler (#pragma unroll), so that
// the loads of several steps can be issued together before their bodies run. Whether they are
// is the compiler's choice: check the SASS.

#include "kernels/loader_common.cuh"
#include "kernels/ptx.cuh"

namespace pfmc::kernels {

template <class Real, int Factors, int Distance>
class UnrollLoader {
public:
  static constexpr const char* name = "unroll";
  static constexpr int register_budget = 40; ///< as `none`: 64 cost occupancy (measured)
  static std::size_t shared_bytes(int, const RingLayout&, int) { return 0; }

  static constexpr int paths_per_thread = 1;

  __device__ explicit UnrollLoader(unsigned char* /*shared*/) {}

  template <class Body>
  __device__ __forceinline__ void run(const LoaderInputs<Real>& in, Body&& body) {
#pragma unroll Distance
    for (int step = 0; step < in.steps; ++step) {
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = ptx::load(draw_address<Factors>(in, step, f));
      body(step, z);
    }
  }
};

} // namespace pfmc::kernels
