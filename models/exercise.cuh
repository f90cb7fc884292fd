#pragma once
// Early exercise by Longstaff and Schwartz (2001, "Valuing American options by simulation: a
// simple least-squares approach"): what happens on one path, shared by the GPU kernels and the
// CPU backend.
//
// An early-exercise instrument — a call or put on a spot, or on a basket's level — is priced in
// two passes over independent paths of its simulation group (engine/run/exercise.hpp):
//  1. regression: each path records, at every exercise date, the level its payoff reads (and on
//     Heston the variance: ExerciseTable::record). Backwards from the maturity, the cash flows
//     of the paths that are in the money at a date, discounted to today, are regressed on a
//     polynomial basis of those variables (RegressionBasis): the fitted value is the date's
//     continuation value. A path whose payoff (discounted to today) is at least that value
//     exercises there, and its cash flow becomes that payoff.
//  2. pricing: fresh paths exercise at the first date where the payoff is positive and, discounted
//     to today, at least the fitted continuation value (ExerciseStepper); the maturity pays what it
//     pays. The mean is a low-biased estimate of the price (the rule is at best optimal), with the
//     pass's own standard error.
// While a path of the pricing pass runs, each early-exercise instrument keeps its discounted cash
// flow in an observation slot of its own, negative while the option is alive; the payoff stage
// reads it as the instrument's value (PayoffKind::exercised).
//
// Pathwise Greeks (a pathwise model's paths, engine/plan/pathwise.cpp): the rule is held fixed,
// as the bumps hold it. A path decides on its values alone, and its cash flow is a Dual: the
// payoff's slope times the level's tangents, times the date's discount, plus the payoff times
// the discount's own tangents by the rate and valuation time (ExerciseTable::discount_tangents).
// This is the derivative of the path's cash flow with its exercise date fixed. A move of an input
// also moves paths across the exercise boundary. The cash flow jumps there by the exercise value
// less what the path's continuation would pay, whose mean near the boundary is the exercise
// value less the fitted continuation value: zero where the fit is the conditional mean. So the
// pathwise Greek leaves out only what the fit's error puts at the boundary (measured against
// the bumps and the independent reference: tests/test_exercise.cpp).

#include <climits>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "models/math.cuh"
#include "models/path.cuh"
#include "models/pathwise.cuh"
#include "models/payoff.cuh"

