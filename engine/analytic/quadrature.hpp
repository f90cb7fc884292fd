#pragma once
// Adaptive Gauss-Legendre quadrature for the analytic library (the bivariate normal and Heston's
// Fourier integral); not part of its interface.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace pfmc::analytic::detail {

/// Gauss-Legendre nodes and weights on [-1, 1], found by Newton's method on the three-term
/// recurrence of P_n (converges in a few steps from the Tricomi-style cosine first guess).
struct GaussLegendreRule {
  std::vector<double> nodes;
  std::vector<double> weights;
};

GaussLegendreRule make_gauss_legendre(int order);

template <class Integrand>
double apply_rule(const GaussLegendreRule& rule, const Integrand& f, double lo, double hi) {
  const double half_width = 0.5 * (hi - lo);
  const double middle = 0.5 * (hi + lo);
  double sum = 0.0;
  for (std::size_t i = 0; i < rule.nodes.size(); ++i) {
    sum += rule.weights[i] * f(middle + half_width * rule.nodes[i]);
  }
  return sum * half_width;
}

/// Adaptive Gauss-Legendre on [lo, hi]: an interval is accepted when its 10- and 20-point rules
/// agree within its share of `tolerance` (absolute), otherwise it is halved. The 20-point value is
/// kept, so the real error is far below the estimate for the smooth integrands used here (it is
/// exact for polynomials of degree 39). Only interior points are evaluated, so integrands may be
/// singular-looking (but bounded) at the ends, e.g. the Heston integrand mapped onto [0, 1).
template <class Integrand>
double integrate_adaptive(const Integrand& f, double lo, double hi, double tolerance) {
  static const GaussLegendreRule coarse = make_gauss_legendre(10);
  static const GaussLegendreRule fine = make_gauss_legendre(20);
  // 2^-45 of the domain is far below what any integrand here needs; the cap stops an integrand
  // with a kink or round-off noise from being halved without end.
  constexpr int max_depth = 45;
  struct Interval {
    double lo;
    double hi;
    int depth;
  };
  std::vector<Interval> pending{{lo, hi, 0}};
  double total = 0.0;
  while (!pending.empty()) {
    const Interval interval = pending.back();
    pending.pop_back();
    const double rough = apply_rule(coarse, f, interval.lo, interval.hi);
    const double accurate = apply_rule(fine, f, interval.lo, interval.hi);
    const double allowed =
        std::max(tolerance * (interval.hi - interval.lo) / (hi - lo),
                 64.0 * std::numeric_limits<double>::epsilon() * std::abs(accurate));
    if (std::abs(accurate - rough) <= allowed || interval.depth >= max_depth) {
      total += accurate;
    } else {
      const double middle = 0.5 * (interval.lo + interval.hi);
      pending.push_back({interval.lo, middle, interval.depth + 1});
      pending.push_back({middle, interval.hi, interval.depth + 1});
    }
  }
  return total;
}

/// integrate_adaptive for `n` integrands sharing their points: f(x, values) writes the n values
/// at x (what they share, e.g. a characteristic function, computed once a point); an interval
/// is accepted when every integrand's 10- and 20-point rules agree as integrate_adaptive asks.
/// Returns the n integrals.
template <class Integrands>
std::vector<double> integrate_adaptive_together(const Integrands& f, std::size_t n, double lo,
                                                double hi, double tolerance) {
  static const GaussLegendreRule coarse = make_gauss_legendre(10);
  static const GaussLegendreRule fine = make_gauss_legendre(20);
  constexpr int max_depth = 45;
  struct Interval {
    double lo;
    double hi;
    int depth;
  };
  std::vector<double> total(n, 0.0), rough(n), accurate(n), values(n);
  const auto rule = [&](const GaussLegendreRule& r, const Interval& i, std::vector<double>& sum) {
    const double half_width = 0.5 * (i.hi - i.lo);
    const double middle = 0.5 * (i.hi + i.lo);
    std::fill(sum.begin(), sum.end(), 0.0);
    for (std::size_t k = 0; k < r.nodes.size(); ++k) {
      f(middle + half_width * r.nodes[k], values.data());
      for (std::size_t j = 0; j < n; ++j)
        sum[j] += r.weights[k] * values[j];
    }
    for (double& v : sum)
      v *= half_width;
  };
  std::vector<Interval> pending{{lo, hi, 0}};
  while (!pending.empty()) {
    const Interval interval = pending.back();
    pending.pop_back();
    rule(coarse, interval, rough);
    rule(fine, interval, accurate);
    bool accepted = interval.depth >= max_depth;
    if (!accepted) {
      accepted = true;
      for (std::size_t j = 0; j < n && accepted; ++j) {
        const double allowed =
            std::max(tolerance * (interval.hi - interval.lo) / (hi - lo),
                     64.0 * std::numeric_limits<double>::epsilon() * std::abs(accurate[j]));
        accepted = std::abs(accurate[j] - rough[j]) <= allowed;
      }
    }
    if (accepted) {
      for (std::size_t j = 0; j < n; ++j)
        total[j] += accurate[j];
    } else {
      const double middle = 0.5 * (interval.lo + interval.hi);
      pending.push_back({interval.lo, middle, interval.depth + 1});
      pending.push_back({middle, interval.hi, interval.depth + 1});
    }
  }
  return total;
}

} // namespace pfmc::analytic::detail
