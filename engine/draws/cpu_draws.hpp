#pragma once
// The counter-based Philox draws (kernels/counter_draws.cuh) on the host, for the CPU backend:
// the same generator words and the same exact uniforms as the device, and the Box–Muller
// transform vectorised with SLEEF (log and sincospi, 1.0 and 0.5 ulp), several pairs at a time.
// The vector width is chosen once per process: AVX2 with FMA where the CPU has them, else SSE2;
// SLEEF's two builds agree except in the last bit of about one draw in 10^5, so CPU results are
// reproducible on machines of one kind. Draws agree with the GPU's to a few ulps in double and to
// about 2e-6 in float (the device's float sine and cosine are the hardware's).

#include <cstddef>
#include <cstdint>

namespace pfmc::engine {

/// Draws of `count` consecutive paths from `first_path` (a multiple of
/// kernels::kPathsPerCall<Real>) of group `group`, rows [row0, row0 + rows):
/// out[(row - row0) * stride + (path - first_path)]. `fast`: the fast math profile's generator
/// (Philox4x32-7, models/math.cuh) with this file's Box–Muller (the host's accurate functions:
/// the GPU's fast float draws differ by its __logf's error, docs/guide.md, "Math profiles").
void philox_normals_host(std::uint64_t seed, std::uint32_t group, std::uint64_t first_path,
                         int count, std::uint32_t row0, int rows, float* out, std::size_t stride,
                         bool fast = false);
void philox_normals_host(std::uint64_t seed, std::uint32_t group, std::uint64_t first_path,
                         int count, std::uint32_t row0, int rows, double* out, std::size_t stride,
                         bool fast = false);

/// The vector instructions the host transform uses in this process: "avx2" or "sse2".
const char* host_draws_isa();

namespace detail {
/// cos_out[i] = r cos(π h[i]), sin_out[i] = r sin(π h[i]), r = sqrt(−2 ln u[i]), i < n (n a
/// multiple of the vector width: 8 floats or 4 doubles; the arrays 32-byte aligned).
void box_muller_avx2(const float* u, const float* h, float* cos_out, float* sin_out, int n);
void box_muller_avx2(const double* u, const double* h, double* cos_out, double* sin_out, int n);
} // namespace detail

} // namespace pfmc::engine
