// The `risk` block (config/schema_risk.cpp): a full block read into ladders in Move's units,
// targets, a grid, named scenarios and historical days; ranges' exact points; and one refusal
// per rule, each asserting the whole message (`FILE:LINE:COLUMN: key or column: what is wrong`).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "config/load_config.hpp"
#include "config_files.hpp"

namespace pfmc::config {
namespace {

// Lines 1-10; the risk block's own lines start at 11. Models: bs_spx (0) on SPX, bs_dax (1) on
// DAX, pair (2) a basket of both; NKY has no model.
const std::string kRun =
    "market:\n"
    "  underlyings: [{name: SPX, spot: 100}, {name: DAX, spot: 50}, {name: NKY, spot: 200}]\n"
    "  rates: {zero_rate: 0.03}\n"
    "models:\n"
    "  - {name: bs_spx, type: black_scholes, underlying: SPX, volatility: 0.2}\n"
    "  - {name: bs_dax, type: black_scholes, underlying: DAX, volatility: 0.25}\n"
    "  - {name: pair, type: multi_black_scholes, underlyings: [SPX, DAX], volatilities: [0.2, "
    "0.25], correlation: [[1, 0.5], [0.5, 1]]}\n"
    "instruments:\n"
    "  - {id: c, type: european, option: call, strike: 100, maturity: 1, model: bs_spx}\n"
    "risk:\n";

class RiskConfigTest : public testing::ConfigFiles {
protected:
  /// A run whose risk block is `block` (its lines indented under `risk:`, from line 11).
  std::string config(const std::string& block) const { return write("r.yaml", kRun + block); }
  /// A run whose risk block is one ladder (line 12).
  std::string ladder(const std::string& item) const {
    return config("  ladders:\n    - " + item + "\n");
  }
  std::string scenarios(const std::string& csv) const {
    write("stress.csv", csv);
    return config("  scenarios: {csv: stress.csv}\n");
  }
  std::string historical(const std::string& csv, const std::string& keys = "") const {
    write("moves.csv", csv);
    return config("  historical: {csv: moves.csv" + keys + "}\n");
  }
};

const std::string kFullBlock =
    "  ladders:\n"
    "    - {name: spot, shift: spot, on: [DAX, SPX], points: [-0.1, -0.05, 0, 0.05, 0.1]}\n"
    "    - {name: vol, shift: vol, on: [SPX, bs_dax], mode: relative, points: [-0.5, 0.5]}\n"
    "    - {name: rates, shift: rate, points: [-50, 0, 50]}\n"
    "    - {name: roll, shift: time, points: [1, 3]}\n"
    "    - {name: all_vols, shift: vol, on: all, points: [0.01]}\n"
    "  grid: [spot, vol]\n"
    "  scenarios: {csv: stress.csv}\n"
    "  historical: {csv: moves.csv, levels: [0.99, 0.95], horizon: 2}\n"
    "  per_instrument: true\n";
const std::string kStress = "scenario,spot:SPX,spot_abs:DAX,vol:SPX,vol_rel:bs_dax,rate_bp,days,"
                            "spot:all\n"
                            "crash,-0.2,,0.05,,-25,3,\n"
                            "rally,,5,,-0.1,,,0.03\n";
const std::string kMoves = "date,spot:SPX,vol:all,vol_rel:DAX,rate_bp\n"
                           "2024-02-27,0.01,0.002,0.05,1.5\n"
                           "2024-02-28,-0.02,-0.001,-0.02,-3\n"
                           "2024-02-29,0.005,0,0,0\n";

void expect_move(const Move& move, ShiftKind kind, ShiftMode mode, std::vector<int> targets,
                 double amount) {
  EXPECT_EQ(move.kind, kind);
  EXPECT_EQ(move.mode, mode);
  EXPECT_EQ(move.targets, targets);
  EXPECT_EQ(move.amount, amount);
}

TEST_F(RiskConfigTest, AFullBlockIsReadInMoveUnits) {
  write("stress.csv", kStress);
  write("moves.csv", kMoves);
  const RiskConfig risk = load_run_config(config(kFullBlock)).risk;
  EXPECT_TRUE(risk.present);
  EXPECT_EQ(risk.mark.line, 11);
  ASSERT_EQ(risk.ladders.size(), 5u);
  const RiskLadder& spot = risk.ladders[0];
  EXPECT_EQ(spot.kind, ShiftKind::spot);
  EXPECT_EQ(spot.mode, ShiftMode::relative); // spot's default
  EXPECT_EQ(spot.targets, (std::vector<int>{0, 1}));
  EXPECT_EQ(spot.points, (std::vector<double>{-0.1, -0.05, 0, 0.05, 0.1}));
  EXPECT_EQ(spot.mark.line, 12);
  // SPX's models are bs_spx and the basket pair; bs_dax is a model's own name.
  const RiskLadder& vol = risk.ladders[1];
  EXPECT_EQ(vol.mode, ShiftMode::relative);
  EXPECT_EQ(vol.targets, (std::vector<int>{0, 1, 2}));
  const RiskLadder& rates = risk.ladders[2];
  EXPECT_EQ(rates.kind, ShiftKind::rate);
  EXPECT_EQ(rates.mode, ShiftMode::absolute);
  EXPECT_EQ(rates.written, (std::vector<double>{-50, 0, 50}));
  EXPECT_EQ(rates.points, (std::vector<double>{-50 / 10000.0, 0, 50 / 10000.0}));
  const RiskLadder& roll = risk.ladders[3];
  EXPECT_EQ(roll.kind, ShiftKind::time);
  EXPECT_EQ(roll.written, (std::vector<double>{1, 3}));
  // days / 365, not days · (1 / 365): 3 · (1 / 365) is a bit above 3 / 365.
  EXPECT_EQ(roll.points, (std::vector<double>{1 / 365.0, 3 / 365.0}));
  EXPECT_EQ(risk.ladders[4].mode, ShiftMode::absolute); // vol's default
  EXPECT_TRUE(risk.ladders[4].targets.empty());         // on: all
  EXPECT_EQ(risk.grid_first, 0);
  EXPECT_EQ(risk.grid_second, 1);
  EXPECT_TRUE(risk.per_instrument);
}

TEST_F(RiskConfigTest, NamedScenariosAreTheirRowsNonEmptyCells) {
  write("moves.csv", kMoves);
  write("stress.csv", kStress);
  const RiskConfig risk = load_run_config(config(kFullBlock)).risk;
  ASSERT_EQ(risk.scenarios.size(), 2u);
  const MarketShift& crash = risk.scenarios[0];
  EXPECT_EQ(crash.name, "crash");
  EXPECT_EQ(crash.where, (dir_ / "stress.csv").string() + ":2");
  ASSERT_EQ(crash.moves.size(), 4u);
  expect_move(crash.moves[0], ShiftKind::spot, ShiftMode::relative, {0}, -0.2);
  expect_move(crash.moves[1], ShiftKind::vol, ShiftMode::absolute, {0, 2}, 0.05);
  expect_move(crash.moves[2], ShiftKind::rate, ShiftMode::absolute, {}, -25 / 10000.0);
  expect_move(crash.moves[3], ShiftKind::time, ShiftMode::absolute, {}, 3 / 365.0);
  const MarketShift& rally = risk.scenarios[1];
  EXPECT_EQ(rally.name, "rally");
  EXPECT_EQ(rally.where, (dir_ / "stress.csv").string() + ":3");
  ASSERT_EQ(rally.moves.size(), 3u);
  expect_move(rally.moves[0], ShiftKind::spot, ShiftMode::absolute, {1}, 5);
  expect_move(rally.moves[1], ShiftKind::vol, ShiftMode::relative, {1}, -0.1);
  expect_move(rally.moves[2], ShiftKind::spot, ShiftMode::relative, {}, 0.03); // spot:all
}

TEST_F(RiskConfigTest, HistoricalDaysAreLogReturnsAndChangesInColumnOrder) {
  write("moves.csv", kMoves);
  write("stress.csv", kStress);
  const RiskConfig risk = load_run_config(config(kFullBlock)).risk;
  ASSERT_TRUE(risk.has_historical);
  const HistoricalRisk& h = risk.historical;
  EXPECT_EQ(h.file, (dir_ / "moves.csv").string());
  EXPECT_EQ(h.levels, (std::vector<double>{0.99, 0.95}));
  EXPECT_EQ(h.horizon, 2);
  EXPECT_EQ(h.dates, (std::vector<std::string>{"2024-02-27", "2024-02-28", "2024-02-29"}));
  ASSERT_EQ(h.days.size(), 3u);
  const MarketShift& second = h.days[1];
  EXPECT_EQ(second.name, "2024-02-28");
  EXPECT_EQ(second.where, (dir_ / "moves.csv").string() + ":3");
  ASSERT_EQ(second.moves.size(), 4u);
  expect_move(second.moves[0], ShiftKind::spot, ShiftMode::log, {0}, -0.02);
  expect_move(second.moves[1], ShiftKind::vol, ShiftMode::absolute, {}, -0.001);
  expect_move(second.moves[2], ShiftKind::vol, ShiftMode::relative, {1, 2}, -0.02);
  expect_move(second.moves[3], ShiftKind::rate, ShiftMode::absolute, {}, -3 / 10000.0);
  for (const MarketShift& day : h.days)
    EXPECT_EQ(day.moves.size(), 4u) << day.name; // every day the same moves
  // Defaults: levels 0.99 and 0.975, a horizon of one day.
  const RiskConfig plain = load_run_config(historical(kMoves)).risk;
  EXPECT_EQ(plain.historical.levels, (std::vector<double>{0.99, 0.975}));
  EXPECT_EQ(plain.historical.horizon, 1);
  EXPECT_TRUE(plain.ladders.empty());
  EXPECT_EQ(plain.grid_first, -1);
  EXPECT_FALSE(plain.per_instrument);
}

TEST_F(RiskConfigTest, RangesGiveFromPlusIStepsUpToTo) {
  const auto points = [&](const std::string& item) {
    return load_run_config(ladder(item)).risk.ladders.at(0).points;
  };
  // Accumulating 0.1 ten times ends at 0.9999999999999999; from + 10 * 0.1 is 1.
  const std::vector<double> tenths = points("{name: s, shift: spot, range: {from: 0, to: 1, "
                                            "step: 0.1}}");
  ASSERT_EQ(tenths.size(), 11u);
  for (std::size_t i = 0; i < tenths.size(); ++i)
    EXPECT_EQ(tenths[i], static_cast<double>(i) * 0.1) << i;
  EXPECT_EQ(tenths.back(), 1.0);
  // 0.1 / 0.0125 rounds to 8 steps, within the tolerance of `to`.
  const std::vector<double> vols = points("{name: v, shift: vol, on: all, range: {from: -0.05, "
                                          "to: 0.05, step: 0.0125}}");
  ASSERT_EQ(vols.size(), 9u);
  for (std::size_t i = 0; i < vols.size(); ++i)
    EXPECT_EQ(vols[i], -0.05 + static_cast<double>(i) * 0.0125) << i;
  // 0.3 / 0.1 is 2.9999999999999996: `to` is the fourth point, within the tolerance.
  EXPECT_EQ(points("{name: s, shift: spot, range: {from: 0, to: 0.3, step: 0.1}}"),
            (std::vector<double>{0, 0.1, 0.2, 3 * 0.1}));
  // `to` not on a step: the last point is below it.
  EXPECT_EQ(points("{name: s, shift: spot, range: {from: 0, to: 1, step: 0.3}}"),
            (std::vector<double>{0, 0.3, 0.6, 0.3 * 3}));
  EXPECT_EQ(points("{name: s, shift: spot, range: {from: 0.5, to: 0.5, step: 1}}"),
            (std::vector<double>{0.5}));
  // Days to years, basis points to decimals, point by point.
  EXPECT_EQ(points("{name: t, shift: time, range: {from: 0, to: 12, step: 6}}"),
            (std::vector<double>{0, 6 / 365.0, 12 / 365.0}));
  EXPECT_EQ(points("{name: r, shift: rate, range: {from: -100, to: 100, step: 100}}"),
            (std::vector<double>{-0.01, 0, 0.01}));
  EXPECT_EQ(points("{name: s, shift: spot, range: {from: 0, to: 1, step: 0.001}}").size(), 1001u);
}

TEST_F(RiskConfigTest, BadLaddersAreRefusedWhereTheyAre) {
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, points: [0.1], step: 1}")),
            "D/r.yaml:12:45: risk.ladders[0]: unknown key 'step' (expected one of: name, shift, "
            "on, mode, points, range)");
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, on: [SPX, FTSE], points: [0.1]}")),
            "D/r.yaml:12:40: risk.ladders[0].on[1]: unknown underlying 'FTSE' (known: SPX, DAX, "
            "NKY)");
  EXPECT_EQ(error_of(ladder("{name: v, shift: vol, on: [bs_nky], points: [0.1]}")),
            "D/r.yaml:12:34: risk.ladders[0].on[0]: unknown model or underlying 'bs_nky' "
            "(models: bs_spx, bs_dax, pair; underlyings: SPX, DAX, NKY)");
  EXPECT_EQ(error_of(ladder("{name: v, shift: vol, on: [NKY], points: [0.1]}")),
            "D/r.yaml:12:34: risk.ladders[0].on[0]: no model is on underlying 'NKY': a vol move "
            "needs a model to move");
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, on: [SPX, SPX], points: [0.1]}")),
            "D/r.yaml:12:40: risk.ladders[0].on[1]: repeats 'SPX'");
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, on: [], points: [0.1]}")),
            "D/r.yaml:12:34: risk.ladders[0].on: must not be empty");
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, on: SPX, points: [0.1]}")),
            "D/r.yaml:12:34: risk.ladders[0].on: must be all or a list of names");
  EXPECT_EQ(error_of(ladder("{name: r, shift: rate, mode: relative, points: [10]}")),
            "D/r.yaml:12:36: risk.ladders[0].mode: only a spot or vol ladder has mode: a rate "
            "ladder adds its basis points to every zero rate");
  EXPECT_EQ(error_of(ladder("{name: t, shift: time, on: [SPX], points: [1]}")),
            "D/r.yaml:12:34: risk.ladders[0].on: only a spot or vol ladder has on: a time ladder "
            "moves the valuation date forward by its days");
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, mode: log, points: [0.1]}")),
            "D/r.yaml:12:36: risk.ladders[0].mode: must be one of: relative, absolute");
  EXPECT_EQ(error_of(ladder("{name: s, shift: delta, points: [0.1]}")),
            "D/r.yaml:12:24: risk.ladders[0].shift: must be one of: spot, vol, rate, time");
}

