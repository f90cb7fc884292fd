#pragma once
// Precision-generic math for code shared by the GPU kernels and the CPU reference backend.
// On the device these map to CUDA's libdevice functions; on the host to <cmath>. The plain
// functions use no fast-math intrinsics: a float run and a double run differ only by their
// precision. The profile's functions (math::exp<Fast>, below) are the opt-in exception.

#include <cmath>
#include <limits>

#if defined(__CUDACC__)
#define PFMC_HD __host__ __device__
#define PFMC_HD_INLINE __host__ __device__ __forceinline__
#define PFMC_HD_NOINLINE __host__ __device__ __noinline__
#else
#define PFMC_HD
#define PFMC_HD_INLINE inline
#define PFMC_HD_NOINLINE inline
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
/// clean, docs/decisions.md#step-data-ahead).
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

/// The math profiles a run chooses from (`simulation.math`), as types: a kernel, a model and the
/// draws take one as a template argument, so a profile's kernels are instantiations of their own.
///   Accurate - the default: Philox4x32-10 and the accurate transcendentals (libdevice's expf,
///              logf, ... ; the float draws' sine and cosine the hardware's, as cuRAND's).
///   Fast     - opt-in: Philox4x32-7 (its authors report it passes TestU01's BigCrush; 10 is
///              their safety margin) and the hardware's approximate exp, log and sqrt in float
///              (__expf, __logf, sqrt.approx; double keeps the accurate functions: the hardware has
///              no double approximations). On the host (the CPU backend) the same generator and
///              exact uniforms, with the host's functions: its values differ from the GPU's by the
///              approximations' errors (README, "Math profiles").
struct Accurate {
  static constexpr int philox_rounds = 10;
  static constexpr bool fast = false;
};
struct Fast {
  static constexpr int philox_rounds = 7;
  static constexpr bool fast = true;
};

/// exp, log and sqrt under a profile. Fast's float exp, log and sqrt on the device are the
/// hardware's approximations in their flush-to-zero forms: __expf's and __logf's arithmetic
/// (ex2.approx of x · log2 e, lg2.approx times ln 2, each product rounded once) and sqrt.approx,
/// without the four instructions a call spends scaling subnormal arguments and results (ncu on the
/// book's pass: 24 of its 200 instructions, docs/decisions.md#fast-math). They differ from __expf,
/// __logf and sqrt.approx.f32 only where an argument or a result is subnormal (below 2^-126):
/// there the result is 0 (exp, sqrt) or -inf (log). The draws never meet one (u ≥ 2^-25,
/// -2 ln u ≥ 5.9e-8), nor do spots above 1.2e-38.
template <class Profile>
PFMC_HD_INLINE float exp(float x) {
#if defined(__CUDA_ARCH__)
  if constexpr (Profile::fast) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(__fmul_rn(x, 1.44269502162933349609375f)));
    return r;
  }
#endif
  return exp(x);
}
template <class Profile>
PFMC_HD_INLINE double exp(double x) {
  return exp(x);
}
#if defined(__CUDA_ARCH__)
/// lg2.approx.ftz.f32: the fast profile's logarithm, base 2.
__device__ __forceinline__ float lg2_approx(float x) {
  float r;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
#endif
template <class Profile>
PFMC_HD_INLINE float log(float x) {
#if defined(__CUDA_ARCH__)
  if constexpr (Profile::fast)
    return __fmul_rn(lg2_approx(x), 0.693147182464599609375f);
#endif
  return log(x);
}
template <class Profile>
PFMC_HD_INLINE double log(double x) {
  return log(x);
}
/// −2 ln x, as −2 · log<Profile>(x) computes it, bit for bit: Fast's on the device multiplies
/// lg2.approx by −2 ln 2 (float) in one rounding, which equals log's product by ln 2 doubled
/// (a product by −2 is exact, and rounding commutes with it away from overflow and subnormals:
/// here |lg2 x · ln 2| ≤ 18). One multiplication fewer in each Box–Muller pair.
template <class Profile>
PFMC_HD_INLINE float minus_two_log(float x) {
#if defined(__CUDA_ARCH__)
  if constexpr (Profile::fast)
    return __fmul_rn(lg2_approx(x), -1.38629436492919921875f);
#endif
  return -2.0f * log<Profile>(x);
}

/// sqrt.approx.ftz.f32: relative error about 2^-23, sqrt(0) = 0.
template <class Profile>
PFMC_HD_INLINE float sqrt(float x) {
#if defined(__CUDA_ARCH__)
  if constexpr (Profile::fast) {
    float r;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
  }
#endif
  return sqrt(x);
}

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
PFMC_HD_INLINE float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
PFMC_HD_INLINE float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

} // namespace pfmc::math
