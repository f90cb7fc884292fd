// Knocks (barrier features) on any payoff, on the CPU backend: the identities that hold path by
// path (knock-out + knock-in = the plain payoff + the rebate; a barrier that cannot be reached
// leaves the payoff's bits alone; `type: barrier` is a European with a knock), on single-asset
// models and on baskets' levels, with the observations in registers and beyond them. These hold
// by construction of the payoff; the prices themselves (knocked Europeans, digitals, Asians and
// baskets on every model) are checked against independent references in test_references.cpp,
// and knocked Asians at four levels here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "engine/pricer.hpp"
#include "method_references.hpp"
#include "reference_check.hpp"
#include "test_support.hpp"

namespace pfmc {
namespace {

using testing::find;
using testing::load;

const std::string kTail = ", maturity: 1, model: bs}\n";

/// `{... knock: {type: TYPE, level: LEVEL, monitoring: N[, rebate: R]}}` on an instrument's
/// opening text (without its closing brace).
std::string knocked(const std::string& opening, const std::string& type, double level,
                    int monitoring, double rebate = 0.0) {
  std::string k = opening + ", knock: {type: " + type + ", level: " + std::to_string(level) +
                  ", monitoring: " + std::to_string(monitoring);
  if (rebate != 0.0)
    k += ", rebate: " + std::to_string(rebate);
  return k + "}" + kTail;
}

TEST(Knock, OutPlusInIsThePlainPayoffPlusTheRebateOnEveryKind) {
  const std::string asian = "  - {id: ID, type: asian, average: arithmetic, option: call, "
                            "strike: 100, fixings: 52";
  const std::string digital = "  - {id: ID, type: digital, option: put, strike: 95, cash: 10";
  const std::string geo = "  - {id: ID, type: asian, average: geometric, option: put, strike: "
                          "100, fixing_times: [0.25, 0.5, 0.75, 1]";
  std::string instruments;
  const auto named = [](std::string text, const std::string& id) {
    return text.replace(text.find("ID"), 2, id);
  };
  for (const auto& [name, opening] :
       {std::pair{"asian", asian}, std::pair{"digital", digital}, std::pair{"geo", geo}}) {
    const std::string n = name;
    instruments += named(opening, n) + kTail;
    instruments += knocked(named(opening, n + "_do"), "down_and_out", 85, 365, 1.5);
    instruments += knocked(named(opening, n + "_di"), "down_and_in", 85, 365, 1.5);
    instruments += knocked(named(opening, n + "_uo"), "up_and_out", 120, 12);
    instruments += knocked(named(opening, n + "_ui"), "up_and_in", 120, 12);
  }
  const auto result = engine::price(
      load(testing::yaml_run({}, instruments, 20000, ", steps_per_year: 365", "{device: cpu}")));
  const double rebate = 1.5 * std::exp(-0.05);
  for (const std::string n : {"asian", "digital", "geo"}) {
    const double plain = find(result, n).price;
    EXPECT_NEAR(find(result, n + "_do").price + find(result, n + "_di").price, plain + rebate,
                1e-12)
        << n;
    EXPECT_NEAR(find(result, n + "_uo").price + find(result, n + "_ui").price, plain, 1e-12) << n;
    // The knock bites: each side is worth something and less than the whole.
    EXPECT_GT(find(result, n + "_do").price, rebate * 0.01) << n;
    EXPECT_LT(find(result, n + "_uo").price, plain) << n;
  }
}

TEST(Knock, AnUnreachableBarrierLeavesThePayoffsBitsAlone) {
  const std::string asian = "  - {id: ID, type: asian, average: arithmetic, option: put, strike: "
                            "100, fixings: 12";
  const std::string euro = "  - {id: ID, type: european, option: call, strike: 105";
  std::string instruments;
  for (const auto& [id, opening] : {std::pair{"a", asian}, std::pair{"e", euro}}) {
    std::string plain = opening;
    plain.replace(plain.find("ID"), 2, id);
    instruments += plain + kTail;
    std::string far = opening;
    far.replace(far.find("ID"), 2, std::string(id) + "_far");
    instruments += knocked(far, "down_and_out", 1e-6, 52, 3.0);
  }
  for (const char* precision : {"", ", precision: float"}) {
    const auto result = engine::price(load(testing::yaml_run(
        {}, instruments, 10000, std::string(", steps_per_year: 52") + precision)));
    for (const std::string id : {"a", "e"}) {
      EXPECT_EQ(find(result, id + "_far").price, find(result, id).price) << id;
      EXPECT_EQ(find(result, id + "_far").std_error, find(result, id).std_error) << id;
    }
  }
}

TEST(Knock, TheBarrierTypeIsAEuropeanWithAKnock) {
  const std::string instruments =
      "  - {id: b, type: barrier, option: put, strike: 100, barrier: 120, barrier_type: "
      "up_and_out, rebate: 2, monitoring: 52" +
      kTail +
      knocked("  - {id: k, type: european, option: put, strike: 100", "up_and_out", 120, 52, 2.0);
  const auto result = engine::price(
      load(testing::yaml_run({}, instruments, 10000, ", steps_per_year: 52, antithetic: true")));
  EXPECT_EQ(find(result, "b").price, find(result, "k").price);
  EXPECT_EQ(find(result, "b").std_error, find(result, "k").std_error);
}

/// A three-asset model with baskets: `instruments` is the list body.
std::string basket_run(const std::string& instruments, const std::string& extra = "") {
  return "market:\n  underlyings: [{name: A, spot: 100}, {name: B, spot: 90, dividend_yield: "
         "0.01}, {name: C, spot: 110}]\n  rates: {zero_rate: 0.03}\n"
         "models: [{name: m, type: multi_black_scholes, underlyings: [A, B, C], volatilities: "
         "[0.2, 0.3, 0.25], correlation: [[1, 0.5, 0.3], [0.5, 1, 0.4], [0.3, 0.4, 1]]}]\n"
         "instruments:\n" +
         instruments + "simulation: {paths: 8000, steps_per_year: 52, seed: 3" + extra +
         "}\nengine: {device: cpu}\n";
}

TEST(Knock, OnABasketsLevelInRegistersAndBeyondThem) {
  // Six knocked baskets with distinct schedules: with the legs' terminal spots that is more
  // observations than the register slots, so some basket levels are spilled.
  const std::string w = "weights: [0.5, 0.3, 0.2]";
  std::string instruments;
  const auto basket = [&](const std::string& id, const std::string& payoff,
                          const std::string& knock) {
    instruments += "  - {id: " + id + ", type: basket, payoff: " + payoff + ", " +
                   (payoff == "weighted" ? w + ", " : "") + "option: call, strike: 100" + knock +
                   ", maturity: 1, model: m}\n";
  };
  basket("w", "weighted", "");
  basket("mx", "max", "");
  int monitoring = 52;
  for (const std::string payoff : {"weighted", "max"}) {
    for (const std::string side : {"out", "in"}) {
      // Levels: the weighted basket starts at 99, the max at 110 (C).
      const std::string level = payoff == "weighted" ? "88" : "100";
      basket(payoff.substr(0, 1) + "_do_" + side, payoff,
             ", knock: {type: down_and_" + side + ", level: " + level +
                 ", monitoring: " + std::to_string(monitoring) + ", rebate: 1}");
    }
    --monitoring;
    for (const std::string side : {"out", "in"}) {
      basket(payoff.substr(0, 1) + "_uo_" + side, payoff,
             ", knock: {type: up_and_" + side +
                 ", level: 125, monitoring: " + std::to_string(monitoring) + "}");
    }
    --monitoring;
    basket(payoff.substr(0, 1) + "_far", payoff,
           ", knock: {type: down_and_out, level: -1e9, monitoring: " +
               std::to_string(monitoring--) + "}");
  }
  for (const char* precision : {"", ", precision: float"}) {
    const auto result = engine::price(load(basket_run(instruments, precision)));
    const double rebate = std::exp(-0.03);
    for (const std::string p : {"w", "m"}) {
      const std::string plain = p == "w" ? "w" : "mx";
      const double v = find(result, plain).price;
      EXPECT_NEAR(find(result, p + "_do_out").price + find(result, p + "_do_in").price, v + rebate,
                  1e-12)
          << p << precision;
      EXPECT_NEAR(find(result, p + "_uo_out").price + find(result, p + "_uo_in").price, v, 1e-12)
          << p << precision;
      EXPECT_LT(find(result, p + "_uo_out").price, 0.95 * v) << p << precision;
      EXPECT_EQ(find(result, p + "_far").price, v) << p << precision;
    }
  }
}

TEST(Knock, KnockedPricesMatchAnIndependentMonteCarloAndMoveWithTheLevel) {
  // Down-and-out arithmetic Asian calls (52 weekly fixings and observations) at four levels and
  // the plain one: each against the independent Monte Carlo of tests/method_references.hpp
  // (refmc: its own draws, paths and payoffs, 16x these paths) within kSigmas combined standard
  // errors (~0.1) and nothing else: knocked Asians have no deterministic reference. The knock
  // at 95 takes a quarter of the plain price (1.43); at 90, 0.29 (near three bands); at 80,
  // 0.004; at 60, nothing.
  const std::string opening = "  - {id: ID, type: asian, average: arithmetic, option: call, "
                              "strike: 100, fixings: 52";
  std::string instruments;
  std::string plain = opening;
  instruments += plain.replace(plain.find("ID"), 2, "plain") + kTail;
  for (int level : {60, 80, 90, 95}) {
    std::string k = opening;
    instruments +=
        knocked(k.replace(k.find("ID"), 2, "l" + std::to_string(level)), "down_and_out", level, 52);
  }
  const auto result = engine::price(load(testing::yaml_run(
      {}, instruments, testing::method_references::kKnockedAsianPaths, ", steps_per_year: 52")));
  for (const auto& ref : testing::method_references::kKnockedAsians) {
    const auto& got = find(result, ref.id);
    EXPECT_NEAR(got.price, ref.price, testing::kSigmas * std::hypot(got.std_error, ref.std_error))
        << ref.id;
    std::printf("  %-6s %.5f ± %.5f  independent Monte Carlo %.5f ± %.5f\n", ref.id, got.price,
                got.std_error, ref.price, ref.std_error);
  }
  // The nearer the barrier, the cheaper; never below zero.
  double above = find(result, "plain").price;
  for (int level : {60, 80, 90, 95}) {
    const double p = find(result, "l" + std::to_string(level)).price;
    EXPECT_LE(p, above) << level;
    EXPECT_GT(p, 0.0) << level;
    above = p;
  }
}

TEST(Knock, KnockedInstrumentsTakeBumpedDeltasAndKeepTheirControls) {
  // A knock makes the payoff discontinuous: delta is bumped, never pathwise; the European's
  // terminal-spot control still applies (its mean does not depend on the knock). The reference
  // case "knocked_control" (a down-and-out call at 80, weekly): its price and its bumped delta
  // from the transition-density recursion (tests/references/make_references.py).
  const auto& c = testing::reference_case("knocked_control");
  const auto controlled = engine::price(load(testing::reference_case_yaml(c, "{device: cpu}")));
  testing::print_tally("knocked_control (cpu)",
                       testing::expect_matches_reference_case(c, controlled));
  const auto& k = find(controlled, "k");
  ASSERT_EQ(k.greeks.size(), 1u);
  EXPECT_FALSE(k.greeks[0].pathwise);
  EXPECT_TRUE(k.has_control);
  // The control is kept and works: the same paths without it have a larger error.
  std::string plain_yaml = testing::reference_case_yaml(c, "{device: cpu}");
  plain_yaml.replace(plain_yaml.find("control_variate: true"), 21, "control_variate: false");
  const auto plain_run = engine::price(load(plain_yaml));
  const auto& plain = find(plain_run, "k");
  EXPECT_FALSE(plain.has_control);
  EXPECT_LT(k.std_error, 0.8 * plain.std_error) << k.std_error << " vs " << plain.std_error;
}

} // namespace
} // namespace pfmc
