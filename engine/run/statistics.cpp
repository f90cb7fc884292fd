#include "engine/run/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <vector>

#include "base/parallel_ranges.hpp"
#include "kernels/value_layout.cuh"

namespace pfmc::engine {

Estimate estimate(double sum, double sum_of_squares, std::uint64_t n) {
  Estimate e;
  if (n == 0)
    return e;
  const double count = static_cast<double>(n);
  e.mean = sum / count;
  if (n < 2)
    return e;
  e.variance = std::max(0.0, (sum_of_squares - sum * e.mean) / (count - 1.0));
  e.std_error = std::sqrt(e.variance / count);
  e.has_error = true;
  return e;
}

Estimate controlled_estimate(double sum_y, double sum_yy, double sum_c, double sum_cc,
                             double sum_yc, std::uint64_t n, double control_mean, double* beta) {
  Estimate e = estimate(sum_y, sum_yy, n);
  *beta = 0.0;
  if (n < 3)
    return e;
  const double count = static_cast<double>(n);
  const double mean_c = sum_c / count;
  const double var_c = (sum_cc - sum_c * mean_c) / (count - 1.0);
  const double cov = (sum_yc - sum_y * mean_c) / (count - 1.0);
  if (!(var_c > 0.0))
    return e; // a constant control carries no information
  *beta = cov / var_c;
  e.mean -= *beta * (mean_c - control_mean);
  // Residual variance of y - beta c; one more degree of freedom spent on beta.
  const double residual = std::max(
      0.0, (e.variance * (count - 1.0) - cov * cov / var_c * (count - 1.0)) / (count - 2.0));
  e.variance = residual;
  e.std_error = std::sqrt(residual / count);
  return e;
}

ReplicateSample empty_sample(const SimulationPlan& plan, std::size_t instrument_count) {
  ReplicateSample sample;
  sample.price.resize(instrument_count);
  sample.beta.resize(instrument_count);
  sample.greeks.resize(instrument_count);
  sample.group_value.resize(plan.groups.size());
  sample.holds.assign(plan.groups.size(), 0);
  return sample;
}

void sample_group(const SimulationPlan& plan, std::size_t g, const GroupOutcome& outcome,
                  ReplicateSample& sample) {
  using kernels::ValueLayout;
  const GroupPlan& group = plan.groups[g];
  // Antithetic runs reduce pair means: their count is the sample size.
  const std::uint64_t n = group.antithetic ? outcome.paths / 2 : outcome.paths;
  const ValueLayout layout = group.value_layout();
  for (int j = 0; j < layout.instruments; ++j) {
    const double* t = outcome.totals.data() + layout.instrument(j);
    const auto index = static_cast<std::size_t>(group.instrument_config_index[j]);
    const double* y = t + ValueLayout::kPayoff;
    Estimate e = estimate(y[0], y[ValueLayout::kSquare], n);
    if (group.has_control(j)) {
      const double* c = t + ValueLayout::kControl;
      e = controlled_estimate(y[0], y[ValueLayout::kSquare], c[0], c[ValueLayout::kSquare],
                              t[ValueLayout::kPayoffTimesControl], n,
                              group.control_mean[static_cast<std::size_t>(j)], &sample.beta[index]);
    }
    sample.price[index] = e;
    std::vector<Estimate>& greeks = sample.greeks[index];
    greeks.clear();
    greeks.reserve(static_cast<std::size_t>(layout.greeks));
    for (int k = 0; k < layout.greeks; ++k) {
      const double* greek = t + layout.greek(k);
      greeks.push_back(estimate(greek[0], greek[ValueLayout::kSquare], n));
    }
  }
  if (group.portfolio) {
    const double* v = outcome.totals.data() + layout.portfolio_value();
    sample.group_value[g] = estimate(v[0], v[ValueLayout::kSquare], n);
    sample.holds[g] = 1;
  }
}

void finish_sample(ReplicateSample& sample) {
  double portfolio_value = 0.0;
  double portfolio_variance_of_mean = 0.0;
  bool portfolio_has_error = true;
  for (std::size_t g = 0; g < sample.group_value.size(); ++g) {
    if (sample.holds[g] == 0)
      continue;
    const Estimate& e = sample.group_value[g];
    portfolio_value += e.mean;
    // Groups draw from independent streams.
    portfolio_variance_of_mean += e.std_error * e.std_error;
    portfolio_has_error = portfolio_has_error && e.has_error;
  }
  sample.portfolio.mean = portfolio_value;
  sample.portfolio.std_error = std::sqrt(portfolio_variance_of_mean);
  sample.portfolio.has_error = portfolio_has_error;
}

ReplicateSample sample_replicate(const SimulationPlan& plan,
                                 const std::vector<GroupOutcome>& outcomes,
                                 std::size_t instrument_count) {
  ReplicateSample sample = empty_sample(plan, instrument_count);
  // Each group's instruments apart, on a few threads (each writes its own instruments' entries,
  // and its positions' value); then the portfolio's sums in group order.
  const std::size_t groups = plan.groups.size();
  const base::FirstFailure failed = base::parallel_ranges(
      groups, base::threads_for(groups, base::kLightItemsPerThread),
      [&](std::size_t g, std::size_t) { sample_group(plan, g, outcomes[g], sample); });
  if (failed.error)
    std::rethrow_exception(failed.error);
  finish_sample(sample);
  return sample;
}

} // namespace pfmc::engine
