#pragma once
// Early exercise (Longstaff-Schwartz, models/exercise.cuh): the host's part of the regression
// pass. Both backends record the levels of the regression paths at the exercise dates; then,
// backwards from the maturity, each date's sums (models::RegressionLayout, reduced over the paths
// in the fixed order of kernels/reduction_shape.cuh: pairwise within tiles, tiles in order) give
// the continuation coefficients by fit_continuation. The GPU reduces on the device
// (engine/run/exercise_gpu.cu); the CPU backend here.

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "engine/core/execution.hpp"
#include "engine/plan/plan.hpp"
#include "models/exercise.cuh"

namespace pfmc::engine {

/// Least squares of the cash flows on the basis from one regression's sums (`sums`: the
/// RegressionLayout of basis.size() functions): the coefficients of Σ φ φᵀ β = Σ φ y, solved by
/// a Cholesky factorisation of the system scaled to a unit diagonal. A function whose pivot
/// falls under 1e-12 of its diagonal (collinear on these paths) gets coefficient 0. Fewer paths
/// in the money than twice the basis: a NaN first coefficient (no exercise at that date; the
/// continuation is taken as infinite).
std::vector<double> fit_continuation(const models::RegressionBasis& basis, const double* sums);

/// The rule's coefficients of every date ([rule][date][basis], NaN rows where it may not
/// exercise or cannot be fitted) from the regression paths' records (levels [level][date][path],
/// variances [date][path] or null), on `threads` CPU threads.
template <class Real>
std::vector<double> regress_on_host(const ExercisePlan& plan, const Real* levels,
                                    const Real* variances, int threads);

/// A regression pass shared by the workers of a split run (engine/scale/split_run.cpp): each
/// worker records and sums its range of the regression paths (whole tiles, in worker order), and
/// each date's sums are the workers' stacks of tile blocks merged in that order: one fit, the
/// bits of one worker over all the paths. A worker's handle; every worker of the run calls
/// combine() for the same dates in the same order (the rules of the plan's groups in order).
class RegressionShare {
public:
  virtual ~RegressionShare() = default;
  /// The regression paths this worker records, of the pass's `paths`.
  [[nodiscard]] virtual PathRange range(std::uint64_t paths) const = 0;
  /// This worker's sums of a date — the stack of its range's tile blocks, `values` a path — in,
  /// the sums over every worker's paths out, once every worker has given its own.
  virtual std::vector<double> combine(std::uint64_t first_tile, std::uint64_t end_tile, int values,
                                      std::vector<double> blocks) = 0;
};

/// The same on the GPU from the records in device memory of the regression paths `records` (all
/// of them without a share): each date's sums reduced on the device — merged with the other
/// workers' by `share` where given — and fitted on the host, backwards from the maturity, one rule
/// after another, on `stream` (its launches and waits counted in `stats`).
template <class Real>
std::vector<double> induce_rule_on_device(const ExercisePlan& plan, const Real* levels,
                                          const Real* variances, const PathRange& records,
                                          RegressionShare* share, cudaStream_t stream,
                                          PlanStats& stats);

/// Bytes of device (or host) memory the group's regression pass holds: its records and a cash
/// flow (double) per path (of one rule at a time).
std::uint64_t regression_bytes(const GroupPlan& group, int real_bytes);

/// The group's ExerciseTable over arrays laid out as the plan's (host or device memory): the
/// pricing pass's (coefficients, no records), or the regression pass's (records, no
/// coefficients) of the regression paths `records` (null: all of them).
template <class Real>
models::ExerciseTable<Real>
exercise_table(const ExercisePlan& plan, const int* steps, const models::ExerciseView* views,
               const unsigned char* allowed, const double* discounts,
               const double* discount_tangents, const double* coefficients, Real* levels,
               Real* variances, const PathRange* records = nullptr) {
  models::ExerciseTable<Real> t{};
  t.steps = steps;
  t.dates = plan.dates();
  t.views = views;
  t.views_count = static_cast<int>(plan.views.size());
  t.scenarios = plan.scenarios;
  t.allowed = allowed;
  t.discounts = discounts;
  t.discount_tangents = discount_tangents;
  t.coefficients = coefficients;
  t.basis = plan.basis;
  t.variance_scale = plan.variance_scale;
  t.record = levels != nullptr ? 1 : 0;
  t.levels = levels;
  t.variances = variances;
  t.record_first = records != nullptr ? records->first : 0;
  t.record_paths = records != nullptr ? records->count() : plan.regression_paths;
  return t;
}

/// The paths of the regression pass draw from the group's counter with this bit set, so that
/// they are independent of the priced paths (kernels/counter_draws.cuh's group word).
inline constexpr std::uint32_t kRegressionDrawGroup = 0x80000000u;

} // namespace pfmc::engine
