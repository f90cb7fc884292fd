#include "engine/market/ssvi.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/market/least_squares.hpp"

namespace pfmc::market {

double SsviSurface::theta_at(double T) const {
  if (T <= expiries.front())
    return theta.front() * T / expiries.front();
  for (std::size_t i = 1; i < expiries.size(); ++i) {
    if (T <= expiries[i])
      return theta[i - 1] +
             (theta[i] - theta[i - 1]) * (T - expiries[i - 1]) / (expiries[i] - expiries[i - 1]);
  }
  return theta.back() + theta_slope_at(T) * (T - expiries.back());
}

double SsviSurface::theta_slope_at(double T) const {
  if (T < expiries.front() || expiries.size() == 1)
    return theta.front() / expiries.front();
  for (std::size_t i = 1; i < expiries.size(); ++i) {
    if (T < expiries[i])
      return (theta[i] - theta[i - 1]) / (expiries[i] - expiries[i - 1]);
  }
  const std::size_t n = expiries.size();
  return (theta[n - 1] - theta[n - 2]) / (expiries[n - 1] - expiries[n - 2]);
}

SsviSurface::Slice SsviSurface::at(double T, double k) const {
  const double t = theta_at(T);
  const double phi = eta * std::pow(t, -gamma);
  const double z = phi * k + rho;
  const double s = std::sqrt(z * z + 1.0 - rho * rho);
  Slice out;
  out.w = 0.5 * t * (1.0 + rho * phi * k + s);
  out.w_k = 0.5 * t * phi * (rho + z / s);
  out.w_kk = 0.5 * t * phi * phi * (1.0 - rho * rho) / (s * s * s);
  // dw/dtheta with phi's own dependence on theta: dphi/dtheta = -gamma phi / theta.
  const double dphi = -gamma * phi / t;
  const double w_theta = 0.5 * (1.0 + rho * phi * k + s) + 0.5 * t * k * dphi * (rho + z / s);
  out.w_T = w_theta * theta_slope_at(T);
  return out;
}

double SsviSurface::vol(double T, double k) const {
  return std::sqrt(at(T, k).w / T);
}

double SsviSurface::local_vol(double T, double k) const {
  const Slice s = at(T, k);
  const double denominator = 1.0 - k * s.w_k / s.w +
                             0.25 * s.w_k * s.w_k * (-0.25 - 1.0 / s.w + k * k / (s.w * s.w)) +
                             0.5 * s.w_kk;
  if (!(denominator > 0.0) || !(s.w_T >= 0.0))
    return std::numeric_limits<double>::quiet_NaN();
  return std::sqrt(s.w_T / denominator);
}

namespace {

double logistic(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

struct Point {
  std::size_t expiry; ///< its index among the surface's expiries
  double T;
  double k;
  double vol;
};

/// x = [one increment of theta an expiry (its log), rho, gamma, eta] -> the surface.
SsviSurface surface_of(const Eigen::VectorXd& x, const std::vector<double>& expiries) {
  SsviSurface s;
  s.expiries = expiries;
  const std::size_t n = expiries.size();
  double theta = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    theta += std::exp(x(static_cast<Eigen::Index>(i)));
    s.theta.push_back(theta);
  }
  const auto at = [&](std::size_t j) { return x(static_cast<Eigen::Index>(n + j)); };
  s.rho = 0.999 * std::tanh(at(0));
  s.gamma = 0.5 * logistic(at(1));                         // (0, 1/2]
  s.eta = 2.0 / (1.0 + std::abs(s.rho)) * logistic(at(2)); // eta (1 + |rho|) < 2
  return s;
}

struct Residuals {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };
  const std::vector<Point>* points;
  const std::vector<double>* expiries;
  int inputs() const { return static_cast<int>(expiries->size()) + 3; }
  int values() const { return static_cast<int>(points->size()); }
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& out) const {
    const SsviSurface s = surface_of(x, *expiries);
    for (std::size_t i = 0; i < points->size(); ++i) {
      const Point& p = (*points)[i];
      const double r = s.vol(p.T, p.k) - p.vol;
      out(static_cast<Eigen::Index>(i)) = std::isfinite(r) ? r : 1.0;
    }
    return 0;
  }
};

} // namespace

SsviFit fit_ssvi(const std::vector<VolQuote>& quotes, const QuoteMarket& market) {
  std::map<double, std::size_t> expiry_index;
  for (const VolQuote& q : quotes) {
    check_quote(q);
    expiry_index.emplace(q.expiry, 0);
  }
  std::vector<double> expiries;
  for (auto& [T, index] : expiry_index) {
    index = expiries.size();
    expiries.push_back(T);
  }
  const std::size_t parameters = expiries.size() + 3;
  if (quotes.size() < parameters)
    throw std::invalid_argument("an SSVI surface over " + std::to_string(expiries.size()) +
                                " expiries has " + std::to_string(parameters) +
                                " parameters: more quotes than that are needed, got " +
                                std::to_string(quotes.size()));
  std::vector<Point> points;
  std::vector<double> atm(expiries.size(), 0.0), nearest(expiries.size(), 1e300);
  for (const VolQuote& q : quotes) {
    const std::size_t e = expiry_index[q.expiry];
    const double k = std::log(q.strike / forward_of(market, q.expiry));
    points.push_back({e, q.expiry, k, q.vol});
    if (std::abs(k) < nearest[e]) {
      nearest[e] = std::abs(k);
      atm[e] = q.vol * q.vol * q.expiry;
    }
  }
  // The start: the at-the-money total variances made increasing, a moderate skew.
  Eigen::VectorXd x(static_cast<Eigen::Index>(parameters));
  double previous = 0.0;
  for (std::size_t i = 0; i < expiries.size(); ++i) {
    const double theta = std::max(atm[i], previous * 1.0001 + 1e-8);
    x(static_cast<Eigen::Index>(i)) = std::log(theta - previous);
    previous = theta;
  }
  const auto n = static_cast<Eigen::Index>(expiries.size());
  x(n) = std::atanh(-0.5 / 0.999);
  x(n + 1) = 0.0; // gamma 0.25
  x(n + 2) = 0.0; // eta at half its bound
  SsviFit fit;
  least_squares(Residuals{&points, &expiries}, x, 20000, 0.0, fit.evaluations);
  fit.surface = surface_of(x, expiries);
  std::vector<double> vols;
  for (const Point& p : points) // in the quotes' order
    vols.push_back(fit.surface.vol(p.T, p.k));
  static_cast<VolFitError&>(fit) = vol_fit_error(std::move(vols), quotes);
  return fit;
}

} // namespace pfmc::market
