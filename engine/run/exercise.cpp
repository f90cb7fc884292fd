#include "engine/run/exercise.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>

#include "kernels/reduction_shape.cuh"

namespace pfmc::engine {

std::vector<double> fit_continuation(const models::RegressionBasis& basis, const double* sums) {
  const int m = basis.size();
  const models::RegressionLayout layout{m};
  std::vector<double> beta(static_cast<std::size_t>(m), 0.0);
  const double in_the_money = sums[layout.count()];
  if (in_the_money < 2.0 * m) {
    beta[0] = std::numeric_limits<double>::quiet_NaN();
    return beta;
  }
  // A (symmetric, from its upper triangle) and b, scaled by D = diag(A)^(-1/2): the system
  // D A D z = D b has a unit diagonal, whatever the scale of the basis's powers; beta = D z.
  // (A 10 x 10 positive semi-definite solve: Cholesky here, on both backends' sums alike;
  // cuSOLVER would need the device and the CPU backend has none.)
  std::vector<double> a(static_cast<std::size_t>(m * m));
  for (int p = 0; p < layout.products(); ++p) {
    int row = 0, column = 0;
    layout.product_at(p, row, column);
    a[row * m + column] = a[column * m + row] = sums[p];
  }
  std::vector<double> scale(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i)
    scale[i] = a[i * m + i] > 0.0 ? 1.0 / std::sqrt(a[i * m + i]) : 0.0;
  std::vector<double> z(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < m; ++j)
      a[i * m + j] *= scale[i] * scale[j];
    z[i] = sums[layout.right_side() + i] * scale[i];
  }
  // Cholesky A = L Lᵀ in place (lower triangle), skipping functions that are (numerically) a
  // combination of the ones before them on these paths.
  std::vector<bool> kept(static_cast<std::size_t>(m), true);
  for (int j = 0; j < m; ++j) {
    double d = a[j * m + j];
    for (int k = 0; k < j; ++k) {
      if (kept[k])
        d -= a[j * m + k] * a[j * m + k];
    }
    if (!(d > 1e-12)) {
      kept[j] = false;
      continue;
    }
    const double l = std::sqrt(d);
    a[j * m + j] = l;
    for (int i = j + 1; i < m; ++i) {
      double v = a[i * m + j];
      for (int k = 0; k < j; ++k) {
        if (kept[k])
          v -= a[i * m + k] * a[j * m + k];
      }
      a[i * m + j] = v / l;
    }
  }
  // L w = z, then Lᵀ x = w, over the kept functions.
  std::vector<double> w(static_cast<std::size_t>(m), 0.0);
  for (int i = 0; i < m; ++i) {
    if (!kept[i])
      continue;
    double v = z[i];
    for (int k = 0; k < i; ++k) {
      if (kept[k])
        v -= a[i * m + k] * w[k];
    }
    w[i] = v / a[i * m + i];
  }
  for (int i = m - 1; i >= 0; --i) {
    if (!kept[i])
      continue;
    double v = w[i];
    for (int k = i + 1; k < m; ++k) {
      if (kept[k])
        v -= a[k * m + i] * beta[k];
    }
    beta[i] = v / a[i * m + i];
  }
  for (int i = 0; i < m; ++i)
    beta[i] *= scale[i];
  return beta;
}

namespace {

/// One regression's sums over the paths: each tile of kTilePaths paths pairwise (the kernel's
/// tree), tiles in order. value(path, v) is path's v-th value (paths past the end count +0.0).
template <class Value>
std::vector<double> reduce_regression(std::uint64_t paths, int values, int threads,
                                      const Value& value) {
  const std::uint64_t tiles = kernels::tiles_for_paths(paths);
  std::vector<double> tile_sums(tiles * static_cast<std::size_t>(values));
  std::atomic<std::uint64_t> next{0};
  auto worker = [&] {
    std::vector<double> leaves(static_cast<std::size_t>(kernels::kTilePaths) * values);
    for (std::uint64_t t = next++; t < tiles; t = next++) {
      const std::uint64_t first = t * kernels::kTilePaths;
      for (int i = 0; i < kernels::kTilePaths; ++i) {
        const std::uint64_t path = first + static_cast<std::uint64_t>(i);
        double* out = leaves.data() + static_cast<std::size_t>(i) * values;
        if (path < paths) {
          value(path, out);
        } else {
          std::fill(out, out + values, 0.0);
        }
      }
      for (int v = 0; v < values; ++v) {
        tile_sums[t * values + static_cast<std::size_t>(v)] =
            kernels::pairwise_sum(kernels::kTilePaths, [&](int i) {
              return leaves[static_cast<std::size_t>(i) * values + static_cast<std::size_t>(v)];
            });
      }
    }
  };
  std::vector<std::thread> pool;
  const auto count =
      std::min<std::uint64_t>(static_cast<std::uint64_t>(std::max(1, threads)), tiles);
  for (std::uint64_t k = 1; k < count; ++k)
    pool.emplace_back(worker);
  worker();
  for (auto& t : pool)
    t.join();
  std::vector<double> totals(static_cast<std::size_t>(values), 0.0);
  for (std::uint64_t t = 0; t < tiles; ++t) {
    for (int v = 0; v < values; ++v)
      totals[v] = math::add_rn(totals[v], tile_sums[t * values + static_cast<std::size_t>(v)]);
  }
  return totals;
}

} // namespace

