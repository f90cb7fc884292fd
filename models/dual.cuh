#pragma once
// Forward-mode tangents of a path's observations: Dual<Real, J> is a value and its derivatives
// with respect to J inputs of the run (models/pathwise.cuh names them: each spot, each vol, the
// rate, valuation time). A pathwise model's log-spot is a Dual; models::Path then takes its
// observations (spots, averages, extremes, basket levels) in Duals with the code that takes
// plain values, so each observation carries its pathwise derivatives to the payoff.
//
// Comparisons, min and max look at the value alone: an extreme's or a basket's winner carries
// its own tangent (the pathwise derivative, almost everywhere, of a min or a max).
// static_cast<double> is the value: the payoff code reads observations that way.

#include <type_traits>

#include "models/math.cuh"

namespace pfmc::models {

template <class Real, int J>
struct Dual {
  static_assert(J >= 1);
  static constexpr int tangents = J;
  Real v;    ///< the value
  Real d[J]; ///< d value / d input j

  Dual() = default; // trivially copyable, left uninitialised like a Real
  /// A constant (no input moves it).
  template <class S>
  PFMC_HD_INLINE constexpr explicit Dual(S x) : v(static_cast<Real>(x)), d{} {}

  PFMC_HD_INLINE constexpr explicit operator double() const { return static_cast<double>(v); }

  // Tangents are added rounded once, never fused with the product before them: a sum of two
  // tangents that each end in a product (a quotient's, a log's, a constant's multiple) could be
  // fused either way, and was, differently in two kernels of the pathwise Heston QE step
  // (smem_rolling_async's steps two at a time against `none`). The values are added as a Real
  // is, so a pathwise model's path is its plain model's.
  PFMC_HD_INLINE friend Dual operator+(const Dual& a, const Dual& b) {
    Dual r;
    r.v = a.v + b.v;
    PFMC_UNROLL
    for (int j = 0; j < J; ++j)
      r.d[j] = math::add_rn(a.d[j], b.d[j]);
    return r;
  }
  PFMC_HD_INLINE friend Dual operator-(const Dual& a) {
    Dual r;
    r.v = -a.v;
    PFMC_UNROLL
    for (int j = 0; j < J; ++j)
      r.d[j] = -a.d[j];
    return r;
  }
  /// The product rule's tangent a' b + a b' is a sum of two products, which the compiler may
  /// fuse either way (fma(a', b, a b') or fma(a, b', a' b)) and did differently in two kernels
  /// of one pathwise model (Heston's steps two at a time in smem_rolling_async, against
  /// `none`); each product and the sum rounded once, never fused, are the same everywhere.
  PFMC_HD_INLINE friend Dual operator*(const Dual& a, const Dual& b) {
    Dual r;
    r.v = a.v * b.v;
    PFMC_UNROLL
    for (int j = 0; j < J; ++j)
      r.d[j] = math::add_rn(math::mul_rn(a.d[j], b.v), math::mul_rn(a.v, b.d[j]));
    return r;
  }
  // Quotients: the value divided as a Real is; the tangents multiplied by one reciprocal (a
  // double division is a few dozen instructions: a Heston step's Duals divided each tangent
  // apart would pay J of them per quotient).
  PFMC_HD_INLINE friend Dual operator/(const Dual& a, const Dual& b) {
    Dual r;
    r.v = a.v / b.v;
    const Real inverse = Real(1) / b.v;
    PFMC_UNROLL
    for (int j = 0; j < J; ++j)
      r.d[j] = (a.d[j] - r.v * b.d[j]) * inverse;
    return r;
  }
  PFMC_HD_INLINE friend Dual operator-(const Dual& a, const Dual& b) {
    Dual r;
    r.v = a.v - b.v;
    PFMC_UNROLL
    for (int j = 0; j < J; ++j)
      r.d[j] = math::add_rn(a.d[j], -b.d[j]);
    return r;
  }
  // With a constant on either side (a model's step written once for Real and for Duals,
  // models/heston.cuh): the same values as with the constant made a Dual, fewer operations.
  PFMC_HD_INLINE friend Dual operator+(const Dual& a, Real b) {
    Dual r = a;
    r.v = a.v + b;
    return r;
  }
  PFMC_HD_INLINE friend Dual operator+(Real a, const Dual& b) { return b + a; }
  PFMC_HD_INLINE friend Dual operator-(const Dual& a, Real b) {
    Dual r = a;
    r.v = a.v - b;
    return r;
  }
  PFMC_HD_INLINE friend Dual operator-(Real a, const Dual& b) {
    Dual r = -b;
    r.v = a - b.v;
    return r;
  }
  PFMC_HD_INLINE friend Dual operator*(const Dual& a, Real b) {
    Dual r;
    r.v = a.v * b;
    PFMC_UNROLL
    for (int j = 0; j < J; ++j)
      r.d[j] = a.d[j] * b;
    return r;
  }
  PFMC_HD_INLINE friend Dual operator*(Real a, const Dual& b) { return b * a; }
  PFMC_HD_INLINE friend Dual operator/(const Dual& a, Real b) {
    Dual r;
    r.v = a.v / b;
    const Real inverse = Real(1) / b;
    PFMC_UNROLL
    for (int j = 0; j < J; ++j)
      r.d[j] = a.d[j] * inverse;
    return r;
  }
  PFMC_HD_INLINE friend Dual operator/(Real a, const Dual& b) {
    Dual r;
    r.v = a / b.v;
    const Real slope = -r.v / b.v; // d(a / b) / db
    PFMC_UNROLL
    for (int j = 0; j < J; ++j)
      r.d[j] = slope * b.d[j];
    return r;
  }
  PFMC_HD_INLINE friend bool operator<(const Dual& a, const Dual& b) { return a.v < b.v; }
  PFMC_HD_INLINE friend bool operator<=(const Dual& a, const Dual& b) { return a.v <= b.v; }
  PFMC_HD_INLINE friend bool operator>=(const Dual& a, const Dual& b) { return a.v >= b.v; }
  PFMC_HD_INLINE friend bool operator!=(const Dual& a, const Dual& b) { return a.v != b.v; }
};

/// The value of x: x itself, or a Dual's value (what a branch of a step written for both reads).
template <class Real>
PFMC_HD_INLINE Real value_of(Real x) {
  return x;
}
template <class Real, int J>
PFMC_HD_INLINE Real value_of(const Dual<Real, J>& x) {
  return x.v;
}

/// x's value and its first K tangents (those by inputs 0 .. K - 1).
template <int K, class Real, int J>
PFMC_HD_INLINE Dual<Real, K> leading(const Dual<Real, J>& x) {
  static_assert(K <= J);
  Dual<Real, K> r;
  r.v = x.v;
  PFMC_UNROLL
  for (int j = 0; j < K; ++j)
    r.d[j] = x.d[j];
  return r;
}

template <class T>
inline constexpr bool kIsDual = false;
template <class Real, int J>
inline constexpr bool kIsDual<Dual<Real, J>> = true;

/// The plain type of a value: Real, or a Dual's Real.
template <class T>
struct ScalarOf {
  using type = T;
};
template <class Real, int J>
struct ScalarOf<Dual<Real, J>> {
  using type = Real;
};

} // namespace pfmc::models

