#include "engine/market/arbitrage.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/market/implied_vol.hpp"

namespace pfmc::market {

namespace {

/// One expiry's quotes by strike.
struct Smile {
  double expiry = 0.0;
  double forward = 0.0;
  double discount = 0.0;
  std::vector<std::size_t> quotes; ///< into the input, by strike
};

std::string describe(const VolQuote& q) {
  char text[96];
  std::snprintf(text, sizeof text, "(expiry %g, strike %g, vol %g)", q.expiry, q.strike, q.vol);
  return text;
}

double variance(const VolQuote& q) {
  return q.vol * q.vol * q.expiry;
}

/// Whether `k` lies within `smile`'s moneyness, and its total variance there, linear in k.
bool variance_at(const Smile& smile, const std::vector<VolQuote>& quotes, double k, double& w,
                 std::size_t& left, std::size_t& right) {
  const auto moneyness = [&](std::size_t i) {
    return std::log(quotes[smile.quotes[i]].strike / smile.forward);
  };
  const std::size_t n = smile.quotes.size();
  if (n == 0 || k < moneyness(0) || k > moneyness(n - 1))
    return false;
  std::size_t j = 0;
  while (j + 1 < n && moneyness(j + 1) < k)
    ++j;
  left = smile.quotes[j];
  right = smile.quotes[std::min(j + 1, n - 1)];
  const double k0 = moneyness(j), k1 = j + 1 < n ? moneyness(j + 1) : k0;
  const double w0 = variance(quotes[left]), w1 = variance(quotes[right]);
  w = k1 > k0 ? w0 + (w1 - w0) * (k - k0) / (k1 - k0) : w0;
  return true;
}

} // namespace

const char* to_string(ArbitrageViolation::Kind kind) {
  switch (kind) {
  case ArbitrageViolation::Kind::calendar:
    return "calendar";
  case ArbitrageViolation::Kind::butterfly:
    return "butterfly";
  case ArbitrageViolation::Kind::vertical:
    return "vertical spread";
  }
  return "?";
}

std::vector<ArbitrageViolation> find_arbitrage(const std::vector<VolQuote>& quotes,
                                               const QuoteMarket& market, double tolerance) {
  std::map<double, Smile> by_expiry;
  for (std::size_t i = 0; i < quotes.size(); ++i) {
    Smile& s = by_expiry[quotes[i].expiry];
    s.expiry = quotes[i].expiry;
    s.quotes.push_back(i);
  }
  std::vector<Smile> smiles;
  for (auto& [expiry, s] : by_expiry) {
    s.forward = forward_of(market, expiry);
    s.discount = discount_of(market, expiry);
    std::sort(s.quotes.begin(), s.quotes.end(),
              [&](std::size_t a, std::size_t b) { return quotes[a].strike < quotes[b].strike; });
    smiles.push_back(s);
  }
  std::vector<ArbitrageViolation> found;
  const double price_tolerance = tolerance * market.spot;

  // Butterflies and vertical spreads, expiry by expiry, on the call prices.
  for (const Smile& s : smiles) {
    std::vector<double> calls;
    for (const std::size_t i : s.quotes) {
      const VolQuote& q = quotes[i];
      calls.push_back(
          black_price(OptionKind::call, s.forward, q.strike, q.expiry, q.vol, s.discount));
    }
    for (std::size_t j = 0; j + 1 < s.quotes.size(); ++j) {
      const VolQuote& a = quotes[s.quotes[j]];
      const VolQuote& b = quotes[s.quotes[j + 1]];
      const double spread = calls[j] - calls[j + 1]; // the call spread: in [0, D (Kb - Ka)]
      const double most = s.discount * (b.strike - a.strike);
      if (spread < -price_tolerance || spread > most + price_tolerance) {
        found.push_back({ArbitrageViolation::Kind::vertical,
                         {s.quotes[j], s.quotes[j + 1]},
                         spread < 0 ? -spread : spread - most,
                         "the call spread " + describe(a) + " - " + describe(b) + " is worth " +
                             std::to_string(spread) + ", outside [0, " + std::to_string(most) +
                             "]"});
      }
    }
    for (std::size_t j = 1; j + 1 < s.quotes.size(); ++j) {
      const VolQuote& a = quotes[s.quotes[j - 1]];
      const VolQuote& b = quotes[s.quotes[j]];
      const VolQuote& c = quotes[s.quotes[j + 1]];
      // C(Kb) <= the chord of C(Ka), C(Kc) at Kb: the butterfly a - (1/l) b + ... costs >= 0.
      const double l = (c.strike - b.strike) / (c.strike - a.strike);
      const double chord = l * calls[j - 1] + (1.0 - l) * calls[j + 1];
      const double excess = calls[j] - chord;
      if (excess > price_tolerance) {
        found.push_back({ArbitrageViolation::Kind::butterfly,
                         {s.quotes[j - 1], s.quotes[j], s.quotes[j + 1]},
                         excess,
                         "the call at " + describe(b) + " is " + std::to_string(excess) +
                             " above the chord of its neighbours " + describe(a) + " and " +
                             describe(c) + ": a butterfly of them has a negative price"});
      }
    }
  }

  // Calendar: each expiry's quotes against the next expiry's smile, and back.
  for (std::size_t e = 0; e + 1 < smiles.size(); ++e) {
    const Smile& early = smiles[e];
    const Smile& late = smiles[e + 1];
    for (const std::size_t i : late.quotes) {
      const double k = std::log(quotes[i].strike / late.forward);
      double w = 0.0;
      std::size_t left = 0, right = 0;
      if (!variance_at(early, quotes, k, w, left, right))
        continue;
      const double drop = w - variance(quotes[i]);
      if (drop > tolerance * std::max(w, variance(quotes[i]))) {
        found.push_back({ArbitrageViolation::Kind::calendar,
                         {left, right, i},
                         drop,
                         "total variance falls from expiry " + std::to_string(early.expiry) +
                             " (between " + describe(quotes[left]) + " and " +
                             describe(quotes[right]) + ": " + std::to_string(w) + ") to " +
                             describe(quotes[i]) + " (" + std::to_string(variance(quotes[i])) +
                             ") at the same forward moneyness " + std::to_string(k)});
      }
    }
    for (const std::size_t i : early.quotes) {
      const double k = std::log(quotes[i].strike / early.forward);
      double w = 0.0;
      std::size_t left = 0, right = 0;
      if (!variance_at(late, quotes, k, w, left, right))
        continue;
      const double drop = variance(quotes[i]) - w;
      if (drop > tolerance * std::max(w, variance(quotes[i]))) {
        // Found once: the later quotes' side reports a drop between the same quotes.
        bool known = false;
        for (const auto& v : found)
          known = known || (v.kind == ArbitrageViolation::Kind::calendar &&
                            std::find(v.quotes.begin(), v.quotes.end(), i) != v.quotes.end());
        if (known)
          continue;
        found.push_back({ArbitrageViolation::Kind::calendar,
                         {i, left, right},
                         drop,
                         "total variance falls from " + describe(quotes[i]) + " (" +
                             std::to_string(variance(quotes[i])) + ") to expiry " +
                             std::to_string(late.expiry) + " (between " + describe(quotes[left]) +
                             " and " + describe(quotes[right]) + ": " + std::to_string(w) +
                             ") at the same forward moneyness " + std::to_string(k)});
      }
    }
  }
  return found;
}

} // namespace pfmc::market
