#include "engine/market/heston_calibration.hpp"

#include <Eigen/Dense>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/SpecialFunctions>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "engine/analytic/analytic.hpp"
#include "engine/market/implied_vol.hpp"
#include "engine/market/least_squares.hpp"
#include "engine/plan/plan.hpp"

namespace pfmc::market {

void check_quote(const VolQuote& quote) {
  if (!(quote.expiry > 0.0) || !(quote.strike > 0.0) || !(quote.vol > 0.0))
    throw std::invalid_argument("a quote's expiry, strike and vol must be positive");
}

VolFitError vol_fit_error(std::vector<double> model_vols, const std::vector<VolQuote>& quotes) {
  VolFitError fit;
  double squares = 0.0;
  for (std::size_t i = 0; i < quotes.size(); ++i) {
    const double error = 100.0 * (model_vols[i] - quotes[i].vol);
    squares += error * error;
    fit.max_error_vol_points = std::max(fit.max_error_vol_points, std::abs(error));
  }
  fit.rmse_vol_points = std::sqrt(squares / static_cast<double>(quotes.size()));
  fit.model_vols = std::move(model_vols);
  return fit;
}

QuoteMarket quote_market(const config::Underlying& underlying,
                         const config::TermStructure& zero_rates) {
  QuoteMarket market;
  market.spot = underlying.spot;
  market.dividend_yield = underlying.dividend_yield;
  market.zero_rates = zero_rates;
  return market;
}

double discount_of(const QuoteMarket& market, double T) {
  return engine::discount_factor(market.zero_rates, T);
}

double forward_of(const QuoteMarket& market, double T) {
  return market.spot * std::exp(-market.dividend_yield * T) / discount_of(market, T);
}

std::vector<VolQuote> vol_quotes(const config::ImpliedVols& set, const QuoteMarket& market) {
  std::vector<VolQuote> quotes;
  quotes.reserve(set.quotes.size());
  for (const config::VolQuoteConfig& q : set.quotes) {
    double strike = q.strike;
    if (set.coordinate == config::QuoteCoordinate::log_moneyness) {
      strike = forward_of(market, q.expiry) * std::exp(q.strike);
    } else if (set.coordinate == config::QuoteCoordinate::delta) {
      const double sd = q.vol * std::sqrt(q.expiry);
      strike = forward_of(market, q.expiry) *
               std::exp(-sd * Eigen::numext::ndtri(q.strike) + 0.5 * sd * sd);
    }
    quotes.push_back({q.expiry, strike, q.vol});
  }
  return quotes;
}

namespace {

constexpr double kRhoLimit = 0.999;
/// The smiles' integral error (analytic::heston_smile): at most 1e-10 sqrt(F K) / pi of a price,
/// 3e-9 at F = K = 100, a vol error of 1e-10 / (vega / 100) — below 1e-6 vol points down to a
/// vega of 3e-4 per vol point, far out in any quoted wing.
constexpr double kSmileTolerance = 1e-10;

/// A quote as the fit uses it: its out-of-the-money option's kind, price and vega, and its
/// expiry's zero rate.
struct Target {
  VolQuote quote;
  analytic::OptionKind kind;
  double rate;
  double forward;
  double discount;
  double price;
  double vega;
};

/// The unconstrained coordinates of a parameter set and back.
struct Transform {
  bool feller;
  Eigen::VectorXd to_x(const config::HestonParameters& p) const {
    Eigen::VectorXd x(5);
    x << std::log(p.v0), std::log(p.kappa), std::log(p.theta), 0.0,
        std::atanh(std::clamp(p.rho / kRhoLimit, -0.999999, 0.999999));
    if (feller) {
      const double ceiling = std::sqrt(2.0 * p.kappa * p.theta);
      const double f = std::clamp(p.xi / ceiling, 1e-6, 1.0 - 1e-6);
      x(3) = std::log(f / (1.0 - f));
    } else {
      x(3) = std::log(p.xi);
    }
    return x;
  }
  config::HestonParameters from_x(const Eigen::VectorXd& x) const {
    config::HestonParameters p;
    p.v0 = std::exp(x(0));
    p.kappa = std::exp(x(1));
    p.theta = std::exp(x(2));
    p.xi = feller ? std::sqrt(2.0 * p.kappa * p.theta) / (1.0 + std::exp(-x(3))) : std::exp(x(3));
    p.rho = kRhoLimit * std::tanh(x(4));
    return p;
  }
};

/// The quotes of one expiry, priced together (analytic::heston_smile).
struct Expiry {
  double T = 0.0;
  double rate = 0.0;
  std::vector<std::size_t> quotes; ///< into the targets
  std::vector<analytic::OptionKind> kinds;
  std::vector<double> strikes;
};

std::vector<Expiry> expiries_of(const std::vector<Target>& targets) {
  std::vector<Expiry> out;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const Target& t = targets[i];
    auto e = std::find_if(out.begin(), out.end(),
                          [&](const Expiry& x) { return x.T == t.quote.expiry; });
    if (e == out.end()) {
      out.push_back({t.quote.expiry, t.rate, {}, {}, {}});
      e = out.end() - 1;
    }
    e->quotes.push_back(i);
    e->kinds.push_back(t.kind);
    e->strikes.push_back(t.quote.strike);
  }
  return out;
}

/// Every target's Heston price under `p`, one smile an expiry; std::invalid_argument for
/// parameters the pricer refuses.
std::vector<double> heston_prices(const std::vector<Target>& targets,
                                  const std::vector<Expiry>& expiries, const QuoteMarket& market,
                                  const config::HestonParameters& p) {
  std::vector<double> prices(targets.size());
  for (const Expiry& e : expiries) {
    const std::vector<double> smile =
        analytic::heston_smile(e.kinds, e.strikes, market.spot, e.T, e.rate, market.dividend_yield,
                               p.v0, p.kappa, p.theta, p.xi, p.rho, kSmileTolerance);
    for (std::size_t j = 0; j < e.quotes.size(); ++j)
      prices[e.quotes[j]] = smile[j];
  }
  return prices;
}

/// The Black vol of a model's price of t's out-of-the-money option: 0 where the price carries no
/// time value (a far wing under rho near -1: the vol is below what a double's price can hold),
/// NaN above the arbitrage bound.
double vol_of(const Target& t, double price) {
  if (!(price > 0.0))
    return 0.0;
  try {
    return implied_vol(t.kind, price, t.forward, t.quote.strike, t.quote.expiry, t.discount);
  } catch (const std::invalid_argument&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

/// The residuals for Eigen, one a quote: (Heston price - quote's price) / quote's vega (a vol
/// error to first order: smooth and cheap, the first pass), or, with `exact`, the Heston price's
/// implied vol - the quote's (what the fit is judged by: the second pass, from the first's end).
struct Residuals {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };

  const std::vector<Target>* targets;
  const std::vector<Expiry>* expiries;
  const QuoteMarket* market;
  Transform transform;
  bool exact = false;

  int inputs() const { return 5; }
  int values() const { return static_cast<int>(targets->size()); }
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& out) const {
    std::vector<double> prices;
    try {
      prices = heston_prices(*targets, *expiries, *market, transform.from_x(x));
    } catch (const std::invalid_argument&) {
      out.setConstant(1.0); // parameters the pricer refuses: far from any quote's price
      return 0;
    }
    for (std::size_t i = 0; i < targets->size(); ++i) {
      const Target& t = (*targets)[i];
      double r = (prices[i] - t.price) / t.vega;
      if (exact) {
        const double vol = vol_of(t, prices[i]);
        if (std::isfinite(vol)) // else its first-order error stands
          r = vol - t.quote.vol;
      }
      out(static_cast<Eigen::Index>(i)) = std::isfinite(r) ? r : 1.0;
    }
    return 0;
  }
};

const char* status_text(int status) {
  using namespace Eigen::LevenbergMarquardtSpace;
  switch (status) {
  case RelativeReductionTooSmall:
    return "the residuals' relative reduction fell below its tolerance";
  case RelativeErrorTooSmall:
    return "the parameters' relative change fell below its tolerance";
  case RelativeErrorAndReductionTooSmall:
    return "the residuals' reduction and the parameters' change both fell below their tolerances";
  case CosinusTooSmall:
    return "the residuals are orthogonal to the Jacobian's columns";
  case TooManyFunctionEvaluation:
    return "the evaluation limit was reached";
  case FtolTooSmall:
  case XtolTooSmall:
  case GtolTooSmall:
    return "no further reduction is possible at machine precision";
  default:
    return "the search stopped for another reason";
  }
}

/// The squared vol of the quote nearest the forward at `expiry`.
double atm_variance(const std::vector<Target>& targets, double expiry) {
  double best = std::numeric_limits<double>::infinity(), vol = 0.2;
  for (const Target& t : targets) {
    if (t.quote.expiry != expiry)
      continue;
    const double distance = std::abs(std::log(t.quote.strike / t.forward));
    if (distance < best) {
      best = distance;
      vol = t.quote.vol;
    }
  }
  return vol * vol;
}

} // namespace

