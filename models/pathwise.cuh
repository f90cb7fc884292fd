#pragma once
// Pathwise Greeks of Black-Scholes and correlated Black-Scholes (N = 1: one asset with term
// structures of rates, dividends and vol; N = 2..4: a basket's correlated assets): the model
// steps its log-spots exactly as models::BlackScholes / models::MultiBlackScholes do, and beside
// each the log-spot's forward tangents, on the same draws:
//
//   d ln S_a(t) / d S0_a          = 1 / S0_a                          (delta: constant)
//   d ln S_a(t_{i+1}) / d θ        = d ln S_a(t_i) / d θ + d drift_{a,i} / d θ
//                                    + d diffusion_{a,i} / d θ · (L z_i)_a
//
// for θ = asset a's vol (a parallel shift of a Black curve's pillars), the zero rates (parallel)
// and valuation time. The step is affine in its drift and diffusion, so these tangents are exact
// derivatives of the simulated path given the per-step derivatives of the step data, which the
// planner computes in double (engine/plan/pathwise.cpp). models::Path takes the observations in
// Duals of the log-spots (Value<Real>); the payoff's derivative turns them into Greeks
// (models/payoff.cuh, pathwise_estimates).
//
// Inputs, numbered as the Duals' tangents (PathwiseInputs): delta of asset a at a, vega of asset
// a at N + a, rho at 2N, theta at 2N + 1.
//
// A run whose Greeks move only the spots and the vols (delta, gamma, vega, cross-gammas) takes
// the model of Moved = 1 (kSpotAndVolInputs): its paths carry no rate or time tangent, so every
// observation's Dual is 2N + 1 values instead of 2N + 3. The tangents it carries are computed by
// the same operations as the full model's (each tangent of a Dual on its own), so they are the
// same bits. Measured in ptxas (-v, sm_90, `inline` in double, N = 1, register floor 128): 1,920
// bytes of spill stores and a 6,272-byte stack fall to 444 and 4,032
// (docs/decisions.md#spot-and-vol-model).

#include "models/dual.cuh"
#include "models/math.cuh"

namespace pfmc::models {

/// The inputs a step moves, in the order of a step's tangent data: the asset's own vol, the
/// rates, valuation time.
inline constexpr int kMovedInputs = 3;
/// The first of them alone: a model of the spots' and the vols' tangents only.
inline constexpr int kSpotAndVolInputs = 1;

/// The register floor of a Black-Scholes model that carries every moved input (rho or theta
/// asked). ptxas -v (sm_90, `inline` in double, N = 1): 1,968 bytes of spill stores at 128, 404
/// at 168, none at 216; 168 is the most that keeps three 128-thread blocks an SM. Measured (H200,
/// docs/decisions.md#pathwise-floors): the portfolio's five Greeks 9.14 -> 8.80 ms, basket.yaml's
/// first-order Greeks 25.2 -> 19.8 ms; at 255 both slower than at 168 (11.6 and 22.7 ms).
inline constexpr int kAllTangentsRegisters = 168;

/// Where each input's tangent sits in a Dual of a model of N assets that carries the first
/// `Moved` moved inputs (kMovedInputs: all; kSpotAndVolInputs: no rho, no theta).
template <int N, int Moved = kMovedInputs>
struct PathwiseInputs {
  static_assert(Moved == kMovedInputs || Moved == kSpotAndVolInputs);
  static constexpr int count = 2 * N + (Moved - 1);
  PFMC_HD_INLINE static constexpr int delta(int asset) { return asset; }
  PFMC_HD_INLINE static constexpr int vega(int asset) { return N + asset; }
  static constexpr int rho = 2 * N;
  static constexpr int theta = 2 * N + 1;
};

template <class Real, int N, int Moved = kMovedInputs>
struct PathwiseBlackScholes {
  static_assert(N >= 1 && N <= 4);
  using Math = math::Accurate; ///< the Greeks' kernels are accurate only
  using Inputs = PathwiseInputs<N, Moved>;
  /// The moved inputs whose tangents the paths carry (the step data holds all kMovedInputs).
  static constexpr int moved_inputs = Moved;
  static constexpr int factors = N;
  static constexpr int assets = N;
  static constexpr int cholesky_count = N * (N + 1) / 2;
  /// Registers a thread may take (kernels/path_kernel.cuh's model floor, above the loaders'
  /// budgets of 40-64): the tangents and the Duals of the observations spilled 6-45 KB of code at
  /// 64 (ptxas -v, docs/decisions.md#pathwise-floors); every moved input's, kAllTangentsRegisters.
  /// Blocks of at most 65536 / register_floor threads.
  static constexpr int register_floor = Moved == kMovedInputs ? kAllTangentsRegisters : 128;
  /// Observations are Duals of every input (models::Path, models::ValueOf).
  template <class R>
  using Value = Dual<R, Inputs::count>;
  /// A pathwise gamma's moved observation (a basket's level or knock on the path with one spot
  /// moved): its value and its tangents by the spots, which Inputs numbers first, all that
  /// moved_spot_greek reads of it (a gamma's input is a spot's delta, engine/plan/pathwise.cpp).
  /// models::Path computes and keeps only these, in the observation's leading entries.
  template <class R>
  using MovedValue = Dual<R, N>;
  static_assert(Inputs::delta(N - 1) == N - 1, "the spots' tangents lead a Dual");

