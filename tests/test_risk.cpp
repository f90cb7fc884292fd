// Risk runs on the CPU (engine/risk/risk_run.hpp): scenario values against separate prices of
// the shifted markets on the same draws, ladders against closed forms, VaR and ES by their
// definition, and moves that leave no market refused.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "config/config_error.hpp"
#include "risk_check.hpp"
#include "risk_var_references.hpp"

namespace pfmc {
namespace {

TEST(Risk, ScenarioValuesEqualSeparatePricesOfTheShiftedMarketOnEveryModel) {
  testing::expect_scenarios_equal_separate_prices("{device: cpu}", 4000);
}

TEST(Risk, LaddersOfEuropeansAndDigitalsMatchClosedForms) {
  testing::expect_ladders_match_closed_forms("{device: cpu}", 200000);
}

TEST(Risk, SmallSpotMovesFollowTheGreeksTaylorLine) {
  // P&L(h) against delta dS + gamma dS^2 / 2 (dS = h S) from a Greeks run of the same book: within
  // 4 of their combined standard errors (in quadrature: the two runs' errors are positively
  // correlated, so this overstates the difference's) plus twice the third-order term the line
  // leaves out (speed dS^3 / 6, speed by differences of the closed-form gamma).
  const std::string yaml =
      "market: {underlyings: [{name: SPX, spot: 100.0}], rates: {zero_rate: 0.02}}\n"
      "models: [{name: bs, type: black_scholes, underlying: SPX, volatility: 0.25}]\n"
      "instruments:\n"
      "  - {id: call, type: european, option: call, strike: 105, maturity: 0.5, model: bs}\n"
      "simulation: {paths: 400000, steps_per_year: 0, seed: 3, greeks: [delta, gamma]}\n"
      "engine: {device: cpu}\n";
  config::RunConfig config = config::parse_run_config(yaml, "taylor.yaml");
  const engine::RunResult greeks = engine::price(config);
  const auto& g = greeks.instruments[0].greeks;
  ASSERT_EQ(g.size(), 2u);
  config.risk.present = true;
  config.risk.ladders = {testing::risk_ladder("spot", config::ShiftKind::spot,
                                              config::ShiftMode::relative,
                                              {-0.02, -0.01, -0.005, 0.005, 0.01, 0.02})};
  const engine::risk::RiskResult risk = engine::risk::run_risk(config);
  const auto gamma = [](double s) {
    return analytic::black_scholes_greeks(analytic::OptionKind::call, s, 105, 0.5, 0.02, 0.0, 0.25)
        .gamma;
  };
  const double speed = (gamma(100.01) - gamma(99.99)) / 0.02;
  for (const auto& s : risk.scenarios) {
    const double ds = 100.0 * s.coordinates[0];
    const double line = g[0].value * ds + 0.5 * g[1].value * ds * ds;
    const double error = std::sqrt(s.pnl_std_error[0] * s.pnl_std_error[0] +
                                   ds * ds * g[0].std_error * g[0].std_error +
                                   0.25 * ds * ds * ds * ds * g[1].std_error * g[1].std_error);
    EXPECT_NEAR(s.pnl[0], line, 4 * error + 2 * std::abs(speed * ds * ds * ds) / 6) << s.name;
  }
}

TEST(Risk, TailMeasuresAreTheKthLossAndTheMeanBeyond) {
  // 10 P&Ls: losses 9, 7, 5, 3, 1, -1, ... ; 0.8 -> k = 2: VaR 7, ES 8; 0.95 -> k = 1: 9, 9.
  const std::vector<double> pnl{-1, -9, 3, -5, 7, -3, 5, -7, 1, 9};
  const auto tail = engine::risk::tail_measures(pnl, {0.8, 0.95, 0.5});
  ASSERT_EQ(tail.size(), 3u);
  EXPECT_EQ(tail[0].tail_scenarios, 2);
  EXPECT_DOUBLE_EQ(tail[0].var, 7.0);
  EXPECT_DOUBLE_EQ(tail[0].expected_shortfall, 8.0);
  EXPECT_DOUBLE_EQ(tail[1].var, 9.0);
  EXPECT_DOUBLE_EQ(tail[1].expected_shortfall, 9.0);
  EXPECT_EQ(tail[2].tail_scenarios, 5);
  EXPECT_DOUBLE_EQ(tail[2].var, 1.0);
  EXPECT_DOUBLE_EQ(tail[2].expected_shortfall, 5.0);
}

TEST(Risk, HistoricalWindowsSumTheirDaysMoves) {
  config::RunConfig config =
      config::parse_run_config(testing::risk_book_yaml("{device: cpu}", 100), "book.yaml");
  config.risk.present = true;
  config.risk.has_historical = true;
  auto& h = config.risk.historical;
  h.horizon = 2;
  h.dates = {"2026-01-05", "2026-01-06", "2026-01-07"};
  const double spot[3] = {0.01, -0.02, 0.005};
  for (int d = 0; d < 3; ++d)
    h.days.push_back({h.dates[static_cast<std::size_t>(d)],
                      {{config::ShiftKind::spot, config::ShiftMode::log, {0}, spot[d]},
                       {config::ShiftKind::rate, config::ShiftMode::absolute, {}, 0.0001 * d}},
                      "moves.csv:" + std::to_string(d + 2)});
  const auto windows = engine::risk::expand_scenarios(config);
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(windows[0].shift.name, "2026-01-06");
  EXPECT_DOUBLE_EQ(windows[0].shift.moves[0].amount, 0.01 - 0.02);
  EXPECT_DOUBLE_EQ(windows[1].shift.moves[0].amount, -0.02 + 0.005);
  EXPECT_DOUBLE_EQ(windows[1].shift.moves[1].amount, 0.0001 + 0.0002);
}

/// The book of tests/references/risk_var_reference.py in YAML, its historical moves those of
/// config/examples/risk_history.csv over `horizon` days.
std::string var_book_yaml(int horizon) {
  namespace ref = testing::risk_var;
  std::string yaml = "market:\n  underlyings:\n";
  for (const auto& m : ref::kMarket)
    yaml += "    - {name: " + std::string(m.name) + ", spot: " + std::to_string(m.spot) +
            ", dividend_yield: " + std::to_string(m.dividend) + "}\n";
  yaml += "  rates: {zero_rate: " + std::to_string(ref::kRate) + "}\nmodels:\n";
  for (const auto& m : ref::kMarket)
    yaml += "  - {name: " + std::string(m.name) +
            ", type: black_scholes, underlying: " + std::string(m.name) +
            ", volatility: " + std::to_string(m.vol) + "}\n";
  yaml += "instruments:\n";
  for (const auto& o : ref::kBook)
    yaml += "  - {id: " + std::string(o.id) +
            ", type: european, option: " + (o.call ? "call" : "put") +
            ", strike: " + std::to_string(o.strike) + ", maturity: " + std::to_string(o.maturity) +
            ", model: " + o.underlying + "}\n";
  yaml += "portfolio:\n";
  for (const auto& o : ref::kBook)
    yaml += "  - {instrument: " + std::string(o.id) + ", quantity: " + std::to_string(o.quantity) +
            "}\n";
  yaml += "simulation: {paths: 250000, steps_per_year: 0, seed: 5}\nengine: {device: cpu}\n"
          "risk:\n  historical: {csv: risk_history.csv, levels: [0.99, 0.975], horizon: " +
          std::to_string(horizon) + "}\n";
  return yaml;
}

TEST(Risk, HistoricalVarAndEsMatchAFullRevaluationInClosedForm) {
  // Each window's P&L is off by its Monte Carlo error e_s; the k-th largest loss and the mean of
  // the k largest move by at most max |e_s|, which is within 5 of the largest standard-error
  // bound but for a chance of 250 x 5.7e-7 (5 sigma two-sided, a union over the windows).
  for (const int horizon : {1, 10}) {
    const config::RunConfig config = config::parse_run_config(
        var_book_yaml(horizon), std::string(PFMC_SOURCE_DIR) + "/config/examples/var.yaml");
    const engine::risk::RiskResult risk = engine::risk::run_risk(config);
    double largest_error = 0.0;
    for (const auto& s : risk.scenarios)
      largest_error = std::max(largest_error, s.portfolio_pnl_std_error_bound);
    ASSERT_EQ(risk.scenarios.size(), 251u - static_cast<std::size_t>(horizon));
    ASSERT_EQ(risk.tail.size(), 2u);
    EXPECT_NEAR(risk.base.portfolio.value, testing::risk_var::kBaseValue,
                4 * risk.base.portfolio.std_error);
    std::size_t checked = 0;
    for (const auto& m : testing::risk_var::kMeasures) {
      if (m.horizon != horizon)
        continue;
      const auto& t = risk.tail[checked++];
      EXPECT_EQ(t.level, m.level);
      EXPECT_NEAR(t.var, m.var, 5 * largest_error) << horizon << "-day " << m.level;
      EXPECT_NEAR(t.expected_shortfall, m.expected_shortfall, 5 * largest_error)
          << horizon << "-day " << m.level;
    }
    EXPECT_EQ(checked, 2u);
    // The allowance is narrow: CRN make every window's error small beside the VaR.
    EXPECT_LT(5 * largest_error, 0.05 * risk.tail[0].var);
  }
}

TEST(Risk, AMoveThatLeavesNoSpotOrVolIsRefusedByName) {
  config::RunConfig config =
      config::parse_run_config(testing::risk_book_yaml("{device: cpu}", 100), "book.yaml");
  config.risk.present = true;
  config.risk.scenarios = {{"crash",
                            {{config::ShiftKind::vol, config::ShiftMode::absolute, {2}, -0.5}},
                            "stress.csv:4"}};
  try {
    (void)engine::risk::run_risk(config);
    FAIL() << "no error";
  } catch (const config::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("scenario 'crash' (stress.csv:4): moves a vol of model 'lv'"),
              std::string::npos)
        << what;
  }
}

} // namespace
} // namespace pfmc
