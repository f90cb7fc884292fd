#pragma once
// Heston stochastic volatility,
//
//   d ln S = (r - q - v/2) dt + sqrt(v) dW_S,   dv = kappa (theta - v) dt + xi sqrt(v) dW_v,
//   d<W_S, W_v> = rho dt,
//
// stepped over each grid interval either by Andersen's quadratic-exponential (QE) scheme (2008,
// "Simple and efficient simulation of the Heston stochastic volatility model", with
// gamma1 = gamma2 = 1/2, psi_c = 1.5 and his martingale correction K0*, "QE-M": without it the
// discounted spot is not a martingale and, measured on the issue's case at quarterly steps, the
// at-the-money call was 0.67 too high) or by full-truncation Euler
// (Lord, Koekkoek and van Dijk 2010). Two independent normals per step: z[0] drives the
// variance, z[1] the part of the log-spot that is independent of it (QE folds the correlation
// into the K1/K2 coefficients; full truncation forms rho z0 + sqrt(1 - rho²) z1).
//
// The grid may be non-uniform (fixing and monitoring dates), so every coefficient that depends
// on the interval is per step, precomputed on the host in double (engine/plan/step_data.cpp),
// read from global memory, where one warp's loads of a step are one broadcast.

#include "models/dual.cuh"
#include "models/math.cuh"

namespace pfmc::models {

/// One Heston step of the log-spot x and the variance v over a step's coefficients m (QE or full
/// truncation, as p.full_truncation says), in T: Real (models::Heston), or a Dual of the inputs
/// that move the path (models::PathwiseHeston: the same arithmetic on the values, so the same
/// path, and the chain rule on the tangents). m's fields and kappa_theta are T; p's kappa, xi,
/// rho and rho_bar are constants, as are the draws.
template <class Math, class T, class Coefficients, class Params, class Real>
PFMC_HD_INLINE void heston_step(T& x, T& v_now, const Coefficients& m, const T& kappa_theta,
                                const Params& p, const Real (&z)[2]) {
  if (p.full_truncation) {
    const T v = math::max(v_now, T(0));
    const T vol_dt = math::sqrt(v) * m.sqrt_dt;
    x = x + (m.rq - Real(0.5) * v * m.dt + vol_dt * (p.rho * z[0] + p.rho_bar * z[1]));
    v_now = v_now + ((kappa_theta - p.kappa * v) * m.dt + p.xi * vol_dt * z[0]);
    return;
  }
  // QE: the next variance from a moment-matched quadratic (psi <= psi_c) or exponential
  // mixture (psi > psi_c); both branches read z[0] and are warp-divergent only per path. The
  // martingale correction K0* makes E[S(t + dt) | t] = S(t) e^{(r - q) dt} exactly; it
  // replaces K0 + K1 v + K3 v / 2, so K1 and K3's v terms cancel into it. The branch and the
  // zero of the exponential mixture are chosen on the values: a Dual's tangents are the
  // derivative of the branch taken (the mixture is continuous at its zero; the switch at psi_c
  // is not, and the tangents do not see it: its cost in docs/decisions.md#heston-pathwise).
  const T v = v_now;
  const T mean = m.m0 + m.e * v;
  const T s2 = m.c1 * v + m.c2;
  const T psi = s2 / (mean * mean);
  T next;
  T k0_star;
  if (value_of(psi) <= Real(1.5)) {
    const T two_over_psi = Real(2) / psi;
    const T b2 =
        two_over_psi - Real(1) + math::sqrt(two_over_psi) * math::sqrt(two_over_psi - Real(1));
    const T a = mean / (Real(1) + b2);
    const T bz = math::sqrt(b2) + z[0];
    next = a * bz * bz;
    const T one_minus = Real(1) - Real(2) * m.a * a; // > 0 for the grids pfmc builds
    k0_star = -m.a * b2 * a / one_minus + Real(0.5) * math::log<Math>(one_minus);
  } else {
    const T p_zero = (psi - Real(1)) / (psi + Real(1));
    const T beta = (Real(1) - p_zero) / mean;
    // U = Φ(z0); 1 - U = Φ(-z0) directly, so the right tail keeps its digits.
    const Real u = math::normcdf(z[0]);
    const Real one_minus_u = math::normcdf(-z[0]);
    next = u <= value_of(p_zero) ? T(0) : math::log<Math>((Real(1) - p_zero) / one_minus_u) / beta;
    k0_star = -math::log<Math>(p_zero + beta * (Real(1) - p_zero) / (beta - m.a));
  }
  x = x + (m.rq + k0_star - Real(0.5) * m.k3 * v + m.k2 * next +
           math::sqrt(m.k3 * v + m.k4 * next) * z[1]);
  v_now = next;
}

template <class Real, class Profile = math::Accurate>
struct Heston {
  using Math =
      Profile; ///< the math profile (models/math.cuh): its logarithms, the payoff's exp, the draws
  static constexpr int factors = 2;
  static constexpr int assets = 1;
  /// The kernel's register budget is at least this (kernels/path_kernel.cuh): the QE step's
  /// chain in double spilled 380 bytes a thread at `none`'s 40 registers.
  static constexpr int register_floor = sizeof(Real) == 8 ? 64 : 0;