namespace pfmc::models {

/// The most functions of a regression basis: two variables, degree 3.
inline constexpr int kMaxRegressionBasis = 10;

/// Every monomial of total degree <= `degree` in x = level / strike, or in x and
/// y = variance / variance scale (Heston). Ordered by degree: 1, x, x², ... (one variable), or
/// 1, x, y, x², x y, y², ... (two).
struct RegressionBasis {
  int degree;
  int two_variables;
  PFMC_HD_INLINE constexpr int size() const {
    return two_variables ? (degree + 1) * (degree + 2) / 2 : degree + 1;
  }
};

/// phi[0 .. basis.size()) at (x, y).
PFMC_HD_INLINE void basis_values(const RegressionBasis& basis, double x, double y,
                                 double (&phi)[kMaxRegressionBasis]) {
  if (!basis.two_variables) {
    double power = 1.0;
    for (int i = 0; i <= basis.degree; ++i) {
      phi[i] = power;
      power *= x;
    }
    return;
  }
  int k = 0;
  for (int t = 0; t <= basis.degree; ++t) {
    for (int i = 0; i <= t; ++i) { // x^(t-i) y^i
      double product = 1.0;
      for (int a = 0; a < t - i; ++a)
        product *= x;
      for (int b = 0; b < i; ++b)
        product *= y;
      phi[k++] = product;
    }
  }
}

/// The sums one regression (one instrument, one date) reduces over the paths, in order: the
/// upper triangle of Σ φ φᵀ row by row, Σ φ y, and the count of paths in the money.
struct RegressionLayout {
  int basis; ///< functions of the basis
  PFMC_HD_INLINE constexpr int products() const { return basis * (basis + 1) / 2; }
  PFMC_HD_INLINE constexpr int right_side() const { return products(); }
  PFMC_HD_INLINE constexpr int count() const { return products() + basis; }
  PFMC_HD_INLINE constexpr int size() const { return products() + basis + 1; }
  /// The row and column (row <= column) of product p.
  PFMC_HD_INLINE constexpr void product_at(int p, int& row, int& column) const {
    row = 0;
    while (p >= basis - row) {
      p -= basis - row;
      ++row;
    }
    column = row + p;
  }
};

/// Value `v` of the layout for a path with basis values phi and cash flow y; 0 out of the money.
PFMC_HD_INLINE double regression_value(const RegressionLayout& layout, bool in_the_money,
                                       const double (&phi)[kMaxRegressionBasis], double y, int v) {
  if (!in_the_money)
    return 0.0;
  if (v < layout.products()) {
    int row = 0, column = 0;
    layout.product_at(v, row, column);
    return math::mul_rn(phi[row], phi[column]);
  }
  if (v < layout.count())
    return math::mul_rn(phi[v - layout.right_side()], y);
  return 1.0;
}

/// One early-exercise instrument in one scenario (trivially copyable; indices into its
/// ExerciseTable).
struct ExerciseView {
  int slot;  ///< the observation slot of the path's discounted cash flow (negative while alive)
  int rule;  ///< its base instrument among the group's: its row of coefficients and dates
  int level; ///< where the regression pass records its level (shared by the instruments that
             ///< read the same one)
  int is_call;
  double strike;
  int asset; ///< the level's first asset in the model's state (its scenario's)
  int legs;  ///< 1: the spot of `asset`; more: a basket over assets asset .. asset + legs - 1
  BasketKind basket;
  double weights[kMaxBasketAssets];
  int variance_asset; ///< two-variable basis: the asset whose variance it reads (its scenario's)
  int discounts;      ///< ExerciseTable::discounts[discounts + date]: to today, in its scenario
  int maturity_date;  ///< its last date, where the payoff is taken if it is still alive
  /// Read by basket_level (models/payoff.cuh) of a pathwise model's Duals: an exercise level is
  /// never a pathwise gamma's moved copy (-1 and 1).
  int shifted_leg;
  double leg_scale;
};
static_assert(std::is_trivially_copyable_v<ExerciseView>);

/// A group's early-exercise instruments as the path sees them (device or host memory,
/// non-owning).
template <class Real>
struct ExerciseTable {
  const int* steps; ///< [dates]: each exercise date's grid index (kernel step + 1), increasing
  int dates;
  const ExerciseView* views; ///< [rule][scenario]
  int views_count;
  int scenarios;
  const unsigned char* allowed; ///< [rule][date]: 1 where the rule's instrument may exercise
  const double* discounts;
  /// Pathwise Greeks' groups: [discounts + date][2], d discount / d rate (a parallel zero-rate
  /// shift) and d discount / d valuation time; null otherwise.
  const double* discount_tangents;
  /// The pricing pass's rule: [rule][date][basis] continuation coefficients; a NaN first
  /// coefficient: no exercise at that date (too few paths in the money to fit).
  const double* coefficients;
  RegressionBasis basis;
  double variance_scale; ///< two variables: y = variance / variance_scale
  /// 1: the regression pass: record each date's levels (and variances), decide nothing.
  int record;
  Real* levels;    ///< [level][date][path]
  Real* variances; ///< [date][path] (two-variable basis), else null
  /// The recorded paths: [record_first, record_first + record_paths) of the regression pass's
  /// (a worker's share of a split run; all of them otherwise), stored from index 0.
  std::uint64_t record_first;
  std::uint64_t record_paths;
};
static_assert(std::is_trivially_copyable_v<ExerciseTable<double>>);

template <class Model>
constexpr auto has_variance(int)
    -> decltype(Model::variance(std::declval<const typename Model::State&>(), 0), bool()) {
  return true;
}
template <class Model>
constexpr bool has_variance(...) {
  return false;
}

/// The fitted continuation value (discounted to today) at date `date` of `rule`, at level x (in
/// units of the strike) and scaled variance y; +infinity where the date has no fit.
PFMC_HD_INLINE double continuation_value(const RegressionBasis& basis, const double* coefficients,
                                         double x, double y) {
  if (coefficients[0] != coefficients[0])
    return math::infinity<double>();
  double phi[kMaxRegressionBasis];
  basis_values(basis, x, y, phi);
  double value = 0.0;
  for (int i = 0; i < basis.size(); ++i)
    value += coefficients[i] * phi[i];
  return value;
}

/// What exercising at a date is worth to the holder of `e` at `level`: the payoff discounted to
/// today where the holder takes it — always at the maturity, before it where the payoff is
/// positive and at least the fitted continuation value — else -1 (the option lives on). The
/// pricing pass and the regression pass decide by it alike.
PFMC_HD_INLINE double exercise_decision(const RegressionBasis& basis, const double* coefficients,
                                        const ExerciseView& e, double discount, double level,
                                        double scaled_variance, bool maturity) {
  const double value = vanilla_payoff(e.is_call, e.strike, level) * discount;
  if (maturity)
    return value;
  if (value > 0.0 &&
      value >= continuation_value(basis, coefficients, level / e.strike, scaled_variance))
    return value;
  return -1.0;
}

/// A regression path at a date: whether it is in the money, and its basis values.
PFMC_HD_INLINE bool regression_basis_at(const RegressionBasis& basis, const ExerciseView& e,
                                        double level, double scaled_variance,
                                        double (&phi)[kMaxRegressionBasis]) {
  basis_values(basis, level / e.strike, scaled_variance, phi);
  return vanilla_payoff(e.is_call, e.strike, level) > 0.0;
}

/// The cash flow of exercising `e` at a level (a Dual of a pathwise model: its tangents by the
/// model's inputs) that pays `value` (exercise_decision's: the payoff discounted to today by
/// `discount`), as the path's observation slot keeps it: the value alone, or its Dual with the
/// exercise date held fixed, d value = slope · d level · discount + payoff · d discount, where
/// tangents (non-null) are the discount's by the rate and valuation time, which the model's
/// Inputs number rho and theta where its paths carry them (kPathwiseMovedInputs).
template <class Model, class Value, class Level>
PFMC_HD_INLINE Value exercised_cash_flow(const ExerciseView& e, const Level& level, double value,
                                         double discount, const double* tangents) {
  using Real = typename ScalarOf<Value>::type;
  if constexpr (!kIsDual<Value>) {
    (void)e;
    (void)level;
    (void)discount;
    (void)tangents;
    return static_cast<Value>(value);
  } else {
    Value r;
    r.v = static_cast<Real>(value);
    const double s = static_cast<double>(level.v);
    const double slope = math::mul_rn(vanilla_slope(e.is_call, e.strike, s), discount);
    PFMC_UNROLL
    for (int j = 0; j < Value::tangents; ++j)
      r.d[j] = static_cast<Real>(math::mul_rn(slope, static_cast<double>(level.d[j])));
    if constexpr (kPathwiseMovedInputs<Model> == kMovedInputs) {
      using Inputs = typename Model::Inputs;
      if (tangents != nullptr) {
        const double payoff = vanilla_payoff(e.is_call, e.strike, s);
        r.d[Inputs::rho] = static_cast<Real>(
            math::add_rn(static_cast<double>(r.d[Inputs::rho]), math::mul_rn(payoff, tangents[0])));
        r.d[Inputs::theta] = static_cast<Real>(math::add_rn(static_cast<double>(r.d[Inputs::theta]),
                                                            math::mul_rn(payoff, tangents[1])));
      }
    }
    return r;
  }
}

/// Drives the paths of a loader's body (models::PathStepper's interface) and exercises (or
/// records) after the steps that end on an exercise date. A pathwise model's observations are
/// Duals (ValueOf): its cash flows carry their tangents (exercised_cash_flow).
template <class Model, class Real, int P = 1>
class ExerciseStepper {
public:
  static constexpr int factors = Model::factors;
  using Value = ValueOf<Model, Real>;

