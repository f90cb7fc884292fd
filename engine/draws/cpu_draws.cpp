#include "engine/draws/cpu_draws.hpp"

#include <emmintrin.h>
#include <sleef.h>

#include <algorithm>

#include "kernels/counter_draws.cuh"
#include "base/error.hpp"

namespace pfmc::engine {

namespace {

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

void box_muller_sse2(const float* u, const float* h, float* cos_out, float* sin_out, int n) {
  for (int i = 0; i < n; i += 4) {
    const __m128 r =
        _mm_sqrt_ps(_mm_mul_ps(_mm_set1_ps(-2.0f), Sleef_logf4_u10sse2(_mm_load_ps(u + i))));
    const Sleef___m128_2 sc = Sleef_sincospif4_u05sse2(_mm_load_ps(h + i));
    _mm_store_ps(cos_out + i, _mm_mul_ps(r, sc.y));
    _mm_store_ps(sin_out + i, _mm_mul_ps(r, sc.x));
  }
}
void box_muller_sse2(const double* u, const double* h, double* cos_out, double* sin_out, int n) {
  for (int i = 0; i < n; i += 2) {
    const __m128d r =
        _mm_sqrt_pd(_mm_mul_pd(_mm_set1_pd(-2.0), Sleef_logd2_u10sse2(_mm_load_pd(u + i))));
    const Sleef___m128d_2 sc = Sleef_sincospid2_u05sse2(_mm_load_pd(h + i));
    _mm_store_pd(cos_out + i, _mm_mul_pd(r, sc.y));
    _mm_store_pd(sin_out + i, _mm_mul_pd(r, sc.x));
  }
}

/// Box–Muller pairs per batch: a multiple of every vector width.
constexpr int kPairs = 256;

template <class Real, class Profile>
void normals(std::uint64_t seed, std::uint32_t group, std::uint64_t first_path, int count,
             std::uint32_t row0, int rows, Real* out, std::size_t stride) {
  constexpr int P = kernels::kPathsPerCall<Real>;
  constexpr int pairs_per_call = P / 2;
  PFMC_EXPECTS(first_path % P == 0, "draws start at a generator call's first path");
  alignas(64) Real u[kPairs], h[kPairs], c[kPairs], s[kPairs];
  const std::uint64_t first_call = first_path / P;
  const std::uint64_t calls = (static_cast<std::uint64_t>(count) + P - 1) / P;
  const bool avx2 = cpu_has_avx2();
  for (int r = 0; r < rows; ++r) {
    const std::uint32_t row = row0 + static_cast<std::uint32_t>(r);
    Real* line = out + static_cast<std::size_t>(r) * stride;
    for (std::uint64_t call0 = 0; call0 < calls; call0 += kPairs / pairs_per_call) {
      const int batch_calls =
          static_cast<int>(std::min<std::uint64_t>(kPairs / pairs_per_call, calls - call0));
      for (int k = 0; k < batch_calls; ++k) {
        const auto in = kernels::box_muller_inputs(
            kernels::philox_words<Profile>(seed, group,
                                           first_call + call0 + static_cast<unsigned>(k), row),
            Real());
        for (int j = 0; j < pairs_per_call; ++j) {
          u[k * pairs_per_call + j] = in.u[j];
          h[k * pairs_per_call + j] = in.h[j];
        }
      }
      const int pairs = batch_calls * pairs_per_call;
      // Pad the last vector with a harmless input.
      const int padded = (pairs + 7) / 8 * 8;
      for (int k = pairs; k < padded; ++k) {
        u[k] = Real(0.5);
        h[k] = Real(0);
      }
      if (avx2) {
        detail::box_muller_avx2(u, h, c, s, padded);
      } else {
        box_muller_sse2(u, h, c, s, padded);
      }
      // Pair j of the batch is paths 2j and 2j + 1 (from the batch's first path).
      const std::uint64_t base = call0 * P;
      for (int k = 0; k < pairs; ++k) {
        const std::uint64_t path = base + 2 * static_cast<std::uint64_t>(k);
        if (path < static_cast<std::uint64_t>(count))
          line[path] = c[k];
        if (path + 1 < static_cast<std::uint64_t>(count))
          line[path + 1] = s[k];
      }
    }
  }
}

} // namespace

void philox_normals_host(std::uint64_t seed, std::uint32_t group, std::uint64_t first_path,
                         int count, std::uint32_t row0, int rows, float* out, std::size_t stride,
                         bool fast) {
  (fast ? normals<float, math::Fast>
        : normals<float, math::Accurate>)(seed, group, first_path, count, row0, rows, out, stride);
}
void philox_normals_host(std::uint64_t seed, std::uint32_t group, std::uint64_t first_path,
                         int count, std::uint32_t row0, int rows, double* out, std::size_t stride,
                         bool fast) {
  (fast ? normals<double, math::Fast>
        : normals<double, math::Accurate>)(seed, group, first_path, count, row0, rows, out, stride);
}

const char* host_draws_isa() {
  return cpu_has_avx2() ? "avx2" : "sse2";
}

} // namespace pfmc::engine
