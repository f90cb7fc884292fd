// Early exercise's backward induction on the GPU (engine/run/exercise.hpp): each date's
// regression sums reduced on the device by the regression step kernel (kernels/regression.cuh,
// the fixed order of kernels/reduction_shape.cuh), fitted on the host, the decisions of that date
// applied to the paths' cash flows by the next step's launch.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/trace.hpp"
#include "engine/core/cuda_resources.hpp"
#include "engine/core/interrupt.hpp"
#include "engine/run/exercise.hpp"
#include "kernels/regression.cuh"

namespace pfmc::engine {

template <class Real>
std::vector<double> induce_rule_on_device(const ExercisePlan& plan, const Real* levels,
                                          const Real* variances, const PathRange& records,
                                          RegressionShare* share, cudaStream_t stream,
                                          PlanStats& stats) {
  const std::uint64_t paths = records.count();
  const int dates = plan.dates();
  const int m = plan.basis.size();
  const int values = models::RegressionLayout{m}.size();
  const std::uint64_t first_tile = records.first / kernels::kTilePaths;
  const std::uint64_t end_tile = kernels::tiles_for_paths(records.end);
  const std::uint64_t tiles = end_tile - first_tile;
  const std::uint64_t blocks = kernels::regression_blocks(paths);
  // The reduction's buffers (kernels/block_reduce.cuh): the blocks' partials, the tile sums,
  // the stack of tile blocks and the totals, then the tickets (which reset themselves after
  // each launch).
  const std::size_t stack = static_cast<std::size_t>(kernels::tile_stack_capacity(tiles));
  const std::size_t depth = static_cast<std::size_t>(kernels::tile_blocks(first_tile, end_tile));
  const std::size_t doubles = (blocks + tiles + stack + 1) * static_cast<std::size_t>(values);
  DeviceBuffer<unsigned char> reduction(
      doubles * sizeof(double) + (tiles + 1) * sizeof(unsigned int), stream);
  auto* base = reinterpret_cast<double*>(reduction.data());
  auto* tickets = reinterpret_cast<unsigned int*>(reduction.data() + doubles * sizeof(double));
  if (paths > 0)
    PFMC_CUDA_TRY(cudaMemsetAsync(tickets, 0, (tiles + 1) * sizeof(unsigned int), stream));
  DeviceBuffer<double> cash_flows(paths, stream);
  // A share's worker brings its stack back (depth blocks), one worker alone its totals.
  PinnedBuffer<double> sums(static_cast<std::size_t>(values) * (share != nullptr ? depth : 1));
  std::vector<double> rule(static_cast<std::size_t>(plan.rules) * dates * m,
                           std::numeric_limits<double>::quiet_NaN());
  for (int r = 0; r < plan.rules; ++r) {
    const models::ExerciseView& e = plan.views[static_cast<std::size_t>(r * plan.scenarios)];
    kernels::RegressionStep<Real> step{};
    step.levels = levels + static_cast<std::uint64_t>(e.level) * dates * paths;
    step.variances = variances;
    step.cash_flows = cash_flows.data();
    step.paths = paths;
    step.rule = e;
    step.basis = plan.basis;
    step.variance_scale = plan.variance_scale;
    step.target = kernels::ReductionTarget{base,
                                           base + blocks * values,
                                           base + (blocks + tiles) * values,
                                           base + (blocks + tiles + stack) * values,
                                           tickets,
                                           tickets + tiles,
                                           values,
                                           first_tile,
                                           first_tile};
    // The maturity's payoff first, then each earlier date: its sums, its fit, its decisions.
    step.update_date = e.maturity_date;
    step.update_maturity = 1;
    step.update_discount = plan.discounts[static_cast<std::size_t>(e.discounts + e.maturity_date)];
    for (int date = e.maturity_date - 1; date >= 0; --date) {
      if (!plan.allowed[static_cast<std::size_t>(r) * dates + date])
        continue;
      throw_if_stopped();
      base::TraceSpan date_span("regression: a date's sums");
      step.sum_date = date;
      std::vector<double> totals;
      if (paths > 0) {
        kernels::launch_regression_step<Real>(step, stream);
        ++stats.kernel_launches;
        PFMC_CUDA_TRY(
            cudaMemcpyAsync(sums.data(), share != nullptr ? step.target.stack : step.target.totals,
                            sums.size() * sizeof(double), cudaMemcpyDeviceToHost, stream));
        PFMC_CUDA_TRY(cudaStreamSynchronize(stream));
        ++stats.host_syncs;
      }
      date_span.end();
      if (share != nullptr) {
        totals =
            share->combine(first_tile, paths > 0 ? end_tile : first_tile, values,
                           paths > 0 ? std::vector<double>(sums.data(), sums.data() + sums.size())
                                     : std::vector<double>());
      } else {
        totals.assign(sums.data(), sums.data() + values);
      }
      const std::vector<double> beta = fit_continuation(plan.basis, totals.data());
      std::copy(beta.begin(), beta.end(),
                rule.begin() + (static_cast<std::ptrdiff_t>(r) * dates + date) * m);
      step.update_date = date;
      step.update_maturity = 0;
      step.update_discount = plan.discounts[static_cast<std::size_t>(e.discounts + date)];
      std::copy(beta.begin(), beta.end(), step.coefficients);
    }
  }
  return rule;
}

template std::vector<double> induce_rule_on_device<float>(const ExercisePlan&, const float*,
                                                          const float*, const PathRange&,
                                                          RegressionShare*, cudaStream_t,
                                                          PlanStats&);
template std::vector<double> induce_rule_on_device<double>(const ExercisePlan&, const double*,
                                                           const double*, const PathRange&,
                                                           RegressionShare*, cudaStream_t,
                                                           PlanStats&);

} // namespace pfmc::engine
