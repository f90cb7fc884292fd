#pragma once
// Static arbitrage in a set of implied-vol quotes, found before any surface is fitted to them:
//  - calendar: the total implied variance w = vol^2 T must not fall from one expiry to the next
//    at the same forward moneyness k = ln(K / F(T)) (a later expiry's quote against the earlier
//    expiry's smile, linear in k between its quotes, and the other way round);
//  - butterfly: at each expiry the call prices must be convex in the strike (a non-negative
//    density), and fall with it no faster than the discounted strike does (each a vertical
//    spread worth between 0 and the discounted strike difference).
// A violation names the quotes that make it, by their index in the input.

#include <cstddef>
#include <string>
#include <vector>

#include "engine/market/heston_calibration.hpp"

namespace pfmc::market {

struct ArbitrageViolation {
  enum class Kind { calendar, butterfly, vertical };
  Kind kind;
  std::vector<std::size_t> quotes; ///< the quotes that make it, by index
  double amount;                   ///< by how much: variance for calendar, price otherwise
  std::string what;                ///< in words, the quotes' expiries and strikes included
};

/// The violations among `quotes` (any order; an (expiry, strike) at most once). `tolerance`
/// is what a difference must pass to count, relative to the spot (prices) or to the larger
/// variance (calendar): the quotes' own rounding.
std::vector<ArbitrageViolation> find_arbitrage(const std::vector<VolQuote>& quotes,
                                               const QuoteMarket& market, double tolerance = 1e-10);

const char* to_string(ArbitrageViolation::Kind kind);

} // namespace pfmc::market
