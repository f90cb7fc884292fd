// Pathwise Greeks on the CPU backend (issue 37): Europeans, digitals, geometric Asians, two-asset
// max and min calls (their gammas too) and an exchange option's cross-gamma (Margrabe) against
// their closed forms; knocks, baskets, and every instrument of the Heston and local-vol reference
// cases against an independent Monte Carlo's mean of the same estimator
// (tests/pathwise_references.hpp); the groups that keep bumps (auto) or are refused (pathwise),
// and the book whose Greeks the bumps could not take. Every Monte Carlo comparison is within
// kSigmas standard errors (test_support.hpp) plus, where the estimator has a bias or the
// reference an error, an allowance derived next to it from the closed forms or the reference,
// never from pfmc's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "config/config_error.hpp"
#include "engine/analytic/analytic.hpp"
#include "engine/plan/plan.hpp"
#include "engine/pricer.hpp"
#include "heston_greeks.hpp"
#include "models/pathwise.cuh"
#include "pathwise_references.hpp"
#include "reference_check.hpp"
#include "test_support.hpp"

namespace pfmc {
namespace {

using analytic::OptionKind;
using testing::basket_yaml;
using testing::bs_yaml;
using testing::find;
using testing::kSigmas;
using testing::load;
namespace pathwise = testing::pathwise;

const std::string kEuropeans =
    "  - {id: call, type: european, option: call, strike: 105, maturity: 1, model: bs}\n"
    "  - {id: put, type: european, option: put, strike: 95, maturity: 1, model: bs}\n";
const std::string kAllGreeks = ", greeks: [delta, gamma, vega, rho, theta]";

/// The ConfigError pricing `yaml` throws (its message), or "no error" where it prices.
std::string config_error_of(const std::string& yaml) {
  try {
    engine::price(load(yaml));
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

/// A table's YAML (tests/pathwise_references.hpp) priced on the CPU, its Greeks `method`.
engine::RunResult priced_reference_yaml(const char* yaml, const std::string& method = "pathwise") {
  std::string text = std::string(yaml) + "engine: {device: cpu}\n";
  const std::string key = "greeks_method: pathwise";
  text.replace(text.find(key), key.size(), "greeks_method: " + method);
  return engine::price(load(text));
}

/// Whether `id` in `yaml` knocks on its spot (a barrier, or a knock that is not a basket's).
bool knocks_on_its_spot(const char* yaml, const std::string& id) {
  for (const auto& in : load(std::string(yaml) + "engine: {device: cpu}\n").instruments) {
    if (in.id == id)
      return in.knock && in.type != config::InstrumentType::basket;
  }
  return false;
}

/// Which of a table's Greeks a check takes: all but the gammas of spot knocks, or those alone.
enum class SpotKnockGammas { left_out, only };

/// Each Greek of the pathwise run `r` of the table's YAML against the independent reference's
/// mean of the same estimator (tests/pathwise_references.hpp: numpy paths of their own, each
/// Greek a central difference path by path of the payoff smoothed as the estimator smooths it):
/// within kSigmas of the two standard errors combined plus the reference's central differences'
/// own error (its allowance: |mean at h - mean at 2h| on the same draws).
template <std::size_t N>
void expect_pathwise_references(const engine::RunResult& r, const char* yaml,
                                const pathwise::PathwiseReference (&table)[N], const char* label,
                                SpotKnockGammas gammas = SpotKnockGammas::left_out) {
  int checked = 0;
  double worst = 0.0;
  for (const auto& want : table) {
    const bool knock_gamma =
        std::string(want.greek) == "gamma" && knocks_on_its_spot(yaml, want.id);
    if (knock_gamma != (gammas == SpotKnockGammas::only))
      continue;
    const auto& in = find(r, want.id);
    const auto it = std::find_if(in.greeks.begin(), in.greeks.end(), [&](const auto& g) {
      return config::to_string(g.greek) == std::string(want.greek) &&
             g.underlying == want.underlying;
    });
    const std::string what =
        std::string(label) + " " + want.id + " " + want.greek + "[" + want.underlying + "]";
    ASSERT_NE(it, in.greeks.end()) << what;
    EXPECT_TRUE(it->pathwise) << what;
    const double combined = std::hypot(it->std_error, want.std_error);
    EXPECT_NEAR(it->value, want.value, kSigmas * combined + want.allowance)
        << what << ": pathwise " << it->value << " ± " << it->std_error << ", reference "
        << want.value << " ± " << want.std_error << " (+ " << want.allowance << ")";
    worst = std::max(worst, std::fabs(it->value - want.value) / combined);
    ++checked;
  }
  EXPECT_GT(checked, 0) << label;
  std::printf("  %s: %d Greeks, worst %.2f combined standard errors\n", label, checked, worst);
}

/// Gamma's pathwise estimator is the central difference of the pathwise delta at ±1% of the
/// spot (engine/plan/pathwise.cpp): its mean is that difference of the true delta, whose
/// distance from gamma is the allowance (from the closed form, plus a tenth for rounding).
double gamma_allowance(OptionKind kind, double strike) {
  const double h = 1.0; // 1% of 100
  const auto up = analytic::black_scholes_greeks(kind, 100 + h, strike, 1, 0.04, 0.01, 0.25);
  const auto down = analytic::black_scholes_greeks(kind, 100 - h, strike, 1, 0.04, 0.01, 0.25);
  const auto at = analytic::black_scholes_greeks(kind, 100, strike, 1, 0.04, 0.01, 0.25);
  return 1.1 * std::fabs((up.delta - down.delta) / (2 * h) - at.gamma) + 1e-9;
}

/// Every pathwise Greek of kEuropeans' call and put in `r` (S = 100, r = 4%, q = 1%, vol 25%,
/// T = 1) against the closed form within kSigmas standard errors, gamma with its difference's
/// own distance (gamma_allowance); `label` names the run in messages.
void expect_europeans_match_black_scholes(const engine::RunResult& r, const std::string& label) {
  for (const auto& [id, kind, strike] :
       {std::tuple{"call", OptionKind::call, 105.0}, std::tuple{"put", OptionKind::put, 95.0}}) {
    const auto g = analytic::black_scholes_greeks(kind, 100, strike, 1, 0.04, 0.01, 0.25);
    const auto& got = find(r, id);
    ASSERT_EQ(got.greeks.size(), 5u);
    const double expected[5] = {g.delta, g.gamma, g.vega, g.rho, g.theta};
    const double allowance[5] = {1e-9, gamma_allowance(kind, strike), 1e-7, 1e-7, 1e-7};
    for (int k = 0; k < 5; ++k) {
      const auto& e = got.greeks[static_cast<std::size_t>(k)];
      EXPECT_TRUE(e.pathwise) << label << " " << id << " " << config::to_string(e.greek);
      EXPECT_NEAR(e.value, expected[k], kSigmas * e.std_error + allowance[k])
          << label << " " << id << " " << config::to_string(e.greek);
      std::printf("  %s %s %-5s %.6f ± %.6f  closed form %.6f\n", label.c_str(), id,
                  config::to_string(e.greek), e.value, e.std_error, expected[k]);
    }
  }
}

TEST(PathwiseGreeks, EuropeansMatchBlackScholesWithSmallerErrorsThanTheBumps) {
  // Delta, vega, rho and theta are the exact derivatives of the simulated discounted payoff
  // (the step data's tangents are differences of smooth functions at 1e-6: about 1e-10 of each
  // Greek), so nothing but the standard error separates them from the closed form.
  const auto pathwise =
      engine::price(load(bs_yaml(kEuropeans, 200000, kAllGreeks + ", greeks_method: pathwise")));
  const auto bumped =
      engine::price(load(bs_yaml(kEuropeans, 200000, kAllGreeks + ", greeks_method: bump")));
  for (const auto& [id, kind, strike] :
       {std::tuple{"call", OptionKind::call, 105.0}, std::tuple{"put", OptionKind::put, 95.0}}) {
    const auto g = analytic::black_scholes_greeks(kind, 100, strike, 1, 0.04, 0.01, 0.25);
    const auto& got = find(pathwise, id);
    const auto& bump = find(bumped, id);
    EXPECT_EQ(got.price, bump.price) << "the same paths price the same";
    ASSERT_EQ(got.greeks.size(), 5u);
    const double expected[5] = {g.delta, g.gamma, g.vega, g.rho, g.theta};
    const double allowance[5] = {1e-9, gamma_allowance(kind, strike), 1e-7, 1e-7, 1e-7};
    for (int k = 0; k < 5; ++k) {
      const auto& e = got.greeks[static_cast<std::size_t>(k)];
      const auto& b = bump.greeks[static_cast<std::size_t>(k)];
      EXPECT_TRUE(e.pathwise) << id << " " << config::to_string(e.greek);
      EXPECT_TRUE(e.has_std_error);
      EXPECT_NEAR(e.value, expected[k], kSigmas * e.std_error + allowance[k])
          << id << " " << config::to_string(e.greek);
      std::printf("  %s %-5s pathwise %.5f ± %.5f  bump %.5f ± %.5f  closed form %.5f\n", id,
                  config::to_string(e.greek), e.value, e.std_error, b.value, b.std_error,
                  expected[k]);
    }
    // The bumps take a European's delta pathwise too (docs/guide.md: Greeks): the same estimator,
    // the same bits.
    EXPECT_EQ(got.greeks[0].value, bump.greeks[0].value) << id << " delta";
    EXPECT_EQ(got.greeks[0].std_error, bump.greeks[0].std_error) << id << " delta";
    // Pathwise vegas are about as noisy as the bumps' on the same paths: the bumps' central
    // difference (±1 vol point) is the pathwise estimate averaged over its move, a little
    // smoother. How much: the ratio of the two estimators' per-path spreads by quadrature over
    // the terminal normal (tests/pathwise_references.hpp, kEuropeanNoiseRatios: within 0.1%),
    // which these paths' standard errors must meet within kSigmas of that ratio's sampling
    // error here (the delta method, derived there).
    for (const auto& want : pathwise::kEuropeanNoiseRatios) {
      if (std::string(want.id) != id)
        continue;
      const double ratio = got.greeks[2].std_error / bump.greeks[2].std_error;
      EXPECT_NEAR(ratio, want.ratio, kSigmas * want.relative_error * want.ratio)
          << id << " " << want.greek << ": pathwise " << got.greeks[2].std_error << ", bumps "
          << bump.greeks[2].std_error;
    }
  }
}

TEST(PathwiseGreeks, InFloatEuropeansMatchBlackScholes) {
  // The float kernels' tangents and payoff derivatives are the double ones' code in float; the
  // sums are double. Rounding (a few float ulps a path, ~1e-6 of each Greek) is far below the
  // standard error, so the closed form's allowances are the double test's.
  const std::string pathwise = kAllGreeks + ", greeks_method: pathwise";
  const auto single =
      engine::price(load(bs_yaml(kEuropeans, 200000, pathwise + ", precision: float")));
  EXPECT_EQ(single.run.precision, "float");
  expect_europeans_match_black_scholes(single, "float");
}

TEST(PathwiseGreeks, GeometricAsiansMatchTheirClosedFormOnATermStructure) {
  // Monthly fixings; the run's rates are a curve, flat here so that the closed form applies
  // (geometric_asian_discrete_greeks: theta with the schedule fixed in calendar time).
  const std::string asians =
      "  - {id: ga, type: asian, average: geometric, option: call, strike: 100, maturity: 1, "
      "fixings: 12, model: bs}\n"
      "  - {id: gp, type: asian, average: geometric, option: put, strike: 95, maturity: 1, "
      "fixings: 12, model: bs}\n";
  const auto r =
      engine::price(load(bs_yaml(asians, 200000, ", greeks: [delta, vega, rho, theta]")));
  std::vector<double> fixings;
  for (int i = 1; i <= 12; ++i)
    fixings.push_back(i / 12.0);
  for (const auto& [id, kind, strike] :
       {std::tuple{"ga", OptionKind::call, 100.0}, std::tuple{"gp", OptionKind::put, 95.0}}) {
    const auto g =
        analytic::geometric_asian_discrete_greeks(kind, 100, strike, 0.04, 0.01, 0.25, fixings, 1);
    const auto& got = find(r, id);
    ASSERT_EQ(got.greeks.size(), 4u);
    const double expected[4] = {g.delta, g.vega, g.rho, g.theta};
    for (int k = 0; k < 4; ++k) {
      const auto& e = got.greeks[static_cast<std::size_t>(k)];
      EXPECT_TRUE(e.pathwise);
      // The closed form's own error: 5e-9 of each Greek's scale (analytic.hpp), and the tangents'.
      EXPECT_NEAR(e.value, expected[k], kSigmas * e.std_error + 1e-6)
          << id << " " << config::to_string(e.greek);
    }
  }
}

TEST(PathwiseGreeks, TwoAssetMaxAndMinCallsMatchStulzPerUnderlying) {
  // Stulz (1982) differentiated by central differences at 1e-4 (its O(h²) error about 1e-9):
  // delta, gamma and vega per underlying, rho and the cross-gamma, pathwise, in double and in
  // float. The level of a max or a min is not linear in each spot (the winning leg changes): its
  // gammas read the level on the paths with each spot moved by ±1% (engine/plan/instruments.cpp),
  // so their estimator's mean is the central difference at ±1% of the true delta, and that of
  // Stulz's delta is what they must meet.
  for (const std::string precision : {"double", "float"}) {
    SCOPED_TRACE(precision);
    const auto r = engine::price(load(basket_yaml(
        "  - {id: mx, type: basket, payoff: max, option: call, strike: 100, maturity: 1, model: "
        "ab}\n"
        "  - {id: mn, type: basket, payoff: min, option: call, strike: 95, maturity: 1, model: "
        "ab}\n",
        200000,
        ", greeks: [delta, gamma, vega, rho, cross_gamma], greeks_method: pathwise, precision: " +
            precision)));
    EXPECT_EQ(r.run.precision, precision);
    const double h = 1e-4, m = 1.0; // m: 1% of each spot
    for (const bool max : {true, false}) {
      const double k = max ? 100 : 95;
      const auto f = [&](double s1, double s2, double v1, double v2, double r) {
        return max ? analytic::stulz_max_call(s1, s2, k, 1, r, 0, 0, v1, v2, 0.9)
                   : analytic::stulz_min_call(s1, s2, k, 1, r, 0, 0, v1, v2, 0.9);
      };
      const auto delta_a = [&](double s1, double s2) {
        return (f(s1 + h, s2, 0.3, 0.3, 0.05) - f(s1 - h, s2, 0.3, 0.3, 0.05)) / (2 * h);
      };
      const auto delta_b = [&](double s1, double s2) {
        return (f(s1, s2 + h, 0.3, 0.3, 0.05) - f(s1, s2 - h, 0.3, 0.3, 0.05)) / (2 * h);
      };
      const double expected[8] = {
          delta_a(100, 100),
          delta_b(100, 100),
          (delta_a(100 + m, 100) - delta_a(100 - m, 100)) / (2 * m),
          (delta_b(100, 100 + m) - delta_b(100, 100 - m)) / (2 * m),
          (f(100, 100, 0.3 + h, 0.3, 0.05) - f(100, 100, 0.3 - h, 0.3, 0.05)) / (2 * h),
          (f(100, 100, 0.3, 0.3 + h, 0.05) - f(100, 100, 0.3, 0.3 - h, 0.05)) / (2 * h),
          (f(100, 100, 0.3, 0.3, 0.05 + h) - f(100, 100, 0.3, 0.3, 0.05 - h)) / (2 * h),
          (delta_b(100 + m, 100) - delta_b(100 - m, 100)) / (2 * m)};
      const auto& basket = find(r, max ? "mx" : "mn");
      ASSERT_EQ(basket.greeks.size(), 8u);
      EXPECT_EQ(basket.greeks[7].greek, config::Greek::cross_gamma);
      for (int i = 0; i < 8; ++i) {
        const auto& g = basket.greeks[static_cast<std::size_t>(i)];
        EXPECT_TRUE(g.pathwise);
        EXPECT_NEAR(g.value, expected[i], kSigmas * g.std_error + 1e-6)
            << basket.id << " " << config::to_string(g.greek) << "[" << g.underlying << "]";
        std::printf("  %s %s %-11s[%s] pathwise %.6f ± %.6f  Stulz %.6f\n", precision.c_str(),
                    basket.id.c_str(), config::to_string(g.greek), g.underlying.c_str(), g.value,
                    g.std_error, expected[i]);
      }
    }
  }
}

TEST(PathwiseGreeks, BasketsAgreeWithTheIndependentReferenceAndWithTheBumpsOnTheSameDraws) {
  // Three correlated assets, a weighted call and put, a max call and a knocked call, every Greek
  // per asset (tests/pathwise_references.hpp, kBasketBook). Pathwise, against the independent
  // reference's mean of the same estimator. And against pfmc's bumps on the same draws: the two
  // estimators' means differ by the bumps' central differences' bias (1% spot, one vol point,
  // 10 bp, one day forward; gamma a second difference of prices against a first difference of
  // pathwise deltas) and the knock's kernel's, which the reference measures on its own draws
  // (kBasketBookGaps): the two estimates of one Greek must differ by that gap within kSigmas of
  // their standard errors and the gap's combined (the two estimates' errors added as if
  // independent: on the same draws they are positively correlated, so this is the wider).
  const auto p = priced_reference_yaml(pathwise::kBasketBookYaml);
  const auto b = priced_reference_yaml(pathwise::kBasketBookYaml, "bump");
  expect_pathwise_references(p, pathwise::kBasketBookYaml, pathwise::kBasketBook, "basket book");
  for (const auto& gap : pathwise::kBasketBookGaps) {
    const auto pick = [&](const engine::RunResult& r) {
      const auto& in = find(r, gap.id);
      const auto it = std::find_if(in.greeks.begin(), in.greeks.end(), [&](const auto& g) {
        return config::to_string(g.greek) == std::string(gap.greek) &&
               g.underlying == gap.underlying;
      });
      EXPECT_NE(it, in.greeks.end()) << gap.id << " " << gap.greek;
      return *it;
    };
    const auto x = pick(p);
    const auto y = pick(b);
    EXPECT_TRUE(x.pathwise);
    EXPECT_FALSE(y.pathwise);
    const double spread = std::sqrt(x.std_error * x.std_error + y.std_error * y.std_error +
                                    gap.std_error * gap.std_error);
    EXPECT_NEAR(x.value - y.value, gap.gap, kSigmas * spread)
        << gap.id << " " << gap.greek << "[" << gap.underlying << "]: pathwise " << x.value << " ± "
        << x.std_error << ", bumps " << y.value << " ± " << y.std_error << ", the reference's gap "
        << gap.gap << " ± " << gap.std_error;
  }
}

/// The mean of a pathwise Greek of a digital whose jump's delta function is a uniform kernel of
/// half-width w around the strike (engine/plan/pathwise.cpp): the Greek averaged over strikes in
/// [K - w, K + w] (Simpson, n intervals), but for the discount's own term, which stays at K.
/// Gamma is the central difference at ±1% of the spot of that averaged delta. From the closed
/// form alone, on bs_yaml's market (S = 100, r = 4%, q = 1%) at vol `v` and maturity `T`.
analytic::Greeks smoothed_digital_greeks(OptionKind kind, double strike, double w, double v,
                                         double T, int n = 200) {
  const double S = 100, r = 0.04, q = 0.01, cash = 10;
  const auto average = [&](auto&& f) {
    double sum = 0;
    for (int i = 0; i <= n; ++i) {
      const double k = strike - w + 2 * w * i / n;
      sum += (i == 0 || i == n ? 1 : i % 2 ? 4 : 2) * f(k);
    }
    return sum * (2 * w / n) / 3 / (2 * w);
  };
  const auto greeks_at = [&](double spot, double k) {
    return analytic::cash_or_nothing_greeks(kind, spot, k, T, r, q, v, cash);
  };
  const auto price_at = [&](double k) {
    return analytic::cash_or_nothing(kind, S, k, T, r, q, v, cash);
  };
  const double price_shift = average(price_at) - price_at(strike);
  analytic::Greeks g{};
  g.delta = average([&](double k) { return greeks_at(S, k).delta; });
  g.vega = average([&](double k) { return greeks_at(S, k).vega; });
  // rho: d/dr of the payoff's mean (averaged) and of the discount (at K): rho + T·price.
  g.rho = average([&](double k) { return greeks_at(S, k).rho; }) + T * price_shift;
  // theta: likewise, the discount's part of dV/dt being r·price.
  g.theta = average([&](double k) { return greeks_at(S, k).theta; }) - r * price_shift;
  g.gamma = (average([&](double k) { return greeks_at(S * 1.01, k).delta; }) -
             average([&](double k) { return greeks_at(S * 0.99, k).delta; })) /
            (2 * 0.01 * S);
  return g;
}

TEST(PathwiseGreeks, DigitalsMatchTheirClosedFormSmoothedOverOnePercentOfTheStrike) {
  // The estimator's mean is the closed form's Greek averaged over the kernel (above): each
  // Greek must meet it within kSigmas standard errors plus Simpson's own error (|S(n) - S(n/2)|,
  // 15 times Richardson's estimate of it). Its distance from the Greek at the strike is the
  // smoothing's bias (printed). At 25% vol over a year that bias is far below the standard
  // error; the third digital, at 5% vol over half a year 1% from the spot, has its density
  // within a few kernel widths, where the bias is several percent of each Greek and a kernel of
  // another width moves every Greek by many standard errors.
  const std::string yaml =
      "market:\n  underlyings: [{name: S, spot: 100, dividend_yield: 0.01}]\n"
      "  rates: {zero_rate: 0.04}\n"
      "models: [{name: bs, type: black_scholes, underlying: S, volatility: 0.25},\n"
      "         {name: calm, type: black_scholes, underlying: S, volatility: 0.05}]\n"
      "instruments:\n"
      "  - {id: dc, type: digital, option: call, strike: 105, cash: 10, maturity: 1, model: bs}\n"
      "  - {id: dp, type: digital, option: put, strike: 95, cash: 10, maturity: 1, model: bs}\n"
      "  - {id: near, type: digital, option: call, strike: 101, cash: 10, maturity: 0.5, "
      "model: calm}\n"
      "simulation: {paths: 400000, steps_per_year: 12, seed: 9" +
      kAllGreeks + "}\nengine: {device: cpu}\n";
  const auto r = engine::price(load(yaml));
  for (const auto& [id, kind, strike, vol, T] :
       {std::tuple{"dc", OptionKind::call, 105.0, 0.25, 1.0},
        std::tuple{"dp", OptionKind::put, 95.0, 0.25, 1.0},
        std::tuple{"near", OptionKind::call, 101.0, 0.05, 0.5}}) {
    const auto exact = analytic::cash_or_nothing_greeks(kind, 100, strike, T, 0.04, 0.01, vol, 10);
    const auto smoothed = smoothed_digital_greeks(kind, strike, 0.01 * strike, vol, T);
    const auto coarse = smoothed_digital_greeks(kind, strike, 0.01 * strike, vol, T, 100);
    const double want[5] = {exact.delta, exact.gamma, exact.vega, exact.rho, exact.theta};
    const double mean[5] = {smoothed.delta, smoothed.gamma, smoothed.vega, smoothed.rho,
                            smoothed.theta};
    const double simpson[5] = {
        std::fabs(smoothed.delta - coarse.delta), std::fabs(smoothed.gamma - coarse.gamma),
        std::fabs(smoothed.vega - coarse.vega), std::fabs(smoothed.rho - coarse.rho),
        std::fabs(smoothed.theta - coarse.theta)};
    const auto& got = find(r, id);
    ASSERT_EQ(got.greeks.size(), 5u);
    for (int k = 0; k < 5; ++k) {
      const auto& e = got.greeks[static_cast<std::size_t>(k)];
      EXPECT_TRUE(e.pathwise) << id;
      EXPECT_NEAR(e.value, mean[k], kSigmas * e.std_error + simpson[k])
          << id << " " << config::to_string(e.greek) << " (the Greek at the strike " << want[k]
          << ")";
      std::printf("  %s %-5s pathwise %.5f ± %.5f  smoothed closed form %.5f  (its bias %.5f)\n",
                  id, config::to_string(e.greek), e.value, e.std_error, mean[k], mean[k] - want[k]);
    }
  }
}

/// Margrabe's exchange option max(S_A - S_B, 0) (no dividends: the rate cancels): the delta by
/// S_B, -N(d2), d2 = (ln(S_A / S_B) - s²T/2) / (s √T), s² = σ_A² + σ_B² - 2ρσ_Aσ_B. From the
/// closed form alone.
double margrabe_delta_b(double sa, double sb, double sigma, double t) {
  const double d2 = (std::log(sa / sb) - 0.5 * sigma * sigma * t) / (sigma * std::sqrt(t));
  return -0.5 * std::erfc(-d2 / std::sqrt(2.0));
}

TEST(PathwiseGreeks, CrossGammaOfAnExchangeOptionMatchesMargrabe) {
  // A spread S_A - S_B struck at 1e-6 (a strike must be positive: its effect on the Greeks is
  // below 1e-8 of them) on model ab (spots 100, vols 0.3, correlation 0.9, r 5%): Margrabe's
  // exchange option. The cross-gamma's estimator is the central difference of the pathwise delta
  // by B under ±1% of A (engine/plan/pathwise.cpp): its mean is that difference of Margrabe's
  // delta by B, which the estimate must meet within kSigmas standard errors.
  const std::string spread =
      "  - {id: x, type: basket, payoff: weighted, weights: [1, -1], option: call, "
      "strike: 0.000001, maturity: 1, model: ab}\n";
  const auto r = engine::price(
      load(basket_yaml(spread, 400000, ", greeks: [delta, cross_gamma], greeks_method: pathwise")));
  const auto& x = find(r, "x");
  ASSERT_EQ(x.greeks.size(), 3u); // delta[A], delta[B], cross_gamma[A,B]
  const auto& cross = x.greeks[2];
  EXPECT_EQ(cross.greek, config::Greek::cross_gamma);
  EXPECT_EQ(cross.underlying, "A,B");
  EXPECT_TRUE(cross.pathwise);
  const double sigma = std::sqrt(0.09 + 0.09 - 2 * 0.9 * 0.09), m = 1.0; // 1% of A's 100
  const double expected =
      (margrabe_delta_b(100 + m, 100, sigma, 1) - margrabe_delta_b(100 - m, 100, sigma, 1)) /
      (2 * m);
  EXPECT_NEAR(cross.value, expected, kSigmas * cross.std_error + 1e-9)
      << "cross_gamma " << cross.value << " ± " << cross.std_error << " against " << expected;
  std::printf("  exchange option cross_gamma[A,B] %.6f ± %.6f, Margrabe's difference %.6f\n",
              cross.value, cross.std_error, expected);
  EXPECT_LT(cross.std_error, 0.05 * std::fabs(expected)); // an estimate, not noise
  // Delta by B itself: -N(d2).
  EXPECT_NEAR(x.greeks[1].value, margrabe_delta_b(100, 100, sigma, 1),
              kSigmas * x.greeks[1].std_error + 1e-9);
}

TEST(PathwiseGreeks, GammasAndCrossGammasAreTheDeltasOfPathsWithTheSpotMoved) {
  // Three assets: a weighted call, a knocked weighted call and a max call, a gamma per asset and
  // a cross-gamma for each pair, in the model's order. Those by A are pathwise deltas on the paths
  // with A's spot moved ±1% (the knock's extreme and the max's level read on the paths moved,
  // engine/plan/instruments.cpp). The same seed priced with A's spot moved ±1% in the config gives
  // those paths' deltas (the path from a moved spot is the path moved): their central difference
  // must be the gamma up to rounding (a path's last bits: a thousandth of a standard error). The
  // bumps' gamma cannot check the knock's part (its standard error is 8x the pathwise one's);
  // this does: the knock's extreme moved along its tangent instead (exact but where the moved
  // path's lowest date changes) measured 0.01 standard errors off.
  const std::string instruments =
      "  - {id: w, type: basket, payoff: weighted, weights: [0.3, 0.3, 0.4], option: call, "
      "strike: 95, maturity: 1, model: abc}\n"
      "  - {id: kw, type: basket, payoff: weighted, weights: [0.3, 0.3, 0.4], option: call, "
      "strike: 95, maturity: 1, model: abc, knock: {type: down_and_out, level: 85, "
      "monitoring: 12}}\n"
      "  - {id: mx, type: basket, payoff: max, option: call, strike: 100, maturity: 1, "
      "model: abc}\n";
  const std::string method = ", greeks_method: pathwise";
  const auto r = engine::price(
      load(basket_yaml(instruments, 50000, ", greeks: [delta, gamma, cross_gamma]" + method)));
  // A's spot 100 → 101 and 99 in the market (A is the first underlying of basket_yaml).
  const auto moved = [&](const char* spot) {
    std::string yaml = basket_yaml(instruments, 50000, ", greeks: [delta]" + method);
    yaml.replace(yaml.find("{name: A, spot: 100}"), 20,
                 std::string("{name: A, spot: ") + spot + "}");
    return engine::price(load(yaml));
  };
  const auto up = moved("101");
  const auto down = moved("99");
  const char* pairs[] = {"A,B", "A,C", "B,C"};
  for (const char* id : {"w", "kw", "mx"}) {
    const auto& in = find(r, id);
    ASSERT_EQ(in.greeks.size(), 9u); // delta and gamma per underlying, 3 cross-gammas
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(in.greeks[static_cast<std::size_t>(6 + k)].greek, config::Greek::cross_gamma);
      EXPECT_EQ(in.greeks[static_cast<std::size_t>(6 + k)].underlying, pairs[k]);
    }
    // gamma[A] (greek 3) and cross_gamma[A,B], [A,C] (greeks 6, 7): deltas by A, B, C moved.
    const std::pair<int, int> checks[] = {{3, 0}, {6, 1}, {7, 2}};
    for (const auto& [greek, delta] : checks) {
      const auto& g = in.greeks[static_cast<std::size_t>(greek)];
      const double difference = (find(up, id).greeks[static_cast<std::size_t>(delta)].value -
                                 find(down, id).greeks[static_cast<std::size_t>(delta)].value) /
                                (2 * 1.0);
      EXPECT_NEAR(g.value, difference, 1e-3 * g.std_error + 1e-9 * std::fabs(difference))
          << id << " " << config::to_string(g.greek) << "[" << g.underlying << "]";
      std::printf("  %s %-11s[%s] %.9f ± %.6f, the moved paths' deltas' difference %.9f\n", id,
                  config::to_string(g.greek), g.underlying.c_str(), g.value, g.std_error,
                  difference);
    }
  }
}

TEST(PathwiseGreeks, EachBasketsGreeksInABookAreItsGreeksPricedAlone) {
  // A model's baskets share observations where their levels are the same (legs, weights, kind,
  // moved leg and scale: engine/plan/plan_detail.hpp's BasketLevel), and a gamma adds each
  // basket's moved copies: two knocked baskets of other weights on the same dates, a terminal
  // level of the first's weights and a max must each give, in one book, the bits they give alone
  // (the same draws: one model, one seed). One level read for another shows here (planted: the
  // key without the weights, kv's knock then read kw's level).
  const std::vector<std::pair<std::string, std::string>> baskets = {
      {"w", "  - {id: w, type: basket, payoff: weighted, weights: [0.3, 0.3, 0.4], option: call, "
            "strike: 95, maturity: 1, model: abc}\n"},
      {"kw", "  - {id: kw, type: basket, payoff: weighted, weights: [0.3, 0.3, 0.4], option: "
             "call, strike: 95, maturity: 1, model: abc, knock: {type: down_and_out, level: 85, "
             "monitoring: 12}}\n"},
      {"kv", "  - {id: kv, type: basket, payoff: weighted, weights: [0.5, 0.2, 0.3], option: "
             "put, strike: 100, maturity: 1, model: abc, knock: {type: down_and_out, level: 80, "
             "monitoring: 12}}\n"},
      {"mx", "  - {id: mx, type: basket, payoff: max, option: call, strike: 100, maturity: 1, "
             "model: abc}\n"}};
  const std::string greeks = ", greeks: [delta, gamma, vega, rho, theta, cross_gamma], "
                             "greeks_method: pathwise";
  // Monthly steps for all (the knocks' dates): a grid of each one's own dates would draw anew.
  const auto yaml = [&](const std::string& instruments) {
    std::string text = basket_yaml(instruments, 4000, greeks);
    text.replace(text.find("steps_per_year: 4"), 17, "steps_per_year: 12");
    return text;
  };
  std::string book;
  for (const auto& b : baskets)
    book += b.second;
  const auto together = engine::price(load(yaml(book)));
  for (const auto& [id, instrument] : baskets) {
    const auto alone = engine::price(load(yaml(instrument)));
    const auto& a = find(alone, id);
    const auto& t = find(together, id);
    EXPECT_EQ(t.price, a.price) << id;
    ASSERT_EQ(t.greeks.size(), a.greeks.size()) << id;
    for (std::size_t g = 0; g < a.greeks.size(); ++g) {
      EXPECT_EQ(t.greeks[g].value, a.greeks[g].value)
          << id << " " << config::to_string(a.greeks[g].greek) << "[" << a.greeks[g].underlying
          << "]";
      EXPECT_EQ(t.greeks[g].std_error, a.greeks[g].std_error) << id;
    }
  }
}

TEST(PathwiseGreeks, TheShippedBasketsMatchTheIndependentReferences) {
  // config/examples/basket.yaml (the reference case "shipped_basket": a weighted 4-asset call,
  // the same knocked weekly at 80, a two-asset max and min call), all five Greeks pathwise on
  // the case's 40,000 paths, against the independent reference's mean of the same estimator
  // (tests/pathwise_references.hpp, kShippedBasket: 640,000 numpy paths of its own; the knock's
  // jump smoothed as the estimator smooths it). The knocked basket's gammas read its knock on
  // the paths with each spot moved (models::Path::take_moved), which no closed form checks.
  const auto r = priced_reference_yaml(pathwise::kShippedBasketYaml);
  expect_pathwise_references(r, pathwise::kShippedBasketYaml, pathwise::kShippedBasket,
                             "shipped_basket");
  EXPECT_EQ(std::size(pathwise::kShippedBasket), 2u * 14 + 2 * 8); // delta, gamma, vega per
                                                                   // underlying; rho; theta
}

TEST(PathwiseGreeks, CrossGammasAreRefusedWhereBumpsWouldTakeThemOrTooManyAreAsked) {
  const std::string w = "  - {id: w, type: basket, payoff: weighted, weights: [0.5, 0.5], "
                        "option: call, strike: 95, maturity: 1, model: ab}\n";
  // Bumps have no cross-gamma: refused for a basket, with the line, the key and the way out.
  const std::string bumped =
      config_error_of(basket_yaml(w, 1000, ", greeks: [cross_gamma], greeks_method: bump"));
  const std::size_t at = bumped.find("test.yaml:");
  EXPECT_TRUE(at != std::string::npos && std::isdigit(bumped[at + 10])) << bumped; // its line
  EXPECT_NE(bumped.find("simulation.greeks"), std::string::npos) << bumped;
  EXPECT_NE(bumped.find("cross_gamma is taken pathwise only"), std::string::npos) << bumped;
  // A basket that exercises early takes bumps under auto (its rule is a boundary): refused
  // likewise.
  EXPECT_THROW(engine::price(load(
                   basket_yaml("  - {id: mx, type: basket, payoff: max, option: call, strike: 100, "
                               "maturity: 1, model: ab, exercise: american}\n",
                               1000, ", greeks: [cross_gamma]"))),
               config::ConfigError);
  // One underlying: no pair, no cross-gamma (and no error).
  const auto single =
      engine::price(load(bs_yaml(kEuropeans, 1000, ", greeks: [delta, cross_gamma]")));
  for (const auto& in : single.instruments) {
    ASSERT_EQ(in.greeks.size(), 1u) << in.id;
    EXPECT_EQ(in.greeks[0].greek, config::Greek::delta);
  }
  // Four underlyings with every Greek: 14 and 6 cross-gammas, over the 14 a group holds.
  const std::string four =
      "market:\n  underlyings: [{name: A, spot: 100}, {name: B, spot: 100}, {name: C, spot: 100}, "
      "{name: D, spot: 100}]\n  rates: {zero_rate: 0.05}\nmodels:\n"
      "  - {name: m4, type: multi_black_scholes, underlyings: [A, B, C, D], "
      "volatilities: [0.2, 0.2, 0.2, 0.2], correlation: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], "
      "[0, 0, 0, 1]]}\ninstruments:\n"
      "  - {id: b4, type: basket, payoff: weighted, option: call, strike: 100, maturity: 1, "
      "model: m4}\nsimulation: {paths: 1000, steps_per_year: 4, seed: 5, greeks: [delta, gamma, "
      "vega, rho, theta, cross_gamma]}\nengine: {device: cpu}\n";
  const std::string too_many = config_error_of(four);
  EXPECT_NE(too_many.find("at most 14"), std::string::npos) << too_many;
  // Without gamma they fit: 4 deltas, 4 vegas, rho, theta... and the 6 pairs.
  const auto fits = engine::price(load(
      std::string(four).replace(four.find("delta, gamma, vega, rho, theta, "), 32, "delta, ")));
  EXPECT_EQ(find(fits, "b4").greeks.size(), 10u); // 4 deltas and 6 cross-gammas
}

TEST(PathwiseGreeks, TooManyMovedBasketLevelsAreRefusedSayingWhy) {
  // Knocked 3-asset baskets of different monitoring schedules with gamma: each knock is observed
  // on its own and on the paths with each of 3 spots moved up and down (7 schedules each), their
  // level at maturity shared: nine make 64 (the most a model has), ten 71, refused saying why.
  const auto knocked = [](int count) {
    std::string instruments;
    for (int i = 0; i < count; ++i) {
      instruments += "  - {id: k" + std::to_string(i) +
                     ", type: basket, payoff: weighted, weights: [0.3, 0.3, 0.4], option: call, "
                     "strike: 95, maturity: 1, model: abc, knock: {type: down_and_out, level: "
                     "80, monitoring: " +
                     std::to_string(10 + i) + "}}\n";
    }
    return basket_yaml(instruments, 1000, ", greeks: [delta, gamma], greeks_method: pathwise");
  };
  EXPECT_EQ(config_error_of(knocked(9)), "no error");
  const std::string what = config_error_of(knocked(10));
  EXPECT_NE(what.find("at most 64"), std::string::npos) << what;
  EXPECT_NE(what.find("gammas of max, min and knocked baskets"), std::string::npos) << what;
  EXPECT_NE(what.find("ask for no gamma"), std::string::npos) << what;
}

TEST(PathwiseGreeks, GroupsThatCannotHaveThemKeepTheBumpsOrAreRefused) {
  // A basket that exercises early asked for gamma (a pathwise delta's difference across its
  // exercise boundary): auto keeps the bumps for its group, pathwise is refused naming the
  // instrument and why.
  const std::string mx =
      "  - {id: mx, type: basket, payoff: max, option: call, strike: 100, maturity: 1, "
      "model: ab, exercise: bermudan, exercise_dates: 4}\n";
  const auto r = engine::price(load(basket_yaml(mx, 2000, ", greeks: [delta, gamma]")));
  for (const auto& g : find(r, "mx").greeks)
    EXPECT_FALSE(g.pathwise);
  const std::string what =
      config_error_of(basket_yaml(mx, 2000, ", greeks: [delta, gamma], greeks_method: pathwise"));
  EXPECT_NE(what.find("'mx'"), std::string::npos) << what;
  EXPECT_NE(what.find("exercises early"), std::string::npos) << what;
  EXPECT_NE(what.find("greeks_method"), std::string::npos) << what;
  // Without gamma, early exercise takes its first-order Greeks pathwise (the rule held fixed;
  // test_exercise.cpp checks them), under auto too; with gamma, pathwise is refused.
  const std::string am = "  - {id: am, type: european, option: put, strike: 100, maturity: 1, "
                         "model: bs, exercise: american}\n";
  for (const char* method : {"auto", "pathwise"}) {
    const auto first_order = engine::price(
        load(bs_yaml(am, 2000, std::string(", greeks: [delta, vega], greeks_method: ") + method)));
    for (const auto& g : find(first_order, "am").greeks)
      EXPECT_TRUE(g.pathwise) << method;
  }
  EXPECT_THROW(engine::price(load(bs_yaml(am, 2000,
                                          ", greeks: [delta, gamma], greeks_method: "
                                          "pathwise"))),
               config::ConfigError);
  // bump: every Greek bumped, the European's delta too (before this option: pathwise).
  const auto bumped = engine::price(
      load(bs_yaml(kEuropeans, 2000, ", greeks: [delta, vega], greeks_method: bump")));
  for (const auto& in : bumped.instruments) {
    for (const auto& g : in.greeks)
      EXPECT_FALSE(g.pathwise && g.greek == config::Greek::vega) << in.id;
  }
}

TEST(PathwiseGreeks, SpotKnocksMatchTheIndependentReference) {
  // Down-and-out and up-and-in calls monitored monthly and a knocked Asian at 25% vol, and two
  // knocks 2% from the spot at 5% vol (tests/pathwise_references.hpp, kSpotKnocks): the knock's
  // jump a kernel of ±0.01 of log-spot. At 25% vol its bias is far below the standard errors;
  // at 5% the extremes' density varies within a few kernel widths, so a kernel of another width
  // moves every Greek of those two by many standard errors (the reference measured: a kernel
  // of twice the width moves the near down-and-out's delta by 47 of its standard errors at
  // 400,000 paths, its theta by 32). Their gammas: SpotKnockGammasMatchTheIndependentReference.
  const auto r = priced_reference_yaml(pathwise::kSpotKnocksYaml);
  expect_pathwise_references(r, pathwise::kSpotKnocksYaml, pathwise::kSpotKnocks, "spot knocks");
}

// A knock on the spot's gamma is the difference of the pathwise deltas of the paths moved ±1%
// (models/payoff.cuh, moved_spot_greek), the moved log extreme's tangent 1 / (S0 ± m) included:
// first that identity on the same draws (exact: GammasAndCrossGammasAreTheDeltasOf-
// PathsWithTheSpotMoved checks it for baskets), then the independent reference (at these sizes
// its standard errors are about the size of the bug the identity caught: the moved paths kept the
// unmoved one's tangent 1 / S0, adding the knock's share of delta over S0, 10-15% of these
// gammas; kSpotKnocks' down-and-out gave 0.01260 against its moved deltas' difference 0.01146).
TEST(PathwiseGreeks, SpotKnockGammasMatchTheIndependentReference) {
  const auto knocks = priced_reference_yaml(pathwise::kSpotKnocksYaml);
  const auto moved = [](const char* spot) {
    std::string yaml = pathwise::kSpotKnocksYaml;
    yaml.replace(yaml.find("spot: 100.0"), 11, std::string("spot: ") + spot);
    yaml.replace(yaml.find("gamma, "), 7, "");
    return engine::price(load(yaml + "engine: {device: cpu}\n"));
  };
  const auto up = moved("101.0");
  const auto down = moved("99.0");
  for (const char* id : {"do", "ui", "ka", "do_near", "uo_near"}) {
    const auto& g = find(knocks, id).greeks[1]; // delta, gamma, vega, rho, theta
    ASSERT_EQ(g.greek, config::Greek::gamma);
    const double difference =
        (find(up, id).greeks[0].value - find(down, id).greeks[0].value) / (2 * 1.0);
    EXPECT_NEAR(g.value, difference, 1e-3 * g.std_error + 1e-9 * std::fabs(difference))
        << id << ": gamma " << g.value << " against its moved paths' deltas' difference";
  }
  expect_pathwise_references(knocks, pathwise::kSpotKnocksYaml, pathwise::kSpotKnocks,
                             "spot knocks' gammas", SpotKnockGammas::only);
  const auto qe = priced_reference_yaml(pathwise::kHestonQeYaml);
  expect_pathwise_references(qe, pathwise::kHestonQeYaml, pathwise::kHestonQe,
                             "heston_qe knocks' gammas", SpotKnockGammas::only);
  const auto lv = priced_reference_yaml(pathwise::kLocalVolYaml);
  expect_pathwise_references(lv, pathwise::kLocalVolYaml, pathwise::kLocalVol,
                             "local_vol knocks' gammas", SpotKnockGammas::only);
}

TEST(PathwiseGreeks, WithoutRhoAndThetaThePathsCarryTheSpotAndVolTangentsAloneToTheSameBits) {
  // A run that asks for no rho and no theta simulates the model of the spot's and the vol's
  // tangents only (models::PathwiseBlackScholes<Real, 1, kSpotAndVolInputs>): each of its
  // tangents is computed by the same operations as in the full model, so delta, gamma and vega
  // and their standard errors are the full run's bits, on Europeans, an Asian, a digital and
  // the knocks (their extremes' tangents), in double and float.
  const std::string book =
      kEuropeans +
      "  - {id: asian, type: asian, average: arithmetic, option: call, strike: 100, maturity: 1, "
      "fixings: 12, model: bs}\n"
      "  - {id: digital, type: digital, option: put, strike: 95, maturity: 1, model: bs}\n"
      "  - {id: do, type: barrier, option: call, strike: 100, barrier: 85, barrier_type: "
      "down_and_out, monitoring: 12, maturity: 1, model: bs}\n"
      "  - {id: ui, type: barrier, option: call, strike: 100, barrier: 120, barrier_type: "
      "up_and_in, monitoring: 12, maturity: 1, model: bs}\n";
  for (const std::string precision : {"double", "float"}) {
    const std::string common = ", greeks_method: pathwise, precision: " + precision;
    const auto narrow_config =
        load(bs_yaml(book, 20000, ", greeks: [delta, gamma, vega]" + common));
    const auto full_config = load(bs_yaml(book, 20000, kAllGreeks + common));
    EXPECT_EQ(engine::make_plan(narrow_config).groups.front().pathwise_moved_inputs,
              models::kSpotAndVolInputs);
    EXPECT_EQ(engine::make_plan(full_config).groups.front().pathwise_moved_inputs,
              models::kMovedInputs);
    // rho or theta alone asks for the full model.
    EXPECT_EQ(engine::make_plan(load(bs_yaml(book, 20000, ", greeks: [vega, theta]" + common)))
                  .groups.front()
                  .pathwise_moved_inputs,
              models::kMovedInputs);
    const auto narrow = engine::price(narrow_config);
    const auto full = engine::price(full_config);
    for (const char* id : {"call", "put", "asian", "digital", "do", "ui"}) {
      const auto& n = find(narrow, id);
      const auto& f = find(full, id);
      EXPECT_EQ(n.price, f.price) << id;
      ASSERT_EQ(n.greeks.size(), 3u) << id;
      for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(n.greeks[k].greek, f.greeks[k].greek) << id;
        EXPECT_EQ(n.greeks[k].value, f.greeks[k].value)
            << precision << " " << id << " " << config::to_string(n.greeks[k].greek);
        EXPECT_EQ(n.greeks[k].std_error, f.greeks[k].std_error) << id;
        EXPECT_NE(n.greeks[k].value, 0.0) << id;
      }
    }
  }
}

// ---- Heston ------------------------------------------------------------------------------------

/// The reference case's YAML on the CPU with `paths` and `extra` in its simulation mapping.
std::string cpu_case_yaml(const char* name, const std::string& extra, long paths) {
  return testing::reference_case_yaml_at(name, "{device: cpu}", extra, paths);
}

TEST(PathwiseGreeks, HestonEuropeansMatchQuantLibsAnalyticDerivatives) {
  // QE and full truncation at 52 steps a year, 200,000 paths, in double and in float: delta,
  // vega (sqrt(v0) and sqrt(theta) shifted together), rho and theta are the derivatives of the
  // simulated path (QE's switch of scheme aside: its cost is inside the scheme's allowance
  // here), gamma the pathwise delta's difference at ±1% (QuantLib's mean of that estimator).
  for (const char* name : {"heston_qe", "heston_full_truncation"}) {
    for (const char* precision : {"double", "float"}) {
      const auto r = engine::price(load(cpu_case_yaml(
          name, std::string(", greeks_method: pathwise, precision: ") + precision, 200000)));
      testing::expect_heston_greeks_match_quantlib(name, precision, r);
    }
  }
}

TEST(PathwiseGreeks, HestonMatchesTheIndependentReference) {
  // Every instrument of the reference cases heston_qe and heston_full_truncation (Europeans, a
  // digital, Asians, barriers, a knocked digital and Asian; 100,000 paths) against the
  // independent reference's mean of the same estimator (tests/pathwise_references.hpp: numpy's
  // QE and full truncation on its own draws; QE's switch of scheme, which pathwise tangents do
  // not see, never happened under its steps there). Full truncation: pathwise asked for (auto
  // would keep its vega's bumps).
  const auto qe = priced_reference_yaml(pathwise::kHestonQeYaml);
  expect_pathwise_references(qe, pathwise::kHestonQeYaml, pathwise::kHestonQe, "heston_qe");
  const auto ft = priced_reference_yaml(pathwise::kHestonFullTruncationYaml);
  expect_pathwise_references(ft, pathwise::kHestonFullTruncationYaml,
                             pathwise::kHestonFullTruncation, "heston_full_truncation");
}

// ---- local vol --------------------------------------------------------------------------------

TEST(PathwiseGreeks, LocalVolMatchesTheIndependentReference) {
  // The reference case's skewed surface (vol falling with moneyness and time), every instrument
  // at 100,000 paths, against the independent reference's mean of the same estimator on its own
  // Euler paths (tests/pathwise_references.hpp, kLocalVol).
  const auto r = priced_reference_yaml(pathwise::kLocalVolYaml);
  expect_pathwise_references(r, pathwise::kLocalVolYaml, pathwise::kLocalVol, "local_vol");
}

TEST(PathwiseGreeks, LocalVolOnAFlatSurfaceMatchesBlackScholes) {
  // A flat surface is Black-Scholes, whose Euler step is exact: every pathwise Greek (vega: the
  // surface's parallel shift) meets the closed form within kSigmas, gamma with the difference's
  // own distance (gamma_allowance), in double and in float. The moneyness the surface is read
  // at moves with the spot and the rates; flat, it must not move the vol.
  const std::string yaml =
      "market:\n  underlyings: [{name: S, spot: 100, dividend_yield: 0.01}]\n"
      "  rates: {zero_rate: 0.04}\n"
      "models: [{name: bs, type: local_vol, underlying: S, surface: {times: [0.5, 2], "
      "log_moneyness: [-0.5, 0.5], vols: [[0.25, 0.25], [0.25, 0.25]]}}]\n"
      "instruments:\n" +
      kEuropeans + "simulation: {paths: 200000, steps_per_year: 12, seed: 5" + kAllGreeks +
      ", greeks_method: pathwise, precision: ";
  for (const char* precision : {"double", "float"}) {
    const auto r = engine::price(load(yaml + precision + "}\nengine: {device: cpu}\n"));
    expect_europeans_match_black_scholes(r, std::string("local vol ") + precision);
  }
}

TEST(PathwiseGreeks, TheShippedPortfolioTakesAllFiveGreeks) {
  // config/examples/portfolio.yaml: with the bumps' eight scenarios its 96 observation schedules
  // were refused (64 per model); pathwise it simulates one scenario.
  std::ifstream file(PFMC_SOURCE_DIR "/config/examples/portfolio.yaml");
  std::string yaml((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const auto at = yaml.find("simulation:");
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at, yaml.find('\n', at) - at,
               "simulation: {paths: 2000, steps_per_year: 52, seed: 1, "
               "greeks: [delta, gamma, vega, rho, theta]}");
  const auto engine_at = yaml.find("engine:");
  ASSERT_NE(engine_at, std::string::npos);
  yaml.replace(engine_at, yaml.find('\n', engine_at) - engine_at, "engine: {device: cpu}");
  const auto r = engine::price(load(yaml));
  ASSERT_FALSE(r.instruments.empty());
  for (const auto& in : r.instruments) {
    ASSERT_EQ(in.greeks.size(), 5u) << in.id;
    for (const auto& g : in.greeks)
      EXPECT_TRUE(g.pathwise && std::isfinite(g.value)) << in.id;
  }
}

} // namespace
} // namespace pfmc
