// A large YAML document's long lists parsed in pieces on every core (config/yaml_pieces.hpp):
// what the schema sees (yaml::outline) and what the loader returns or refuses are those of one
// parse of the whole text, for books cut at every item, for the shipped examples, and for the
// forms the cut must leave whole. tests/fuzz/fuzz_config.cpp compares the two on any input.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "base/parallel_ranges.hpp"
#include "config/load_config.hpp"
#include "config/yaml_reader.hpp"

namespace pfmc::config {
namespace {

const yaml::PieceRules kEveryItem = yaml::kPiecesOfOneItem;

struct Reading {
  std::string outline; ///< or the error
  std::size_t pieces = 0;
};

Reading read(const std::string& text, const std::optional<yaml::PieceRules>& rules) {
  yaml::Reader reader = rules ? yaml::Reader("book.yaml", *rules) : yaml::Reader("book.yaml");
  Reading r;
  try {
    const yaml::Located root = reader.document(text);
    r.outline = yaml::outline(reader, root);
  } catch (const ConfigError& e) {
    r.outline = std::string("error: ") + e.what();
  }
  r.pieces = reader.pieces();
  return r;
}

/// What parse_run_config returns (its instruments' ids and marks, positions) or refuses.
std::string loaded(const std::string& text, YamlPieces pieces) {
  try {
    const RunConfig c = parse_run_config(text, "book.yaml", pieces);
    std::ostringstream out;
    out << c.market.underlyings.size() << " underlyings, " << c.models.size() << " models\n";
    for (const auto& in : c.instruments)
      out << in.id << " " << in.strike << " at " << in.mark.line << ":" << in.mark.column << "\n";
    for (const auto& p : c.portfolio)
      out << p.instrument << " x " << p.quantity << "\n";
    return out.str();
  } catch (const ConfigError& e) {
    return std::string("error: ") + e.what();
  }
}

/// A book of `n` underlyings, models and European calls, and a position in each, in the shipped
/// examples' one-line flow style; `line` replaces the instrument of that index.
std::string book(int n, const std::map<int, std::string>& line = {}) {
  std::string text = "# a generated book\nmarket:\n  underlyings:\n";
  for (int i = 0; i < n; ++i)
    text += "    - {name: U" + std::to_string(i) + ", spot: " + std::to_string(50 + i % 50) + "}\n";
  text += "  rates: {zero_rate: 0.05}\nmodels:\n";
  for (int i = 0; i < n; ++i)
    text += "  - {name: m" + std::to_string(i) + ", type: black_scholes, underlying: U" +
            std::to_string(i) + ", volatility: 0.2}\n";
  text += "instruments:\n";
  for (int i = 0; i < n; ++i) {
    const auto it = line.find(i);
    text += it != line.end()
                ? it->second
                : "  - {id: c" + std::to_string(i) +
                      ", type: european, option: call, strike: " + std::to_string(40 + i % 30) +
                      ", maturity: 1, model: m" + std::to_string(i) + "}";
    text += "\n";
  }
  text += "portfolio:\n";
  for (int i = 0; i < n; ++i)
    text += "  - {instrument: c" + std::to_string(i) + ", quantity: 1}\n";
  return text + "simulation: {paths: 1000, steps_per_year: 0}\n";
}

/// The whole text's reading and load against the cut at every item, and (for a large text) by
/// the default rules.
void expect_same_as_whole(const std::string& text, bool expect_cut) {
  const Reading whole = read(text, std::nullopt);
  const Reading cut = read(text, kEveryItem);
  EXPECT_EQ(cut.outline, whole.outline);
  EXPECT_EQ(cut.pieces > 0, expect_cut);
  EXPECT_EQ(whole.pieces, 0u);
  const std::string loaded_whole = loaded(text, YamlPieces::never);
  EXPECT_EQ(loaded(text, YamlPieces::every_item), loaded_whole);
  EXPECT_EQ(loaded(text, YamlPieces::by_size), loaded_whole);
}

TEST(YamlPieces, ABookCutAtEveryItemReadsAsTheWholeText) {
  const std::string text = book(40);
  const Reading cut = read(text, kEveryItem);
  EXPECT_EQ(cut.pieces, 4u * 39); // four lists of 40: each item after the first a piece
  expect_same_as_whole(text, true);
  // Lines: a comment, market:, underlyings:, 40, rates:, models:, 40, instruments:.
  EXPECT_EQ(loaded(text, YamlPieces::every_item).substr(0, 68),
            "40 underlyings, 40 models\nc0 40 at 87:5\nc1 41 at 88:5\nc2 42 at 89:5\n");
}

TEST(YamlPieces, ALargeBookIsCutByDefaultAndKeepsItsLines) {
  const std::string text = book(1'500);
  ASSERT_GT(text.size(), 4 * yaml::PieceRules{}.min_list_bytes);
  yaml::Reader reader("book.yaml", yaml::PieceRules{});
  const yaml::Located root = reader.document(text);
  EXPECT_EQ(reader.split_lists(), 4u);
  EXPECT_GT(reader.pieces(), 4u);
  EXPECT_EQ(yaml::outline(reader, root), read(text, std::nullopt).outline);
  const RunConfig c = parse_run_config(text, "book.yaml");
  ASSERT_EQ(c.instruments.size(), 1'500u);
  EXPECT_EQ(c.instruments[1'499].id, "c1499");
  EXPECT_EQ(c.instruments[1'499].mark.line, 3 + 1'500 + 2 + 1'500 + 1 + 1'500);
  EXPECT_EQ(c.portfolio.size(), 1'500u);
}

// Items over several lines, block style with nested lists, comments and blank lines between
// items (at any indentation), lists at their key's indentation, a short list left whole.
TEST(YamlPieces, ItemsOfEveryLayoutReadAsTheWholeText) {
  const std::string text = "market:\n"
                           "  underlyings:\n"
                           "  - {name: SPX, spot: 100}\n"
                           "# between items, at column 1\n"
                           "\n"
                           "  - name: SX5E\n"
                           "    spot: 50\n"
                           "  -\n"
                           "    name: NKY\n"
                           "    spot: 200   # a comment\n"
                           "  rates: {zero_rate: 0.05}\n"
                           "models:\n"
                           "  - {name: a, type: black_scholes, underlying: SPX,\n"
                           "     volatility: {tenors: [0.5, 1],\n"
                           "                  vols: [0.2, 0.21]}}\n"
                           "  - name: pair\n"
                           "    type: multi_black_scholes\n"
                           "    underlyings:\n"
                           "      - SPX\n"
                           "      - SX5E\n"
                           "    volatilities: [0.2, 0.25]\n"
                           "    correlation:\n"
                           "      - [1, 0.5]\n"
                           "      - [0.5, 1]\n"
                           "instruments:\n"
                           "- {id: c1, type: european, option: call, strike: 100, maturity: 1, "
                           "model: a}\n"
                           "- id: k1\n"
                           "  type: basket\n"
                           "  option: call\n"
                           "  strike: 100\n"
                           "  maturity: 1\n"
                           "  model: pair\n"
                           "  payoff: weighted\n"
                           "  weights:\n"
                           "  - 0.5\n"
                           "  - 0.5\n"
                           "portfolio:\n"
                           "  - {instrument: c1, quantity: 2}\n"
                           "simulation: {paths: 1000}\n";
  expect_same_as_whole(text, true);
  EXPECT_EQ(read(text, kEveryItem).pieces, 2u + 1 + 1); // underlyings 2, models 1, instruments 1
}

// Anything the line scan cannot follow leaves the text whole.
TEST(YamlPieces, FormsThatCouldReachAcrossItemsAreReadWhole) {
  const std::string base = book(6);
  const std::map<std::string, std::string> forms = {
      {"a quoted id", "  - {id: \"c2\", type: european, option: call, strike: 40, maturity: 1, "
                      "model: m2}"},
      {"an anchor", "  - &x {id: c2, type: european, option: call, strike: 40, maturity: 1, "
                    "model: m2}"},
      {"a tag", "  - {id: !!str c2, type: european, option: call, strike: 40, maturity: 1, "
                "model: m2}"},
      {"a tab", "  - {id: c2,\ttype: european, option: call, strike: 40, maturity: 1, model: m2}"},
      {"a carriage return", "  - {id: c2, type: european, option: call, strike: 40, maturity: 1, "
                            "model: m2}\r"},
      {"a document marker", "---"},
      {"non-ASCII content", "  - {id: c\xC3\xA9, type: european, option: call, strike: 40, "
                            "maturity: 1, model: m2}"},
  };
  for (const auto& [what, line] : forms) {
    SCOPED_TRACE(what);
    expect_same_as_whole(book(6, {{2, line}}), false);
  }
  // Non-ASCII in a comment is fine.
  expect_same_as_whole(book(6, {{2, "  # caf\xC3\xA9"}}), true);
  // A null item (a dash with nothing under it): yaml-cpp marks it at the next token, which a
  // piece ends before (found by the config fuzzer). A dash with its item on the next lines is cut.
  // The list that holds one is read whole; the book's three other lists are still cut (5 pieces
  // each).
  for (const std::string& text : {book(6, {{5, "  - # nothing here"}}), book(6, {{2, "  -"}})}) {
    expect_same_as_whole(text, true);
    EXPECT_EQ(read(text, kEveryItem).pieces, 3u * 5);
  }
  expect_same_as_whole(book(6, {{2, "  -\n    {id: c2, type: european, option: call, strike: 40, "
                                    "maturity: 1, model: m2}"}}),
                       true);
  // An item's flow mapping left open reaches into the next item (found by the config fuzzer in
  // CI: the whole text refuses it, a piece read it as a mapping): the list is read whole.
  const std::string open_item =
      "marKet:\n  underlyings:\n    - {name:yings:\n    - {name: SPX, spot: 100}\n    50}\n"
      "  r: SX5E,  rates:ma";
  expect_same_as_whole(open_item, false);
  expect_same_as_whole(book(6, {{2, "  - {id: c2, type: european,\n    option: call, strike: 40, "
                                    "maturity: 1, model: m2}"}}),
                       true);
  // A line in block context that neither holds a key nor starts an item: yaml-cpp takes `t`
  // under `- x:` for a key with no value at the end of a piece, and refuses it in the whole text
  // when a `t` follows the list (found by the config fuzzer in CI). The list is read whole, and
  // so is one whose item is a plain scalar over two lines (the book's other lists are cut).
  expect_same_as_whole("t:\n  - .\n  - x:\n    t\nt\n", false);
  expect_same_as_whole("t:\n  - .\n  - :\n    t\nu: 1\n", false);
  expect_same_as_whole(book(6, {{2, "  - id: c2\n    t"}}), false);
  const std::string two_lines = book(6, {{2, "  - a plain\n    scalar"}});
  expect_same_as_whole(two_lines, true);
  EXPECT_EQ(read(two_lines, kEveryItem).pieces, 3u * 5);
}

// Errors anywhere — in the skeleton, in a piece, across pieces — are the whole text's.
TEST(YamlPieces, ErrorsAreTheWholeTextsWhereverTheyAre) {
  // (what, the broken item, whether the text is still cut: a syntax error anywhere makes a piece
  // or the skeleton fail, and the whole text is parsed for its error)
  const std::vector<std::tuple<std::string, std::string, bool>> broken = {
      {"a key that is no string",
       "  - {id: c7, type: european, option: call, strike: 40,, model: m7}", true},
      {"an unclosed flow", "  - {id: c7, type: european, option: call, strike: 40, maturity: 1,",
       false},
      {"a repeated id",
       "  - {id: c3, type: european, option: call, strike: 40, maturity: 1, model: m7}", true},
      {"a bad value",
       "  - {id: c7, type: european, option: call, strike: -4, maturity: 1, model: m7}", true},
      {"a repeated key",
       "  - {id: c7, id: c8, type: european, option: call, strike: 4, maturity: 1, model: m7}",
       true},
      {"an item over-indented", "   - {id: c7}", false},
      {"a key at the items' column", "  id: c7", false},
      {"a mapping's key under the list", "  foo: 1\n  - {id: c8}", false},
      {"a second key line", "instruments:\n  - {id: c8}", true},
  };
  for (const auto& [what, line, cut] : broken) {
    SCOPED_TRACE(what);
    const std::string text = book(12, {{7, line}});
    expect_same_as_whole(text, cut);
    const std::string error = loaded(text, YamlPieces::every_item);
    EXPECT_EQ(error.rfind("error: book.yaml:", 0), 0u) << error;
  }
}

TEST(YamlItems, ALongListReadOnThreadsGivesOneLoopsErrors) {
  constexpr int n = 2'500; // five threads' worth (yaml::kItemsPerThread)
  const auto instrument = [](int i, const std::string& id, const std::string& strike) {
    return "  - {id: " + id + ", type: european, option: call, strike: " + strike +
           ", maturity: 1, model: m" + std::to_string(i) + "}";
  };
  const auto at = [&](int i, const std::string& line, const std::string& key) {
    return std::to_string(2 * n + 7 + i) + ":" +
           std::to_string(line.find(key + ": ") + key.size() + 3);
  };
  const std::string bad_strike = instrument(2'000, "c2000", "-4");
  const std::string repeat = instrument(1'500, "c3", "40");
  const std::string strike_error = "error: book.yaml:" + at(2'000, bad_strike, "strike") +
                                   ": instruments[2000].strike: must be > 0";
  const std::string repeat_error = "error: book.yaml:" + at(1'500, repeat, "id") +
                                   ": instruments[1500].id: duplicate id 'c3' (first at line " +
                                   std::to_string(2 * n + 7 + 3) + ")";
  EXPECT_EQ(loaded(book(n, {{2'000, bad_strike}, {1'500, repeat}}), YamlPieces::never),
            repeat_error);
  EXPECT_EQ(loaded(book(n, {{2'000, bad_strike}}), YamlPieces::never), strike_error);
  const std::string late_repeat = instrument(2'200, "c3", "40");
  EXPECT_EQ(loaded(book(n, {{2'000, bad_strike}, {2'200, late_repeat}}), YamlPieces::by_size),
            strike_error);
  const std::string both = instrument(2'000, "c3", "-4");
  EXPECT_EQ(loaded(book(n, {{2'000, both}}), YamlPieces::by_size),
            "error: book.yaml:" + at(2'000, both, "strike") +
                ": instruments[2000].strike: must be > 0");

  // A model that repeats a name and names an unknown underlying: the repeat, as one loop adds
  // the name before it resolves the underlying.
  std::string text = book(n);
  const std::string model =
      "  - {name: m7, type: black_scholes, underlying: nowhere, volatility: 0.2}";
  const std::string line_2100 =
      "  - {name: m2100, type: black_scholes, underlying: U2100, volatility: 0.2}";
  text.replace(text.find(line_2100), line_2100.size(), model);
  EXPECT_EQ(loaded(text, YamlPieces::by_size),
            "error: book.yaml:" + std::to_string(n + 6 + 2'100) +
                ":12: models[2100].name: duplicate name 'm7' (first at line " +
                std::to_string(n + 6 + 7) + ")");
}

// The pieces' parse stands on parallel_items: every item done when none fails, and a failure
// reported whichever thread meets it and whenever (the fuzzer found a helper's late failure lost:
// the errors were read before the helpers were joined).
TEST(ParallelItems, DoesEveryItemOrReportsAFailure) {
  for (int round = 0; round < 200; ++round) {
    std::vector<std::atomic<int>> done(50);
    EXPECT_EQ(base::parallel_items(done.size(), 4, [&](std::size_t i) { ++done[i]; }), nullptr);
    for (const auto& d : done)
      ASSERT_EQ(d.load(), 1);
    const std::size_t failing = static_cast<std::size_t>(round) % done.size();
    const auto error = base::parallel_items(done.size(), 4, [&](std::size_t i) {
      if (i == failing) {
        std::this_thread::sleep_for(std::chrono::microseconds(round % 7 == 0 ? 200 : 0));
        throw std::runtime_error("item " + std::to_string(i));
      }
    });
    ASSERT_NE(error, nullptr) << "round " << round;
  }
  EXPECT_EQ(base::parallel_items(0, 4, [](std::size_t) { throw 1; }), nullptr);
}

TEST(YamlPieces, TheShippedExamplesReadAsWhole) {
  int cut = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(PFMC_SOURCE_DIR "/config/examples")) {
    if (entry.path().extension() != ".yaml")
      continue;
    SCOPED_TRACE(entry.path().string());
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const Reading whole = read(text.str(), std::nullopt);
    const Reading every = read(text.str(), kEveryItem);
    EXPECT_EQ(every.outline, whole.outline);
    cut += every.pieces > 0;
  }
  EXPECT_GE(cut, 5); // most examples have lists of two or more items under `key:` lines
}

} // namespace
} // namespace pfmc::config
