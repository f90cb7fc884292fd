#pragma once
// A book with one instrument of every payoff kind and its reference price (independent of the
// engine: tests/reference_cases.hpp): shared by the CPU and GPU pricing suites.

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "reference_cases.hpp"
#include "test_support.hpp"

namespace pfmc::testing {

struct BookEntry {
  std::string id;
  std::string yaml;                ///< the instrument's YAML mapping
  std::optional<double> reference; ///< reference price, if any
  double allowance = 0.0;          ///< the reference's stated error on top of kSigmas SEs
  double quantity = 0.0;           ///< in the portfolio (0: not held)
};

/// The standard book's references: its instruments are those of the reference case
/// "black_scholes" (tests/references/make_references.py), whose references for them are
/// closed forms, QuantLib's finite differences (the arithmetic Asian) and the transition-density
/// recursion (the discretely monitored barriers, 52 dates a year). The price reference of `id`
/// there, if any.
inline std::optional<references::Reference> case_reference(const std::string& id) {
  for (const auto& c : references::reference_cases()) {
    if (std::string(c.name) != "black_scholes")
      continue;
    for (const auto& in : c.instruments) {
      if (in.id == id && in.price.front().std_error == 0.0)
        return in.price.front();
    }
  }
  return std::nullopt;
}

/// Flat market: S=100, q=0.02, r=0.05, σ=0.25; `monitoring` dates per year for barriers (the
/// barriers have references at 52 only: the recursion's values are for those dates).
inline std::vector<BookEntry> standard_book(int monitoring) {
  const std::string m = ", maturity: 1, model: bs}\n";
  const std::string mon = ", monitoring: " + std::to_string(monitoring);
  std::vector<BookEntry> book = {
      {"call", "{id: call, type: european, option: call, strike: 100" + m, {}, 0.0, 10},
      {"put", "{id: put, type: european, option: put, strike: 110" + m, {}, 0.0, -5},
      {"digital",
       "{id: digital, type: digital, option: call, strike: 105, cash: 10" + m,
       {},
       0.0,
       2},
      {"geo_asian",
       "{id: geo_asian, type: asian, average: geometric, option: call, strike: 100, fixings: 12" +
           m,
       {},
       0.0,
       3},
      {"arith_asian",
       "{id: arith_asian, type: asian, average: arithmetic, option: put, strike: 100, fixings: 12" +
           m,
       {},
       0.0,
       -3},
      {"down_out_call",
       "{id: down_out_call, type: barrier, option: call, strike: 100, barrier: 85,"
       " barrier_type: down_and_out" +
           mon + m,
       {},
       0.0,
       1},
      {"down_in_call",
       "{id: down_in_call, type: barrier, option: call, strike: 100, barrier: 85,"
       " barrier_type: down_and_in" +
           mon + m,
       {},
       0.0,
       0},
      {"up_out_call",
       "{id: up_out_call, type: barrier, option: call, strike: 100, barrier: 130, rebate: 2,"
       " barrier_type: up_and_out" +
           mon + m,
       {},
       0.0,
       -2},
      {"up_in_put",
       "{id: up_in_put, type: barrier, option: put, strike: 105, barrier: 115, rebate: 1,"
       " barrier_type: up_and_in" +
           mon + m,
       {},
       0.0,
       4},
  };
  for (auto& e : book) {
    const bool barrier = e.yaml.find("barrier_type") != std::string::npos;
    if (barrier && monitoring != 52)
      continue;
    if (const auto ref = case_reference(e.id)) {
      e.reference = ref->value;
      e.allowance = ref->allowance; // the reference's own numerical error, stated by the script
    }
  }
  return book;
}

inline std::string book_yaml(const std::vector<BookEntry>& book, std::uint64_t paths,
                             int steps_per_year, const std::string& engine,
                             const std::string& extra_simulation = "") {
  std::string instruments, portfolio;
  for (const auto& e : book) {
    instruments += "  - " + e.yaml;
    if (e.quantity != 0.0) {
      portfolio += "  - {instrument: " + e.id + ", quantity: " + std::to_string(e.quantity) + "}\n";
    }
  }
  return yaml_run(Market{100.0, 0.02, 0.05, 0.25}, instruments, paths,
                  ", steps_per_year: " + std::to_string(steps_per_year) + extra_simulation, engine,
                  portfolio);
}

/// Checks every priced entry with a reference against it; returns the worst |error|/SE.
inline double expect_matches_references(const std::vector<BookEntry>& book,
                                        const engine::RunResult& result) {
  double worst = 0.0;
  for (const auto& e : book) {
    if (!e.reference)
      continue;
    const auto& r = find(result, e.id);
    EXPECT_TRUE(r.has_std_error) << e.id;
    const double error = std::fabs(r.price - *e.reference);
    EXPECT_LE(error, kSigmas * r.std_error + e.allowance)
        << e.id << ": price " << r.price << " reference " << *e.reference << " std error "
        << r.std_error;
    worst = std::max(worst, (error - e.allowance) / r.std_error);
  }
  return worst;
}

} // namespace pfmc::testing