namespace pfmc::math {

/// exp under a profile, of a Dual: the value's exp, and each tangent times it.
template <class Profile, class Real, int J>
PFMC_HD_INLINE models::Dual<Real, J> exp(const models::Dual<Real, J>& x) {
  models::Dual<Real, J> r;
  r.v = exp<Profile>(x.v);
  PFMC_UNROLL
  for (int j = 0; j < J; ++j)
    r.d[j] = r.v * x.d[j];
  return r;
}

/// log under a profile, of a Dual: each tangent over the value.
template <class Profile, class Real, int J>
PFMC_HD_INLINE models::Dual<Real, J> log(const models::Dual<Real, J>& x) {
  models::Dual<Real, J> r;
  r.v = log<Profile>(x.v);
  const Real inverse = Real(1) / x.v;
  PFMC_UNROLL
  for (int j = 0; j < J; ++j)
    r.d[j] = x.d[j] * inverse;
  return r;
}

/// sqrt of a Dual: each tangent over twice the root; at 0 (a variance truncated to zero, whose
/// tangents are 0 there) the tangents are 0, not 0/0.
template <class Real, int J>
PFMC_HD_INLINE models::Dual<Real, J> sqrt(const models::Dual<Real, J>& x) {
  models::Dual<Real, J> r;
  r.v = sqrt(x.v);
  const Real half_over = r.v > Real(0) ? Real(0.5) / r.v : Real(0);
  PFMC_UNROLL
  for (int j = 0; j < J; ++j)
    r.d[j] = x.d[j] * half_over;
  return r;
}

} // namespace pfmc::math

namespace pfmc::models {

/// What models::Path keeps a model's observations in, for draws in Real: the model's
/// `Value<Real>` where it names one (a pathwise model's Dual), else Real.
template <class Model, class Real, class = void>
struct ObservationValue {
  using type = Real;
};
template <class Model, class Real>
struct ObservationValue<Model, Real, std::void_t<typename Model::template Value<Real>>> {
  using type = typename Model::template Value<Real>;
};
template <class Model, class Real>
using ValueOf = typename ObservationValue<Model, Real>::type;

/// What models::Path computes of a pathwise gamma's moved observation (ObservationView::
/// shifted_leg >= 0), for draws in Real: the model's `MovedValue<Real>` where it names one (a
/// Dual of the observation's leading tangents), else void (the model has none).
template <class Model, class Real, class = void>
struct MovedObservationValue {
  using type = void;
};
template <class Model, class Real>
struct MovedObservationValue<Model, Real, std::void_t<typename Model::template MovedValue<Real>>> {
  using type = typename Model::template MovedValue<Real>;
};
template <class Model, class Real>
using MovedValueOf = typename MovedObservationValue<Model, Real>::type;

} // namespace pfmc::models