TEST_F(RiskConfigTest, PointsAMoveCannotMakeAreRefused) {
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, points: [-0.5, -1]}")),
            "D/r.yaml:12:45: risk.ladders[0].points[1]: must be > -1 (got -1): a relative move of "
            "-1 or less takes the spot to zero or below");
  EXPECT_EQ(error_of(ladder("{name: v, shift: vol, mode: relative, range: {from: -1.5, to: 0, "
                            "step: 0.5}}")),
            "D/r.yaml:12:59: risk.ladders[0].range.from: must be > -1 (got -1.5): a relative "
            "move of -1 or less takes the vol to zero or below");
  // Absolute moves may be below -1 (spot units).
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, mode: absolute, points: [-20]}")), "no error");
  EXPECT_EQ(error_of(ladder("{name: t, shift: time, points: [1, -1]}")),
            "D/r.yaml:12:42: risk.ladders[0].points[1]: must be >= 0 (got -1): days the "
            "valuation date moves forward");
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, points: [0.1], range: {from: 0, to: 1, "
                            "step: 1}}")),
            "D/r.yaml:12:45: risk.ladders[0]: give points or range, not both");
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot}")),
            "D/r.yaml:12:7: risk.ladders[0]: missing points (a list) or range ({from, to, step})");
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, range: {from: 1, to: 0, step: 0.5}}")),
            "D/r.yaml:12:51: risk.ladders[0].range.to: must be >= from (1)");
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, range: {from: 0, to: 1, step: 0}}")),
            "D/r.yaml:12:60: risk.ladders[0].range.step: must be > 0");
  EXPECT_EQ(error_of(ladder("{name: s, shift: spot, range: {from: 0, to: 1, step: 0.0005}}")),
            "D/r.yaml:12:60: risk.ladders[0].range.step: makes 2001 points (at most 1001): take "
            "a larger step");
}

