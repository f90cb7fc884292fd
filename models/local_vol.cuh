#pragma once
// Dupire local volatility sigma(t, k) on a grid, k = ln(S / F(0, t)) the log forward moneyness:
//
//   ln S(t_{i+1}) = ln S(t_i) + ∫(r - q) dt - sigma_i² dt_i / 2 + sigma_i sqrt(dt_i) Z_i,
//   sigma_i = sigma(t_i, ln S(t_i) - ln F(0, t_i))          (Euler, vol at the step's start).
//
// The surface is market data read every step: the plan interpolates it in time once per step
// (linear between the surface's times, flat outside), so a step's data is one row of vols at
// the surface's log-moneyness knots, next to the step's drift and interval; per path the
// kernel interpolates that row linearly in k (flat outside the knots). A step's row is the same
// for every path: one warp's loads of it are broadcasts from L1.

#include "models/dual.cuh"
#include "models/math.cuh"

namespace pfmc::models {

/// A row's local vol at log moneyness k, linear between the knots and flat outside, in T: Real
/// (models::LocalVol), or a Dual of the inputs that move the path (models::PathwiseLocalVol: the
/// same arithmetic on the values; the knot is chosen on the value, and the tangents are those
/// of the segment's line). row(i) is the vol at knots[i], a T.
template <class T, class Real, class Row>
PFMC_HD_INLINE T local_vol_at(const Real* knots, int n, const Row& row, const T& k) {
  if (value_of(k) <= knots[0])
    return row(0);
  if (value_of(k) >= knots[n - 1])
    return row(n - 1);
  int lo = 0; // knots[lo] < k < knots[hi]
  int hi = n - 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (knots[mid] <= value_of(k)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const T w = (k - knots[lo]) / (knots[hi] - knots[lo]);
  return row(lo) + w * (row(hi) - row(lo));
}

/// One Euler step of the log-spot x over a step's data m(i) (LocalVol's layout: drift, dt,
/// sqrt(dt), ln F(0, t), the row of vols), in T as local_vol_at.
template <class T, class Real, class Data>
PFMC_HD_INLINE void local_vol_step(T& x, const Real* knots, int knot_count, const Data& m,
                                   const Real (&z)[1]) {
  constexpr int fixed = 4; // LocalVol::fixed_series
  const T sigma = local_vol_at(
      knots, knot_count, [&m](int i) { return m(fixed + i); }, x - m(3));
  x = x + (m(0) - Real(0.5) * sigma * sigma * m(1) + sigma * m(2) * z[0]);
}

template <class Real, class Profile = math::Accurate>
struct LocalVol {
  using Math = Profile; ///< the math profile (models/math.cuh): the payoff's exp, the draws
  static constexpr int factors = 1;
  static constexpr int assets = 1;

  /// Per step, `stride` values: {drift ∫(r - q) dt, dt, sqrt(dt), ln F(0, t_i), vols[knots]}.
  static constexpr int fixed_series = 4;

  struct Params {
    const Real* steps;
    const Real* knots; ///< the surface's log-moneyness, ascending
    int knot_count;
    int stride; ///< values per step: fixed_series + knot_count
    Real log_spot0;
  };

  /// constants: {ln S0, knot count, steps}. The knots follow the last step's data in the
  /// model data array (engine/plan/step_data.cpp appends them).
  static constexpr int constant_count = 3;
  static Params make_params(const Real* model_data, const double* c) {
    const int knots = static_cast<int>(c[1]);
    const int stride = fixed_series + knots;
    return Params{model_data, model_data + static_cast<long long>(c[2]) * stride, knots, stride,
                  static_cast<Real>(c[0])};
  }

  struct State {
    Real log_spot;
  };

  PFMC_HD_INLINE static State initial(const Params& p) { return State{p.log_spot0}; }

  /// The local vol of a step's row at log moneyness k.
  PFMC_HD_INLINE static Real vol_at(const Params& p, const Real* row, Real k) {
    return local_vol_at(
        p.knots, p.knot_count, [row](int i) { return row[i]; }, k);
  }

  PFMC_HD_INLINE static void advance(State& s, const Params& p, int step,
                                     const Real (&z)[factors]) {
    const Real* m = p.steps + static_cast<long long>(step) * p.stride;
    local_vol_step(
        s.log_spot, p.knots, p.knot_count, [m](int i) { return m[i]; }, z);
  }

  PFMC_HD_INLINE static Real log_spot(const State& s, int /*asset*/) { return s.log_spot; }
};

} // namespace pfmc::models
