#pragma once
// Precision-generic math for code shared by the GPU kernels and the CPU reference backend.
// On the device these map to CUDA's libdevice functions; on the host to <cmath>. Nothing here
// uses fast-math intrinsics: a float run and a double run differ only by their precision.

#include <cmath>
#include <limits>

#if defined(__CUDACC__)
#define PFMC_HD __host__ __device__
#define PFMC_HD_INLINE __host__ __device__ __forceinline__
#else
#define PFMC_HD
#define PFMC_HD_INLINE inline
#endif

/// `#pragma unroll` for code shared with the host compiler (which has no such pragma): only in
/// nvcc's device pass.
#if defined(__CUDA_ARCH__)
#define PFMC_UNROLL _Pragma("unroll")
#define PFMC_NO_UNROLL _Pragma("unroll 1")
#else
#define PFMC_UNROLL
#define PFMC_NO_UNROLL
#endif

namespace pfmc::math {

/// A hint that the bytes [p, p + bytes) of global memory are read soon: on the GPU each 32-byte
/// sector's L1 line is asked for now (prefetch.global.L1: no register holds it, nothing waits
/// for it); on the CPU nothing. models::Path asks up to a batch (64 bytes) past a step table's end:
/// the arrays that follow it in the run's upload buffer (engine/run/device_unit.cuh; memcheck
/// clean, bench/NOTES.md v23).
template <int Bytes>
PFMC_HD_INLINE void prefetch_l1(const void* p) {
#if defined(__CUDA_ARCH__)
  PFMC_UNROLL
  for (int b = 0; b < Bytes; b += 32)
    asm volatile("prefetch.global.L1 [%0];" ::"l"(static_cast<const char*>(p) + b));
#else
  (void)p;
#endif
}

PFMC_HD_INLINE float exp(float x) {
#if defined(__CUDA_ARCH__)
  return ::expf(x);
#else
  return std::exp(x);
#endif
}
PFMC_HD_INLINE double exp(double x) {
#if defined(__CUDA_ARCH__)
  return ::exp(x);
#else
  return std::exp(x);
#endif
}
PFMC_HD_INLINE float log(float x) {
#if defined(__CUDA_ARCH__)
  return ::logf(x);
#else
  return std::log(x);
#endif
}
PFMC_HD_INLINE double log(double x) {
#if defined(__CUDA_ARCH__)
  return ::log(x);
#else
  return std::log(x);
#endif
}
PFMC_HD_INLINE float sqrt(float x) {
#if defined(__CUDA_ARCH__)
  return ::sqrtf(x);
#else
  return std::sqrt(x);
#endif
}
PFMC_HD_INLINE double sqrt(double x) {
#if defined(__CUDA_ARCH__)
  return ::sqrt(x);
#else
  return std::sqrt(x);
#endif
}
/// Standard normal CDF Φ(x) (accurate in both tails: Φ(-x) is computed directly, never 1 − Φ(x)).
PFMC_HD_INLINE float normcdf(float x) {
#if defined(__CUDA_ARCH__)
  return ::normcdff(x);
#else
  return 0.5f * std::erfc(-x * 0.70710678118654752f);
#endif
}
PFMC_HD_INLINE double normcdf(double x) {
#if defined(__CUDA_ARCH__)
  return ::normcdf(x);
#else
  return 0.5 * std::erfc(-x * 0.70710678118654752440);
#endif
}
template <class Real>
PFMC_HD_INLINE Real min(Real a, Real b) {
  return b < a ? b : a;
}
template <class Real>
PFMC_HD_INLINE Real max(Real a, Real b) {
  return a < b ? b : a;
}
template <class Real>
PFMC_HD_INLINE Real infinity() {
  return std::numeric_limits<Real>::infinity();
}

} // namespace pfmc::math

namespace pfmc::math {

/// a + b and a · b rounded once each and never fused with a neighbouring operation: the
/// compiler may contract `a * b + c` into a fused multiply-add (nvcc does by default), which
/// would make the same sum come out differently in two kernels that arrange it differently.
/// The deterministic reduction (kernels/reduction_shape.cuh) and the values it reduces use
/// these, so that every kernel and the CPU backend add the same roundings.
PFMC_HD_INLINE double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
PFMC_HD_INLINE double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

} // namespace pfmc::math