TEST_F(RiskConfigTest, BadGridsAndBlocksAreRefused) {
  const std::string two = "  ladders:\n"
                          "    - {name: spot, shift: spot, points: [0.1]}\n"
                          "    - {name: vol, shift: vol, points: [0.01]}\n";
  EXPECT_EQ(error_of(config(two + "  grid: [spot, volatility]\n")),
            "D/r.yaml:14:16: risk.grid[1]: unknown ladder 'volatility' (known: spot, vol)");
  EXPECT_EQ(error_of(config(two + "  grid: [vol, vol]\n")),
            "D/r.yaml:14:15: risk.grid[1]: names ladder 'vol' twice: a grid is the product of "
            "two different ladders");
  EXPECT_EQ(error_of(config(two + "  grid: [spot]\n")),
            "D/r.yaml:14:9: risk.grid: must have 2 ladder names (got 1)");
  EXPECT_EQ(error_of(config(two + "    - {name: spot, shift: rate, points: [1]}\n")),
            "D/r.yaml:14:14: risk.ladders[2].name: duplicate ladder 'spot' (first at line 12)");
  write("stress.csv", kStress);
  EXPECT_EQ(error_of(config("  scenarios: {csv: stress.csv}\n  grid: [spot, vol]\n")),
            "D/r.yaml:12:9: risk.grid: names two ladders, and the block has none (risk.ladders)");
  EXPECT_EQ(error_of(config("  ladder: []\n")),
            "D/r.yaml:11:3: risk: unknown key 'ladder' (expected one of: ladders, grid, "
            "scenarios, historical, per_instrument)");
  EXPECT_EQ(error_of(config("  per_instrument: true\n")),
            "D/r.yaml:11:3: risk: needs ladders, scenarios or historical (an empty block prices "
            "no risk)");
  EXPECT_EQ(error_of(config("")),
            "D/r.yaml:10:1: risk: needs ladders, scenarios or historical (an empty block prices "
            "no risk)");
  EXPECT_EQ(error_of(write("r.yaml", kRun.substr(0, kRun.size() - 1) + " {}\n")),
            "D/r.yaml:10:7: risk: needs ladders, scenarios or historical (an empty block prices "
            "no risk)");
  EXPECT_EQ(error_of(config(two + "  per_instrument: maybe\n")),
            "D/r.yaml:14:19: risk.per_instrument: must be true or false");
  EXPECT_EQ(error_of(config("  scenarios: [crash]\n")),
            "D/r.yaml:11:14: risk.scenarios: must be {csv: FILE}");
}

