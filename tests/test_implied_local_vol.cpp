// `type: local_vol` with `surface: implied` (engine/market/dupire.hpp): the local vol built by
// Dupire from the shipped smile's quotes (config/examples/smile_vols.csv) reprices every quote's
// European by Monte Carlo on the CPU within 3 standard errors plus 5 bp of vol (issue 62's gold
// standard; the GPU suite prices the same at a million paths).

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "engine/market/implied_vol.hpp"
#include "engine/plan/plan.hpp"
#include "engine/pricer.hpp"

namespace pfmc {
namespace {

const std::string kExamples = std::string(PFMC_SOURCE_DIR) + "/config/examples/";

/// The smile's market and a European under `spx_local_vol` at every quote.
std::string repricing_config(int paths) {
  std::ifstream in(kExamples + "smile_vols.csv");
  std::string line;
  std::getline(in, line); // the header
  std::ostringstream yaml;
  yaml << "market:\n"
          "  underlyings: [{name: SPX, spot: 100.0, dividend_yield: 0.015}]\n"
          "  rates: {zero_rate: 0.03}\n"
          "  implied_vols: [{csv: "
       << kExamples
       << "smile_vols.csv}]\n"
          "models:\n"
          "  - {name: spx_local_vol, type: local_vol, underlying: SPX, surface: implied}\n"
          "instruments:\n";
  int n = 0;
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::string underlying, expiry, strike, vol;
    std::getline(cells, underlying, ',');
    std::getline(cells, expiry, ',');
    std::getline(cells, strike, ',');
    std::getline(cells, vol, ',');
    const double k = std::log(std::stod(strike) / (100.0 * std::exp(0.015 * std::stod(expiry))));
    yaml << "  - {id: q" << n++ << "_" << vol << ", type: european, option: "
         << (k >= 0.0 ? "call" : "put") << ", strike: " << strike << ", maturity: " << expiry
         << ", model: spx_local_vol}\n";
  }
  yaml << "simulation: {paths: " << paths << ", steps_per_year: 365, seed: 11}\n"
       << "engine: {device: cpu}\n";
  return yaml.str();
}

TEST(ImpliedLocalVol, RepricesTheQuotesWithinThreeStandardErrorsAndFiveBasisPoints) {
  const config::RunConfig config =
      config::parse_run_config(repricing_config(200000), "repricing.yaml");
  const engine::RunResult result = engine::price(config);
  ASSERT_EQ(result.instruments.size(), 70u);
  int checked = 0;
  for (std::size_t i = 0; i < result.instruments.size(); ++i) {
    const auto& r = result.instruments[i];
    const auto& in = config.instruments[i];
    const double quote = std::stod(r.id.substr(r.id.find('_') + 1));
    const double T = in.maturity, discount = std::exp(-0.03 * T);
    const double forward = 100.0 * std::exp((0.03 - 0.015) * T);
    const auto kind = in.option == config::OptionType::call ? market::OptionKind::call
                                                           : market::OptionKind::put;
    const double vol = market::implied_vol(kind, r.price, forward, in.strike, T, discount);
    const double vega = market::black_vega(forward, in.strike, T, quote, discount);
    // 3 standard errors of the price, in vol, and 5 bp of vol for the grid's interpolation and
    // the time steps (issue 62).
    EXPECT_NEAR(vol, quote, 3.0 * r.std_error / vega + 0.0005)
        << r.id << ": expiry " << T << ", strike " << in.strike;
    ++checked;
  }
  EXPECT_EQ(checked, 70);
  // The run says what it built.
  bool noticed = false;
  for (const auto& notice : result.run.notices)
    noticed = noticed || notice.find("Dupire grid 15 times x 32 log-moneyness") != std::string::npos;
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
    EXPECT_EQ(std::string(e.what()), "lv.yaml:5:67: models[0].surface: is `implied`, but "
                                     "market.implied_vols has no quotes for 'SPX'");
  }
  std::string flat = yaml;
  flat.replace(flat.find("surface: implied"), 16, "surface: quoted");
  try {
    (void)config::parse_run_config(flat, "lv.yaml");
    FAIL() << "no error";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "lv.yaml:5:67: models[0].surface: must be `implied` (Dupire from "
              "market.implied_vols) or a grid {times, log_moneyness, vols}");
  }
}

} // namespace
} // namespace pfmc
