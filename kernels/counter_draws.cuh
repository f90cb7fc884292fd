#pragma once
// pfmc's pseudo-random draws (`rng: philox`): counter-based, so that a draw is a pure function
// of (seed, simulation group, path, step, factor) — no generator state, nothing that depends
// on chunking, batching, launch shape or device count.
//
// The generator is Random123's Philox4x32-10 (D. E. Shaw Research; the same header code on the
// host and the device). One call, keyed by the 64-bit seed, turns the counter
//
//   { call mod 2^32, call div 2^32, row = step * factors + factor, group }
//
// into four 32-bit words, and those into the draws of kPathsPerCall<Real> consecutive paths
// (call = path div kPathsPerCall, the path's slot = path mod kPathsPerCall) for that row:
//   float  (4 paths):  words (0, 1) → paths 0, 1; words (2, 3) → paths 2, 3;
//   double (2 paths):  words (0 | 1 << 32, 2 | 3 << 32) → paths 0, 1;
// each pair (a, b) by Box–Muller: u = u01fixedpt(a) in (0, 1), h = 2 u01fixedpt(b) − 1 in
// (−1, 1) (Random123's exact integer-to-floating conversions, the same bits everywhere),
// r = sqrt(−2 ln u), and the pair's normals are r cos(π h) and r sin(π h).
//
// The math functions are cuRAND's choice (curand_normal.h): in double, the accurate log, sqrt
// and sincospi on both sides; in float, the accurate logf and sqrtf, and on the device the
// hardware's sine and cosine (__sincosf: absolute error below 2^-21.4 on (−π, π)) where the host
// computes them accurately, so float draws of the CPU backend differ from the GPU's by at most
// about 2e-6 (r ≤ 5.8), double draws by a few ulps. The host's vectorised transform lives in
// engine/draws/cpu_draws.hpp; this file is the device's and the reference the tests compare with.
//
// Every function takes the run's math profile (models/math.cuh; Accurate by default): Fast draws
// from Philox4x32-7 (the same counter and key, 7 rounds), and in float on the device takes the
// radius's logarithm and square root from the hardware's approximations (__logf: absolute error
// below 2^-21.41 on [0.5, 2], relative 2^-22 or so elsewhere; sqrt.approx: about 2^-23). A Fast
// draw is as much a pure function of (seed, group, path, step, factor) as an Accurate one: every
// backend, chunking and device split and the CPU give the same generator words.

#include <cstdint>

#include <Random123/philox.h>
#include <Random123/uniform.hpp>

#include "models/math.cuh"

namespace pfmc::kernels {

/// Paths whose draws of one row come from one generator call: 16 bytes of draws.
template <class Real>
inline constexpr int kPathsPerCall = static_cast<int>(16 / sizeof(Real));

/// The four words of one Philox4x32-R call.
struct PhiloxWords {
  std::uint32_t w[4];
};

template <class Profile = math::Accurate>
PFMC_HD_INLINE PhiloxWords philox_words(std::uint64_t seed, std::uint32_t group, std::uint64_t call,
                                        std::uint32_t row) {
  using Philox = r123::Philox4x32_R<Profile::philox_rounds>;
  const typename Philox::ctr_type counter = {
      {static_cast<std::uint32_t>(call), static_cast<std::uint32_t>(call >> 32), row, group}};
  const typename Philox::key_type key = {
      {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
  const typename Philox::ctr_type out = Philox{}(counter, key);
  return PhiloxWords{{out.v[0], out.v[1], out.v[2], out.v[3]}};
}

/// The Box–Muller inputs of a call's pairs: u in (0, 1) for the radius and h in (−1, 1) for
/// the angle π h, exact conversions (Random123's u01fixedpt; 2 x − 1 is exact on its values).
template <class Real>
struct BoxMullerInputs {
  Real u[kPathsPerCall<Real> / 2];
  Real h[kPathsPerCall<Real> / 2];
};

PFMC_HD_INLINE BoxMullerInputs<float> box_muller_inputs(const PhiloxWords& x, float) {
  BoxMullerInputs<float> in;
  PFMC_UNROLL
  for (int j = 0; j < 2; ++j) {
    in.u[j] = r123::u01fixedpt<float>(x.w[2 * j]);
    in.h[j] = 2.0f * r123::u01fixedpt<float>(x.w[2 * j + 1]) - 1.0f;
  }
  return in;
}
PFMC_HD_INLINE BoxMullerInputs<double> box_muller_inputs(const PhiloxWords& x, double) {
  BoxMullerInputs<double> in;
  in.u[0] = r123::u01fixedpt<double>(static_cast<std::uint64_t>(x.w[0]) |
                                     static_cast<std::uint64_t>(x.w[1]) << 32);
  in.h[0] = 2.0 * r123::u01fixedpt<double>(static_cast<std::uint64_t>(x.w[2]) |
                                           static_cast<std::uint64_t>(x.w[3]) << 32) -
            1.0;
  return in;
}

/// r cos(π h), r sin(π h) with r = sqrt(−2 ln u), with the functions described above.
template <class Profile = math::Accurate>
PFMC_HD_INLINE void box_muller(float u, float h, float& cos_out, float& sin_out) {
#if defined(__CUDA_ARCH__)
  const float r = math::sqrt<Profile>(math::minus_two_log<Profile>(u));
  float s, c;
  __sincosf(3.14159265358979323846f * h, &s, &c);
#else
  const float r = std::sqrt(-2.0f * std::log(u));
  const double angle = 3.14159265358979323846 * static_cast<double>(h);
  const float s = static_cast<float>(std::sin(angle));
  const float c = static_cast<float>(std::cos(angle));
#endif
  cos_out = r * c;
  sin_out = r * s;
}
template <class Profile = math::Accurate>
PFMC_HD_INLINE void box_muller(double u, double h, double& cos_out, double& sin_out) {
  const double r = math::sqrt(-2.0 * math::log(u));
  double s, c;
#if defined(__CUDA_ARCH__)
  sincospi(h, &s, &c);
#else
  // Reference only (the CPU backend uses engine/draws/cpu_draws.hpp): π h rounds once.
  s = std::sin(3.14159265358979323846 * h);
  c = std::cos(3.14159265358979323846 * h);
#endif
  cos_out = r * c;
  sin_out = r * s;
}

/// The draws of kPathsPerCall<Real> consecutive paths (call = first path / kPathsPerCall) for
/// one row of one group.
template <class Real, class Profile = math::Accurate>
PFMC_HD_INLINE void philox_normals(std::uint64_t seed, std::uint32_t group, std::uint64_t call,
                                   std::uint32_t row, Real (&out)[kPathsPerCall<Real>]) {
  const BoxMullerInputs<Real> in =
      box_muller_inputs(philox_words<Profile>(seed, group, call, row), Real());
  PFMC_UNROLL
  for (int j = 0; j < kPathsPerCall<Real> / 2; ++j)
    box_muller<Profile>(in.u[j], in.h[j], out[2 * j], out[2 * j + 1]);
}

/// One draw: path `path`'s draw of `row` (the reference definition; kernels compute a call's
/// paths together).
template <class Real, class Profile = math::Accurate>
PFMC_HD_INLINE Real philox_draw(std::uint64_t seed, std::uint32_t group, std::uint64_t path,
                                std::uint32_t row) {
  Real out[kPathsPerCall<Real>];
  philox_normals<Real, Profile>(seed, group, path / kPathsPerCall<Real>, row, out);
  return out[path % kPathsPerCall<Real>];
}

} // namespace pfmc::kernels
