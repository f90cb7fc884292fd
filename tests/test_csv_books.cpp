// Trade lists and positions as CSV (`instruments: {csv: FILE}`, `portfolio: {csv: FILE}`): the
// same book read from CSV and from YAML is the same RunConfig, CSV syntax (quotes, CRLF, blank
// lines, list cells), and one test per kind of bad input, each asserting the whole message
// (`FILE:LINE:COLUMN: column: what is wrong`). Lines and columns were counted by hand.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "config/column_reader.hpp"
#include "config/load_config.hpp"
#include "config_files.hpp"

namespace pfmc::config {
namespace {

namespace fs = std::filesystem;

const std::string kMarket =
    "market:\n"
    "  underlyings: [{name: SPX, spot: 100}, {name: SX5E, spot: 50}]\n"
    "  rates: {zero_rate: 0.05}\n"
    "models:\n"
    "  - {name: spx_bs, type: black_scholes, underlying: SPX, volatility: 0.2}\n"
    "  - name: pair\n"
    "    type: multi_black_scholes\n"
    "    underlyings: [SPX, SX5E]\n"
    "    volatilities: [0.2, 0.25]\n"
    "    correlation: [[1, 0.5], [0.5, 1]]\n";

// One instrument of every type, with every optional field somewhere.
const std::string kTradesCsv =
    "id,type,option,strike,maturity,model,cash,average,fixings,fixing_times,barrier,"
    "barrier_type,rebate,monitoring,monitoring_times,payoff,weights,knock_type,knock_level,"
    "knock_monitoring,knock_monitoring_times,knock_rebate\n"
    "c1,european,call,100,1,spx_bs,,,,,,,,,,,,,,,,\n"
    "d1,digital,put,95,0.5,spx_bs,10,,,,,,,,,,,,,,,\n"
    "a1,asian,call,100,1,spx_bs,,arithmetic,,0.25 0.5;0.75 1,,,,,,,,,,,,\n"
    "g1,asian,put,100,1,spx_bs,,geometric,12,,,,,,,,,,,,,\n"
    "b1,barrier,call,100,1,spx_bs,,,,,80,down_and_out,1.5,52,,,,,,,,\n"
    "b2,barrier,put,100,0.5,spx_bs,,,,,120,up_and_in,,,0.25;0.5,,,,,,,\n"
    "k1,basket,call,100,1,pair,,,,,,,,,,weighted,0.5 -0.25,,,,,\n"
    "k2,basket,call,100,1,pair,,,,,,,,,,max,,,,,,\n"
    "ka,asian,call,100,1,spx_bs,,arithmetic,12,,,,,,,,,down_and_out,80,52,,2\n"
    "kk,basket,put,100,1,pair,,,,,,,,,,weighted,,up_and_in,90,,0.5;1,\n";

const std::string kTradesYaml =
    "instruments:\n"
    "  - {id: c1, type: european, option: call, strike: 100, maturity: 1, model: spx_bs}\n"
    "  - {id: d1, type: digital, option: put, strike: 95, maturity: 0.5, model: spx_bs, cash: 10}\n"
    "  - {id: a1, type: asian, option: call, strike: 100, maturity: 1, model: spx_bs,\n"
    "     average: arithmetic, fixing_times: [0.25, 0.5, 0.75, 1]}\n"
    "  - {id: g1, type: asian, option: put, strike: 100, maturity: 1, model: spx_bs,\n"
    "     average: geometric, fixings: 12}\n"
    "  - {id: b1, type: barrier, option: call, strike: 100, maturity: 1, model: spx_bs,\n"
    "     barrier: 80, barrier_type: down_and_out, rebate: 1.5, monitoring: 52}\n"
    "  - {id: b2, type: barrier, option: put, strike: 100, maturity: 0.5, model: spx_bs,\n"
    "     barrier: 120, barrier_type: up_and_in, monitoring_times: [0.25, 0.5]}\n"
    "  - {id: k1, type: basket, option: call, strike: 100, maturity: 1, model: pair,\n"
    "     payoff: weighted, weights: [0.5, -0.25]}\n"
    "  - {id: k2, type: basket, option: call, strike: 100, maturity: 1, model: pair,\n"
    "     payoff: max}\n"
    "  - {id: ka, type: asian, option: call, strike: 100, maturity: 1, model: spx_bs,\n"
    "     average: arithmetic, fixings: 12,\n"
    "     knock: {type: down_and_out, level: 80, monitoring: 52, rebate: 2}}\n"
    "  - {id: kk, type: basket, option: put, strike: 100, maturity: 1, model: pair,\n"
    "     payoff: weighted, knock: {type: up_and_in, level: 90, monitoring_times: [0.5, 1]}}\n"
    "portfolio:\n"
    "  - {instrument: c1, quantity: 10}\n"
    "  - {instrument: k1, quantity: -2.5}\n";

class CsvBooks : public testing::ConfigFiles {
protected:
  /// The book with trades (and positions, when given) from CSV files beside it.
  std::string book(const std::string& trades, const std::string& positions = "") const {
    write("trades.csv", trades);
    std::string yaml = kMarket + "instruments: {csv: trades.csv}\n";
    if (!positions.empty()) {
      write("positions.csv", positions);
      yaml += "portfolio: {csv: positions.csv}\n";
    }
    return write("book.yaml", yaml);
  }
  std::string trades_error(const std::string& trades) const { return error_of(book(trades)); }
};

const std::string kHeader = "id,type,option,strike,maturity,model\n";

/// Two instruments read from two sources are the same to the last bit, field by field.
void expect_same_instrument(const InstrumentConfig& a, const InstrumentConfig& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.strike, b.strike);
  EXPECT_EQ(a.maturity, b.maturity);
  EXPECT_EQ(a.cash, b.cash);
  EXPECT_EQ(a.fixing_times, b.fixing_times);
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_EQ(a.barrier, b.barrier);
  EXPECT_EQ(a.rebate, b.rebate);
  EXPECT_EQ(a.monitoring_times, b.monitoring_times);
  EXPECT_EQ(a.knock, b.knock);
}

TEST_F(CsvBooks, ReadsTheSameBookAsYaml) {
  const RunConfig from_csv =
      load_run_config(book(kTradesCsv, "instrument,quantity\nc1,10\nk1,-2.5\n"));
  const RunConfig from_yaml = load_run_config(write("yaml_book.yaml", kMarket + kTradesYaml));
  ASSERT_EQ(from_csv.instruments.size(), 10u);
  ASSERT_EQ(from_csv.instruments.size(), from_yaml.instruments.size());
  for (std::size_t i = 0; i < from_yaml.instruments.size(); ++i) {
    const auto& c = from_csv.instruments[i];
    const auto& y = from_yaml.instruments[i];
    SCOPED_TRACE(y.id);
    EXPECT_EQ(c.id, y.id);
    EXPECT_EQ(c.type, y.type);
    EXPECT_EQ(c.option, y.option);
    EXPECT_EQ(c.strike, y.strike);
    EXPECT_EQ(c.maturity, y.maturity);
    EXPECT_EQ(c.model_index, y.model_index);
    EXPECT_EQ(c.cash, y.cash);
    EXPECT_EQ(c.average, y.average);
    EXPECT_EQ(c.fixing_times, y.fixing_times);
    EXPECT_EQ(c.knock, y.knock);
    EXPECT_EQ(c.barrier, y.barrier);
    EXPECT_EQ(c.barrier_type, y.barrier_type);
    EXPECT_EQ(c.rebate, y.rebate);
    EXPECT_EQ(c.monitoring_times, y.monitoring_times);
    EXPECT_EQ(c.basket, y.basket);
    EXPECT_EQ(c.weights, y.weights);
    EXPECT_EQ(c.mark.line, static_cast<int>(i) + 2) << "the CSV row's line";
  }
  ASSERT_EQ(from_csv.portfolio.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(from_csv.portfolio[i].instrument, from_yaml.portfolio[i].instrument);
    EXPECT_EQ(from_csv.portfolio[i].instrument_index, from_yaml.portfolio[i].instrument_index);
    EXPECT_EQ(from_csv.portfolio[i].quantity, from_yaml.portfolio[i].quantity);
  }
}

TEST_F(CsvBooks, ReadsQuotesCrLfBlankLinesAndSpaces) {
  // A quoted id with a comma and a doubled quote, CRLF endings, a blank line, spaces around
  // cells, columns in another order, and a quoted cell spanning two lines (the error below
  // points at the line its row ends on).
  const RunConfig c = load_run_config(book("model, strike ,id,type,option,maturity\r\n"
                                           "spx_bs,100,\"c,1 \"\"x\"\"\",european,call,1\r\n"
                                           "\r\n"
                                           "  spx_bs , 90 , p1 , european , put , 0.5 \r\n"));
  ASSERT_EQ(c.instruments.size(), 2u);
  EXPECT_EQ(c.instruments[0].id, "c,1 \"x\"");
  EXPECT_EQ(c.instruments[1].id, "p1");
  EXPECT_EQ(c.instruments[1].strike, 90.0);
  EXPECT_EQ(c.instruments[1].mark.line, 4);
  EXPECT_EQ(trades_error(kHeader + "\"c\n1\",european,call,-1,1,spx_bs\n"),
            "D/trades.csv:3:4: strike: must be > 0");
}

TEST_F(CsvBooks, PathsAreRelativeToTheYamlFile) {
  fs::create_directories(dir_ / "books");
  write("books/t.csv", kHeader + "c1,european,call,100,1,spx_bs\n");
  EXPECT_EQ(load_run_config(write("books/b.yaml", kMarket + "instruments: {csv: t.csv}\n"))
                .instruments.size(),
            1u);
  const std::string absolute = (dir_ / "books" / "t.csv").string();
  EXPECT_EQ(load_run_config(write("abs.yaml", kMarket + "instruments: {csv: " + absolute + "}\n"))
                .instruments.size(),
            1u);
  // A file named `-` is a file, not standard input.
  write("books/-", kHeader + "c1,european,call,100,1,spx_bs\n");
  EXPECT_EQ(load_run_config(write("books/dash.yaml", kMarket + "instruments: {csv: \"-\"}\n"))
                .instruments.size(),
            1u);
  // A file that is not there is reported at the YAML key that names it (line 11, column 20).
  EXPECT_EQ(error_of(write("missing.yaml", kMarket + "instruments: {csv: nope.csv}\n")),
            "D/missing.yaml:11:20: instruments.csv: cannot open file: No such file or directory "
            "(D/nope.csv)");
  // A device would never end: refused where the YAML names it.
  EXPECT_EQ(error_of(write("device.yaml", kMarket + "instruments: {csv: /dev/zero}\n")),
            "D/device.yaml:11:20: instruments.csv: cannot read file: it is a device, not a file "
            "(- reads standard input) (/dev/zero)");
  EXPECT_EQ(error_of(write("extra.yaml", kMarket + "instruments: {csv: t.csv, sep: ';'}\n")),
            "D/extra.yaml:11:27: instruments: unknown key 'sep' (expected one of: csv, delimiter)");
}

TEST_F(CsvBooks, RefusesBadFilesWithTheirLineAndColumn) {
  EXPECT_EQ(trades_error(""),
            "D/trades.csv:1: file is empty (expected a header row of column names)");
  EXPECT_EQ(trades_error(kHeader), "D/trades.csv:1:1: no instruments (the file has only a header)");
  EXPECT_EQ(trades_error("id,type,option,strike,maturity,modl\n"),
            "D/trades.csv:1:6: unknown column 'modl' (expected some of: id, type, option, strike, "
            "maturity, model, cash, average, fixings, fixing_times, barrier, barrier_type, "
            "rebate, monitoring, monitoring_times, payoff, weights, exercise, exercise_dates, "
            "exercise_times, knock_type, knock_level, knock_monitoring, knock_monitoring_times, "
            "knock_rebate)");
  EXPECT_EQ(trades_error("id,type,option,strike,maturity\nc1,european,call,100,1\n"),
            "D/trades.csv:1:1: missing required column 'model' (the header has: id, type, "
            "option, strike, maturity)");
  EXPECT_EQ(trades_error("id,type,id\n"), "D/trades.csv:1:3: duplicate column 'id'");
  EXPECT_EQ(trades_error("id,,type\n"), "D/trades.csv:1:2: column names must not be empty");
  EXPECT_EQ(trades_error(kHeader + "c1,european,call,100,1\n"),
            "D/trades.csv:2:6: the row has 5 cells, the header 6");
  EXPECT_EQ(trades_error(kHeader + "c1,european,call,100,1,spx_bs,x\n"),
            "D/trades.csv:2:7: the row has 7 cells, the header 6");
  EXPECT_EQ(trades_error(kHeader + "c1,european,\"call,100,1,spx_bs\n"),
            "D/trades.csv:2: malformed CSV: a quoted cell is not closed at the end of the file");
  EXPECT_EQ(trades_error(kHeader + "c1,european,\"call\"x,100,1,spx_bs\n"),
            "D/trades.csv:2: malformed CSV: error parsing data while strict checking enabled (a "
            "quote inside a cell must be doubled, and a quoted cell closed)");
}

/// The same text with `;` (or a tab) between cells: every comma outside quotes replaced, and
/// each cell holding a `;` (the list cells) quoted, as Excel writes it.
std::string with_delimiter(const std::string& text, char delimiter) {
  std::string out, cell;
  bool quoted = false;
  const auto flush = [&] {
    if (cell.find(';') != std::string::npos && cell.front() != '"')
      cell = "\"" + cell + "\"";
    out += cell;
    cell.clear();
  };
  for (const char c : text) {
    if (c == '"')
      quoted = !quoted;
    if (!quoted && (c == ',' || c == '\n')) {
      flush();
      out += c == ',' ? delimiter : '\n';
    } else {
      cell += c;
    }
  }
  flush();
  return out;
}

TEST_F(CsvBooks, ExcelsCsvReadsAsThePlainFile) {
  // What Excel writes: "CSV UTF-8" starts with a byte-order mark and ends lines with CRLF; where
  // the decimal separator is a comma, cells are separated by ';' (the config's `delimiter:`, or
  // Excel's own first line `sep=;`); "Text (tab delimited)" by tabs. Each is the plain file's
  // book, trades and positions alike.
  const std::string positions = "instrument,quantity\nc1,10\nk1,-2.5\n";
  const RunConfig plain = load_run_config(book(kTradesCsv, positions));
  const auto crlf = [](std::string text) {
    for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 2))
      text.replace(at, 1, "\r\n");
    return text;
  };
  const std::string bom = "\xEF\xBB\xBF";
  const auto with = [&](const std::string& trades, const std::string& held,
                        const std::string& options) {
    write("trades.csv", trades);
    write("positions.csv", held);
    return load_run_config(write("book.yaml", kMarket + "instruments: {csv: trades.csv" + options +
                                                  "}\nportfolio: {csv: positions.csv" + options +
                                                  "}\n"));
  };
  const std::vector<std::pair<std::string, RunConfig>> variants = {
      {"BOM", with(bom + kTradesCsv, bom + positions, "")},
      {"BOM and CRLF", with(bom + crlf(kTradesCsv), bom + crlf(positions), "")},
      {"; with delimiter",
       with(with_delimiter(kTradesCsv, ';'), with_delimiter(positions, ';'), ", delimiter: \";\"")},
      {"sep=;", with(bom + crlf("sep=;\n" + with_delimiter(kTradesCsv, ';')),
                     "sep=;\n" + with_delimiter(positions, ';'), "")},
      {"sep=; and delimiter", with("sep=;\n" + with_delimiter(kTradesCsv, ';'),
                                   with_delimiter(positions, ';'), ", delimiter: \";\"")},
      {"tabs", with(with_delimiter(kTradesCsv, '\t'), with_delimiter(positions, '\t'),
                    ", delimiter: \"\\t\"")},
  };
  for (const auto& [name, c] : variants) {
    SCOPED_TRACE(name);
    ASSERT_EQ(c.instruments.size(), plain.instruments.size());
    for (std::size_t i = 0; i < plain.instruments.size(); ++i) {
      const auto& a = c.instruments[i];
      const auto& b = plain.instruments[i];
      expect_same_instrument(a, b);
      EXPECT_EQ(a.mark.line, b.mark.line + (name.rfind("sep=", 0) == 0 ? 1 : 0));
    }
    ASSERT_EQ(c.portfolio.size(), 2u);
    EXPECT_EQ(c.portfolio[1].quantity, plain.portfolio[1].quantity);
    EXPECT_EQ(c.portfolio[1].instrument_index, plain.portfolio[1].instrument_index);
  }
}