  /// first_path: the index of the thread's first path in its pass (the regression pass records
  /// at it); valid: how many of the P paths are in range.
  PFMC_HD_INLINE ExerciseStepper(Path<Model, Real, P>& path, const ExerciseTable<Real>& table,
                                 Value (*observed)[kMaxObservations], std::uint64_t first_path,
                                 int valid)
      : path_(path), table_(table), observed_(observed), first_path_(first_path), valid_(valid),
        next_step_(table.dates > 0 ? table.steps[0] - 1 : INT_MAX) {
    if (!table.record) {
      for (int v = 0; v < table.views_count; ++v) {
        const int slot = table.views[v].slot;
        PFMC_UNROLL
        for (int p = 0; p < P; ++p)
          observed_[p][slot] = Value(-1); // alive
      }
    }
  }

  PFMC_HD_INLINE void operator()(int step, const Real (&z)[P][factors]) {
    path_.advance(step, z);
    if (step == next_step_)
      take();
  }
  template <int D>
  PFMC_HD_INLINE void batch(int step0, const Real (&z)[D][P][factors]) {
    if (next_step_ > step0 + D - 1) { // no exercise date inside: the path's own batches
      PathStepper<Model, Real, P>{path_}.template batch<D>(step0, z);
      return;
    }
    PFMC_UNROLL
    for (int d = 0; d < D; ++d)
      (*this)(step0 + d, z[d]);
  }
  PFMC_HD_INLINE void operator()(int step, const Real (&z)[factors]) {
    static_assert(P == 1, "several paths take z[path][factor]");
    (*this)(step, reinterpret_cast<const Real(&)[1][factors]>(z));
  }
  template <int D>
  PFMC_HD_INLINE void batch(int step0, const Real (&z)[D][factors]) {
    static_assert(P == 1, "several paths take z[step][path][factor]");
    batch<D>(step0, reinterpret_cast<const Real(&)[D][1][factors]>(z));
  }

private:
  /// The level a view's payoff reads in path p's state (with its tangents: a pathwise model's).
  PFMC_HD_INLINE Value level_of(const ExerciseView& e, int p) const {
    const auto& state = path_.state(p);
    if (e.legs == 1)
      return math::exp<typename Model::Math>(Model::log_spot(state, e.asset));
    return basket_level<Value, typename Model::Math>(
        e, [&](int asset) { return Model::log_spot(state, asset); });
  }
  PFMC_HD_INLINE Real variance_of(const ExerciseView& e, int p) const {
    if constexpr (has_variance<Model>(0)) {
      return value_of(Model::variance(path_.state(p), e.variance_asset));
    } else {
      (void)e;
      (void)p;
      return Real(0);
    }
  }

