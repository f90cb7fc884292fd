// The AVX2 + FMA build of the host Box–Muller transform (engine/draws/cpu_draws.hpp). Compiled with
// -mavx2 -mfma; called only where the CPU has both (engine/draws/cpu_draws.cpp checks).
#include "engine/draws/cpu_draws.hpp"

#include <immintrin.h>
#include <sleef.h>

namespace pfmc::engine::detail {

void box_muller_avx2(const float* u, const float* h, float* cos_out, float* sin_out, int n) {
  for (int i = 0; i < n; i += 8) {
    const __m256 r = _mm256_sqrt_ps(
        _mm256_mul_ps(_mm256_set1_ps(-2.0f), Sleef_logf8_u10avx2(_mm256_load_ps(u + i))));
    const Sleef___m256_2 sc = Sleef_sincospif8_u05avx2(_mm256_load_ps(h + i));
    _mm256_store_ps(cos_out + i, _mm256_mul_ps(r, sc.y));
    _mm256_store_ps(sin_out + i, _mm256_mul_ps(r, sc.x));
  }
}

void box_muller_avx2(const double* u, const double* h, double* cos_out, double* sin_out, int n) {
  for (int i = 0; i < n; i += 4) {
    const __m256d r = _mm256_sqrt_pd(
        _mm256_mul_pd(_mm256_set1_pd(-2.0), Sleef_logd4_u10avx2(_mm256_load_pd(u + i))));
    const Sleef___m256d_2 sc = Sleef_sincospid4_u05avx2(_mm256_load_pd(h + i));
    _mm256_store_pd(cos_out + i, _mm256_mul_pd(r, sc.y));
    _mm256_store_pd(sin_out + i, _mm256_mul_pd(r, sc.x));
  }
}

} // namespace pfmc::engine::detail
