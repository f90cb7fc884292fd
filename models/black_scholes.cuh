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

template <class Real, class Profile = math::Accurate>
struct BlackScholes {
  using Math = Profile; ///< the math profile (models/math.cuh): the payoff's exp, the draws
  static constexpr int factors = 1; ///< normals per step
  static constexpr int assets = 1;

  /// One grid step's market data, loaded with one vector load.
  struct alignas(2 * sizeof(Real)) Step {
    Real drift;
    Real diffusion;
  };

  /// Non-owning view of the per-step market data (device or host memory).
  struct Params {
    const Step* steps; ///< [steps]
    Real log_spot0;
  };

  /// The plan's series {drift, diffusion}, interleaved per step (engine/plan/plan.hpp), and its
  /// constants {log spot}.
  static constexpr int series_count = 2;
  static constexpr int constant_count = 1;
  static Params make_params(const Real* interleaved_series, const double* constants) {
    return Params{reinterpret_cast<const Step*>(interleaved_series),
                  static_cast<Real>(constants[0])};
  }

  struct State {
    Real log_spot;
  };

  PFMC_HD_INLINE static State initial(const Params& p) { return State{p.log_spot0}; }

  PFMC_HD_INLINE static void advance(State& s, const Params& p, int step,
                                     const Real (&z)[factors]) {
    const Step m = p.steps[step];
    s.log_spot += m.drift + m.diffusion * z[0];
  }

  /// Steps first .. first + Count - 1 are simulated soon: their data is asked for now
  /// (models::Path, a batch ahead).
  template <int Count>
  PFMC_HD_INLINE static void prefetch(const Params& p, int first) {
    math::prefetch_l1<static_cast<int>(sizeof(Step)) * Count>(p.steps + first);
  }

  PFMC_HD_INLINE static Real log_spot(const State& s, int /*asset*/) { return s.log_spot; }
};

} // namespace pfmc::models
