#pragma once
// The least-squares search both fits run (the SSVI surface, engine/market/ssvi.cpp; Heston,
// engine/market/heston_calibration.cpp): Eigen's Levenberg-Marquardt (its MINPACK port,
// unsupported/Eigen/NonLinearOptimization) on forward differences of the residuals, with one set
// of tolerances.

#include <Eigen/Dense>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

namespace pfmc::market {

/// Minimises the sum of squares of `residuals` (an Eigen functor: inputs(), values(),
/// operator()(x, out)) from x, its Jacobian by forward differences of relative step
/// sqrt(epsfcn) (0: machine precision's), at most `max_evaluations` evaluations. Returns Eigen's
/// status (LevenbergMarquardtSpace::Status) and adds the evaluations made, the differences'
/// included, to `evaluations`.
template <class Residuals>
int least_squares(const Residuals& residuals, Eigen::VectorXd& x, int max_evaluations,
                  double epsfcn, int& evaluations) {
  Eigen::NumericalDiff<Residuals> differences(residuals, epsfcn);
  Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Residuals>> solver(differences);
  solver.parameters.ftol = 1e-14;
  solver.parameters.xtol = 1e-12;
  solver.parameters.maxfev = max_evaluations;
  const int status = solver.minimize(x);
  evaluations += static_cast<int>(solver.nfev + solver.njev * x.size());
  return status;
}

} // namespace pfmc::market
