// market.implied_vols (config/schema_quotes.cpp): quotes as a YAML grid or as CSV rows are the
// same quotes, and one test per kind of bad quote, each asserting the whole message
// (`FILE:LINE:COLUMN: key or column: what is wrong`).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "config/load_config.hpp"
#include "config_files.hpp"

namespace pfmc::config {
namespace {

// Lines 1-5; implied_vols is line 4.
const std::string kMarket = "market:\n"
                            "  underlyings: [{name: SPX, spot: 100}, {name: SX5E, spot: 50}]\n"
                            "  rates: {zero_rate: 0.03}\n"
                            "  implied_vols:\n";
const std::string kRest = "models:\n"
                          "  - {name: bs, type: black_scholes, underlying: SPX, volatility: 0.2}\n"
                          "instruments:\n"
                          "  - {id: c, type: european, option: call, strike: 100, maturity: 1, "
                          "model: bs}\n";

class QuotesConfig : public testing::ConfigFiles {
protected:
  /// A run whose market.implied_vols items are `items` (indented under it).
  std::string config(const std::string& items) const {
    return write("q.yaml", kMarket + items + kRest);
  }
  std::string csv_config(const std::string& csv) const {
    write("vols.csv", csv);
    return config("    - {csv: vols.csv}\n");
  }
};

const std::string kGrid = "    - underlying: SPX\n"
                          "      expiries: [0.25, 1]\n"
                          "      strikes: [90, 100, 110]\n"
                          "      vols: [[0.24, 0.2, 0.18], [0.22, 0.2, 0.19]]\n";
const std::string kHeader = "underlying,expiry,strike,vol\n";
const std::string kRows = "SPX,0.25,90,0.24\n"
                          "SPX,0.25,100,0.2\n"
                          "SPX,0.25,110,0.18\n"
                          "SPX,1,90,0.22\n"
                          "SPX,1,100,0.2\n"
                          "SPX,1,110,0.19\n";

TEST_F(QuotesConfig, AGridAndItsCsvRowsAreTheSameQuotes) {
  const RunConfig grid = load_run_config(config(kGrid));
  const RunConfig rows = load_run_config(csv_config(kHeader + kRows));
  ASSERT_EQ(grid.market.implied_vols.size(), 1u);
  ASSERT_EQ(rows.market.implied_vols.size(), 1u);
  const ImpliedVols& a = grid.market.implied_vols[0];
  const ImpliedVols& b = rows.market.implied_vols[0];
  EXPECT_EQ(a.underlying, "SPX");
  EXPECT_EQ(a.underlying_index, 0);
  EXPECT_EQ(b.underlying_index, 0);
  ASSERT_EQ(a.quotes.size(), 6u);
  ASSERT_EQ(b.quotes.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(a.quotes[i].expiry, b.quotes[i].expiry) << i;
    EXPECT_EQ(a.quotes[i].strike, b.quotes[i].strike) << i;
    EXPECT_EQ(a.quotes[i].vol, b.quotes[i].vol) << i;
  }
  EXPECT_EQ(a.quotes[5].vol, 0.19);
  // Where each came from: the YAML's vol (line 8) and the CSV's vol cell (line 7, column 4).
  EXPECT_EQ(a.quotes[5].mark.line, 8);
  EXPECT_EQ(b.quotes[5].mark.line, 7);
  EXPECT_EQ(b.quotes[5].mark.column, 4);
  EXPECT_NE(b.file.find("vols.csv"), std::string::npos);
  // Several underlyings in one file, each its own set.
  const RunConfig two =
      load_run_config(csv_config(kHeader + kRows + "SX5E,0.5,50,0.21\nSX5E,0.5,55,0.2\n"));
  ASSERT_EQ(two.market.implied_vols.size(), 2u);
  EXPECT_EQ(two.market.implied_vols[1].underlying_index, 1);
  EXPECT_EQ(two.market.implied_vols[1].quotes.size(), 2u);
}

TEST_F(QuotesConfig, BadGridsAreRefusedWhereTheyAre) {
  EXPECT_EQ(error_of(config("    - underlying: SPX\n"
                            "      expiries: [0.25, 1]\n"
                            "      strikes: [90, 100, 110]\n"
                            "      vols: [[0.24, 0.2, 0.18], [0.22, 0, 0.19]]\n")),
            "D/q.yaml:8:40: market.implied_vols[0].vols[1][1]: must be > 0");
  EXPECT_EQ(error_of(config("    - underlying: SPX\n"
                            "      expiries: [1, 0.25]\n"
                            "      strikes: [90, 100, 110]\n"
                            "      vols: [[0.24, 0.2, 0.18], [0.22, 0.2, 0.19]]\n")),
            "D/q.yaml:6:21: market.implied_vols[0].expiries[1]: must be > the previous expiry 1");
  EXPECT_EQ(error_of(config("    - underlying: SPX\n"
                            "      expiries: [0.25, 1]\n"
                            "      strikes: [90, 110, 100]\n"
                            "      vols: [[0.24, 0.2, 0.18], [0.22, 0.2, 0.19]]\n")),
            "D/q.yaml:7:26: market.implied_vols[0].strikes[2]: must be > the previous strike 110");
  EXPECT_EQ(
      error_of(config("    - underlying: SPX\n"
                      "      expiries: [0.25, 1]\n"
                      "      strikes: [90, 100, 110]\n"
                      "      vols: [[0.24, 0.2, 0.18], [0.22, 0.2]]\n")),
      "D/q.yaml:8:33: market.implied_vols[0].vols[1]: must have 3 vols, one per strike (got 2)");
  EXPECT_EQ(error_of(config("    - underlying: NDX\n"
                            "      expiries: [1]\n"
                            "      strikes: [100]\n"
                            "      vols: [[0.2]]\n")),
            "D/q.yaml:5:19: market.implied_vols[0].underlying: unknown underlying 'NDX' (known: "
            "SPX, SX5E)");
  EXPECT_EQ(
      error_of(config(kGrid + "    - {csv: vols.csv}\n")),
      "D/q.yaml:9:13: market.implied_vols[1].csv: cannot open file: No such file or directory "
      "(D/vols.csv)");
}

TEST_F(QuotesConfig, QuotesByLogMoneynessOrDeltaKeepTheirCoordinate) {
  // The same options by log-moneyness or by forward call delta, in a grid and in CSV rows:
  // the set says which, each quote keeps its value as written (engine/market's vol_quotes
  // turns it into a strike).
  const RunConfig by_k = load_run_config(config("    - underlying: SPX\n"
                                                "      expiries: [0.25, 1]\n"
                                                "      log_moneyness: [-0.1, 0, 0.1]\n"
                                                "      vols: [[0.24, 0.2, 0.18], [0.22, 0.2, "
                                                "0.19]]\n"));
  const ImpliedVols& k = by_k.market.implied_vols[0];
  EXPECT_EQ(k.coordinate, QuoteCoordinate::log_moneyness);
  ASSERT_EQ(k.quotes.size(), 6u);
  EXPECT_EQ(k.quotes[0].strike, -0.1);
  const RunConfig by_delta = load_run_config(
      csv_config("underlying,expiry,delta,vol\nSPX,0.25,0.75,0.24\nSPX,0.25,0.5,0.2\n"
                 "SPX,0.25,0.25,0.18\n"));
  const ImpliedVols& d = by_delta.market.implied_vols[0];
  EXPECT_EQ(d.coordinate, QuoteCoordinate::delta);
  ASSERT_EQ(d.quotes.size(), 3u);
  EXPECT_EQ(d.quotes[2].strike, 0.25);
  // Refused: two coordinates, none, a delta out of (0, 1), deltas rising (strikes falling).
  EXPECT_EQ(error_of(config("    - underlying: SPX\n"
                            "      expiries: [1]\n"
                            "      strikes: [100]\n"
                            "      deltas: [0.5]\n"
                            "      vols: [[0.2]]\n")),
            "D/q.yaml:8:15: market.implied_vols[0].deltas: give one of strikes, log_moneyness or "
            "deltas, not strikes and deltas");
  EXPECT_EQ(error_of(config("    - underlying: SPX\n"
                            "      expiries: [1]\n"
                            "      vols: [[0.2]]\n")),
            "D/q.yaml:5:7: market.implied_vols[0]: missing required key 'strikes' (or "
            "'log_moneyness', or 'deltas')");
  EXPECT_EQ(error_of(config("    - underlying: SPX\n"
                            "      expiries: [1]\n"
                            "      deltas: [0.75, 1.0]\n"
                            "      vols: [[0.2, 0.2]]\n")),
            "D/q.yaml:7:22: market.implied_vols[0].deltas[1]: must be in (0, 1): a forward call "
            "delta N(d1)");
  EXPECT_EQ(error_of(config("    - underlying: SPX\n"
                            "      expiries: [1]\n"
                            "      deltas: [0.25, 0.75]\n"
                            "      vols: [[0.2, 0.2]]\n")),
            "D/q.yaml:7:22: market.implied_vols[0].deltas[1]: must be < the delta before it, 0.25: "
            "give call deltas decreasing (strikes increasing)");
  EXPECT_EQ(error_of(csv_config("underlying,expiry,strike,delta,vol\nSPX,1,100,0.5,0.2\n")),
            "D/vols.csv:1:4: give one of the columns strike, log_moneyness or delta, not strike "
            "and delta");
  EXPECT_EQ(error_of(csv_config("underlying,expiry,delta,vol\nSPX,1,0.25,0.2\nSPX,1,0.5,0.2\n")),
            "D/vols.csv:3:3: delta: must be < the delta of SPX's previous quote at this expiry, "
            "0.25 (line 2): give an expiry's quotes by strike (call deltas decreasing)");
}

TEST_F(QuotesConfig, BadRowsAreRefusedAtTheirCell) {
  EXPECT_EQ(error_of(csv_config(kHeader + "SPX,0.25,90,-0.2\n")),
            "D/vols.csv:2:4: vol: must be > 0");
  EXPECT_EQ(error_of(csv_config(kHeader + "SPX,0.25,90,abc\n")),
            "D/vols.csv:2:4: vol: must be a number");
  EXPECT_EQ(error_of(csv_config(kHeader + "SPX,0.25,90,\n")),
            "D/vols.csv:2:4: vol: must not be empty on this row");
  EXPECT_EQ(error_of(csv_config(kHeader + "NDX,0.25,90,0.2\n")),
            "D/vols.csv:2:1: underlying: unknown underlying 'NDX' (known: SPX, SX5E)");
  EXPECT_EQ(
      error_of(csv_config(kHeader + "SPX,1,90,0.2\nSPX,0.25,90,0.2\n")),
      "D/vols.csv:3:2: expiry: must be >= the expiry of SPX's previous quote, 1 (line 2): give an "
      "underlying's quotes by expiry, then strike");
  EXPECT_EQ(
      error_of(csv_config(kHeader + "SPX,1,100,0.2\nSPX,1,90,0.2\n")),
      "D/vols.csv:3:3: strike: must be > the strike of SPX's previous quote at this expiry, 100 "
      "(line 2): give an expiry's quotes by strike");
  EXPECT_EQ(error_of(csv_config(kHeader + "SPX,1,100,0.2\nSX5E,1,50,0.2\nSPX,1,100,0.21\n")),
            "D/vols.csv:4:3: strike: repeats SPX's quote at expiry 1, strike 100 (line 2)");
  EXPECT_EQ(
      error_of(csv_config("underlying,expiry,strike\nSPX,1,100\n")),
      "D/vols.csv:1:1: missing required column 'vol' (the header has: underlying, expiry, strike)");
  EXPECT_EQ(error_of(csv_config(kHeader)),
            "D/vols.csv:1:1: no quotes (the file has only a header)");
  write("vols.csv", kHeader + kRows);
  EXPECT_EQ(
      error_of(write("q.yaml", kMarket + "    - {csv: vols.csv}\n    - {csv: vols.csv}\n" + kRest)),
      "D/vols.csv:2:1: underlying: quotes for 'SPX' are given twice (first in D/vols.csv): give "
      "each underlying's quotes in one place");
}

} // namespace
} // namespace pfmc::config
