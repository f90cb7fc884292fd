// Host side of the draw transforms: building the bridge, the host loops (the device kernels'
// arithmetic, kernels/draw_transform.cuh, with the loop over a tile's paths innermost), the
// inverse normal CDF, and a run's transforms.
#include "engine/draws/draw_transform.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <utility>

#include "kernels/draw_layout.hpp"
#include "kernels/draw_transform.cuh"
#include "base/error.hpp"

namespace pfmc::engine {

namespace {
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kSqrtTwoPi = 2.50662827463100050242;
} // namespace

// --- antithetic pairs --------------------------------------------------------------------------

template <class Real>
static void antithetic_host(Real* values, std::size_t count) {
  PFMC_EXPECTS(count % 2 == 0, "antithetic pairs need an even number of draws");
  for (std::size_t i = 0; i < count; i += 2)
    values[i + 1] = -values[i];
}
void apply_antithetic_host(float* values, std::size_t count) {
  antithetic_host(values, count);
}
void apply_antithetic_host(double* values, std::size_t count) {
  antithetic_host(values, count);
}

// --- Brownian bridge ---------------------------------------------------------------------------

BrownianBridge::BrownianBridge(const std::vector<double>& times, int factors)
    : steps_(static_cast<int>(times.size()) - 1), factors_(factors) {
  PFMC_EXPECTS(steps_ >= 1 && times.front() == 0.0, "a bridge needs times 0 = t0 < t1 < ...");
  PFMC_EXPECTS(factors >= 1, "a bridge needs at least one factor");
  for (int s = 0; s < steps_; ++s)
    PFMC_EXPECTS(times[s + 1] > times[s], "bridge times must increase strictly");
  const auto n = static_cast<std::size_t>(steps_);
  point_.assign(n, 0);
  left_.assign(n, -1);
  right_.assign(n, 0);
  left_weight_.assign(n, 0.0);
  right_weight_.assign(n, 0.0);
  sd_.assign(n, 0.0);
  sqrt_dt_.assign(n, 0.0);
  std::vector<int> slot_of(n + 1, -1); // time index → slot; the origin has none

  // Slot 0: the terminal point. Then midpoints, breadth first: coarse levels get the low slots
  // (the first, best-distributed Sobol dimensions).
  point_[0] = steps_;
  slot_of[n] = 0;
  sd_[0] = std::sqrt(times[n]);
  std::deque<std::pair<int, int>> intervals{{0, steps_}};
  int k = 1;
  while (!intervals.empty()) {
    const auto [l, r] = intervals.front();
    intervals.pop_front();
    if (r - l < 2)
      continue;
    const int j = l + (r - l) / 2;
    const double tl = times[static_cast<std::size_t>(l)], tj = times[static_cast<std::size_t>(j)],
                 tr = times[static_cast<std::size_t>(r)];
    const auto kk = static_cast<std::size_t>(k);
    point_[kk] = j;
    slot_of[static_cast<std::size_t>(j)] = k;
    left_[kk] = slot_of[static_cast<std::size_t>(l)];
    right_[kk] = slot_of[static_cast<std::size_t>(r)];
    left_weight_[kk] = (tr - tj) / (tr - tl);
    right_weight_[kk] = (tj - tl) / (tr - tl);
    sd_[kk] = std::sqrt((tj - tl) * (tr - tj) / (tr - tl));
    ++k;
    intervals.emplace_back(l, j);
    intervals.emplace_back(j, r);
  }
  PFMC_EXPECTS(k == steps_, "bridge construction missed a point");

  // Slot s must end up holding W(t_{s+1}), which is in slot source(s) = slot_of[s + 1]: the
  // permutation's cycles, each as (length, slots...), fixed points left out.
  std::vector<bool> done(n, false);
  for (int s = 0; s < steps_; ++s) {
    const auto source = [&](int slot) { return slot_of[static_cast<std::size_t>(slot) + 1]; };
    if (done[static_cast<std::size_t>(s)] || source(s) == s) {
      done[static_cast<std::size_t>(s)] = true;
      continue;
    }
    const std::size_t at = cycles_.size();
    cycles_.push_back(0);
    int c = s;
    do {
      cycles_.push_back(c);
      done[static_cast<std::size_t>(c)] = true;
      c = source(c);
    } while (c != s);
    cycles_[at] = static_cast<int>(cycles_.size() - at - 1);
  }
  for (std::size_t s = 0; s < n; ++s)
    sqrt_dt_[s] = std::sqrt(times[s + 1] - times[s]);
}

template <class Real>
void BrownianBridge::apply_host_impl(Real* tiles, std::uint64_t tile_count, int rows,
                                     int tile_paths) const {
  PFMC_EXPECTS(rows == this->rows(), "the bridge was built for another group");
  PFMC_EXPECTS(tile_paths > 0, "a tile has paths");
  const auto G = static_cast<std::size_t>(tile_paths);
  const auto steps = static_cast<std::size_t>(steps_);
  const std::size_t stride = static_cast<std::size_t>(factors_) * G; // slot k → slot k + 1
  std::vector<Real> first(G);
  for (std::uint64_t t = 0; t < tile_count; ++t) {
    for (int f = 0; f < factors_; ++f) {
      Real* base = tiles + t * static_cast<std::size_t>(rows) * G + static_cast<std::size_t>(f) * G;
      const auto slot = [&](std::size_t k) { return base + k * stride; };
      // The passes of kernels::brownian_bridge_column, each over the tile's paths.
      {
        Real* x = slot(0);
        const auto sd = static_cast<Real>(sd_[0]);
        for (std::size_t p = 0; p < G; ++p)
          x[p] = sd * x[p];
      }
      for (std::size_t k = 1; k < steps; ++k) {
        Real* x = slot(k);
        const Real* w_right = slot(static_cast<std::size_t>(right_[k]));
        const auto lw = static_cast<Real>(left_weight_[k]);
        const auto rw = static_cast<Real>(right_weight_[k]);
        const auto sd = static_cast<Real>(sd_[k]);
        if (left_[k] < 0) {
          for (std::size_t p = 0; p < G; ++p)
            x[p] = kernels::bridge_point(lw, Real(0), rw, w_right[p], sd, x[p]);
        } else {
          const Real* w_left = slot(static_cast<std::size_t>(left_[k]));
          for (std::size_t p = 0; p < G; ++p)
            x[p] = kernels::bridge_point(lw, w_left[p], rw, w_right[p], sd, x[p]);
        }
      }
      for (std::size_t i = 0; i < cycles_.size();) {
        const auto m = static_cast<std::size_t>(cycles_[i++]);
        std::copy_n(slot(static_cast<std::size_t>(cycles_[i])), G, first.data());
        for (std::size_t j = 0; j + 1 < m; ++j) {
          std::copy_n(slot(static_cast<std::size_t>(cycles_[i + j + 1])), G,
                      slot(static_cast<std::size_t>(cycles_[i + j])));
        }
        std::copy_n(first.data(), G, slot(static_cast<std::size_t>(cycles_[i + m - 1])));
        i += m;
      }
      for (std::size_t s = steps - 1; s > 0; --s) {
        Real* x = slot(s);
        const Real* w = slot(s - 1);
        const auto sqrt_dt = static_cast<Real>(sqrt_dt_[s]);
        for (std::size_t p = 0; p < G; ++p)
          x[p] = kernels::bridge_increment(x[p], w[p], sqrt_dt);
      }
      {
        Real* x = slot(0);
        const auto sqrt_dt = static_cast<Real>(sqrt_dt_[0]);
        for (std::size_t p = 0; p < G; ++p)
          x[p] = kernels::bridge_increment(x[p], Real(0), sqrt_dt);
      }
    }
  }
}

void BrownianBridge::apply_host(float* tiles, std::uint64_t tile_count, int rows,
                                int tile_paths) const {
  apply_host_impl(tiles, tile_count, rows, tile_paths);
}
void BrownianBridge::apply_host(double* tiles, std::uint64_t tile_count, int rows,
                                int tile_paths) const {
  apply_host_impl(tiles, tile_count, rows, tile_paths);
}

std::size_t BrownianBridge::device_bytes() const {
  std::size_t bytes = 0;
  const auto add = [&](const auto& t) {
    if (t) {
      bytes += t->left.bytes() + t->right.bytes() + t->cycles.bytes() + t->left_weight.bytes() +
               t->right_weight.bytes() + t->sd.bytes() + t->sqrt_dt.bytes();
    }
  };
  add(device_float_);
  add(device_double_);
  return bytes;
}

// --- a run's transforms ------------------------------------------------------------------------

DrawTransforms::DrawTransforms(const SimulationPlan& plan, bool antithetic, bool brownian_bridge)
    : plan_(plan), antithetic_(antithetic), brownian_bridge_(brownian_bridge),
      bridges_(plan.groups.size()) {}

BrownianBridge& DrawTransforms::bridge(int group) {
  auto& b = bridges_.at(static_cast<std::size_t>(group));
  if (!b) {
    const GroupPlan& g = plan_.groups[static_cast<std::size_t>(group)];
    b = std::make_unique<BrownianBridge>(std::vector<double>(g.times.begin(), g.times.end()),
                                         g.factors);
  }
  return *b;
}

template <class Real>
void DrawTransforms::apply_impl(Real* draws, std::size_t values, const std::vector<int>& groups,
                                const std::vector<std::size_t>& offsets, std::uint64_t tiles,
                                cudaStream_t stream, bool device) {
  PFMC_EXPECTS(groups.size() == offsets.size(), "one offset per group");
  if (antithetic_) {
    // Every group's region starts at a tile, so one pass pairs the paths of every tile.
    if (device) {
      apply_antithetic(draws, values, stream);
    } else {
      apply_antithetic_host(draws, values);
    }
  }
  if (brownian_bridge_) {
    for (std::size_t m = 0; m < groups.size(); ++m) {
      BrownianBridge& b = bridge(groups[m]);
      if (device) {
        b.apply(draws + offsets[m], tiles, b.rows(), stream);
      } else {
        b.apply_host(draws + offsets[m], tiles, b.rows());
      }
    }
  }
}

void DrawTransforms::apply(float* draws, std::size_t values, const std::vector<int>& groups,
                           const std::vector<std::size_t>& offsets, std::uint64_t tiles,
                           cudaStream_t stream) {
  apply_impl(draws, values, groups, offsets, tiles, stream, true);
}
void DrawTransforms::apply(double* draws, std::size_t values, const std::vector<int>& groups,
                           const std::vector<std::size_t>& offsets, std::uint64_t tiles,
                           cudaStream_t stream) {
  apply_impl(draws, values, groups, offsets, tiles, stream, true);
}
void DrawTransforms::apply_host(float* draws, std::size_t values, const std::vector<int>& groups,
                                const std::vector<std::size_t>& offsets, std::uint64_t tiles) {
  apply_impl(draws, values, groups, offsets, tiles, nullptr, false);
}
void DrawTransforms::apply_host(double* draws, std::size_t values, const std::vector<int>& groups,
                                const std::vector<std::size_t>& offsets, std::uint64_t tiles) {
  apply_impl(draws, values, groups, offsets, tiles, nullptr, false);
}

std::size_t DrawTransforms::device_bytes() const {
  std::size_t bytes = 0;
  for (const auto& b : bridges_) {
    if (b)
      bytes += b->device_bytes();
  }
  return bytes;
}

// --- randomised QMC ----------------------------------------------------------------------------

namespace {

/// Acklam's approximation of Φ⁻¹ (relative error below 1.15e-9).
double acklam(double u) {
  constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                          1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                          6.680131188771972e+01, -1.328068155288572e+01};
  constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                          -2.549671010269592e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                          3.754408661907416e+00};
  constexpr double low = 0.02425;
  const double p = std::min(u, 1.0 - u);
  if (p < low) {
    const double q = std::sqrt(-2.0 * std::log(p));
    const double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                     ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    return u < 0.5 ? x : -x;
  }
  const double q = u - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

} // namespace