const std::string kStressHeader = "scenario,spot:SPX,spot_abs:DAX,vol_rel:bs_spx,days\n";

TEST_F(RiskConfigTest, BadScenarioFilesAreRefusedAtTheirCell) {
  EXPECT_EQ(error_of(scenarios(kStressHeader + "crash,-0.2,abc,,\n")),
            "D/stress.csv:2:3: spot_abs:DAX: must be a number");
  EXPECT_EQ(error_of(scenarios(kStressHeader + "crash,-0.2,,,\nrally,0.1,,,\ncrash,0.3,,,\n")),
            "D/stress.csv:4:1: scenario: duplicate scenario 'crash' (first at line 2)");
  EXPECT_EQ(error_of(scenarios(kStressHeader + ",-0.2,,,\n")),
            "D/stress.csv:2:1: scenario: must not be empty on this row");
  EXPECT_EQ(error_of(scenarios(kStressHeader + "crash,-1.2,,,\n")),
            "D/stress.csv:2:2: spot:SPX: must be > -1 (got -1.2): a relative move of -1 or less "
            "takes the spot to zero or below");
  EXPECT_EQ(error_of(scenarios(kStressHeader + "crash,,,-1,\n")),
            "D/stress.csv:2:4: vol_rel:bs_spx: must be > -1 (got -1): a relative move of -1 or "
            "less takes the vol to zero or below");
  EXPECT_EQ(error_of(scenarios(kStressHeader + "crash,,,,-1\n")),
            "D/stress.csv:2:5: days: must be >= 0 (got -1): days the valuation date moves forward");
  EXPECT_EQ(error_of(scenarios("scenario,spot:FTSE\ncrash,0.1\n")),
            "D/stress.csv:1:2: spot:FTSE: unknown underlying 'FTSE' (known: SPX, DAX, NKY)");
  EXPECT_EQ(error_of(scenarios("scenario,spot_rel:SPX\ncrash,0.1\n")),
            "D/stress.csv:1:2: unknown column 'spot_rel:SPX' (expected 'scenario', then some of: "
            "spot:NAME, spot_abs:NAME, vol:NAME, vol_rel:NAME, rate_bp, days)");
  EXPECT_EQ(error_of(scenarios("scenario,rate_bp:SPX\ncrash,1\n")),
            "D/stress.csv:1:2: unknown column 'rate_bp:SPX' (expected 'scenario', then some of: "
            "spot:NAME, spot_abs:NAME, vol:NAME, vol_rel:NAME, rate_bp, days)");
  EXPECT_EQ(error_of(scenarios("scenario,vol:\ncrash,1\n")),
            "D/stress.csv:1:2: vol:: needs a name after ':' (vol:NAME, or vol:all)");
  EXPECT_EQ(error_of(scenarios("id,spot:SPX\ncrash,0.1\n")),
            "D/stress.csv:1:1: the first column must be 'scenario' (got 'id')");
  EXPECT_EQ(error_of(scenarios("scenario\ncrash\n")),
            "D/stress.csv:1:1: no columns of moves after 'scenario' (expected some of: "
            "spot:NAME, spot_abs:NAME, vol:NAME, vol_rel:NAME, rate_bp, days)");
  EXPECT_EQ(error_of(scenarios(kStressHeader)),
            "D/stress.csv:1:1: no scenarios (the file has only a header)");
}

