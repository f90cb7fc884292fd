#pragma once
// A schedule of times (an Asian's fixings, a knock's monitoring dates, a bermudan's exercise
// dates): increasing, in (0, T]. Immutable and shared: the instruments that have the same
// schedule hold one copy of it (config/schema_products.cpp shares each `fixings: N`,
// `monitoring: N` or `exercise_dates: N` by count and maturity). A book of 100,000 instruments
// with 30,000 daily-monitored barriers held 30,000 vectors of 126 or 252 times — 45 MB of the
// 117 MB it took to load — where it has a handful of distinct schedules; the plan works each
// distinct one out once (engine/plan: `identity()`).

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace pfmc::config {

class Schedule {
public:
  Schedule() = default;
  Schedule(std::vector<double> times) // NOLINT(google-explicit-constructor): a list is a schedule
      : times_(times.empty() ? nullptr
                             : std::make_shared<const std::vector<double>>(std::move(times))) {}

  [[nodiscard]] const std::vector<double>& times() const { return times_ ? *times_ : none(); }
  operator const std::vector<double>&() const { return times(); } // NOLINT: reads as the list
  [[nodiscard]] std::size_t size() const { return times().size(); }
  [[nodiscard]] bool empty() const { return times().empty(); }
  [[nodiscard]] double operator[](std::size_t i) const { return times()[i]; }
  [[nodiscard]] double front() const { return times().front(); }
  [[nodiscard]] double back() const { return times().back(); }
  [[nodiscard]] auto begin() const { return times().begin(); }
  [[nodiscard]] auto end() const { return times().end(); }
  /// The same object for schedules shared by copy (null for an empty one): equal identities
  /// mean equal times; unequal ones may still hold equal times.
  [[nodiscard]] const void* identity() const { return times_.get(); }

  friend bool operator==(const Schedule& a, const Schedule& b) {
    return a.times_ == b.times_ || a.times() == b.times();
  }
  friend bool operator==(const Schedule& a, const std::vector<double>& b) { return a.times() == b; }
  friend bool operator!=(const Schedule& a, const Schedule& b) { return !(a == b); }

private:
  static const std::vector<double>& none() {
    static const std::vector<double> empty;
    return empty;
  }
  std::shared_ptr<const std::vector<double>> times_;
};

} // namespace pfmc::config
