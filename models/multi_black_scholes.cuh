#pragma once
// N correlated geometric Brownian motions with flat volatilities, stepped exactly in log space:
//
//   ln S_a(t_{i+1}) = ln S_a(t_i) + drift_{a,i} + diffusion_{a,i} (L z_i)_a,
//
// where L is the lower Cholesky factor of the correlation matrix (checked positive definite by
// the config loader) and z_i holds N independent normals of step i.

#include "models/math.cuh"

namespace pfmc::models {

template <class Real, int N, class Profile = math::Accurate>
struct MultiBlackScholes {
  static_assert(N >= 2 && N <= 8);
  using Math = Profile; ///< the math profile (models/math.cuh): the payoff's exp, the draws
  static constexpr int factors = N;
  static constexpr int assets = N;
  static constexpr int cholesky_count = N * (N + 1) / 2;

  /// One step: per asset the drift ∫(r - q) dt - σ² dt / 2 and the diffusion σ sqrt(dt).
  struct Step {
    Real drift[N];
    Real diffusion[N];
  };
  static constexpr int series_count = 2 * N;

  struct Params {
    const Step* steps;
    Real log_spot0[N];
    Real cholesky[cholesky_count]; ///< L row by row: L[i][j] at i (i + 1) / 2 + j, j <= i
  };

  /// constants: {ln S0[N], L row by row}.
  static constexpr int constant_count = N + cholesky_count;
  static Params make_params(const Real* interleaved_series, const double* c) {
    Params p{};
    p.steps = reinterpret_cast<const Step*>(interleaved_series);
    for (int a = 0; a < N; ++a)
      p.log_spot0[a] = static_cast<Real>(c[a]);
    for (int k = 0; k < cholesky_count; ++k)
      p.cholesky[k] = static_cast<Real>(c[N + k]);
    return p;
  }

  struct State {
    Real log_spot[N];
  };

  PFMC_HD_INLINE static State initial(const Params& p) {
    State s;
    PFMC_UNROLL
    for (int a = 0; a < N; ++a)
      s.log_spot[a] = p.log_spot0[a];
    return s;
  }

  PFMC_HD_INLINE static void advance(State& s, const Params& p, int step,
                                     const Real (&z)[factors]) {
    const Step& m = p.steps[step];
    PFMC_UNROLL
    for (int i = 0; i < N; ++i) {
      Real w = Real(0);
      PFMC_UNROLL
      for (int j = 0; j <= i; ++j)
        w += p.cholesky[i * (i + 1) / 2 + j] * z[j];
      s.log_spot[i] += m.drift[i] + m.diffusion[i] * w;
    }
  }

  /// The asset comes from the schedule at run time: selected over the compile-time indices so
  /// that the state stays in registers (a dynamic index would put it in local memory).
  PFMC_HD_INLINE static Real log_spot(const State& s, int asset) {
    Real x = s.log_spot[0];
    PFMC_UNROLL
    for (int a = 1; a < N; ++a)
      x = asset == a ? s.log_spot[a] : x;
    return x;
  }
};

} // namespace pfmc::models
