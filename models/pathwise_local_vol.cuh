#pragma once
// Pathwise Greeks of local vol: the model steps the log-spot exactly as models::LocalVol does
// (Euler, the vol at the step's start interpolated linearly in log moneyness: local_vol_step, on
// the same draws), in a Dual of the four inputs (PathwiseInputs<1>: delta 0, vega 1, rho 2,
// theta 3):
//
//   delta  the spot, which moves ln S0 and every step's ln F(0, t) (so the moneyness of a path
//          moves only as its log-spot's tangent says): unlike Black-Scholes and Heston, the
//          tangent changes along the path, through the vol's slope in moneyness;
//   vega   a parallel shift of every node of the surface (the bumps' vega: engine/plan/
//          scenarios.cpp, bump_vol);
//   rho    the zero rates (parallel): each step's drift and ln F(0, t);
//   theta  valuation time: the first step's interval, and the surface's row and the forward at
//          each step's time from valuation.
//
// Each step's data's derivatives by the four inputs are the planner's central differences of its
// own step data (engine/plan/pathwise.cpp); the step is differentiated by the chain rule
// (models/dual.cuh). The vol is Lipschitz in moneyness (linear between knots, flat outside), so
// the tangents are the derivative of the simulated path almost everywhere.

#include "models/dual.cuh"
#include "models/local_vol.cuh"
#include "models/math.cuh"
#include "models/pathwise.cuh"

namespace pfmc::models {

template <class Real>
struct PathwiseLocalVol {
  using Math = math::Accurate; ///< the Greeks' kernels are accurate only
  using Inputs = PathwiseInputs<1>;
  static constexpr int factors = 1;
  static constexpr int assets = 1;
  /// As models::PathwiseBlackScholes: the Duals of the step and of the observations.
  static constexpr int register_floor = 128;
  template <class R>
  using Value = Dual<R, Inputs::count>;
  /// The inputs whose tangents each step's data carries: all four, in Inputs' order.
  static constexpr int moved_inputs = Inputs::count;

  struct Params {
    const Real* steps;    ///< LocalVol's layout: `stride` values a step
    const Real* knots;    ///< the surface's log-moneyness, ascending
    const Real* tangents; ///< per step, per input (Inputs' order), `stride` values
    int knot_count;
    int stride;
    Real log_spot0;
    Real inverse_spot0;
  };

  /// model_data: LocalVol's (the steps' data, then the knots), then the tangents; constants:
  /// {values before the tangents, ln S0, 1 / S0, knot count, steps}.
  static constexpr int constant_count = 5;
  static Params make_params(const Real* data, const double* c) {
    const int knots = static_cast<int>(c[3]);
    const int stride = LocalVol<Real>::fixed_series + knots;
    return Params{data,
                  data + static_cast<long long>(c[4]) * stride,
                  data + static_cast<long long>(c[0]),
                  knots,
                  stride,
                  static_cast<Real>(c[1]),
                  static_cast<Real>(c[2])};
  }

  struct State {
    Value<Real> log_spot;
  };

  PFMC_HD_INLINE static State initial(const Params& p) {
    State s;
    s.log_spot = Value<Real>(p.log_spot0);
    s.log_spot.d[Inputs::delta(0)] = p.inverse_spot0;
    return s;
  }

  PFMC_HD_INLINE static void advance(State& s, const Params& p, int step,
                                     const Real (&z)[factors]) {
    const long long at = static_cast<long long>(step) * p.stride;
    const Real* m = p.steps + at;
    const Real* t = p.tangents + at * moved_inputs;
    const int stride = p.stride;
    const auto data = [m, t, stride](int i) {
      Value<Real> x;
      x.v = m[i];
      PFMC_UNROLL
      for (int k = 0; k < moved_inputs; ++k)
        x.d[k] = t[k * stride + i];
      return x;
    };
    local_vol_step(s.log_spot, p.knots, p.knot_count, data, z);
  }

  PFMC_HD_INLINE static Value<Real> log_spot(const State& s, int /*asset*/) { return s.log_spot; }
};

template <class Real>
inline constexpr bool kIsPathwise<PathwiseLocalVol<Real>> = true;
template <class Real>
inline constexpr int kPathwiseMovedInputs<PathwiseLocalVol<Real>> = kMovedInputs;

} // namespace pfmc::models
