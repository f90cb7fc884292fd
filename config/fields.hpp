#pragma once
// One record's named fields, from a YAML mapping or a CSV row, internal to config/: the
// instrument and position schema (schema_products.cpp) is written once against this interface
// and reads either. A field is a YAML node (yaml::Located) or a CSV cell (csv::Cell); both
// sources refuse a bad value with the same words, at the value's own file, line and column.
//
//   find(key)              the field, or nothing (an empty CSV cell is nothing)
//   require(key)           the field, or `missing required key/column 'key'`
//   allow_only(keys)       refuses a field not in `keys`
//   refuse_both(a, b, m)   refuses fields `a` and `b` given together, at the later one
//   list(f), non_empty_list(f), sized_list(f, n, what)   the items of a list field
//   name, number, positive, non_negative, integer, choice, increasing_times   typed reads
//   fail(f, message), fail_here(message), mark()          errors; where the record is
//   kind_of_key()          "key" or "column", for messages
//   add(table, f, name), resolve(table, f, name, kind)    unique names and references to them
//   flat_knock             true: a knock is `knock_*` columns; false: a `knock` mapping, read
//                          through nested(f)

#include <array>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/csv_table.hpp"
#include "config/number_syntax.hpp"
#include "config/value_checks.hpp"
#include "config/yaml_reader.hpp"

namespace pfmc::config {

/// A mapping of a YAML file.
class YamlFields {
public:
  using Field = yaml::Located;

  /// A knock is a nested mapping (`knock: {type: ..., level: ...}`), not `knock_*` keys.
  static constexpr bool flat_knock = false;

  YamlFields(const yaml::Reader& reader, const yaml::Located& where)
      : reader_(reader), m_(reader.mapping(where)) {}

  /// The fields of a mapping-valued field (refused, where it is, when it is not a mapping).
  [[nodiscard]] YamlFields nested(const Field& f) const { return YamlFields(reader_, f); }

  [[nodiscard]] const Field* find(std::string_view key) const {
    const yaml::Entry* e = m_.find(key);
    return e == nullptr ? nullptr : &e->value;
  }
  [[nodiscard]] const Field& require(std::string_view key) const { return m_.require(key).value; }
  void allow_only(const std::vector<std::string>& keys) const { m_.allow_only(keys); }
  void refuse_both(std::string_view a, std::string_view b, const std::string& message) const {
    m_.refuse_both(m_.find(a), m_.find(b), message);
  }
  [[nodiscard]] SourceMark mark() const { return m_.where().mark; }
  [[nodiscard]] static const char* kind_of_key() { return "key"; }
  [[noreturn]] void fail(const Field& f, const std::string& message) const {
    reader_.fail(f, message);
  }
  [[noreturn]] void fail_here(const std::string& message) const {
    reader_.fail(m_.where(), message);
  }

  [[nodiscard]] std::vector<Field> list(const Field& f) const { return reader_.list(f); }
  [[nodiscard]] std::vector<Field> sized_list(const Field& f, std::size_t n,
                                              const std::string& what) const {
    return reader_.sized_list(f, n, what);
  }
  [[nodiscard]] std::string name(const Field& f) const { return reader_.name(f); }
  [[nodiscard]] double number(const Field& f) const { return reader_.number(f); }
  [[nodiscard]] double positive(const Field& f) const { return reader_.positive(f); }
  [[nodiscard]] double non_negative(const Field& f) const { return reader_.non_negative(f); }
  [[nodiscard]] long long integer(const Field& f, long long lo, long long hi) const {
    return reader_.integer(f, lo, hi);
  }
  template <class Enum, std::size_t N>
  [[nodiscard]] Enum choice(const Field& f, const std::array<Enum, N>& values) const {
    return reader_.choice(f, values);
  }
  [[nodiscard]] std::vector<double> increasing_times(const Field& f, const char* what) const {
    return reader_.increasing_times(f, what);
  }
  int add(yaml::NameTable& table, const Field& f, const std::string& name) const {
    return table.add(name, f);
  }
  int resolve(const yaml::NameTable& table, const Field& f, const std::string& name,
              const char* kind) const {
    return table.resolve(name, f, kind);
  }

private:
  const yaml::Reader& reader_;
  yaml::Mapping m_;
};

namespace csv {

/// A cell of a row, or one value of a list cell (`0.25 0.5 1` or `0.25;0.5;1`).
struct Cell {
  std::string_view text; ///< empty for a cell of a numeric column: RowFields::text writes it
  int column = 0;
  int item = -1;                 ///< the value's index in its list cell; -1 for the cell itself
  const double* value = nullptr; ///< a numeric column's cell's number (Table::numbers)
};

/// One row of a CSV table. `reader` names the CSV file in errors.
class RowFields : public ValueChecks<RowFields, Cell> {
public:
  using Field = Cell;
  /// A cell holds no mapping: a knock is given in `knock_*` columns.
  static constexpr bool flat_knock = true;