  /// Exercise date `next_` has come.
  PFMC_HD_INLINE void take() {
    const int date = next_++;
    next_step_ = next_ < table_.dates ? table_.steps[next_] - 1 : INT_MAX;
    for (int v = 0; v < table_.views_count; ++v) {
      const ExerciseView& e = table_.views[v];
      if (!table_.allowed[e.rule * table_.dates + date])
        continue;
      if (table_.record) {
        if (v % table_.scenarios == 0) // the base scenario's (the only one simulated)
          record(e, date);
        continue;
      }
      const double discount = table_.discounts[e.discounts + date];
      const double* discount_tangents = table_.discount_tangents != nullptr
                                            ? table_.discount_tangents + 2 * (e.discounts + date)
                                            : nullptr;
      const double* coefficients =
          table_.coefficients +
          (static_cast<std::size_t>(e.rule) * table_.dates + date) * table_.basis.size();
      PFMC_UNROLL
      for (int p = 0; p < P; ++p) {
        Value& cash_flow = observed_[p][e.slot];
        if (!(value_of(cash_flow) < Real(0)))
          continue; // exercised before
        const double y = table_.basis.two_variables
                             ? static_cast<double>(variance_of(e, p)) / table_.variance_scale
                             : 0.0;
        const Value level = level_of(e, p);
        const double value =
            exercise_decision(table_.basis, coefficients, e, discount,
                              static_cast<double>(value_of(level)), y, date == e.maturity_date);
        if (value >= 0.0) {
          cash_flow =
              exercised_cash_flow<Model, Value>(e, level, value, discount, discount_tangents);
        }
      }
    }
  }

  PFMC_HD_INLINE void record(const ExerciseView& e, int date) const {
    PFMC_UNROLL
    for (int p = 0; p < P; ++p) {
      if (p >= valid_)
        continue;
      const std::uint64_t path = first_path_ + static_cast<std::uint64_t>(p) - table_.record_first;
      table_.levels[(static_cast<std::uint64_t>(e.level) * table_.dates + date) *
                        table_.record_paths +
                    path] = value_of(level_of(e, p));
      if (table_.variances != nullptr)
        table_.variances[static_cast<std::uint64_t>(date) * table_.record_paths + path] =
            variance_of(e, p);
    }
  }

  Path<Model, Real, P>& path_;
  const ExerciseTable<Real>& table_;
  Value (*observed_)[kMaxObservations];
  std::uint64_t first_path_;
  int valid_;
  int next_ = 0;
  int next_step_;
};

} // namespace pfmc::models
