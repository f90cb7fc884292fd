// Risk runs on the CPU (engine/risk/risk_run.hpp): scenario values against separate prices of
// the shifted markets on the same draws, ladders against closed forms, VaR and ES by their
// definition, and moves that leave no market refused.

#include <gtest/gtest.h>

#include <string>

#include "config/config_error.hpp"
#include "risk_check.hpp"

namespace pfmc {
namespace {

TEST(Risk, ScenarioValuesEqualSeparatePricesOfTheShiftedMarketOnEveryModel) {
  testing::expect_scenarios_equal_separate_prices("{device: cpu}", 4000);
}

TEST(Risk, LaddersOfEuropeansAndDigitalsMatchClosedForms) {
  testing::expect_ladders_match_closed_forms("{device: cpu}", 200000);
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
