// market.implied_vols: implied-vol quotes as desks hold them (issue 62), a grid in the YAML or
// rows of a CSV file, checked as they are read: a known underlying, positive expiries and
// strikes, vols in (0, 5], expiries and strikes in increasing order, each quote once.

#include <string>
#include <utility>

#include "config/fields.hpp"
#include "config/key_reference.hpp"
#include "config/schema.hpp"

namespace pfmc::config::schema {

using yaml::Entry;
using yaml::Located;
using yaml::Mapping;
using yaml::Reader;

namespace {

/// The index of the underlying `name` in `underlyings`, or -1.
int underlying_index(const std::vector<Underlying>& underlyings, const std::string& name) {
  for (std::size_t i = 0; i < underlyings.size(); ++i) {
    if (underlyings[i].name == name)
      return static_cast<int>(i);
  }
  return -1;
}

/// A vol, in (0, 5] (as a model's volatility is).
template <class Source, class Where>
double quoted_vol(const Source& source, const Where& where) {
  const double value = source.positive(where);
  if (value > 5.0)
    source.fail(where, "must be <= 5");
  return value;
}

/// The set of `name`, refused at `where` when another item gave it quotes already.
template <class Fail>
ImpliedVols& set_of(std::vector<ImpliedVols>& sets, const std::string& name, int index,
                    const std::string& file, Fail fail) {
  for (const auto& set : sets) {
    if (set.underlying == name)
      fail("quotes for '" + name + "' are given twice (first in " + set.file + "): give each " +
           "underlying's quotes in one place");
  }
  sets.push_back({name, index, file, QuoteCoordinate::strike, {}});
  return sets.back();
}

/// The grid's options, in the one coordinate it gives them by (set in `coordinate`): `strikes`
/// (increasing, > 0), `log_moneyness` (increasing) or `deltas` (forward call deltas in (0, 1),
/// decreasing: higher strikes have lower call deltas).
std::vector<double> places(const Reader& reader, const Mapping& m, QuoteCoordinate& coordinate) {
  const char* const keys[] = {"strikes", "log_moneyness", "deltas"};
  const Entry* given = nullptr;
  for (std::size_t i = 0; i < 3; ++i) {
    const Entry* e = m.find(keys[i]);
    if (e == nullptr)
      continue;
    if (given != nullptr)
      reader.fail(e->value, std::string("give one of strikes, log_moneyness or deltas, not ") +
                                given->key + " and " + keys[i]);
    given = e;
    coordinate = static_cast<QuoteCoordinate>(i);
  }
  if (given == nullptr)
    reader.fail(m.where(), "missing required key 'strikes' (or 'log_moneyness', or 'deltas')");
  switch (coordinate) {
  case QuoteCoordinate::strike:
    return reader.increasing(given->value, "strike",
                             [&reader](const Located& item) { return reader.positive(item); });
  case QuoteCoordinate::log_moneyness:
    return reader.increasing(given->value, "log_moneyness",
                             [&reader](const Located& item) { return reader.number(item); });
  case QuoteCoordinate::delta:
    break;
  }
  std::vector<double> deltas;
  for (const Located& item : reader.non_empty_list(given->value)) {
    const double d = reader.number(item);
    if (!(d > 0.0 && d < 1.0))
      reader.fail(item, "must be in (0, 1): a forward call delta N(d1)");
    if (!deltas.empty() && !(d < deltas.back()))
      reader.fail(item, "must be < the delta before it, " + yaml::format_number(deltas.back()) +
                            ": give call deltas decreasing (strikes increasing)");
    deltas.push_back(d);
  }
  return deltas;
}

/// `{underlying, expiries, strikes, vols}`: vols[i][j] at expiries[i], strikes[j].
void grid(const Reader& reader, const Located& where, const std::vector<Underlying>& underlyings,
          std::vector<ImpliedVols>& sets) {
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("market.implied_vols[]"));
  const Located& name_at = m.require("underlying").value;
  const std::string name = reader.name(name_at);
  const int index = underlying_index(underlyings, name);
  if (index < 0)
    reader.fail(name_at,
                "unknown underlying '" + name + "' (known: " + known_names(underlyings) + ")");
  ImpliedVols& set = set_of(sets, name, index, reader.file(),
                            [&](const std::string& message) { reader.fail(name_at, message); });
  const std::vector<double> expiries =
      reader.increasing_times(m.require("expiries").value, "expiry");
  const std::vector<double> strikes = places(reader, m, set.coordinate);
  const auto rows =
      reader.sized_list(m.require("vols").value, expiries.size(), "rows, one per expiry");
  for (std::size_t i = 0; i < expiries.size(); ++i) {
    const auto items = reader.sized_list(rows[i], strikes.size(), "vols, one per strike");
    for (std::size_t j = 0; j < strikes.size(); ++j)
      set.quotes.push_back({expiries[i], strikes[j], quoted_vol(reader, items[j]), items[j].mark});
  }
}

/// `{csv: FILE}`: a row a quote, an underlying's rows by expiry then strike.
void table(const Reader& reader, const Located& where, const std::vector<Underlying>& underlyings,
           std::vector<ImpliedVols>& sets) {
  const auto table = csv_section(reader, where);
  const Reader csv_reader(table->file());
  check_header(csv_reader, *table,
               {"underlying", "expiry", "strike", "log_moneyness", "delta", "vol"},
               {"underlying", "expiry", "vol"});
  // The options' coordinate: the one column of strike, log_moneyness and delta the header has.
  const char* const coordinates[] = {"strike", "log_moneyness", "delta"};
  int coordinate = -1;
  for (int i = 0; i < 3; ++i) {
    if (table->column(coordinates[i]) < 0)
      continue;
    if (coordinate >= 0)
      csv_reader.fail(table->mark(-1, table->column(coordinates[i])), "",
                      std::string("give one of the columns strike, log_moneyness or delta, not ") +
                          coordinates[coordinate] + " and " + coordinates[i]);
    coordinate = i;
  }
  if (coordinate < 0)
    csv_reader.fail(table->mark(-1, 0), "",
                    "missing required column 'strike' (or 'log_moneyness', or 'delta')");
  const char* const place = coordinates[coordinate];
  // Increasing strikes: call deltas decrease along them.
  const double order = coordinate == 2 ? -1.0 : 1.0;
  if (table->rows() == 0)
    csv_reader.fail(table->mark(-1, 0), "", "no quotes (the file has only a header)");
  const std::size_t first_new = sets.size(); // the sets this file adds
  for (std::size_t row = 0; row < table->rows(); ++row) {
    const csv::RowFields f(*table, csv_reader, row);
    const csv::Cell name_at = f.require("underlying");
    const std::string name = f.name(name_at);
    const int index = underlying_index(underlyings, name);
    if (index < 0)
      f.fail(name_at,
             "unknown underlying '" + name + "' (known: " + known_names(underlyings) + ")");
    ImpliedVols* set = nullptr;
    for (std::size_t s = first_new; s < sets.size(); ++s) {
      if (sets[s].underlying == name)
        set = &sets[s];
    }
    if (set == nullptr) {
      set = &set_of(sets, name, index, table->file(),
                    [&](const std::string& message) { f.fail(name_at, message); });
      set->coordinate = static_cast<QuoteCoordinate>(coordinate);
    }
    const csv::Cell expiry_at = f.require("expiry");
    const csv::Cell strike_at = f.require(place);
    const csv::Cell vol_at = f.require("vol");
    VolQuoteConfig q;
    q.expiry = f.positive(expiry_at);
    q.strike = coordinate == 0 ? f.positive(strike_at) : f.number(strike_at);
    if (coordinate == 2 && !(q.strike > 0.0 && q.strike < 1.0))
      f.fail(strike_at, "must be in (0, 1): a forward call delta N(d1)");
    q.vol = quoted_vol(f, vol_at);
    q.mark = table->mark(static_cast<std::ptrdiff_t>(row), table->column("vol"));
    if (!set->quotes.empty()) {
      const VolQuoteConfig& before = set->quotes.back();
      const std::string earlier = " (line " + std::to_string(before.mark.line) + ")";
      if (q.expiry < before.expiry)
        f.fail(expiry_at, "must be >= the expiry of " + name + "'s previous quote, " +
                              yaml::format_number(before.expiry) + earlier +
                              ": give an underlying's quotes by expiry, then strike");
      if (q.expiry == before.expiry && q.strike == before.strike)
        f.fail(strike_at, "repeats " + name + "'s quote at expiry " +
                              yaml::format_number(q.expiry) + ", " + place + " " +
                              yaml::format_number(q.strike) + earlier);
      if (q.expiry == before.expiry && order * q.strike < order * before.strike)
        f.fail(strike_at, std::string("must be ") + (order > 0 ? ">" : "<") + " the " + place +
                              " of " + name + "'s previous quote at this expiry, " +
                              yaml::format_number(before.strike) + earlier +
                              ": give an expiry's quotes by strike" +
                              (order > 0 ? "" : " (call deltas decreasing)"));
    }
    set->quotes.push_back(q);
  }
}

} // namespace

std::vector<ImpliedVols> implied_vols(const Reader& reader, const Located& where,
                                      const std::vector<Underlying>& underlyings) {
  std::vector<ImpliedVols> sets;
  for (const Located& item : reader.non_empty_list(where)) {
    const bool names_a_file = item.node.IsMap() && Mapping(reader, item).find("csv") != nullptr;
    if (names_a_file)
      table(reader, item, underlyings, sets);
    else
      grid(reader, item, underlyings, sets);
  }
  return sets;
}

} // namespace pfmc::config::schema