HestonCalibration calibrate_heston(const std::vector<VolQuote>& quotes, const QuoteMarket& market,
                                   const HestonCalibrationOptions& options) {
  if (quotes.size() < 5)
    throw std::invalid_argument("Heston calibration needs at least 5 quotes (5 parameters), got " +
                                std::to_string(quotes.size()));
  std::vector<Target> targets;
  targets.reserve(quotes.size());
  double first = std::numeric_limits<double>::infinity(), last = 0.0;
  for (const VolQuote& q : quotes) {
    check_quote(q);
    Target t;
    t.quote = q;
    t.discount = discount_of(market, q.expiry);
    t.rate = -std::log(t.discount) / q.expiry;
    t.forward = forward_of(market, q.expiry);
    t.kind = q.strike >= t.forward ? analytic::OptionKind::call : analytic::OptionKind::put;
    t.price = black_price(t.kind, t.forward, q.strike, q.expiry, q.vol, t.discount);
    t.vega = black_vega(t.forward, q.strike, q.expiry, q.vol, t.discount);
    targets.push_back(t);
    first = std::min(first, q.expiry);
    last = std::max(last, q.expiry);
  }
  config::HestonParameters start = options.start;
  if (!(start.v0 > 0.0))
    start.v0 = atm_variance(targets, first);
  if (!(start.theta > 0.0))
    start.theta = atm_variance(targets, last);
  const Transform transform{options.impose_feller};
  if (options.impose_feller)
    start.xi = std::min(start.xi, 0.5 * std::sqrt(2.0 * start.kappa * start.theta));

  const std::vector<Expiry> expiries = expiries_of(targets);
  Eigen::VectorXd x = transform.to_x(start);
  HestonCalibration fit;
  int status = 0;
  for (const bool exact : {false, true}) {
    // Forward differences a step of 1e-5 in the transformed coordinates: the prices' quadrature
    // error (about 1e-10) stays 1e-5 of a difference.
    status = least_squares(Residuals{&targets, &expiries, &market, transform, exact}, x,
                           std::max(1, options.max_evaluations - fit.evaluations), 1e-10,
                           fit.evaluations);
  }
  fit.parameters = transform.from_x(x);
  fit.parameters.scheme = options.start.scheme;
  fit.stop = status_text(status);
  const std::vector<double> prices = heston_prices(targets, expiries, market, fit.parameters);
  std::vector<double> vols;
  for (std::size_t i = 0; i < targets.size(); ++i)
    vols.push_back(vol_of(targets[i], prices[i]));
  static_cast<VolFitError&>(fit) = vol_fit_error(std::move(vols), quotes);
  return fit;
}

} // namespace pfmc::market
