#include "config/fields.hpp"

#include <cmath>

namespace pfmc::config::csv {

Cell RowFields::require(std::string_view key) const {
  const int column = table_.column(key);
  if (column < 0) {
    // A column that only some rows need (`average` for an Asian): refused at the row.
    fail_here("missing required column '" + std::string(key) + "'");
  }
  if (table_.empty(row_, column)) {
    fail(at(column), "must not be empty on this row");
  }
  return at(column);
}

std::string_view RowFields::text(const Cell& cell) const {
  if (cell.value == nullptr) {
    return cell.text;
  }
  return written_.emplace_back(Table::number_text(*cell.value));
}

void RowFields::allow_only(const std::vector<std::string>& keys) const {
  const auto& columns = table_.columns();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const int column = static_cast<int>(c);
    if (table_.empty(row_, column)) {
      continue;
    }
    bool known = false;
    for (const auto& k : keys) {
      known = known || columns[c] == k;
    }
    if (!known) {
      fail(at(column), "must be empty on this row (its fields are: " + yaml::join(keys) + ")");
    }
  }
}

void RowFields::refuse_both(std::string_view a, std::string_view b,
                            const std::string& message) const {
  const auto first = find(a);
  const auto second = find(b);
  if (first && second) {
    fail(first->column > second->column ? *first : *second, message);
  }
}

void RowFields::fail(const Cell& cell, const std::string& message) const {
  reader_.fail(where(cell), path(cell), message);
}

std::string RowFields::path(const Cell& cell) const {
  std::string p = table_.columns()[static_cast<std::size_t>(cell.column)];
  if (cell.item >= 0) {
    p += "[" + std::to_string(cell.item) + "]";
  }
  return p;
}

std::vector<Cell> RowFields::list(const Cell& cell) const {
  // Values separated by spaces or semicolons (a comma would end the cell unless quoted).
  std::vector<Cell> items;
  const std::string_view text = this->text(cell);
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t begin = text.find_first_not_of(" \t;", at);
    if (begin == std::string_view::npos) {
      break;
    }
    std::size_t end = text.find_first_of(" \t;", begin);
    end = end == std::string_view::npos ? text.size() : end;
    items.push_back(
        Cell{text.substr(begin, end - begin), cell.column, static_cast<int>(items.size())});
    at = end;
  }
  if (items.empty()) {
    fail(cell, "must list at least one value (separated by spaces or ';')");
  }
  return items;
}

double RowFields::number(const Cell& cell) const {
  const auto value =
      cell.value ? std::optional<double>(*cell.value) : detail::parse_real(cell.text);
  if (!value) {
    fail(cell, "must be a number");
  }
  if (!std::isfinite(*value)) {
    fail(cell, "must be finite");
  }
  return *value;
}

long long RowFields::integer(const Cell& cell, long long lo, long long hi) const {
  const auto checked = detail::check_integer(text(cell), lo, hi);
  if (!checked.value) {
    fail(cell, checked.error);
  }
  return *checked.value;
}

} // namespace pfmc::config::csv
