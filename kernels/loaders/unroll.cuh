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

  __device__ UnrollLoader(unsigned char* /*shared*/, const LoaderInputs<Real>& in) : in_(in) {}

  template <class Body>
  __device__ __forceinline__ void run(Body&& body) {
#pragma unroll Distance
    for (int step = 0; step < in_.steps; ++step) {
      Real z[Factors];
#pragma unroll
      for (int f = 0; f < Factors; ++f)
        z[f] = ptx::load(draw_address<Factors>(in_, step, f));
      body(step, z);
    }
  }

private:
  LoaderInputs<Real> in_;
};

} // namespace pfmc::kernels
