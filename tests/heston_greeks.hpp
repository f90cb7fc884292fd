#pragma once
// The check of a run's pathwise Heston Greeks against QuantLib's AnalyticHestonEngine: the
// reference cases' Europeans (tests/reference_cases.hpp: heston_qe and heston_full_truncation),
// each Greek with its allowance for the scheme's discretisation at the cases' grid (52 steps a
// year), in tests/heston_greeks_table.hpp (written by tests/references/heston_greeks.py).
// Shared by the CPU suite (test_pathwise.cpp) and the GPU suite (test_gpu_pathwise.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "engine/pricer.hpp"
#include "heston_greeks_table.hpp"
#include "reference_check.hpp"
#include "test_support.hpp"

namespace pfmc::testing {

/// The reference case `name`'s YAML with `engine`, `paths` and `extra` in its simulation mapping.
inline std::string reference_case_yaml_at(const char* name, const std::string& engine,
                                          const std::string& extra, long paths) {
  std::string yaml = reference_case_yaml(reference_case(name), engine, extra);
  const std::string key = "paths: ";
  const auto at = yaml.find(key);
  EXPECT_NE(at, std::string::npos);
  yaml.replace(at + key.size(), yaml.find_first_of(",}", at) - at - key.size(),
               std::to_string(paths));
  return yaml;
}

/// Each Greek of the case's table in `r` (a pathwise run of the case) within kSigmas of its
/// standard error plus the scheme's allowance of QuantLib's derivative.
inline void expect_heston_greeks_match_quantlib(const std::string& name,
                                                const std::string& precision,
                                                const engine::RunResult& r) {
  const auto check = [&](const HestonGreek& want) {
    const auto& in = find(r, want.id);
    const auto it = std::find_if(in.greeks.begin(), in.greeks.end(), [&](const auto& g) {
      return std::string(config::to_string(g.greek)) == want.greek;
    });
    ASSERT_NE(it, in.greeks.end()) << name << " " << want.id << " " << want.greek;
    EXPECT_TRUE(it->pathwise);
    EXPECT_NEAR(it->value, want.exact, kSigmas * it->std_error + want.allowance)
        << name << " " << precision << " " << want.id << " " << want.greek;
    std::printf("  %s %s %s %-5s pathwise %.6f ± %.6f  QuantLib %.6f (+ %.6f)\n", name.c_str(),
                precision.c_str(), want.id, want.greek, it->value, it->std_error, want.exact,
                want.allowance);
  };
  if (name == "heston_qe") {
    for (const auto& want : kHestonQe)
      check(want);
  } else {
    for (const auto& want : kHestonFullTruncation)
      check(want);
  }
}

} // namespace pfmc::testing
