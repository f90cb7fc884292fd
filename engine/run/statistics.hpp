#pragma once
// From reduced sums to estimates: the mean and standard error of a group's values (with a
// control variate where the instrument has one), one replicate's estimates from its groups'
// totals (in the kernels::ValueLayout), and the estimate of several replicates.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/execution.hpp"
#include "engine/plan/plan.hpp"

namespace pfmc::engine {

/// Mean, standard error (0 with has_error false when fewer than 2 paths) from Σx, Σx², n.
struct Estimate {
  double mean = 0.0;
  double variance = 0.0; ///< sample variance of one path's value
  double std_error = 0.0;
  bool has_error = false;
};
Estimate estimate(double sum, double sum_of_squares, std::uint64_t n);

/// The estimate of E[y] with control c of known mean: y - beta (c - E[c]), beta the sample
/// Cov(y, c) / Var(c) (written to *beta), standard error from the residual variance.
Estimate controlled_estimate(double sum_y, double sum_yy, double sum_c, double sum_cc,
                             double sum_yc, std::uint64_t n, double control_mean, double* beta);

/// One run's (one replicate's) estimates: each instrument's price, control beta and Greeks
/// (indexed as RunConfig::instruments), and the portfolio's value.
struct ReplicateSample {
  std::vector<Estimate> price;
  std::vector<double> beta;
  std::vector<std::vector<Estimate>> greeks;
  Estimate portfolio;
  /// Per group: its positions' value (kept until finish_sample adds them; has_error false and
  /// 0 for a group without positions, which adds exactly 0).
  std::vector<Estimate> group_value;
  std::vector<char> holds; ///< per group: it holds positions
};

/// A sample of the plan's run with room for every instrument and group, estimates to come.
ReplicateSample empty_sample(const SimulationPlan& plan, std::size_t instrument_count);

/// Group g's estimates (its base instruments' entries and its positions' value) from its
/// outcome: groups apart may be sampled at once, on any threads, in any order.
void sample_group(const SimulationPlan& plan, std::size_t g, const GroupOutcome& outcome,
                  ReplicateSample& sample);

/// The portfolio's estimate from every group's, added in group order as one loop would.
void finish_sample(ReplicateSample& sample);

/// The estimates of one run of the plan from its groups' reduced totals (the three above).
ReplicateSample sample_replicate(const SimulationPlan& plan,
                                 const std::vector<GroupOutcome>& outcomes,
                                 std::size_t instrument_count);

/// One estimate from the replicates: the within-run one for a single run (no standard error for
/// plain Sobol draws), else the mean of the replicates and the standard error of that mean from
/// their spread. get(sample) picks the estimate of one replicate.
template <class Get>
Estimate combine_replicates(const std::vector<ReplicateSample>& samples, bool plain_sobol,
                            Get get) {
  if (samples.size() == 1) {
    Estimate e = get(samples.front());
    e.has_error = e.has_error && !plain_sobol;
    if (!e.has_error)
      e.std_error = 0.0;
    return e;
  }
  double sum = 0.0, sum_of_squares = 0.0;
  for (const ReplicateSample& s : samples) {
    const double x = get(s).mean;
    sum += x;
    sum_of_squares += x * x;
  }
  return estimate(sum, sum_of_squares, static_cast<std::uint64_t>(samples.size()));
}

} // namespace pfmc::engine
