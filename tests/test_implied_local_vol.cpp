// `type: local_vol` with `surface: implied` (engine/market/dupire.hpp) on the CPU: the shipped
// smile's quotes repriced (tests/implied_local_vol_check.hpp), and bad input refused.

#include <gtest/gtest.h>

#include <string>

#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "engine/pricer.hpp"
#include "implied_local_vol_check.hpp"

namespace pfmc {
namespace {

TEST(ImpliedLocalVol, RepricesTheQuotesWithinThreeStandardErrorsAndFiveBasisPoints) {
  const config::RunConfig config = config::parse_run_config(
      testing::smile_repricing_config(200000, 365, "{device: cpu}"), "repricing.yaml");
  const engine::RunResult result = engine::price(config);
  ASSERT_EQ(result.instruments.size(), 70u);
  EXPECT_EQ(testing::expect_smile_repriced(config, result), 70);
  // The run says what it built.
  bool noticed = false;
  for (const auto& notice : result.run.notices)
    noticed =
        noticed || notice.find("Dupire grid 26 times x 32 log-moneyness") != std::string::npos;
  EXPECT_TRUE(noticed);
}

TEST(ImpliedLocalVol, NeedsItsUnderlyingsQuotes) {
  const std::string yaml = "market:\n"
                           "  underlyings: [{name: SPX, spot: 100.0}]\n"
                           "  rates: {zero_rate: 0.03}\n"
                           "models:\n"
                           "  - {name: lv, type: local_vol, underlying: SPX, surface: implied}\n"
                           "instruments:\n"
                           "  - {id: c, type: european, option: call, strike: 100, maturity: 1, "
                           "model: lv}\n";
  try {
    (void)config::parse_run_config(yaml, "lv.yaml");
    FAIL() << "no error";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "lv.yaml:5:59: models[0].surface: is `implied`, but "
                                     "market.implied_vols has no quotes for 'SPX'");
  }
  std::string flat = yaml;
  flat.replace(flat.find("surface: implied"), 16, "surface: quoted");
  try {
    (void)config::parse_run_config(flat, "lv.yaml");
    FAIL() << "no error";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "lv.yaml:5:59: models[0].surface: must be `implied` (Dupire from "
              "market.implied_vols) or a grid {times, log_moneyness, vols}");
  }
}

} // namespace
} // namespace pfmc
