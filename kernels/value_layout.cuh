#pragma once
// The layout of a simulation group's reduced values: what the path kernel, the CPU backend and
// the statistics (engine/run/statistics) agree on. Per base instrument j, from instrument(j):
//
//   [y, y², (c, c², y·c), (g_0, g_0²), (g_1, g_1²), ...]
//
// y the instrument's discounted payoff on the path, c its control variate (with control
// variates), g_k the path's estimate of the k-th Greek; then, when the group holds positions of
// the portfolio, the portfolio's v and v² at portfolio_value(). Each is summed over the paths.
// A path's raw estimates of one instrument, in the order y, c, g_0, g_1, ... (estimates() of
// them), are what it computes; for_each_value() says how each reduced value derives from them.

#include "models/math.cuh"

namespace pfmc::kernels {

struct ValueLayout {
  int instruments;     ///< base instruments of the group
  int control_variate; ///< 1: each instrument reduces its control (c, c², y·c)
  int greeks;          ///< Greeks per instrument
  int portfolio;       ///< 1: the portfolio's (v, v²) follow the instruments

  /// Offsets within an instrument's values; x² follows every raw estimate x.
  static constexpr int kPayoff = 0;
  static constexpr int kSquare = 1;
  static constexpr int kControl = 2;
  static constexpr int kPayoffTimesControl = 4;

  /// Raw estimates per instrument: y, (c), g_0, ...
  PFMC_HD_INLINE constexpr int estimates() const { return 1 + control_variate + greeks; }
  /// Raw estimate index of c (with control variates) and of Greek k.
  PFMC_HD_INLINE static constexpr int control_estimate() { return 1; }
  PFMC_HD_INLINE constexpr int greek_estimate(int k) const { return 1 + control_variate + k; }

  PFMC_HD_INLINE constexpr int per_instrument() const {
    return 2 + (control_variate ? 3 : 0) + 2 * greeks;
  }
  /// Offset within an instrument's values of Greek k's Σg (Σg² follows).
  PFMC_HD_INLINE constexpr int greek(int k) const { return (control_variate ? 5 : 2) + 2 * k; }
  /// Offset within an instrument's values of raw estimate e (its square follows).
  PFMC_HD_INLINE constexpr int estimate(int e) const {
    return e == 0 ? kPayoff : control_variate && e == 1 ? kControl : greek(e - 1 - control_variate);
  }
  /// The first value of base instrument j (j == instruments: of the portfolio).
  PFMC_HD_INLINE constexpr int instrument(int j) const { return j * per_instrument(); }
  /// The portfolio's Σv (Σv² follows), when the group holds positions.
  PFMC_HD_INLINE constexpr int portfolio_value() const { return instrument(instruments); }
  /// Every reduced value of the group.
  PFMC_HD_INLINE constexpr int size() const {
    return instrument(instruments) + (portfolio ? 2 : 0);
  }

  /// One instrument's reduced values from its raw estimates: value(offset, a, b) is called for
  /// each (offset from instrument(j)) to store raw estimate a when b < 0, else the product of
  /// raw estimates a and b (a square, or y·c) rounded once (math::mul_rn).
  template <class Value>
  PFMC_HD_INLINE void for_each_value(const Value& value) const {
    for (int e = 0; e < estimates(); ++e) {
      value(estimate(e), e, -1);
      value(estimate(e) + kSquare, e, e);
    }
    if (control_variate)
      value(kPayoffTimesControl, 0, control_estimate());
  }
  /// The same for the portfolio (offsets from portfolio_value(); its value is raw estimate 0).
  template <class Value>
  PFMC_HD_INLINE static void for_each_portfolio_value(const Value& value) {
    value(kPayoff, 0, -1);
    value(kPayoff + kSquare, 0, 0);
  }
};

/// Reduced values per instrument without control variates or Greeks: [y, y²] (a group of one
/// such instrument and no portfolio reduces exactly these).
inline constexpr int kPriceValues = ValueLayout{0, 0, 0, 0}.per_instrument();

} // namespace pfmc::kernels