  RowFields(const Table& table, const yaml::Reader& reader, std::size_t row)
      : table_(table), reader_(reader), row_(row) {}

  [[nodiscard]] std::optional<Cell> find(std::string_view key) const {
    const int column = table_.column(key);
    if (column < 0 || table_.empty(row_, column)) {
      return std::nullopt;
    }
    return at(column);
  }
  [[nodiscard]] Cell require(std::string_view key) const;
  /// Refuses a non-empty cell whose column is not in `keys` (`cash` on a European).
  void allow_only(const std::vector<std::string>& keys) const;
  void refuse_both(std::string_view a, std::string_view b, const std::string& message) const;
  /// The row's line (no column: the row as a whole).
  [[nodiscard]] SourceMark mark() const {
    return {table_.mark(static_cast<std::ptrdiff_t>(row_), 0).line, 0};
  }
  [[nodiscard]] static const char* kind_of_key() { return "column"; }
  [[noreturn]] void fail(const Cell& cell, const std::string& message) const;
  [[noreturn]] void fail_here(const std::string& message) const {
    reader_.fail(mark(), "", message);
  }

  [[nodiscard]] std::vector<Cell> list(const Cell& cell) const;
  [[nodiscard]] std::vector<Cell> non_empty_list(const Cell& cell) const { return list(cell); }
  [[nodiscard]] std::string name(const Cell& cell) const { return std::string(text(cell)); }
  [[nodiscard]] double number(const Cell& cell) const;
  [[nodiscard]] long long integer(const Cell& cell, long long lo, long long hi) const;
  template <class Enum, std::size_t N>
  [[nodiscard]] Enum choice(const Cell& cell, const std::array<Enum, N>& values) const;
  int add(yaml::NameTable& table, const Cell& cell, const std::string& name) const {
    return table.add(name, where(cell), path(cell));
  }
  int resolve(const yaml::NameTable& table, const Cell& cell, const std::string& name,
              const char* kind) const {
    return table.resolve(name, where(cell), path(cell), kind);
  }

private:
  [[nodiscard]] Cell at(int column) const {
    const double* values = table_.numbers(column);
    return Cell{table_.cell(row_, column), column, -1, values ? values + row_ : nullptr};
  }
  /// A cell's text; a numeric column's written here once asked for (a name, a list, a choice or
  /// an integer given as a number), kept as long as this row's fields.
  [[nodiscard]] std::string_view text(const Cell& cell) const;
  [[nodiscard]] SourceMark where(const Cell& cell) const {
    return table_.mark(static_cast<std::ptrdiff_t>(row_), cell.column);
  }
  /// The column's name, with the item's index for a value of a list: `fixing_times[2]`.
  [[nodiscard]] std::string path(const Cell& cell) const;

  const Table& table_;
  const yaml::Reader& reader_;
  std::size_t row_;
  mutable std::deque<std::string> written_; // numbers' text (stable while cells refer to it)
};

template <class Enum, std::size_t N>
Enum RowFields::choice(const Cell& cell, const std::array<Enum, N>& values) const {
  const std::string_view written = text(cell);
  for (Enum v : values) {
    if (written == to_string(v)) {
      return v;
    }
  }
  std::vector<std::string> spellings;
  for (Enum v : values) {
    spellings.emplace_back(to_string(v));
  }
  fail(cell, "must be one of: " + yaml::join(spellings));
}

} // namespace csv

} // namespace pfmc::config
