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
  sets.push_back({name, index, file, {}});
  return sets.back();
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
  const std::vector<double> strikes =
      reader.increasing(m.require("strikes").value, "strike",
                        [&reader](const Located& item) { return reader.positive(item); });
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
  const std::vector<std::string> columns = {"underlying", "expiry", "strike", "vol"};
  check_header(csv_reader, *table, columns, columns);
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
    if (set == nullptr)
      set = &set_of(sets, name, index, table->file(),
                    [&](const std::string& message) { f.fail(name_at, message); });
    const csv::Cell expiry_at = f.require("expiry");
    const csv::Cell strike_at = f.require("strike");
    const csv::Cell vol_at = f.require("vol");
    VolQuoteConfig q;
    q.expiry = f.positive(expiry_at);
    q.strike = f.positive(strike_at);
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
                              yaml::format_number(q.expiry) + ", strike " +
                              yaml::format_number(q.strike) + earlier);
      if (q.expiry == before.expiry && q.strike < before.strike)
        f.fail(strike_at, "must be > the strike of " + name + "'s previous quote at this " +
                              "expiry, " + yaml::format_number(before.strike) + earlier +
                              ": give an expiry's quotes by strike");
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
