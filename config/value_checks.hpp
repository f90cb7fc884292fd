#pragma once
// The range checks on numbers that every source of values shares, internal to config/: a YAML
// node (yaml::Reader) and a CSV cell (csv_fields.hpp) refuse a value out of range with the same
// words. `Self` supplies number(where), list(where), non_empty_list(where) and
// fail(where, message).

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace pfmc::config {

namespace yaml {
std::string format_number(double value); // yaml_reader.cpp
}

template <class Self, class Where>
class ValueChecks {
public:
  [[nodiscard]] double positive(const Where& where) const {
    const double value = self().number(where);
    if (!(value > 0.0)) {
      self().fail(where, "must be > 0");
    }
    return value;
  }
  [[nodiscard]] double non_negative(const Where& where) const {
    const double value = self().number(where);
    if (!(value >= 0.0)) {
      self().fail(where, "must be >= 0");
    }
    return value;
  }
  [[nodiscard]] double at_most_one_in_magnitude(const Where& where) const {
    const double value = self().number(where);
    if (!(std::fabs(value) <= 1.0)) {
      self().fail(where, "must be between -1 and 1");
    }
    return value;
  }
  /// A non-empty, strictly increasing list whose values each pass `check` (a reader of one
  /// value); `what` names a value in the message: `must be > the previous time 0.5`.
  template <class Check>
  [[nodiscard]] std::vector<double> increasing(const Where& where, const char* what,
                                               Check check) const {
    std::vector<double> values;
    for (const auto& item : self().non_empty_list(where)) {
      const double v = check(item);
      if (!values.empty() && !(v > values.back())) {
        self().fail(item, "must be > the previous " + std::string(what) + " " +
                              yaml::format_number(values.back()));
      }
      values.push_back(v);
    }
    return values;
  }
  /// A list of exactly `n` items: `must have 3 values, one per tenor (got 2)`, where `what` is
  /// "values, one per tenor".
  [[nodiscard]] auto sized_list(const Where& where, std::size_t n, const std::string& what) const {
    auto items = self().list(where);
    if (items.size() != n) {
      self().fail(where, "must have " + std::to_string(n) + " " + what + " (got " +
                             std::to_string(items.size()) + ")");
    }
    return items;
  }
  /// A strictly increasing, positive list of year fractions (tenors, fixing times).
  [[nodiscard]] std::vector<double> increasing_times(const Where& where, const char* what) const {
    return increasing(where, what, [this](const Where& item) { return positive(item); });
  }

private:
  const Self& self() const { return static_cast<const Self&>(*this); }
};

} // namespace pfmc::config
