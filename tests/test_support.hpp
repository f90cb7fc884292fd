#pragma once
// Small builders of run configs for the engine tests (through the real YAML loader, so tests
// exercise the same path as users).

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "config/load_config.hpp"
#include "config/overrides.hpp"
#include "config/run_config.hpp"
#include "engine/pricer.hpp"
#include "fuzz_corpus.hpp"

namespace pfmc::testing {

struct Market {
  double spot = 100.0;
  double dividend_yield = 0.0;
  double rate = 0.05;
  double volatility = 0.2;
};

/// A one-underlying Black-Scholes run: `instruments` is the YAML list body (each item a line
/// starting with "  - "), all on model `bs`.
inline std::string yaml_run(const Market& m, const std::string& instruments, std::uint64_t paths,
                            const std::string& extra_simulation = "",
                            const std::string& engine = "{device: cpu}",
                            const std::string& portfolio = "") {
  std::string y = "market:\n  underlyings:\n    - {name: S, spot: " + std::to_string(m.spot) +
                  ", dividend_yield: " + std::to_string(m.dividend_yield) +
                  "}\n  rates: {zero_rate: " + std::to_string(m.rate) +
                  "}\nmodels:\n  - {name: bs, type: black_scholes, underlying: S, volatility: " +
                  std::to_string(m.volatility) + "}\ninstruments:\n" + instruments;
  if (!portfolio.empty())
    y += "portfolio:\n" + portfolio;
  y += "simulation: {paths: " + std::to_string(paths) + ", seed: 7" + extra_simulation + "}\n";
  y += "engine: " + engine + "\n";
  return y;
}

/// Two correlated baskets, `ab` (A, B: vols 0.3, correlation 0.9) and `abc` (three assets), on
/// the CPU; `instruments` is the YAML list body.
inline std::string basket_yaml(const std::string& instruments, std::uint64_t paths,
                               const std::string& extra = "") {
  return "market:\n  underlyings: [{name: A, spot: 100}, {name: B, spot: 100}, "
         "{name: C, spot: 90, dividend_yield: 0.02}]\n  rates: {zero_rate: 0.05}\n"
         "models:\n"
         "  - {name: ab, type: multi_black_scholes, underlyings: [A, B], volatilities: [0.3, 0.3],"
         " correlation: [[1, 0.9], [0.9, 1]]}\n"
         "  - {name: abc, type: multi_black_scholes, underlyings: [A, B, C], "
         "volatilities: [0.2, 0.3, 0.4], correlation: [[1, 0.5, 0.3], [0.5, 1, 0.2], "
         "[0.3, 0.2, 1]]}\n"
         "instruments:\n" +
         instruments + "simulation: {paths: " + std::to_string(paths) +
         ", steps_per_year: 4, seed: 5" + extra + "}\nengine: {device: cpu}\n";
}

/// One Black-Scholes asset (spot 100, q 1%, r 4%, vol 25%) as model `bs`, on the CPU.
inline std::string bs_yaml(const std::string& instruments, std::uint64_t paths,
                           const std::string& extra, int steps_per_year = 12) {
  return "market:\n  underlyings: [{name: S, spot: 100, dividend_yield: 0.01}]\n"
         "  rates: {zero_rate: 0.04}\n"
         "models: [{name: bs, type: black_scholes, underlying: S, volatility: 0.25}]\n"
         "instruments:\n" +
         instruments + "simulation: {paths: " + std::to_string(paths) +
         ", steps_per_year: " + std::to_string(steps_per_year) + ", seed: 9" + extra +
         "}\nengine: {device: cpu}\n";
}

/// A config from YAML, with the environment's overrides applied as the front ends apply them
/// (config::apply_environment): the mutation check's device tier runs the GPU suite with
/// PFMC_COMPILE_AT_RUNTIME=1 (scripts/mutation_check.py).
inline config::RunConfig load(const std::string& yaml) {
  keep_for_fuzzing(yaml);
  config::RunConfig config = config::parse_run_config(yaml, "test.yaml");
  config::apply_environment(config, config::process_environment);
  return config;
}

inline const engine::InstrumentResult& find(const engine::RunResult& r, const std::string& id) {
  for (const auto& in : r.instruments) {
    if (in.id == id)
      return in;
  }
  throw std::runtime_error("no instrument " + id);
}

/// Monte Carlo prices are compared with references within kSigmas standard errors. For a
/// correct estimator the error is ~N(0, SE²): a 4σ two-sided test fails with probability
/// 6.3e-5 per comparison, so with about a hundred comparisons in the suites a correct engine
/// would fail once in ~160 runs of *random* seeds. Our seeds are fixed, so the suites are
/// deterministic: a failure is a change in the engine, not bad luck.
inline constexpr double kSigmas = 4.0;

/// Every price, standard error and Greek of a run, and the portfolio's value and error.
inline std::vector<double> bits_of(const engine::RunResult& r) {
  std::vector<double> p;
  for (const auto& in : r.instruments) {
    p.push_back(in.price);
    p.push_back(in.std_error);
    for (const auto& g : in.greeks) {
      p.push_back(g.value);
      p.push_back(g.std_error);
    }
  }
  p.push_back(r.portfolio.value);
  p.push_back(r.portfolio.std_error);
  return p;
}

} // namespace pfmc::testing
