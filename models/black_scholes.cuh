#pragma once
// Black-Scholes (geometric Brownian motion) with deterministic term structures of rates,
// dividend yield and volatility, stepped exactly in log space over each grid interval:
//
//   ln S(t_{i+1}) = ln S(t_i) + drift_i + diffusion_i * Z_i,
//   drift_i = ∫(r - q) dt - variance_i / 2,  diffusion_i = sqrt(variance_i),
//
// where variance_i is the increment of total implied variance over the interval. The step has
// no discretisation error, so every price converges to its closed form.

#include "models/math.cuh"

namespace pfmc::models {

template <class Real>
struct BlackScholes {
  static constexpr int factors = 1; ///< normals per step
  static constexpr int assets = 1;

  /// Non-owning view of the per-step market data (device or host memory).
  struct Params {
    const Real* drift;     ///< [steps]
    const Real* diffusion; ///< [steps]
    Real log_spot0;
  };

  /// From the plan's series {drift, diffusion} and constants {log spot}.
  static Params make_params(const Real* const* series, const double* constants) {
    return Params{series[0], series[1], static_cast<Real>(constants[0])};
  }
  static constexpr int series_count = 2;

  struct State {
    Real log_spot;
  };

  PFMC_HD_INLINE static State initial(const Params& p) { return State{p.log_spot0}; }

  PFMC_HD_INLINE static void advance(State& s, const Params& p, int step,
                                     const Real (&z)[factors]) {
    s.log_spot += p.drift[step] + p.diffusion[step] * z[0];
  }

  PFMC_HD_INLINE static Real log_spot(const State& s, int /*asset*/) { return s.log_spot; }
};

} // namespace pfmc::models
