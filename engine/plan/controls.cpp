// Closed-form means of the control variates, from the group's own step data so that a control's
// mean is exact for the paths the group simulates (same grid, same curves).
#include <cmath>
#include <cstddef>
#include <vector>

#include "engine/analytic/analytic.hpp"
#include "engine/plan/plan_detail.hpp"

namespace pfmc::engine::plan_detail {

double terminal_spot_control_mean(const config::Underlying& underlying, double maturity) {
  return underlying.spot * std::exp(-underlying.dividend_yield * maturity);
}

double geometric_asian_control_mean(const GroupPlan& group, const std::vector<int>& fixings,
                                    bool call, double strike, double discount) {
  // Black-Scholes step data: log S at grid index f is log S0 + Σ_{s<f} drift[s] + Σ_{s<f}
  // diffusion[s] z_s, so log G = (1/n) Σ_fixings log S is normal with the mean of the cumulative
  // drifts and variance Σ_s (fixings after step s / n)² diffusion[s]².
  const int steps = group.steps();
  const std::vector<double> drift = group.step_series(0);
  const std::vector<double> diffusion = group.step_series(1);
  const double n = static_cast<double>(fixings.size());
  double mean = 0.0, variance = 0.0, cumulative = 0.0;
  std::size_t f = 0;
  std::vector<int> after(static_cast<std::size_t>(steps), 0); // fixings after step s
  for (int fx : fixings) {
    for (int s = 0; s < fx; ++s)
      ++after[static_cast<std::size_t>(s)];
  }
  for (int s = 0; s < steps; ++s) {
    cumulative += drift[static_cast<std::size_t>(s)];
    while (f < fixings.size() && fixings[f] == s + 1) {
      mean += cumulative;
      ++f;
    }
    const double c = after[static_cast<std::size_t>(s)] / n;
    variance +=
        c * c * diffusion[static_cast<std::size_t>(s)] * diffusion[static_cast<std::size_t>(s)];
  }
  // The base scenario's log spot: the first constant, after the Scenarios header with Greeks.
  // A pathwise group: after the offset of its tangent data (models::PathwiseBlackScholes).
  const double log_spot = group.model_constants[group.pathwise() ? 1 : group.scenarios > 1 ? 3 : 0];
  mean = log_spot + mean / n;
  return analytic::black_lognormal(call ? analytic::OptionKind::call : analytic::OptionKind::put,
                                   mean, variance, strike, discount);
}

} // namespace pfmc::engine::plan_detail