  /// One step: per asset the drift and the diffusion (Black-Scholes' and MultiBlackScholes'
  /// layout: drift[N] then diffusion[N]).
  struct Step {
    Real drift[N];
    Real diffusion[N];
  };
  /// A step's derivatives by the moved inputs (kMovedInputs' order): asset a's entries of
  /// moved[0] are by its own vol.
  struct StepTangents {
    Step moved[kMovedInputs];
  };
  static constexpr int series_count = 2 * N;
  static constexpr int tangent_series_count = 2 * N * kMovedInputs;

  struct Params {
    const Step* steps;
    const StepTangents* tangents;
    Real log_spot0[N];
    Real inverse_spot0[N];
    Real cholesky[cholesky_count]; ///< L row by row (N > 1)
  };

  /// model_data: the steps' data, then their tangents (StepTangents, per step); constants:
  /// {values before the tangents, ln S0[N], 1 / S0[N], L row by row}.
  static constexpr int constant_count = 1 + 2 * N + cholesky_count;
  static Params make_params(const Real* data, const double* c) {
    Params p{};
    p.steps = reinterpret_cast<const Step*>(data);
    p.tangents = reinterpret_cast<const StepTangents*>(data + static_cast<long long>(c[0]));
    for (int a = 0; a < N; ++a) {
      p.log_spot0[a] = static_cast<Real>(c[1 + a]);
      p.inverse_spot0[a] = static_cast<Real>(c[1 + N + a]);
    }
    for (int k = 0; k < cholesky_count; ++k)
      p.cholesky[k] = static_cast<Real>(c[1 + 2 * N + k]);
    return p;
  }

  struct State {
    Real log_spot[N];
    Real delta[N];        ///< d ln S_a / d S0_a
    Real moved[Moved][N]; ///< d ln S_a / d (own vol, rates, time): the first Moved of them
  };

  PFMC_HD_INLINE static State initial(const Params& p) {
    State s;
    PFMC_UNROLL
    for (int a = 0; a < N; ++a) {
      s.log_spot[a] = p.log_spot0[a];
      s.delta[a] = p.inverse_spot0[a];
      PFMC_UNROLL
      for (int k = 0; k < Moved; ++k)
        s.moved[k][a] = Real(0);
    }
    return s;
  }

  PFMC_HD_INLINE static void advance(State& s, const Params& p, int step,
                                     const Real (&z)[factors]) {
    const Step& m = p.steps[step];
    const StepTangents& t = p.tangents[step];
    PFMC_UNROLL
    for (int i = 0; i < N; ++i) {
      Real w;
      if constexpr (N == 1) {
        w = z[0]; // as BlackScholes steps
      } else {
        w = Real(0); // as MultiBlackScholes correlates
        PFMC_UNROLL
        for (int j = 0; j <= i; ++j)
          w += p.cholesky[i * (i + 1) / 2 + j] * z[j];
      }
      s.log_spot[i] += m.drift[i] + m.diffusion[i] * w;
      PFMC_UNROLL
      for (int k = 0; k < Moved; ++k)
        s.moved[k][i] += t.moved[k].drift[i] + t.moved[k].diffusion[i] * w;
    }
  }

  /// The log-spot of `asset` (from the schedule, at run time: selected over the compile-time
  /// indices so that the state stays in registers) with its tangents.
  PFMC_HD_INLINE static Value<Real> log_spot(const State& s, int asset) {
    Value<Real> x(0);
    x.v = s.log_spot[0];
    x.d[Inputs::delta(0)] = s.delta[0];
    x.d[Inputs::vega(0)] = s.moved[0][0];
    if constexpr (Moved == kMovedInputs) {
      x.d[Inputs::rho] = s.moved[1][0];
      x.d[Inputs::theta] = s.moved[2][0];
    }
    PFMC_UNROLL
    for (int a = 1; a < N; ++a) {
      const bool here = asset == a;
      x.v = here ? s.log_spot[a] : x.v;
      x.d[Inputs::delta(a)] = here ? s.delta[a] : Real(0);
      x.d[Inputs::delta(0)] = here ? Real(0) : x.d[Inputs::delta(0)];
      x.d[Inputs::vega(a)] = here ? s.moved[0][a] : Real(0);
      x.d[Inputs::vega(0)] = here ? Real(0) : x.d[Inputs::vega(0)];
      if constexpr (Moved == kMovedInputs) {
        x.d[Inputs::rho] = here ? s.moved[1][a] : x.d[Inputs::rho];
        x.d[Inputs::theta] = here ? s.moved[2][a] : x.d[Inputs::theta];
      }
    }
    return x;
  }
};

template <class Model>
inline constexpr bool kIsPathwise = false;
template <class Real, int N, int Moved>
inline constexpr bool kIsPathwise<PathwiseBlackScholes<Real, N, Moved>> = true;

/// The moved inputs whose tangents a pathwise model's paths carry (kMovedInputs, or
/// kSpotAndVolInputs); 0 for a model that is not pathwise.
template <class Model>
inline constexpr int kPathwiseMovedInputs = 0;
template <class Real, int N, int Moved>
inline constexpr int kPathwiseMovedInputs<PathwiseBlackScholes<Real, N, Moved>> = Moved;

} // namespace pfmc::models
