#include "engine/analytic/quadrature.hpp"

#include <cmath>

#include "engine/analytic/detail.hpp"

namespace pfmc::analytic::detail {

GaussLegendreRule make_gauss_legendre(int order) {
  GaussLegendreRule rule;
  rule.nodes.resize(order);
  rule.weights.resize(order);
  for (int root = 0; root < (order + 1) / 2; ++root) {
    double x = std::cos(pi * (root + 0.75) / (order + 0.5));
    double derivative = 0.0;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p_previous = 1.0;
      double p_current = x;
      for (int degree = 2; degree <= order; ++degree) {
        const double p_next =
            ((2.0 * degree - 1.0) * x * p_current - (degree - 1.0) * p_previous) / degree;
        p_previous = p_current;
        p_current = p_next;
      }
      derivative = order * (x * p_current - p_previous) / (x * x - 1.0);
      const double step = p_current / derivative;
      x -= step;
      if (std::abs(step) < 1e-16) {
        break;
      }
    }
    const double weight = 2.0 / ((1.0 - x * x) * derivative * derivative);
    rule.nodes[root] = -x;
    rule.nodes[order - 1 - root] = x;
    rule.weights[root] = weight;
    rule.weights[order - 1 - root] = weight;
  }
  return rule;
}

} // namespace pfmc::analytic::detail
