#pragma once
// Pathwise Greeks of Heston: the model steps the log-spot and the variance exactly as
// models::Heston does (QE or full truncation: models/heston.cuh's heston_step, on the same
// draws), in Duals of the three inputs that move a step's coefficients (kMovedInputs' order):
//
//   vega   a parallel shift h of sqrt(v0) and sqrt(theta) (the bumps' vega: engine/plan/
//          scenarios.cpp, bump_vol), which moves v0, kappa theta and every step's m0 and c2;
//   rho    the zero rates (parallel), which move each step's rq;
//   theta  valuation time, which moves the first step's interval (and, on a curve, every rq).
//
// The step's coefficients' derivatives are the planner's central differences of its own step
// data (engine/plan/pathwise.cpp), as for models::PathwiseBlackScholes; the step itself is
// differentiated by the chain rule (models/dual.cuh), so the tangents are the exact derivatives
// of the simulated path given its branches: full truncation's max(v, 0) is Lipschitz, QE's
// exponential mixture is continuous at its zero, and QE's switch of scheme at psi_c = 1.5 is a
// jump the tangents do not see (its measured cost: docs/decisions.md#heston-pathwise). Delta needs
// no tangent: the log-spot moves with ln S0 and the variance not at all, d ln S(t) / d S0 = 1 / S0.
//
// Inputs, numbered as PathwiseInputs<1>: delta 0, vega 1, rho 2, theta 3.

#include "models/dual.cuh"
#include "models/heston.cuh"
#include "models/math.cuh"
#include "models/pathwise.cuh"

namespace pfmc::models {

template <class Real>
struct PathwiseHeston {
  using Math = math::Accurate; ///< the Greeks' kernels are accurate only
  using Inputs = PathwiseInputs<1>;
  static constexpr int factors = 2;
  static constexpr int assets = 1;
  /// As models::PathwiseBlackScholes: the Duals of the step's chain and of the observations.
  static constexpr int register_floor = 128;
  template <class R>
  using Value = Dual<R, Inputs::count>;

  using Step = typename Heston<Real>::Step;
  /// A step's derivatives by the moved inputs (vol, rates, time), each laid out as a Step.
  struct StepTangents {
    Step moved[kMovedInputs];
  };
  static constexpr int series_count = Heston<Real>::series_count;
  static constexpr int tangent_series_count = series_count * kMovedInputs;
  /// A value with its tangents by the moved inputs.
  using Moving = Dual<Real, kMovedInputs>;

  /// Heston's coefficients of one step, each with its tangents.
  struct Coefficients {
    Moving rq, k2, k3, k4, e, m0, c1, c2, a, dt, sqrt_dt;
  };

  struct Params {
    const Step* steps;
    const StepTangents* tangents;
    Real log_spot0;
    Real inverse_spot0;
    Moving v0;
    Moving kappa_theta;
    Real kappa;
    Real xi;
    Real rho;
    Real rho_bar;
    int full_truncation;
  };

  /// model_data: the steps' data (Heston's), then their tangents (StepTangents, per step);
  /// constants: {values before the tangents, ln S0, 1 / S0, v0, kappa, theta, xi, rho, scheme
  /// (0 QE, 1 full truncation), d v0 / d vol, d theta / d vol}.
  static constexpr int constant_count = 11;
  static Params make_params(const Real* data, const double* c) {
    Params p{};
    p.steps = reinterpret_cast<const Step*>(data);
    p.tangents = reinterpret_cast<const StepTangents*>(data + static_cast<long long>(c[0]));
    p.log_spot0 = static_cast<Real>(c[1]);
    p.inverse_spot0 = static_cast<Real>(c[2]);
    p.v0 = Moving(c[3]);
    p.v0.d[0] = static_cast<Real>(c[9]);
    p.kappa_theta = Moving(c[4] * c[5]);
    p.kappa_theta.d[0] = static_cast<Real>(c[4] * c[10]);
    p.kappa = static_cast<Real>(c[4]);
    p.xi = static_cast<Real>(c[6]);
    p.rho = static_cast<Real>(c[7]);
    p.rho_bar = static_cast<Real>(std::sqrt(std::max(0.0, 1.0 - c[7] * c[7])));
    p.full_truncation = c[8] != 0.0 ? 1 : 0;
    return p;
  }

  struct State {
    Moving log_spot;
    Moving variance;
    Real delta; ///< d ln S / d S0
  };

  PFMC_HD_INLINE static State initial(const Params& p) {
    State s;
    s.log_spot = Moving(p.log_spot0);
    s.variance = p.v0;
    s.delta = p.inverse_spot0;
    return s;
  }

  PFMC_HD_INLINE static void advance(State& s, const Params& p, int step,
                                     const Real (&z)[factors]) {
    const Step& m = p.steps[step];
    const StepTangents& t = p.tangents[step];
    Coefficients c;
    take(c.rq, m.rq, t, &Step::rq);
    take(c.k2, m.k2, t, &Step::k2);
    take(c.k3, m.k3, t, &Step::k3);
    take(c.k4, m.k4, t, &Step::k4);
    take(c.e, m.e, t, &Step::e);
    take(c.m0, m.m0, t, &Step::m0);
    take(c.c1, m.c1, t, &Step::c1);
    take(c.c2, m.c2, t, &Step::c2);
    take(c.a, m.a, t, &Step::a);
    take(c.dt, m.dt, t, &Step::dt);
    take(c.sqrt_dt, m.sqrt_dt, t, &Step::sqrt_dt);
    heston_step<Math>(s.log_spot, s.variance, c, p.kappa_theta, p, z);
  }

  /// The log-spot with its tangents, numbered as Inputs.
  PFMC_HD_INLINE static Value<Real> log_spot(const State& s, int /*asset*/) {
    Value<Real> x;
    x.v = s.log_spot.v;
    x.d[Inputs::delta(0)] = s.delta;
    x.d[Inputs::vega(0)] = s.log_spot.d[0];
    x.d[Inputs::rho] = s.log_spot.d[1];
    x.d[Inputs::theta] = s.log_spot.d[2];
    return x;
  }

  /// The instantaneous variance's value (early exercise regresses on it, models/exercise.cuh, as
  /// on Heston's own paths).
  PFMC_HD_INLINE static Real variance(const State& s, int /*asset*/) { return s.variance.v; }

private:
  /// A coefficient's value and its tangents from the step's data.
  PFMC_HD_INLINE static void take(Moving& out, Real value, const StepTangents& t,
                                  Real Step::*field) {
    out.v = value;
    PFMC_UNROLL
    for (int k = 0; k < kMovedInputs; ++k)
      out.d[k] = t.moved[k].*field;
  }
};

template <class Real>
inline constexpr bool kIsPathwise<PathwiseHeston<Real>> = true;
template <class Real>
inline constexpr int kPathwiseMovedInputs<PathwiseHeston<Real>> = kMovedInputs;

} // namespace pfmc::models
