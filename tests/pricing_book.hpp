#pragma once
// A book with one instrument of every payoff kind and, where one exists, its analytic price:
// shared by the CPU and GPU pricing suites.

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "engine/analytic/analytic.hpp"
#include "test_support.hpp"

namespace pfmc::testing {

struct BookEntry {
  std::string id;
  std::string yaml;                ///< the instrument's YAML mapping
  std::optional<double> reference; ///< analytic price, if any
  double allowance = 0.0;          ///< discretisation allowance on top of kSigmas SEs
  double quantity = 0.0;           ///< in the portfolio (0: not held)
};

/// Flat market: S=100, q=0.02, r=0.05, σ=0.25; `monitoring` dates per year for barriers and
/// `steps_per_year` grid steps (the barriers are monitored on a subset of the grid).
inline std::vector<BookEntry> standard_book(int monitoring) {
  using namespace pfmc::analytic;
  const double S = 100, q = 0.02, r = 0.05, v = 0.25, T = 1.0;
  const double dt = 1.0 / monitoring;
  const auto rr = [&](OptionKind o, BarrierKind b, double K, double H, double rebate) {
    // Broadie-Glasserman-Kou: discrete monitoring every dt ≈ continuous monitoring of a barrier
    // shifted away from the spot by exp(0.5826 σ √dt). Its error is o(√dt). Measured on an
    // H100 with 2^24 paths at 52 dates a year (SE ≈ 0.001-0.004): down-and-out call -0.0021,
    // down-and-in call +0.0008, up-and-out call with rebate -0.0286 (-0.0333 with other draws),
    // up-and-in put -0.0024; the allowances below are those rounded up.
    return reiner_rubinstein_rebate_at_expiry(o, b, S, K, bgk_shifted_barrier(b, H, v, dt), rebate,
                                              T, r, q, v);
  };
  std::vector<double> fixings;
  for (int i = 1; i <= 12; ++i)
    fixings.push_back(i / 12.0);
  const std::string m = ", maturity: 1, model: bs}\n";
  const std::string mon = ", monitoring: " + std::to_string(monitoring);
  std::vector<BookEntry> book = {
      {"call", "{id: call, type: european, option: call, strike: 100" + m,
       black_scholes(OptionKind::call, S, 100, T, r, q, v), 0.0, 10},
      {"put", "{id: put, type: european, option: put, strike: 110" + m,
       black_scholes(OptionKind::put, S, 110, T, r, q, v), 0.0, -5},
      {"digital", "{id: digital, type: digital, option: call, strike: 105, cash: 10" + m,
       cash_or_nothing(OptionKind::call, S, 105, T, r, q, v, 10), 0.0, 2},
      {"geo_asian",
       "{id: geo_asian, type: asian, average: geometric, option: call, strike: 100, fixings: 12" +
           m,
       geometric_asian_discrete(OptionKind::call, S, 100, r, q, v, fixings, T), 0.0, 3},
      {"arith_asian",
       "{id: arith_asian, type: asian, average: arithmetic, option: put, strike: 100, fixings: 12" +
           m,
       std::nullopt, 0.0, -3},
      {"down_out_call",
       "{id: down_out_call, type: barrier, option: call, strike: 100, barrier: 85,"
       " barrier_type: down_and_out" +
           mon + m,
       rr(OptionKind::call, BarrierKind::down_and_out, 100, 85, 0.0), 0.005, 1},
      {"down_in_call",
       "{id: down_in_call, type: barrier, option: call, strike: 100, barrier: 85,"
       " barrier_type: down_and_in" +
           mon + m,
       rr(OptionKind::call, BarrierKind::down_and_in, 100, 85, 0.0), 0.005, 0},
      {"up_out_call",
       "{id: up_out_call, type: barrier, option: call, strike: 100, barrier: 130, rebate: 2,"
       " barrier_type: up_and_out" +
           mon + m,
       rr(OptionKind::call, BarrierKind::up_and_out, 100, 130, 2.0), 0.035, -2},
      {"up_in_put",
       "{id: up_in_put, type: barrier, option: put, strike: 105, barrier: 115, rebate: 1,"
       " barrier_type: up_and_in" +
           mon + m,
       rr(OptionKind::put, BarrierKind::up_and_in, 105, 115, 1.0), 0.005, 4},
  };
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
