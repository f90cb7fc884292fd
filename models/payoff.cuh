#pragma once
// Path functionals ("observations") and payoffs, shared by the GPU kernels and the CPU backend.
//
// A simulation group observes a path through a small set of observations: the log-spot at a
// maturity, the running arithmetic or log sum over a fixing schedule, the running min or max of
// the log-spot over a monitoring schedule. Instruments that share a schedule share the
// observation (e.g. every strike of one Asian schedule), so the per-path state does not grow
// with the number of instruments. At maturity each observation is finalised once (spot,
// average, extreme), and each instrument's payoff is a small function of one or two of them.
// Any payoff may carry a knock (a barrier feature): the running extreme of the spot, or of a
// basket's level, over a monitoring schedule decides whether the payoff or the rebate is paid.

#include <cstdint>
#include <type_traits>

#include "models/dual.cuh"
#include "models/math.cuh"
#include "models/scenarios.cuh"

namespace pfmc::models {

/// At most this many distinct observations per simulation group (the per-path state).
inline constexpr int kMaxObservations = 64;

enum class ObservationKind : int {
  terminal,       ///< log-spot at one date; finalised to the spot
  arithmetic_sum, ///< Σ spot over fixings; finalised to the arithmetic average
  log_sum,        ///< Σ log-spot over fixings; finalised to the geometric average
  running_min,    ///< min log-spot over monitoring dates; kept in log space
  running_max,    ///< max log-spot over monitoring dates; kept in log space
  basket_min,     ///< min basket level (not its log: a spread may be <= 0) over monitoring dates
  basket_max,     ///< max basket level over monitoring dates
};

inline constexpr int kMaxBasketAssets = 4;
enum class BasketKind : int { weighted, max, min };

/// True for the observations of a basket's level, which read every leg of a multi-asset state.
PFMC_HD_INLINE constexpr bool is_basket_observation(ObservationKind kind) {
  return kind == ObservationKind::basket_min || kind == ObservationKind::basket_max;
}

struct ObservationView {
  ObservationKind kind;
  int asset; ///< which asset of the model (a basket level: its first leg)
  int count; ///< number of dates in the schedule (for averages)
  // A basket level only: legs asset .. asset + legs - 1, combined as the basket's payoff does.
  int legs;
  BasketKind basket;
  double weights[kMaxBasketAssets];
  /// A pathwise gamma's moved level (engine/plan/instruments.cpp): leg shifted_leg's value
  /// times leg_scale (1 ± the spot's bump: the path of the asset whose spot moved), its tangents
  /// as they are (a spot's move scales its path, not the path's derivative by it); -1: none.
  int shifted_leg;
  double leg_scale;
};
static_assert(std::is_trivially_copyable_v<ObservationView>);

/// A basket's level in a state: Σ w_a S_a (weighted), max_a w_a S_a or min_a w_a S_a, where
/// log_spot(a) is the log-spot of the model's asset a; `o` names the legs (asset, legs, basket,
/// weights: an ObservationView, or an early-exercise instrument's view). Math: the run's math
/// profile (models/math.cuh), as in the functions below.
template <class Real, class Math = math::Accurate, class View, class LogSpot>
PFMC_HD_INLINE Real basket_level(const View& o, const LogSpot& log_spot) {
  const auto leg_at = [&](int a) {
    Real x = static_cast<Real>(o.weights[a]) * math::exp<Math>(log_spot(o.asset + a));
    if constexpr (kIsDual<Real>) { // a pathwise group's moved level (ObservationView)
      if (a == o.shifted_leg)
        x.v = x.v * static_cast<decltype(x.v)>(o.leg_scale);
    }
    return x;
  };
  Real b = leg_at(0);
  for (int a = 1; a < o.legs; ++a) {
    const Real leg = leg_at(a);
    b = o.basket == BasketKind::weighted ? b + leg
        : o.basket == BasketKind::max    ? math::max(b, leg)
                                         : math::min(b, leg);
  }
  return b;
}

/// Real: the observation's type (a plain value, or a Dual of a pathwise model).
template <class Real>
PFMC_HD_INLINE Real observation_start(ObservationKind kind) {
  using Scalar = typename ScalarOf<Real>::type;
  switch (kind) {
  case ObservationKind::running_min:
  case ObservationKind::basket_min:
    return static_cast<Real>(math::infinity<Scalar>());
  case ObservationKind::running_max:
  case ObservationKind::basket_max:
    return static_cast<Real>(-math::infinity<Scalar>());
  default:
    return Real(0);
  }
}

/// What an observation of `kind` takes from the path at a date: the spot for arithmetic sums,
/// else the log-spot (basket levels: basket_level).
template <class Math = math::Accurate, class Real>
PFMC_HD_INLINE Real observation_input(ObservationKind kind, Real log_spot) {
  return kind == ObservationKind::arithmetic_sum ? math::exp<Math>(log_spot) : log_spot;
}

/// The observation after one more date with input x.
template <class Real>
PFMC_HD_INLINE Real observation_combine(ObservationKind kind, Real value, Real x) {
  switch (kind) {
  case ObservationKind::terminal:
    return x;
  case ObservationKind::arithmetic_sum:
  case ObservationKind::log_sum:
    return value + x;
  case ObservationKind::running_min:
  case ObservationKind::basket_min:
    return math::min(value, x);
  case ObservationKind::running_max:
  case ObservationKind::basket_max:
    return math::max(value, x);
  }
  return value;
}

/// One observation date of the schedule, packed in 4 bytes so that a step's events cost one
/// load each.
struct EventCode {
  unsigned char observation;
  unsigned char kind; ///< ObservationKind
  unsigned char asset;
  unsigned char unused;
};
static_assert(sizeof(EventCode) == 4 && std::is_trivially_copyable_v<EventCode>);

template <class Math = math::Accurate, class Real>
PFMC_HD_INLINE Real observation_finish(Real value, ObservationKind kind, int count) {
  switch (kind) {
  case ObservationKind::terminal:
    return math::exp<Math>(value);
  case ObservationKind::arithmetic_sum:
    return value / Real(count);
  case ObservationKind::log_sum:
    return math::exp<Math>(value / Real(count));
  default:
    return value;
  }
}

/// The payoff before any knock: `barrier` instruments are Europeans with a knock. `exercised`:
/// an early-exercise instrument, whose discounted cash flow the path kept in the observation
/// slot `underlying_observation` (models/exercise.cuh; its discount is 1). Its view is a call
/// struck at 0 on that cash flow (engine/plan/instruments.cpp), so that payoff_slope reads a
/// pathwise group's cash flow's tangents as its Greeks.
enum class PayoffKind : int { european, digital, asian, basket, exercised };
/// What an instrument's control variate is (simulation.control_variate).
enum class ControlKind : int {
  none,
  terminal_spot,   ///< discounted S_T (Europeans): mean S0 e^{-qT}, any model
  geometric_asian, ///< the geometric Asian of the same schedule and strike (arithmetic Asians)
};
enum class BarrierDirection : int { down, up };

/// One instrument as the payoff code sees it (all prices in double; the knock level is
/// compared with its observation in the simulation's precision).
struct InstrumentView {
  PayoffKind kind;
  int is_call;
  int underlying_observation; ///< spot at maturity, the average (Asians), the level (baskets)
  int knock_observation;      ///< the running extreme a knock reads, else -1 (no knock)
  BarrierDirection direction; ///< down: knocked at or below the level; up: at or above
  int knock_in;               ///< 1: knock-in, 0: knock-out
  double strike;
  /// The knock level in its observation's space: the log of the level for a spot's extreme,
  /// the level itself for a basket's (a spread's level may be <= 0).
  double knock_level;
  double rebate;   ///< paid at maturity (knocked out / never knocked in)
  double cash;     ///< digital payout
  double discount; ///< discount factor to maturity
  double quantity; ///< portfolio quantity (0 when not held)