const std::string kMovesHeader = "date,spot:SPX,vol:bs_dax,rate_bp\n";

TEST_F(RiskConfigTest, BadHistoricalFilesAreRefusedAtTheirCell) {
  EXPECT_EQ(error_of(historical(kMovesHeader + "2024-01-02,0.01,0.001,1\n"
                                               "2024-01-03,0.02,,2\n")),
            "D/moves.csv:3:3: vol:bs_dax: a gap: every day needs every column");
  EXPECT_EQ(error_of(historical(kMovesHeader + "2024-01-02,0.01,0.001,1\n"
                                               "2024-01-03,0.02,0.001,n/a\n")),
            "D/moves.csv:3:4: rate_bp: must be a number");
  EXPECT_EQ(error_of(historical(kMovesHeader + "2024-01-03,0.01,0.001,1\n"
                                               "2024-01-02,0.02,0.001,2\n")),
            "D/moves.csv:3:1: date: must be after the previous day, 2024-01-03 (line 2): give the "
            "days in increasing order, each once");
  EXPECT_EQ(error_of(historical(kMovesHeader + "2024-01-02,0.01,0.001,1\n"
                                               "2024-01-02,0.02,0.001,2\n")),
            "D/moves.csv:3:1: date: must be after the previous day, 2024-01-02 (line 2): give the "
            "days in increasing order, each once");
  EXPECT_EQ(error_of(historical(kMovesHeader + "2023-02-28,0.01,0.001,1\n"
                                               "2023-02-29,0.02,0.001,2\n")),
            "D/moves.csv:3:1: date: must be a date written YYYY-MM-DD (got '2023-02-29')");
  EXPECT_EQ(error_of(historical(kMovesHeader + "2024-01-02,0.01,0.001,1\n"
                                               "3 Jan 2024,0.02,0.001,2\n")),
            "D/moves.csv:3:1: date: must be a date written YYYY-MM-DD (got '3 Jan 2024')");
  EXPECT_EQ(error_of(historical("date,spot_abs:SPX\n2024-01-02,1\n2024-01-03,2\n")),
            "D/moves.csv:1:2: unknown column 'spot_abs:SPX' (expected 'date', then some of: "
            "spot:NAME, vol:NAME, vol_rel:NAME, rate_bp)");
  EXPECT_EQ(error_of(historical(kMovesHeader + "2024-01-02,0.01,0.001,1\n")),
            "D/moves.csv:1:1: has 1 day of moves: needs at least 2 (2, and a horizon's 1 day)");
  EXPECT_EQ(error_of(historical(kMoves, ", horizon: 4")),
            "D/moves.csv:1:1: has 3 days of moves: needs at least 4 (2, and a horizon's 4 days)");
  EXPECT_EQ(error_of(historical(kMoves, ", horizon: 0")),
            "D/r.yaml:11:41: risk.historical.horizon: must be >= 1");
  EXPECT_EQ(error_of(historical(kMoves, ", levels: [0.99, 1]")),
            "D/r.yaml:11:47: risk.historical.levels[1]: must be in (0, 1): a confidence level "
            "(0.99: the worst 1% of days)");
  EXPECT_EQ(error_of(historical(kMoves, ", levels: [0.99, 0.99]")),
            "D/r.yaml:11:47: risk.historical.levels[1]: repeats level 0.99");
  EXPECT_EQ(error_of(historical(kMoves, ", window: 10")),
            "D/r.yaml:11:32: risk.historical: unknown key 'window' (expected one of: csv, "
            "delimiter, levels, horizon)");
}

} // namespace
} // namespace pfmc::config