template <class Real>
std::vector<double> regress_on_host(const ExercisePlan& plan, const Real* levels,
                                    const Real* variances, int threads) {
  const int dates = plan.dates();
  const int m = plan.basis.size();
  const int scenarios = plan.scenarios;
  const std::uint64_t paths = plan.regression_paths;
  const models::RegressionLayout layout{m};
  std::vector<double> coefficients(static_cast<std::size_t>(plan.rules) * dates * m,
                                   std::numeric_limits<double>::quiet_NaN());
  std::vector<double> cash_flows(paths);
  for (int rule = 0; rule < plan.rules; ++rule) {
    const models::ExerciseView& e = plan.views[static_cast<std::size_t>(rule * scenarios)];
    const Real* level = levels + static_cast<std::uint64_t>(e.level) * dates * paths;
    const auto scaled_variance = [&](int date, std::uint64_t path) {
      return variances != nullptr
                 ? static_cast<double>(variances[static_cast<std::uint64_t>(date) * paths + path]) /
                       plan.variance_scale
                 : 0.0;
    };
    const auto at = [&](int date, std::uint64_t path) {
      return static_cast<double>(level[static_cast<std::uint64_t>(date) * paths + path]);
    };
    // The cash flows at the maturity, then backwards: each date's fit, then its decisions.
    const int maturity = e.maturity_date;
    for (std::uint64_t i = 0; i < paths; ++i) {
      cash_flows[i] =
          models::exercise_decision(plan.basis, nullptr, e, plan.discounts[e.discounts + maturity],
                                    at(maturity, i), 0.0, true);
    }
    for (int date = maturity - 1; date >= 0; --date) {
      if (!plan.allowed[static_cast<std::size_t>(rule) * dates + date])
        continue;
      const std::vector<double> sums =
          reduce_regression(paths, layout.size(), threads, [&](std::uint64_t i, double* out) {
            double phi[models::kMaxRegressionBasis];
            const bool itm = models::regression_basis_at(plan.basis, e, at(date, i),
                                                         scaled_variance(date, i), phi);
            for (int v = 0; v < layout.size(); ++v)
              out[v] = models::regression_value(layout, itm, phi, cash_flows[i], v);
          });
      const std::vector<double> beta = fit_continuation(plan.basis, sums.data());
      double* row = coefficients.data() + (static_cast<std::size_t>(rule) * dates + date) * m;
      std::copy(beta.begin(), beta.end(), row);
      const double discount = plan.discounts[e.discounts + date];
      for (std::uint64_t i = 0; i < paths; ++i) {
        const double value = models::exercise_decision(plan.basis, row, e, discount, at(date, i),
                                                       scaled_variance(date, i), false);
        if (value >= 0.0)
          cash_flows[i] = value;
      }
    }
  }
  return coefficients;
}

template std::vector<double> regress_on_host<float>(const ExercisePlan&, const float*, const float*,
                                                    int);
template std::vector<double> regress_on_host<double>(const ExercisePlan&, const double*,
                                                     const double*, int);

std::uint64_t regression_bytes(const GroupPlan& group, int real_bytes) {
  const ExercisePlan& plan = group.exercise;
  if (!plan.present())
    return 0;
  return plan.record_values() * static_cast<std::uint64_t>(real_bytes) +
         plan.regression_paths * sizeof(double); // the rules' cash flows, one rule at a time
}

} // namespace pfmc::engine
