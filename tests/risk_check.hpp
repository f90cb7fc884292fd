#pragma once
// Checks of a risk run (engine/risk/risk_run.hpp) shared by the CPU suite (test_risk.cpp) and the
// GPU suite (test_gpu_risk.cpp): a book of every model kind under spot, vol, rate and time moves,
// each scenario's value against a separate price of the shifted market on the same seed, and
// ladders of Europeans and digitals against Black-Scholes closed forms.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "config/load_config.hpp"
#include "engine/analytic/analytic.hpp"
#include "engine/pricer.hpp"
#include "engine/risk/market_shift.hpp"
#include "engine/risk/risk_run.hpp"

namespace pfmc::testing {

/// A ladder in Move units (written: the same numbers, or bp/days as given).
inline config::RiskLadder risk_ladder(const std::string& name, config::ShiftKind kind,
                                      config::ShiftMode mode, std::vector<double> points,
                                      std::vector<double> written = {}) {
  config::RiskLadder l;
  l.name = name;
  l.kind = kind;
  l.mode = mode;
  l.points = points;
  l.written = written.empty() ? points : written;
  return l;
}

/// Every model kind, each with a payoff it prices: Black-Scholes (a European, a digital, an
/// arithmetic Asian, a knock-out), Heston (a European, a knock-in), local vol (a European), a
/// two-asset basket (a weighted call) — all held, so the portfolio sums them.
inline std::string risk_book_yaml(const std::string& engine, int paths) {
  return "market:\n"
         "  underlyings:\n"
         "    - {name: SPX, spot: 100.0, dividend_yield: 0.01}\n"
         "    - {name: SX5E, spot: 50.0, dividend_yield: 0.02}\n"
         "  rates: {tenors: [0.5, 1.0], zero_rates: [0.03, 0.035]}\n"
         "models:\n"
         "  - {name: bs, type: black_scholes, underlying: SPX,\n"
         "     volatility: {tenors: [0.5, 1.0], vols: [0.22, 0.2]}}\n"
         "  - {name: hes, type: heston, underlying: SPX, v0: 0.04, kappa: 2.0, theta: 0.05,\n"
         "     xi: 0.4, rho: -0.6, scheme: qe}\n"
         "  - name: lv\n"
         "    type: local_vol\n"
         "    underlying: SX5E\n"
         "    surface: {times: [0.5, 1.0], log_moneyness: [-0.3, 0.0, 0.3],\n"
         "              vols: [[0.3, 0.22, 0.2], [0.28, 0.21, 0.19]]}\n"
         "  - {name: pair, type: multi_black_scholes, underlyings: [SPX, SX5E],\n"
         "     volatilities: [0.2, 0.25], correlation: [[1.0, 0.5], [0.5, 1.0]]}\n"
         "instruments:\n"
         "  - {id: call, type: european, option: call, strike: 100, maturity: 1.0, model: bs}\n"
         "  - {id: digital, type: digital, option: put, strike: 95, maturity: 0.5, model: bs}\n"
         "  - {id: asian, type: asian, average: arithmetic, option: call, strike: 100,\n"
         "     maturity: 1.0, fixings: 12, model: bs}\n"
         "  - {id: dao, type: barrier, option: call, strike: 100, barrier: 85, rebate: 2,\n"
         "     barrier_type: down_and_out, monitoring: 52, maturity: 1.0, model: bs}\n"
         "  - {id: hes_put, type: european, option: put, strike: 95, maturity: 1.0, model: hes}\n"
         "  - {id: hes_uai, type: barrier, option: call, strike: 100, barrier: 120,\n"
         "     barrier_type: up_and_in, monitoring: 52, maturity: 1.0, model: hes}\n"
         "  - {id: lv_call, type: european, option: call, strike: 52, maturity: 1.0, model: lv}\n"
         "  - {id: basket, type: basket, payoff: weighted, option: call, strike: 100,\n"
         "     maturity: 1.0, weights: [0.5, 1.0], model: pair}\n"
         "portfolio:\n"
         "  - {instrument: call, quantity: 10}\n"
         "  - {instrument: digital, quantity: -100}\n"
         "  - {instrument: asian, quantity: 5}\n"
         "  - {instrument: dao, quantity: -3}\n"
         "  - {instrument: hes_put, quantity: 4}\n"
         "  - {instrument: hes_uai, quantity: 2}\n"
         "  - {instrument: lv_call, quantity: -7}\n"
         "  - {instrument: basket, quantity: 1}\n"
         "simulation: {paths: " +
         std::to_string(paths) +
         ", steps_per_year: 52, seed: 7, rng: philox, precision: double}\n"
         "engine: " +
         engine + "\n";
}

/// The book under spot, vol and rate ladders and a named scenario of all three (more scenarios
/// than one pass carries), then each scenario's value against `price` of its shifted market
/// on the same seed: within 1e-12 relative.
inline void expect_scenarios_equal_separate_prices(const std::string& engine, int paths) {
  using config::ShiftKind;
  using config::ShiftMode;
  config::RunConfig config = config::parse_run_config(risk_book_yaml(engine, paths), "book.yaml");
  config.risk.present = true;
  config.risk.ladders = {risk_ladder("spot", ShiftKind::spot, ShiftMode::relative, {-0.05, 0.05}),
                         risk_ladder("spot_abs", ShiftKind::spot, ShiftMode::absolute, {2.0}),
                         risk_ladder("vol", ShiftKind::vol, ShiftMode::absolute, {-0.03, 0.03}),
                         risk_ladder("vol_rel", ShiftKind::vol, ShiftMode::relative, {0.1}),
                         risk_ladder("rate", ShiftKind::rate, ShiftMode::absolute, {0.005}, {50})};
  config::MarketShift stress{"stress",
                             {{ShiftKind::spot, ShiftMode::relative, {0}, -0.1},
                              {ShiftKind::vol, ShiftMode::absolute, {0, 1}, 0.05},
                              {ShiftKind::rate, ShiftMode::absolute, {}, -0.002}},
                             "stress.csv:2"};
  config.risk.scenarios = {stress};
  const engine::risk::RiskResult risk = engine::risk::run_risk(config);
  ASSERT_EQ(risk.scenarios.size(), 8u);
  // 8 scenarios: on black_scholes, heston and the basket the spot moves read the base paths
  // scaled (4 copies: base, the two vols, the rate... ), but local vol needs a copy for each and
  // a single-asset model carries 8: two passes.
  EXPECT_EQ(risk.passes, 2);
  const std::vector<engine::risk::LabelledShift> shifts = engine::risk::expand_scenarios(config);
  for (std::size_t k = 0; k < risk.scenarios.size(); ++k) {
    const auto& s = risk.scenarios[k];
    const config::MarketShift& shift = shifts[k].shift;
    ASSERT_EQ(shift.name, s.name);
    double time_forward = 0.0;
    const config::RunConfig moved = engine::risk::shifted_market(config, shift, time_forward);
    const engine::RunResult alone = engine::price(moved);
    for (std::size_t i = 0; i < config.instruments.size(); ++i) {
      const double v = alone.instruments[i].price;
      EXPECT_NEAR(s.value[i], v, 1e-12 * std::max(std::abs(v), 1e-3))
          << s.name << " " << config.instruments[i].id;
    }
    EXPECT_NEAR(s.portfolio_value, alone.portfolio.value,
                1e-12 * std::max(std::abs(alone.portfolio.value), 1.0))
        << s.name;
  }
}

/// Spot ladders of a European call and a cash-or-nothing put, and a vol and a time move, against
/// Black-Scholes: each P&L within 4 of its standard errors of the closed forms' (4σ two-sided:
/// a false failure once in ~16,000 checks).
inline void expect_ladders_match_closed_forms(const std::string& engine, int paths) {
  using config::ShiftKind;
  using config::ShiftMode;
  const std::string yaml =
      "market:\n"
      "  underlyings: [{name: SPX, spot: 100.0, dividend_yield: 0.01}]\n"
      "  rates: {zero_rate: 0.03}\n"
      "models: [{name: bs, type: black_scholes, underlying: SPX, volatility: 0.2}]\n"
      "instruments:\n"
      "  - {id: call, type: european, option: call, strike: 100, maturity: 1.0, model: bs}\n"
      "  - {id: digital, type: digital, option: put, strike: 95, maturity: 1.0, model: bs}\n"
      "portfolio: [{instrument: call, quantity: 1}, {instrument: digital, quantity: 10}]\n"
      "simulation: {paths: " +
      std::to_string(paths) + ", steps_per_year: 0, seed: 11}\nengine: " + engine + "\n";
  config::RunConfig config = config::parse_run_config(yaml, "ladder.yaml");
  config.risk.present = true;
  config.risk.ladders = {
      risk_ladder("spot", ShiftKind::spot, ShiftMode::relative, {-0.2, -0.1, -0.01, 0.01, 0.1}),
      risk_ladder("vol", ShiftKind::vol, ShiftMode::absolute, {0.05}),
      risk_ladder("time", ShiftKind::time, ShiftMode::absolute, {10.0 / 365}, {10})};
  const engine::risk::RiskResult risk = engine::risk::run_risk(config);
  using analytic::OptionKind;
  const auto call = [](double s, double v, double t) {
    return analytic::black_scholes(OptionKind::call, s, 100, t, 0.03, 0.01, v);
  };
  const auto digital = [](double s, double v, double t) {
    return analytic::cash_or_nothing(OptionKind::put, s, 95, t, 0.03, 0.01, v, 1.0);
  };
  ASSERT_EQ(risk.scenarios.size(), 7u);
  for (const auto& s : risk.scenarios) {
    double spot = 100, vol = 0.2, t = 1.0;
    if (s.set == "spot")
      spot *= 1 + s.coordinates[0];
    if (s.set == "vol")
      vol += s.coordinates[0];
    if (s.set == "time")
      t -= s.coordinates[0] / 365;
    const double pnl[2] = {call(spot, vol, t) - call(100, 0.2, 1),
                           digital(spot, vol, t) - digital(100, 0.2, 1)};
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_GT(s.pnl_std_error[i], 0.0) << s.name;
      EXPECT_NEAR(s.pnl[i], pnl[i], 4 * s.pnl_std_error[i]) << s.name << " instrument " << i;
    }
  }
  // Common random numbers: a 1% spot move's P&L is known far better than the price.
  const auto& up = risk.scenarios[3];
  ASSERT_EQ(up.name, "spot=0.01");
  EXPECT_LT(10 * up.pnl_std_error[0], risk.base.instruments[0].std_error);
}

} // namespace pfmc::testing