  /// One step's coefficients (QE and full truncation both; the scheme picks which it reads).
  struct alignas(2 * sizeof(Real)) Step {
    Real rq;      ///< ∫(r - q) dt
    Real k1, k2;  ///< QE: log-spot coefficients of v(t) and v(t + dt)
    Real k3, k4;  ///< QE: variance coefficients of the log-spot's own noise
    Real e;       ///< exp(-kappa dt)
    Real m0;      ///< theta (1 - e): m = m0 + e v
    Real c1, c2;  ///< s² = c1 v + c2
    Real a;       ///< QE-M: A = K2 + K4 / 2
    Real dt;      ///< full truncation: the interval
    Real sqrt_dt; ///< full truncation
  };
  static constexpr int series_count = 12;
  static_assert(sizeof(Step) == series_count * sizeof(Real));

  struct Params {
    const Step* steps;
    Real log_spot0;
    Real v0;
    Real kappa_theta; ///< full truncation: kappa * theta
    Real kappa;
    Real xi;
    Real rho;
    Real rho_bar;        ///< sqrt(1 - rho²)
    int full_truncation; ///< 0: QE, 1: full-truncation Euler (uniform across a launch)
  };

  /// constants: {ln S0, v0, kappa, theta, xi, rho, scheme (0 QE, 1 full truncation)}.
  static constexpr int constant_count = 7;
  static Params make_params(const Real* interleaved_series, const double* c) {
    return Params{reinterpret_cast<const Step*>(interleaved_series),
                  static_cast<Real>(c[0]),
                  static_cast<Real>(c[1]),
                  static_cast<Real>(c[2] * c[3]),
                  static_cast<Real>(c[2]),
                  static_cast<Real>(c[4]),
                  static_cast<Real>(c[5]),
                  static_cast<Real>(std::sqrt(std::max(0.0, 1.0 - c[5] * c[5]))),
                  c[6] != 0.0 ? 1 : 0};
  }

  struct State {
    Real log_spot;
    Real variance;
  };

  PFMC_HD_INLINE static State initial(const Params& p) { return State{p.log_spot0, p.v0}; }

  PFMC_HD_INLINE static void advance(State& s, const Params& p, int step,
                                     const Real (&z)[factors]) {
    heston_step<Math>(s.log_spot, s.variance, p.steps[step], p.kappa_theta, p, z);
  }

  PFMC_HD_INLINE static Real log_spot(const State& s, int /*asset*/) { return s.log_spot; }
  /// The instantaneous variance (early exercise regresses on it, models/exercise.cuh).
  PFMC_HD_INLINE static Real variance(const State& s, int /*asset*/) { return s.variance; }
};

} // namespace pfmc::models
