#include "engine/run/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <vector>

#include "config/parallel_ranges.hpp"
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

namespace {

/// The estimates of the group's base instruments from its sums (n: the sample size) into their
/// own entries of `sample`.
void sample_group(const GroupPlan& group, const GroupOutcome& outcome, std::uint64_t n,
                  ReplicateSample& sample) {
  using kernels::ValueLayout;
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
    for (int k = 0; k < layout.greeks; ++k) {
      const double* greek = t + layout.greek(k);
      sample.greeks[index].push_back(estimate(greek[0], greek[ValueLayout::kSquare], n));
    }
  }
}

} // namespace

ReplicateSample sample_replicate(const SimulationPlan& plan,
                                 const std::vector<GroupOutcome>& outcomes,
                                 std::size_t instrument_count) {
  using kernels::ValueLayout;
  ReplicateSample sample;
  sample.price.resize(instrument_count);
  sample.beta.resize(instrument_count);
  sample.greeks.resize(instrument_count);
  // Each group's instruments apart, on a few threads (each writes its own instruments' entries,
  // and its portfolio value's estimate); then the portfolio's sums in group order, as one loop
  // would add them.
  const std::size_t groups = plan.groups.size();
  std::vector<Estimate> portfolio(groups);
  std::vector<char> holds(groups, 0); // the group holds positions (else it adds exactly 0)
  const config::FirstFailure failed = config::parallel_ranges(
      groups, config::threads_for(groups, config::kLightItemsPerThread),
      [&](std::size_t g, std::size_t) {
        const GroupPlan& group = plan.groups[g];
        const GroupOutcome& outcome = outcomes[g];
        // Antithetic runs reduce pair means: their count is the sample size.
        const std::uint64_t n = group.antithetic ? outcome.paths / 2 : outcome.paths;
        sample_group(group, outcome, n, sample);
        if (group.portfolio) {
          const double* v = outcome.totals.data() + group.value_layout().portfolio_value();
          portfolio[g] = estimate(v[0], v[ValueLayout::kSquare], n);
          holds[g] = 1;
        }
      });
  if (failed.error)
    std::rethrow_exception(failed.error);
  double portfolio_value = 0.0;
  double portfolio_variance_of_mean = 0.0;
  bool portfolio_has_error = true;
  for (std::size_t g = 0; g < groups; ++g) {
    if (holds[g] == 0)
      continue;
    const Estimate& e = portfolio[g];
    portfolio_value += e.mean;
    // Groups draw from independent streams.
    portfolio_variance_of_mean += e.std_error * e.std_error;
    portfolio_has_error = portfolio_has_error && e.has_error;
  }
  sample.portfolio.mean = portfolio_value;
  sample.portfolio.std_error = std::sqrt(portfolio_variance_of_mean);
  sample.portfolio.has_error = portfolio_has_error;
  return sample;
}

} // namespace pfmc::engine