double inverse_normal_cdf(double u) {
  PFMC_EXPECTS(u > 0.0 && u < 1.0, "the inverse normal CDF needs 0 < u < 1");
  const double x = acklam(u);
  // One Halley step on Φ(x) − u. The residual is formed without cancellation: near the centre
  // as ½·erf(x/√2) − (u − ½) (u − ½ is exact), in the tails on the smaller of u and 1 − u (exact
  // for u ≥ ½) with erfc, so the relative accuracy holds from 2⁻³³ to the centre.
  double e;
  if (std::fabs(u - 0.5) <= 0.25) {
    e = 0.5 * std::erf(x * kSqrtHalf) - (u - 0.5);
  } else if (u < 0.5) {
    e = 0.5 * std::erfc(-x * kSqrtHalf) - u;
  } else {
    e = -(0.5 * std::erfc(x * kSqrtHalf) - (1.0 - u)); // Φ(x) − u = (1 − u) − Φ(−x)
  }
  const double t = e * kSqrtTwoPi * std::exp(0.5 * x * x);
  return x - t / (1.0 + 0.5 * x * t);
}

template <class Real>
static void shift_to_normal_host(const std::uint32_t* sobol, Real* out, std::size_t values,
                                 std::size_t points, std::uint64_t seed, int replicate) {
  PFMC_EXPECTS(points > 0 && values % points == 0, "a Sobol tile is dimensions x points");
  for (std::size_t d = 0; d < values / points; ++d) {
    const std::uint32_t mask = kernels::digital_shift_mask(seed, replicate, static_cast<int>(d));
    for (std::size_t i = d * points; i < (d + 1) * points; ++i)
      out[i] = static_cast<Real>(inverse_normal_cdf(kernels::shifted_uniform(sobol[i], mask)));
  }
}

void digital_shift_to_normal_host(const std::uint32_t* sobol, float* out, std::size_t values,
                                  std::size_t points, std::uint64_t seed, int replicate) {
  shift_to_normal_host(sobol, out, values, points, seed, replicate);
}
void digital_shift_to_normal_host(const std::uint32_t* sobol, double* out, std::size_t values,
                                  std::size_t points, std::uint64_t seed, int replicate) {
  shift_to_normal_host(sobol, out, values, points, seed, replicate);
}

} // namespace pfmc::engine
