#pragma once
// The payoff stage of control variates and Greeks: each instrument's raw estimates and the values
// of its ValueLayout, reduced over the block's round in passes of whole instruments.

#include "kernels/block_reduce.cuh"
#include "kernels/path/leaves.cuh"
#include "kernels/value_layout.cuh"
#include "models/payoff.cuh"
#include "models/scenarios.cuh"

namespace pfmc::kernels {

/// Control variates and/or Greeks: per base instrument its raw estimates (payoff y, control c,
/// Greek estimates g: models::path_estimates) and their reduced values in the ValueLayout,
/// reduced over the block's round in passes of whole instruments, at most kEstimateBatch values
/// a pass (the portfolio's two values join the last pass where they fit). An instrument of more
/// values than a pass — a basket's per-underlying Greeks — spans several: its estimates are
/// computed in each, and its value counts once in the portfolio, in the pass where its values
/// start. Dynamic indices: these arrays live in local memory, once per round. Every thread of
/// the block must call it.
template <class Group, class Real, int P>
__device__ __noinline__ void pay_estimates(const Group& group,
                                           const Real (*observed)[models::kMaxObservations],
                                           int valid, RoundPosition at, double* scratch) {
  const RoundSink sink{scratch, group.reduction, at};
  const int n = group.instrument_count;
  const ValueLayout layout{n, group.control_variate, group.greek_count, group.portfolio};
  const int K = layout.per_instrument();
  const int S = group.scenarios;
  const models::EstimateSpec spec{S,
                                  group.control_variate,
                                  group.greek_count,
                                  group.delta_greek,
                                  group.greek_weights,
                                  group.pathwise_greeks};
  const int total = layout.size();
  double portfolio[P];
  for (int p = 0; p < P; ++p)
    portfolio[p] = 0.0;
  const int instrument_values = layout.portfolio_value(); // the instruments' values: n K
  // The fewest whole instruments that make kReduceBatch values or more, within kEstimateBatch.
  const int whole = min((kReduceBatch + K - 1) / K, kEstimateBatch / max(K, 1));
  const int per_pass = K <= kEstimateBatch ? whole * K : kEstimateBatch;
  for (int v0 = 0, v1 = 0; v0 < total; v0 = v1) {
    v1 = v0 < instrument_values ? min(instrument_values, v0 + per_pass) : total;
    if (v1 == instrument_values && total - v1 <= kEstimateBatch - (v1 - v0))
      v1 = total;                   // the portfolio's values fit in this pass
    double vals[kEstimateBatch][P]; // values v0 .. v1 - 1
    for (int j = v0 / K; j < n && layout.instrument(j) < v1; ++j) {
      const models::InstrumentView* scenarios = group.instruments + j * S;
      const bool starts_here = layout.instrument(j) >= v0;
      double raw[models::kMaxEstimates][P]; // y, c, g... of the thread's paths
      for (int p = 0; p < P; ++p) {
        double y = 0.0, c = 0.0;
        double g[models::kMaxGreeks];
        for (int k = 0; k < models::kMaxGreeks; ++k)
          g[k] = 0.0;
        if (p < valid) {
          models::path_estimates(
              scenarios, spec, [&](int o) -> const Real& { return observed[p][o]; }, y, c, g);
          if (starts_here)
            portfolio[p] = math::add_rn(portfolio[p], math::mul_rn(y, scenarios[0].quantity));
        }
        raw[0][p] = y;
        if (group.control_variate)
          raw[ValueLayout::control_estimate()][p] = c;
        for (int k = 0; k < group.greek_count; ++k)
          raw[layout.greek_estimate(k)][p] = g[k];
      }
      if (group.antithetic) {
        for (int e = 0; e < layout.estimates(); ++e) {
          double x[P];
          for (int p = 0; p < P; ++p)
            x[p] = raw[e][p];
          pair_means<P>(x);
          for (int p = 0; p < P; ++p)
            raw[e][p] = x[p];
        }
      }
      const int first = layout.instrument(j);
      layout.for_each_value([&](int offset, int a, int b) {
        const int v = first + offset;
        if (v < v0 || v >= v1)
          return;
        for (int p = 0; p < P; ++p)
          vals[v - v0][p] = b < 0 ? raw[a][p] : math::mul_rn(raw[a][p], raw[b][p]);
      });
    }
    if (group.portfolio && v1 > layout.portfolio_value()) { // every instrument is in it by now
      double x[P];
      for (int p = 0; p < P; ++p)
        x[p] = portfolio[p];
      if (group.antithetic)
        pair_means<P>(x);
      ValueLayout::for_each_portfolio_value([&](int offset, int, int b) {
        const int v = layout.portfolio_value() + offset;
        if (v < v0 || v >= v1)
          return;
        for (int p = 0; p < P; ++p)
          vals[v - v0][p] = b < 0 ? x[p] : math::mul_rn(x[p], x[p]);
      });
    }
    sink.estimates(v0, v1 - v0,
                   [&](int k) { return thread_tree_sum<P>([&](int p) { return vals[k][p]; }); });
  }
}

} // namespace pfmc::kernels