  /// 1 / S0 when delta is taken pathwise (a European or Asian on a model whose paths scale
  /// with the spot, dS(t)/dS0 = S(t)/S0: Black-Scholes, Heston), else 0 (bump-and-revalue).
  double pathwise_delta;
  /// d discount / d rate (a parallel zero-rate shift) and d discount / d valuation time: the
  /// discount's part of pathwise rho and theta (0 where the group's Greeks are bumps).
  double discount_tangent[2];
  /// Pathwise Greeks of payoffs that jump (engine/plan/pathwise.cpp): the half-widths of the
  /// uniform kernels that stand in for the jump's delta function, the digital's (in its
  /// observation's units) and the knock's (in its extreme's: log-spot, or basket level).
  double payoff_smoothing;
  double knock_smoothing;
  ControlKind control;     ///< control variate, when the run asks for them
  int control_observation; ///< terminal spot, or the schedule's log sum (geometric average)

  BasketKind basket;                ///< basket instruments
  int basket_assets;                ///< number of legs
  double weights[kMaxBasketAssets]; ///< the legs' weights (its level's observation's)
  /// A pathwise gamma of a basket whose level (max, min) or knock's extreme is not linear in
  /// each spot: [asset a][0: a's spot moved up, 1: down], the observation of that level or
  /// extreme on the path moved (ObservationView::shifted_leg; moved_spot_greek); -1: the move is
  /// taken along the tangent (exact where the observation is linear in the spot).
  std::int16_t moved_level[kMaxBasketAssets][2];
  std::int16_t moved_knock[kMaxBasketAssets][2];
};
static_assert(std::is_trivially_copyable_v<InstrumentView>);

/// A call's or a put's payoff at s (a spot, an average, a basket's level): max(s − K, 0) or
/// max(K − s, 0).
PFMC_HD_INLINE double vanilla_payoff(int is_call, double strike, double s) {
  return is_call ? math::max(s - strike, 0.0) : math::max(strike - s, 0.0);
}

/// Discounted payoffs of one instrument on P paths: out[p] = the payoff on path p, where
/// observed(p, o) is path p's finalised observation o (a Real). The kind is dispatched once for
/// all the paths and the instrument's fields are read once.
template <int P, class Observed>
PFMC_HD_INLINE void discounted_payoffs(const InstrumentView& in, const Observed& observed,
                                       double (&out)[P]) {
  using Real = decltype(observed(0, 0));
  const auto vanilla = [&](double s) { return vanilla_payoff(in.is_call, in.strike, s); };
  PFMC_UNROLL
  for (int p = 0; p < P; ++p)
    out[p] = 0.0; // every kind writes it; this tells the host compiler so (dead in the kernel)
  switch (in.kind) {
  case PayoffKind::exercised:
    PFMC_UNROLL
    for (int p = 0; p < P; ++p)
      out[p] = static_cast<double>(observed(p, in.underlying_observation));
    break;
  case PayoffKind::european:
  case PayoffKind::asian:
  case PayoffKind::basket: // its level at maturity (a basket_max of one date)
    PFMC_UNROLL
    for (int p = 0; p < P; ++p)
      out[p] = vanilla(static_cast<double>(observed(p, in.underlying_observation)));
    break;
  case PayoffKind::digital:
    PFMC_UNROLL
    for (int p = 0; p < P; ++p) {
      const double s = static_cast<double>(observed(p, in.underlying_observation));
      out[p] = (in.is_call ? s > in.strike : s < in.strike) ? in.cash : 0.0;
    }
    break;
  }
  if (in.knock_observation >= 0) { // the knock: the payoff where alive, else the rebate
    const Real level = static_cast<Real>(in.knock_level);
    PFMC_UNROLL
    for (int p = 0; p < P; ++p) {
      const Real extreme = observed(p, in.knock_observation);
      const bool crossed =
          in.direction == BarrierDirection::down ? extreme <= level : extreme >= level;
      const bool alive = in.knock_in ? crossed : !crossed;
      out[p] = alive ? out[p] : in.rebate;
    }
  }
  PFMC_UNROLL
  for (int p = 0; p < P; ++p)
    out[p] = out[p] * in.discount;
}

/// Discounted payoff of one instrument on one path; observed(o) is finalised observation o
/// (a Real).
template <class Observed>
PFMC_HD_INLINE double discounted_payoff(const InstrumentView& in, const Observed& observed) {
  double out[1];
  discounted_payoffs<1>(
      in, [&](int, int o) { return observed(o); }, out);
  return out[0];
}

/// Pathwise delta of a European or Asian on a spot-homogeneous model: d/dS0 of the discounted
/// payoff, (S > K) S / S0 for a call, -(S < K) S / S0 for a put (S the terminal spot or the
/// average, both proportional to S0 along a path).
template <class Observed>
PFMC_HD_INLINE double pathwise_delta(const InstrumentView& in, const Observed& observed) {
  const double s = static_cast<double>(observed(in.underlying_observation));
  const double in_the_money =
      in.is_call ? (s > in.strike ? 1.0 : 0.0) : (s < in.strike ? -1.0 : 0.0);
  return in_the_money * s * in.pathwise_delta * in.discount;
}

/// The discounted control variate of one instrument on one path (0 without one); its mean is
/// known in closed form (engine/plan/controls.cpp).
template <class Observed>
PFMC_HD_INLINE double discounted_control(const InstrumentView& in, const Observed& observed) {
  switch (in.control) {
  case ControlKind::terminal_spot:
    return static_cast<double>(observed(in.control_observation)) * in.discount;
  case ControlKind::geometric_asian: {
    const double g = static_cast<double>(observed(in.control_observation));
    return vanilla_payoff(in.is_call, in.strike, g) * in.discount;
  }
  case ControlKind::none:
    break;
  }
  return 0.0;
}

/// At most this many Greeks per instrument: on a 4-asset basket, delta, gamma and vega per
/// underlying, rho and theta.
inline constexpr int kMaxGreeks = 3 * kMaxBasketAssets + 2;

/// One pathwise Greek of a group (engine/plan/pathwise.cpp): the payoff's derivative by one
/// input of a pathwise model (models/pathwise.cuh numbers them), or a gamma as the central
/// difference of a pathwise delta under a move of the spot.
struct PathwiseGreek {
  int input;      ///< the tangent the Greek differentiates by
  int moved_spot; ///< gamma: the delta tangent of the spot moved (-1: a first-order Greek)
  double move;    ///< gamma: the spot's move, h · S0 (absolute)
  int discount; ///< the discount's tangent this input moves (InstrumentView::discount_tangent), or
                ///< -1
};
static_assert(std::is_trivially_copyable_v<PathwiseGreek>);

/// d payoff / d s of a call or a put at s (the vanilla payoff's slope, 0 at the strike).
PFMC_HD_INLINE double vanilla_slope(int is_call, double strike, double s) {
  return is_call ? (s > strike ? 1.0 : 0.0) : (s < strike ? -1.0 : 0.0);
}

/// The uniform kernel of half-width w at x: what a smoothed pathwise Greek puts where a payoff
/// jumps (its mean: the Greek averaged over the jump's positions within ±w, an O(w²) bias).
PFMC_HD_INLINE double jump_kernel(double x, double w) {
  return (x > -w && x < w) ? 0.5 / w : 0.0;
}

/// What every first-order pathwise Greek of one instrument shares on one path whose observation
/// is s and whose knock's extreme is x (no knock: unread): the payoff's slope in s, the knock's
/// weight on the extreme's tangent, whether the path is alive and what it pays before its
/// discount. A call's or a put's slope is exact; where the payoff jumps (a digital at its strike,
/// a knock at its level) the jump's delta function is a uniform kernel (jump_kernel): the
/// derivative of the payoff smoothed over ±w around the jump.
struct PayoffSlope {
  double slope; ///< d payoff / d s (where alive)
  double knock; ///< d paid / d x: (payoff − rebate) · the signed kernel at the level
  bool alive;   ///< the payoff is paid (no knock: always)
  double paid;  ///< the payoff where alive, else the rebate
};

PFMC_HD_INLINE PayoffSlope payoff_slope(const InstrumentView& in, double s, double x) {
  PayoffSlope out{};
  double payoff;
  if (in.kind == PayoffKind::digital) {
    payoff = (in.is_call ? s > in.strike : s < in.strike) ? in.cash : 0.0;
    const double k = math::mul_rn(in.cash, jump_kernel(s - in.strike, in.payoff_smoothing));
    out.slope = in.is_call ? k : -k;
  } else {
    payoff = vanilla_payoff(in.is_call, in.strike, s);
    out.slope = vanilla_slope(in.is_call, in.strike, s);
  }
  out.alive = true;
  out.paid = payoff;
  if (in.knock_observation >= 0) {
    const bool down = in.direction == BarrierDirection::down;
    const bool crossed = down ? x <= in.knock_level : x >= in.knock_level;
    out.alive = in.knock_in ? crossed : !crossed;
    // d alive / d extreme: +δ for a down-and-out; its sign flips with up and with in.
    const double sign = (down ? 1.0 : -1.0) * (in.knock_in ? -1.0 : 1.0);
    const double jump = math::mul_rn(sign, jump_kernel(x - in.knock_level, in.knock_smoothing));
    out.knock = math::mul_rn(payoff - in.rebate, jump);
    out.paid = out.alive ? payoff : in.rebate;
  }
  return out;
}

/// d payoff / dθ before the discount, where the observation's tangent by θ is ds and the knock's
/// extreme's dx: slope · ds where alive, plus the knock's weight · dx.
PFMC_HD_INLINE double slope_derivative(const InstrumentView& in, const PayoffSlope& at, double ds,
                                       double dx) {
  const double d = math::mul_rn(at.slope, ds);
  if (in.knock_observation < 0)
    return d;
  return math::add_rn(at.alive ? d : 0.0, math::mul_rn(at.knock, dx));
}

/// A first-order pathwise Greek from its path's PayoffSlope: discount · d payoff/dθ + paid ·
/// d discount/dθ, where ds and dx are the tangents by the Greek's input.
PFMC_HD_INLINE double first_order_greek(const InstrumentView& in, const PathwiseGreek& g,
                                        const PayoffSlope& at, double ds, double dx) {
  double e = math::mul_rn(slope_derivative(in, at, ds, dx), in.discount);
  if (g.discount >= 0)
    e = math::add_rn(e, math::mul_rn(at.paid, in.discount_tangent[g.discount]));
  return e;
}

/// A gamma by spot a (cross-gamma by spot b; g.moved_spot >= 0) of one instrument on one path
/// whose observation is o and whose knock's extreme is x (Duals: the values and their tangents;
/// no knock: x is o): the central difference of the pathwise delta by spot b under a move ±m of
/// spot a, [Δ_b(+m) − Δ_b(−m)] / 2m, each Δ_b on the path moved. The observation moves to
/// s ± m ds/dS0_a (exact for an observation linear in the spot: a spot, an average, a weighted
/// basket's level), a spot knock's log extreme to x + log(1 ± m dx/dS0_a) (exact: a move of the
/// spot shifts every log-spot alike), the tangents by spot b staying as they are. With Baskets (a
/// multi-asset model's groups), a max or min basket's level and a basket knock's extreme, which
/// are not linear in each spot (the winning leg or date changes), are read instead from the
/// observations of the path moved, observed(in.moved_level / in.moved_knock[a][side]) (exact on
/// a correlated Black-Scholes path, which a spot's move scales), their tangents by spot b too. A
/// delta's input is its asset (models/pathwise.cuh), so a = g.moved_spot.
template <bool Baskets, class D, class Observed>
PFMC_HD_INLINE double moved_spot_greek(const InstrumentView& in, const PathwiseGreek& g, const D& o,
                                       const D& x, const Observed& observed) {
  const double s = static_cast<double>(o.v), ds = static_cast<double>(o.d[g.input]);
  const double xv = static_cast<double>(x.v), dx = static_cast<double>(x.d[g.input]);
  const double ms = math::mul_rn(g.move, static_cast<double>(o.d[g.moved_spot]));
  const double mx = math::mul_rn(g.move, static_cast<double>(x.d[g.moved_spot]));
  const bool log_extreme = in.knock_observation >= 0 && in.kind != PayoffKind::basket;
  const auto moved_extreme = [&](double sign) {
    return log_extreme ? math::add_rn(xv, math::log(1.0 + sign * mx)) : math::add_rn(xv, sign * mx);
  };
  double su = math::add_rn(s, ms), sd = math::add_rn(s, -ms), dsu = ds, dsd = ds;
  double xu = moved_extreme(1.0), xd = moved_extreme(-1.0), dxu = dx, dxd = dx;
  if (log_extreme && g.input == g.moved_spot) {
    // The log of an extreme linear in the spot: on the path of spot S0 ± h its tangent by that
    // spot is 1 / (S0 ± h), dx / (1 ± h dx), not the unmoved path's dx = 1 / S0 (gamma then
    // read the knock's share of delta over S0 too high: 10-15% of these gammas).
    dxu = dx / math::add_rn(1.0, mx);
    dxd = dx / math::add_rn(1.0, -mx);
  }
  if constexpr (Baskets) {
    const auto moved = [&](int observation, double& value, double& tangent) {
      if (observation >= 0) {
        const D& m = observed(observation);
        value = static_cast<double>(m.v);
        tangent = static_cast<double>(m.d[g.input]);
      }
    };
    moved(in.moved_level[g.moved_spot][0], su, dsu);
    moved(in.moved_level[g.moved_spot][1], sd, dsd);
    moved(in.moved_knock[g.moved_spot][0], xu, dxu);
    moved(in.moved_knock[g.moved_spot][1], xd, dxd);
  }
  const double up = slope_derivative(in, payoff_slope(in, su, xu), dsu, dxu);
  const double down = slope_derivative(in, payoff_slope(in, sd, xd), dsd, dxd);
  return math::mul_rn(up - down, in.discount / (2.0 * g.move));
}

/// moved_spot_greek out of line: where the kernels' register pass unrolls its Greeks
/// (pathwise_estimates), one copy of it, with its logs and two payoff_slopes, serves them all.
template <bool Baskets, class D, class Observed>
PFMC_HD_NOINLINE double moved_spot_greek_call(const InstrumentView& in, const PathwiseGreek& g,
                                              const D& o, const D& x, const Observed& observed) {
  return moved_spot_greek<Baskets>(in, g, o, x, observed);
}

/// The raw estimates of a pathwise group's instrument on one path: out(0, y), its discounted
/// payoff, then out(1 + k, Greek k) for k < greek_count (at most Max − 1): the first-order
/// Greeks from the path's one payoff_slope (first_order_greek), a gamma by moved_spot_greek;
/// each rounded once per operation (math::*_rn), as the bumps' weights. observed(o) is a Dual
/// (the observation and its tangents), read by reference where it returns one (the GPU's
/// observations live in local memory: a Dual copied there to be indexed by g.input costs ten
/// local accesses where two suffice). path_estimates and the kernels' register pass
/// (kernels/path_kernel.cuh, pay_pathwise) both call it. In device code a Max up to 4 unrolls
/// the Greeks, a gamma out of line (moved_spot_greek_call); a larger one keeps one rolled loop,
/// its gamma inline (docs/decisions.md#greeks-loop, the portfolio: rolled for every Max, delta +
/// vega ran 3.5% slower; unrolled for every Max, all five Greeks 3% slower; this split measured
/// between the two on both). Baskets: the group's model may have baskets (several assets), whose
/// gammas may read moved observations (moved_spot_greek); false leaves that code out (the
/// portfolio's delta + gamma + vega measured 7.5% slower with it in,
/// docs/decisions.md#greeks-loop).
template <int Max, bool Baskets = true, class Observed, class Out>
PFMC_HD_INLINE void pathwise_estimates(const InstrumentView& in, const PathwiseGreek* greeks,
                                       int greek_count, const Observed& observed, Out&& out) {
  out(0, discounted_payoff(in, observed));
  const auto& o = observed(in.underlying_observation);
  const auto& x =
      observed(in.knock_observation >= 0 ? in.knock_observation : in.underlying_observation);
  const PayoffSlope at = payoff_slope(in, static_cast<double>(o.v), static_cast<double>(x.v));
  constexpr bool kUnrolled = Max <= 4;
#if defined(__CUDA_ARCH__)
#pragma unroll(kUnrolled ? Max : 1)
#endif
  for (int k = 0; k + 1 < Max; ++k) {
    if (k < greek_count) {
      const PathwiseGreek& g = greeks[k];
      double e;
      if (g.moved_spot < 0) {
        e = first_order_greek(in, g, at, static_cast<double>(o.d[g.input]),
                              static_cast<double>(x.d[g.input]));
      } else if constexpr (kUnrolled) {
        e = moved_spot_greek_call<Baskets>(in, g, o, x, observed);
      } else {
        e = moved_spot_greek<Baskets>(in, g, o, x, observed);
      }
      out(1 + k, e);
    }
  }
}
/// Raw estimates of one instrument on one path: y, c and the Greeks.
inline constexpr int kMaxEstimates = 2 + kMaxGreeks;

/// What a base instrument's per-path estimates are made of (trivially copyable; greek_weights
/// lives in the memory of the code that reads it).
struct EstimateSpec {
  int scenarios;               ///< 1, or the Greeks' scenarios (instruments [scenario])
  int control_variate;         ///< 1: the control c too
  int greek_count;             ///< at most kMaxGreeks
  int delta_greek;             ///< which Greek is delta (-1: none): pathwise where allowed
  const double* greek_weights; ///< [greek][scenario]
  /// [greek]: a pathwise group's Greeks (observations in Duals), else null.
  const PathwiseGreek* pathwise;
};
static_assert(std::is_trivially_copyable_v<EstimateSpec>);

/// The raw estimates of one base instrument on one path: y, its payoff under the base scenario;
/// c, its control (with spec.control_variate); greeks[0 .. spec.greek_count), each Greek as the
/// fixed combination of the scenarios' payoffs (scenarios[0 .. spec.scenarios), the base first),
/// or delta pathwise where the instrument allows; in a pathwise model's group (observations in
/// Duals) every Greek pathwise (pathwise_estimates). What the spec does not ask for is left as it
/// is. observed(o) is the path's finalised observation o. The GPU kernels and the CPU backend
/// both call it: their per-path values agree bit for bit. Scalars by reference, not a returned
/// struct: in the kernel y and c stay in registers (a struct with the Greeks' array went to
/// local memory whole: 16 more bytes of stack a path, measured with -Xptxas -v).
template <class Observed>
PFMC_HD_INLINE void path_estimates(const InstrumentView* scenarios, const EstimateSpec& spec,
                                   const Observed& observed, double& y, double& c,
                                   double (&greeks)[kMaxGreeks]) {
  const InstrumentView& base = scenarios[0];
  if constexpr (kIsDual<std::decay_t<decltype(observed(0))>>) { // pathwise: one scenario
    pathwise_estimates<kMaxEstimates>(base, spec.pathwise, spec.greek_count, observed,
                                      [&](int e, double v) { (e == 0 ? y : greeks[e - 1]) = v; });
    if (spec.control_variate)
      c = discounted_control(base, observed);
  } else {
    double v[kMaxScenarios];
    for (int sc = 0; sc < spec.scenarios; ++sc)
      v[sc] = discounted_payoff(scenarios[sc], observed);
    y = v[0];
    if (spec.control_variate)
      c = discounted_control(base, observed);
    for (int k = 0; k < spec.greek_count; ++k) {
      double e = 0.0;
      if (k == spec.delta_greek && base.pathwise_delta != 0.0) {
        e = pathwise_delta(base, observed);
      } else {
        for (int sc = 0; sc < spec.scenarios; ++sc)
          e = math::add_rn(e, math::mul_rn(spec.greek_weights[k * spec.scenarios + sc], v[sc]));
      }
      greeks[k] = e;
    }
  }
}

} // namespace pfmc::models