/// A CSV text without quotes as columns (Python's DataFrame): the columns named in `numeric` as
/// numbers (NaN where empty), the others as text.
ColumnTable as_columns(const std::string& csv, const std::vector<std::string>& numeric) {
  std::vector<std::vector<std::string>> rows;
  std::size_t at = 0;
  while (at < csv.size()) {
    const std::size_t end = csv.find('\n', at);
    std::vector<std::string> cells;
    const std::string line = csv.substr(at, end - at);
    for (std::size_t c = 0;; c = line.find(',', c) + 1) {
      cells.push_back(line.substr(c, line.find(',', c) - c));
      if (line.find(',', c) == std::string::npos)
        break;
    }
    rows.push_back(cells);
    at = end + 1;
  }
  ColumnTable table{"<instruments>", rows.front(), {}};
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    ColumnCells cells;
    cells.numeric = std::find(numeric.begin(), numeric.end(), table.columns[c]) != numeric.end();
    for (std::size_t r = 1; r < rows.size(); ++r) {
      if (cells.numeric)
        cells.numbers.push_back(rows[r][c].empty() ? std::nan("") : std::stod(rows[r][c]));
      else
        cells.add(rows[r][c]);
    }
    table.cells.push_back(std::move(cells));
  }
  return table;
}

TEST_F(CsvBooks, ColumnsOfNumbersReadAsTheirText) {
  // A DataFrame's float columns reach the book as numbers (no text written and parsed back): each
  // is the number its CSV cell is, an integer field (monitoring, fixings) and an id given as a
  // number read as its shortest text would be; a mistake named by its row and column.
  const std::vector<std::string> numeric = {
      "strike", "maturity",   "cash",        "fixings",          "barrier",
      "rebate", "monitoring", "knock_level", "knock_monitoring", "knock_rebate"};
  // Numbers no float holds exactly, to the last bit.
  const std::string csv = kTradesCsv + "x1,european,call,100.1,0.3,spx_bs,,,,,,,,,,,,,,,,\n";
  const RunConfig plain = load_run_config(book(csv));
  const std::string yaml = write("bare.yaml", kMarket);
  TradeColumns trades;
  trades.instruments = as_columns(csv, numeric);
  const RunConfig c = load_run_config(yaml, trades);
  ASSERT_EQ(c.instruments.size(), plain.instruments.size());
  for (std::size_t i = 0; i < plain.instruments.size(); ++i) {
    SCOPED_TRACE(plain.instruments[i].id);
    expect_same_instrument(c.instruments[i], plain.instruments[i]);
  }
  const auto error = [&](const std::string& csv, std::vector<std::string> numbers) {
    TradeColumns t;
    t.instruments = as_columns(csv, numbers);
    try {
      (void)load_run_config(yaml, t);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string rows = "c1,european,call,100,1,spx_bs\nc2,european,put,inf,1,spx_bs\n";
  EXPECT_EQ(error(kHeader + rows, {"strike", "maturity"}),
            "<instruments>:3:4: strike: must be finite");
  EXPECT_EQ(error(kHeader + "1,european,call,100,1,spx_bs\n1.0,european,put,90,1,spx_bs\n",
                  {"id", "strike", "maturity"}),
            "<instruments>:3:1: id: duplicate id '1' (first at line 2)")
      << "an id given as a number is its shortest text";
  EXPECT_EQ(error(kHeader + "c1,european,1,100,1,spx_bs\n", {"option", "strike"}),
            "<instruments>:2:3: option: must be one of: call, put");
  EXPECT_EQ(error("id,type,option,strike,maturity,model,barrier,barrier_type,monitoring\n"
                  "b1,barrier,call,100,1,spx_bs,80,down_and_out,52.5\n",
                  {"strike", "maturity", "barrier", "monitoring"}),
            "<instruments>:2:9: monitoring: must be an integer");
}

TEST_F(CsvBooks, ExcelsCsvMistakesNameTheirFileLineAndColumn) {
  const std::string semicolons = with_delimiter(kHeader + "c1,european,call,100,1,spx_bs\n", ';');
  // A ;-file read with commas: one column holding ';' says what to set.
  EXPECT_EQ(trades_error(semicolons),
            "D/trades.csv:1:1: the header is one column, 'id;type;option;strike;maturity;model': "
            "its cells look separated by ';', not commas: set {csv: FILE, delimiter: \";\"}, or "
            "make the file's first line sep=;");
  EXPECT_EQ(trades_error("\xEF\xBB\xBF" + with_delimiter(kHeader, '\t') + "c1\teuropean\n"),
            "D/trades.csv:1:1: the header is one column, 'id\ttype\toption\tstrike\tmaturity\t"
            "model': its cells look separated by tabs, not commas: set {csv: FILE, delimiter: "
            "\"\\t\"}, or make the file's first line sep=\\t");
  EXPECT_EQ(trades_error("sep=;\n" + with_delimiter(kHeader, ';') + "c1;european;call;100;1\n"),
            "D/trades.csv:3:6: the row has 5 cells, the header 6");
  EXPECT_EQ(trades_error("sep=|\n" + kHeader), "D/trades.csv:1:1: the first line says sep=|: "
                                               "cells may be separated by ',', ';' or a tab");
  EXPECT_EQ(trades_error("\xFF\xFE" + kHeader),
            "D/trades.csv:1:1: the file is UTF-16 (Excel's \"Unicode text\"): save it as \"CSV "
            "UTF-8\"");
  EXPECT_EQ(trades_error("sep=;\n"),
            "D/trades.csv:2: file is empty (expected a header row of column names)");
  write("trades.csv", "sep=,\n" + kHeader + "c1,european,call,100,1,spx_bs\n");
  EXPECT_EQ(
      error_of(write("book.yaml", kMarket + "instruments: {csv: trades.csv, delimiter: \";\"}\n")),
      "D/trades.csv:1:1: the first line says sep=, but the config's delimiter is ';': drop "
      "one");
  EXPECT_EQ(
      error_of(write("book.yaml", kMarket + "instruments: {csv: trades.csv, delimiter: \"|\"}\n")),
      "D/book.yaml:11:43: instruments.delimiter: must be \",\", \";\" or \"\\t\" (a tab, in "
      "double quotes)");
  // A header whose first column merely starts with "sep=" is a header.
  EXPECT_EQ(trades_error("sep=x,type\n"),
            "D/trades.csv:1:1: unknown column 'sep=x' (expected some of: id, type, option, strike, "
            "maturity, model, cash, average, fixings, fixing_times, barrier, barrier_type, "
            "rebate, monitoring, monitoring_times, payoff, weights, exercise, exercise_dates, "
            "exercise_times, knock_type, knock_level, knock_monitoring, knock_monitoring_times, "
            "knock_rebate)");
}

TEST_F(CsvBooks, RefusesBadCellsAsYamlRefusesBadValues) {
  const auto row = [&](const std::string& header, const std::string& cells) {
    return trades_error(header + cells + "\n");
  };
  EXPECT_EQ(row(kHeader, "c1,european,call,-100,1,spx_bs"),
            "D/trades.csv:2:4: strike: must be > 0");
  EXPECT_EQ(row(kHeader, "c1,european,call,1e400,1,spx_bs"),
            "D/trades.csv:2:4: strike: must be finite");
  EXPECT_EQ(row(kHeader, "c1,european,call,1;2,1,spx_bs"),
            "D/trades.csv:2:4: strike: must be a number");
  EXPECT_EQ(row(kHeader, "c1,europan,call,100,1,spx_bs"),
            "D/trades.csv:2:2: type: must be one of: european, digital, asian, barrier, basket");
  EXPECT_EQ(row(kHeader, "c1,european,call,,1,spx_bs"),
            "D/trades.csv:2:4: strike: must not be empty on this row");
  EXPECT_EQ(row(kHeader, "c1,european,call,100,1,spx"),
            "D/trades.csv:2:6: model: unknown model 'spx' (known: spx_bs, pair)");
  EXPECT_EQ(row(kHeader, "k1,european,call,100,1,pair"),
            "D/trades.csv:2:6: model: 'pair' is a multi_black_scholes model; only basket "
            "instruments price on it");
  EXPECT_EQ(row(kHeader + "c1,european,call,100,1,spx_bs\n", "c1,european,put,100,1,spx_bs"),
            "D/trades.csv:3:1: id: duplicate id 'c1' (first at line 2)");
  EXPECT_EQ(row("id,type,option,strike,maturity,model,cash\n", "c1,european,call,100,1,spx_bs,5"),
            "D/trades.csv:2:7: cash: must be empty on this row (its fields are: id, type, option, "
            "strike, maturity, model, exercise, exercise_dates, exercise_times, knock_type, "
            "knock_level, knock_monitoring, knock_monitoring_times, knock_rebate)");
  EXPECT_EQ(row("id,type,option,strike,maturity,model,fixings\n", "a1,asian,call,100,1,spx_bs,4"),
            "D/trades.csv:2: missing required column 'average'");
  EXPECT_EQ(row("id,type,option,strike,maturity,model,average,fixings,fixing_times\n",
                "a1,asian,call,100,1,spx_bs,arithmetic,,"),
            "D/trades.csv:2: missing required column 'fixings' (or 'fixing_times')");
  EXPECT_EQ(row("id,type,option,strike,maturity,model,average,fixings,fixing_times\n",
                "a1,asian,call,100,1,spx_bs,arithmetic,4,0.5 1"),
            "D/trades.csv:2:9: fixing_times: give either fixings or fixing_times, not both");
  EXPECT_EQ(row("id,type,option,strike,maturity,model,average,fixing_times\n",
                "a1,asian,call,100,1,spx_bs,arithmetic,0.5 0.25"),
            "D/trades.csv:2:8: fixing_times[1]: must be > the previous time 0.5");
  EXPECT_EQ(row("id,type,option,strike,maturity,model,average,fixing_times\n",
                "a1,asian,call,100,1,spx_bs,arithmetic,0.5 2"),
            "D/trades.csv:2:8: fixing_times[1]: must be <= the maturity 1");
  EXPECT_EQ(row("id,type,option,strike,maturity,model,average,fixing_times\n",
                "a1,asian,call,100,1,spx_bs,arithmetic, ; "),
            "D/trades.csv:2:8: fixing_times: must list at least one value (separated by spaces "
            "or ';')");
  EXPECT_EQ(row("id,type,option,strike,maturity,model,payoff,weights\n",
                "k1,basket,call,100,1,pair,weighted,1 2 3"),
            "D/trades.csv:2:8: weights: must have 2 values, one per underlying of 'pair' (got 3)");
  EXPECT_EQ(row("id,type,option,strike,maturity,model,barrier,barrier_type,monitoring\n",
                "b1,barrier,call,100,1,spx_bs,120,down_and_out,12"),
            "D/trades.csv:2:7: barrier: down barrier 120 must be below the spot 100 of SPX");
}

TEST_F(CsvBooks, PositionsResolveAgainstTheTrades) {
  const std::string trades = kHeader + "c1,european,call,100,1,spx_bs\n";
  EXPECT_EQ(
      load_run_config(book(trades, "instrument,quantity\n\"c1\",-2.5\n")).portfolio[0].quantity,
      -2.5);
  EXPECT_EQ(error_of(book(trades, "instrument,quantity\nc2,1\n")),
            "D/positions.csv:2:1: instrument: unknown instrument 'c2' (known: c1)");
  EXPECT_EQ(error_of(book(trades, "instrument,quantity\nc1,0\n")),
            "D/positions.csv:2:2: quantity: must not be 0");
  EXPECT_EQ(error_of(book(trades, "instrument,quantity\nc1,1\nc1,2\n")),
            "D/positions.csv:3:1: instrument: duplicate instrument 'c1' (first at line 2)");
  EXPECT_EQ(error_of(book(trades, "instrument,qty\nc1,1\n")),
            "D/positions.csv:1:2: unknown column 'qty' (expected some of: instrument, quantity)");
  // YAML positions on CSV trades, reported in the YAML file.
  write("trades.csv", trades);
  EXPECT_EQ(error_of(write("mixed.yaml", kMarket + "instruments: {csv: trades.csv}\n"
                                                   "portfolio: [{instrument: c9, quantity: 1}]\n")),
            "D/mixed.yaml:12:26: portfolio[0].instrument: unknown instrument 'c9' (known: c1)");
}

// A large book without quotes is read in pieces on every core, and its rows checked in ranges
// (config/csv_table.cpp, base/parallel_ranges.hpp): the same instruments as one pass, and the
// errors one pass would give, at their lines, whichever piece or range they fall in.
TEST_F(CsvBooks, ALargeBookReadInPiecesGivesOnePasssBookAndErrors) {
  constexpr int kRows = 70'000;
  const auto trades = [](const std::map<int, std::string>& replaced) {
    std::string text = kHeader;
    text.reserve(kRows * 40);
    for (int i = 0; i < kRows; ++i) {
      const auto it = replaced.find(i);
      text += it != replaced.end() ? it->second
                                   : "c" + std::to_string(i) + ",european,call," +
                                         std::to_string(50 + i % 100) + ",1,spx_bs";
      text += '\n';
    }
    return text;
  };
  ASSERT_GT(trades({}).size(), std::size_t(2) << 20); // two pieces' worth
  const RunConfig c = load_run_config(book(trades({})));
  ASSERT_EQ(c.instruments.size(), static_cast<std::size_t>(kRows));
  for (int i = 0; i < kRows; i += 7'919) {
    const auto& in = c.instruments[static_cast<std::size_t>(i)];
    EXPECT_EQ(in.id, "c" + std::to_string(i));
    EXPECT_EQ(in.strike, 50 + i % 100);
    EXPECT_EQ(in.mark.line, i + 2);
  }
  // Blank lines (one in each piece) leave their pieces a row short, closed up after: the rows
  // after them keep their lines.
  const RunConfig blank = load_run_config(book(trades({{10, ""}, {45'000, ""}})));
  ASSERT_EQ(blank.instruments.size(), static_cast<std::size_t>(kRows - 2));
  EXPECT_EQ(blank.instruments[10].id, "c11");
  EXPECT_EQ(blank.instruments[10].mark.line, 13);
  EXPECT_EQ(blank.instruments[44'999].id, "c45001");
  EXPECT_EQ(blank.instruments.back().mark.line, kRows + 1);
  // A quote anywhere: one pass; the same instruments.
  const RunConfig quoted = load_run_config(book(trades({{5, "\"c5\",european,call,55,1,spx_bs"}})));
  ASSERT_EQ(quoted.instruments.size(), c.instruments.size());
  EXPECT_EQ(quoted.instruments.back().id, c.instruments.back().id);
  EXPECT_EQ(quoted.instruments.back().mark.line, c.instruments.back().mark.line);

  EXPECT_EQ(trades_error(trades({{50'000, "x,european,call,100,1"}})),
            "D/trades.csv:50002:6: the row has 5 cells, the header 6");
  EXPECT_EQ(trades_error(trades({{69'999, "x,european,call,100,1,spx_bs,1"}})),
            "D/trades.csv:70001:7: the row has 7 cells, the header 6");
  EXPECT_EQ(trades_error(trades({{59'000, "x,european,call,-1,1,spx_bs"}})),
            "D/trades.csv:59002:4: strike: must be > 0");
  // Two errors: the earlier row's, as one loop over the rows reports it.
  EXPECT_EQ(trades_error(trades({{40'000, "c3,european,call,100,1,spx_bs"},
                                 {55'000, "x,european,call,-1,1,spx_bs"}})),
            "D/trades.csv:40002:1: id: duplicate id 'c3' (first at line 5)");
  EXPECT_EQ(trades_error(trades({{30'000, "x,european,call,-1,1,spx_bs"},
                                 {50'000, "c3,european,call,100,1,spx_bs"}})),
            "D/trades.csv:30002:4: strike: must be > 0");
}

TEST_F(CsvBooks, UnknownNamesListTheFirstTwentyOfALongBook) {
  std::string trades = kHeader;
  for (int i = 0; i < 25; ++i) {
    trades += "c" + std::to_string(i) + ",european,call,100,1,spx_bs\n";
  }
  EXPECT_EQ(error_of(book(trades, "instrument,quantity\nx,1\n")),
            "D/positions.csv:2:1: instrument: unknown instrument 'x' (known: c0, c1, c2, c3, c4, "
            "c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, and 5 more)");
}

} // namespace
} // namespace pfmc::config

// config::read_column over more rows than one thread takes: every cell in row order, the rows
// the parallel reader declines read by the serial one in their places, its error passed on.
TEST(ColumnReader, ReadsEveryRowInOrderAcrossThreadsAndDeclinedCells) {
  const std::size_t n = 5 * pfmc::config::kColumnRowsPerThread + 123;
  const auto text = [](std::size_t row) { return "r" + std::to_string(row); };
  std::atomic<std::size_t> serial_calls{0};
  const pfmc::config::ColumnCells cells = pfmc::config::read_column(
      n,
      [&](std::size_t row, pfmc::config::ColumnCells& c) {
        if (row % 7 == 3 || row == n - 1)
          return false; // left for the serial reader
        c.add(text(row));
        return true;
      },
      [&](std::size_t row, pfmc::config::ColumnCells& c) {
        ++serial_calls;
        c.add("s" + text(row));
      });
  ASSERT_EQ(cells.size(), n);
  std::size_t start = 0, mismatches = 0;
  for (std::size_t row = 0; row < n; ++row) {
    const std::string cell = cells.text.substr(start, cells.ends[row] - start);
    const bool declined = row % 7 == 3 || row == n - 1;
    mismatches += cell != (declined ? "s" : "") + text(row);
    start = cells.ends[row];
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(serial_calls.load(), n / 7 + (n % 7 > 3 ? 1 : 0) + ((n - 1) % 7 == 3 ? 0 : 1));
  EXPECT_THROW(pfmc::config::read_column(
                   n, [](std::size_t, pfmc::config::ColumnCells&) { return false; },
                   [](std::size_t row, pfmc::config::ColumnCells&) {
                     if (row == 40'000)
                       throw std::runtime_error("bad cell");
                   }),
               std::runtime_error);
}
