#pragma once
// The gold standard of a local vol built from quotes (issue 62), for the CPU suite
// (tests/test_implied_local_vol.cpp) and the GPU suite (tests/test_gpu_models.cpp): a European
// at every quote of the shipped smile (config/examples/smile_vols.csv) under a `surface:
// implied` local vol, priced by Monte Carlo, reprices its quote within 3 standard errors plus
// 5 bp of vol.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "config/load_config.hpp"
#include "engine/market/implied_vol.hpp"
#include "engine/pricer.hpp"

namespace pfmc::testing {

inline const std::string kSmileExamples = std::string(PFMC_SOURCE_DIR) + "/config/examples/";

/// The smile's market and a European under `spx_local_vol` at every quote (id q<n>_<vol>),
/// `paths` paths, `steps_per_year` Euler steps, engine block `engine`. The steps' own bias is
/// in the 5 bp: measured on the 1-month calls at 105 and 110 (400,000 paths, CPU), 12-15 bp at
/// 365 steps a year and 1-3 bp at 2,920.
inline std::string smile_repricing_config(int paths, int steps_per_year,
                                          const std::string& engine) {
  std::ifstream in(kSmileExamples + "smile_vols.csv");
  std::string line;
  std::getline(in, line); // the header
  std::ostringstream yaml;
  yaml << "market:\n"
          "  underlyings: [{name: SPX, spot: 100.0, dividend_yield: 0.015}]\n"
          "  rates: {zero_rate: 0.03}\n"
          "  implied_vols: [{csv: "
       << kSmileExamples
       << "smile_vols.csv}]\n"
          "models:\n"
          "  - {name: spx_local_vol, type: local_vol, underlying: SPX, surface: implied}\n"
          "instruments:\n";
  int n = 0;
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::string underlying, expiry, strike, vol;
    std::getline(cells, underlying, ',');
    std::getline(cells, expiry, ',');
    std::getline(cells, strike, ',');
    std::getline(cells, vol, ',');
    const double k = std::log(std::stod(strike) / (100.0 * std::exp(0.015 * std::stod(expiry))));
    yaml << "  - {id: q" << n++ << "_" << vol
         << ", type: european, option: " << (k >= 0.0 ? "call" : "put") << ", strike: " << strike
         << ", maturity: " << expiry << ", model: spx_local_vol}\n";
  }
  yaml << "simulation: {paths: " << paths << ", steps_per_year: " << steps_per_year
       << ", seed: 11}\n"
       << "engine: " << engine << "\n";
  return yaml.str();
}

/// The standard error of an N-path Monte Carlo price of a European under the quote's own Black
/// model: sqrt((E[payoff^2] - price^2) / N), discounted, from the payoff's second moment in
/// closed form (E[S^2 1{S > K}] = F^2 e^{vol^2 T} N(d1 + vol sqrt(T))): derived from the quote,
/// it stays meaningful in a far wing where the run's own sample sees a handful of paths in the
/// money, or none.
inline double black_standard_error(bool call, double forward, double strike, double T, double vol,
                                   double discount, double paths) {
  const double s = vol * std::sqrt(T);
  const double d1 = std::log(forward / strike) / s + 0.5 * s, d2 = d1 - s;
  const auto N = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const double sign = call ? 1.0 : -1.0;
  const double first = sign * (forward * N(sign * d1) - strike * N(sign * d2));
  const double second = forward * forward * std::exp(s * s) * N(sign * (d1 + s)) -
                        2.0 * strike * forward * N(sign * d1) + strike * strike * N(sign * d2);
  return discount * std::sqrt(std::max(0.0, second - first * first) / paths);
}

/// Each quote's European within 3 standard errors plus 5 bp of vol of its quote's price (the 5
/// bp through the quote's vega); the standard error the run's, or black_standard_error's where
/// that is larger (a far wing's few paths in the money, or none, understate the run's); the
/// number of quotes checked.
inline int expect_smile_repriced(const config::RunConfig& config, const engine::RunResult& result) {
  int checked = 0;
  for (std::size_t i = 0; i < result.instruments.size(); ++i) {
    const auto& r = result.instruments[i];
    const auto& in = config.instruments[i];
    const double quote = std::stod(r.id.substr(r.id.find('_') + 1));
    const double T = in.maturity, discount = std::exp(-0.03 * T);
    const double forward = 100.0 * std::exp((0.03 - 0.015) * T);
    const bool call = in.option == config::OptionType::call;
    const double price =
        market::black_price(call ? market::OptionKind::call : market::OptionKind::put, forward,
                            in.strike, T, quote, discount);
    const double vega = market::black_vega(forward, in.strike, T, quote, discount);
    const double error =
        std::max(r.std_error, black_standard_error(call, forward, in.strike, T, quote, discount,
                                                   static_cast<double>(config.simulation.paths)));
    // 3 standard errors, and 5 bp of vol for the grid's interpolation and the time steps
    // (issue 62).
    EXPECT_NEAR(r.price, price, 3.0 * error + 0.0005 * vega)
        << r.id << ": expiry " << T << ", strike " << in.strike << " (" << (r.price - price) / vega
        << " in vol)";
    ++checked;
  }
  return checked;
}

} // namespace pfmc::testing
