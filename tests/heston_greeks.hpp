#pragma once
// Heston Greeks of the reference cases' Europeans (tests/reference_cases.hpp: heston_qe and
// heston_full_truncation) from QuantLib's AnalyticHestonEngine, with each Greek's allowance for
// the scheme's discretisation at the cases' grid (52 steps a year), both printed by
// scripts/references/heston_greeks.py; and the check of a run's pathwise Greeks against them.
// Shared by the CPU suite (test_pathwise.cpp) and the GPU suite (test_gpu_pathwise.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "engine/pricer.hpp"
#include "reference_check.hpp"
#include "test_support.hpp"

namespace pfmc::testing {

/// A Heston Greek of a reference case's European from QuantLib's AnalyticHestonEngine, and the
/// allowance for the scheme's discretisation at the case's grid, both printed by
/// scripts/references/heston_greeks.py (the allowance: the independent Monte Carlo's bumped
/// Greek against QuantLib's difference at the same bump, plus 3 of its standard errors).
struct HestonGreek {
  const char* id;
  const char* greek;
  double exact;
  double allowance;
};
// heston_qe (QuantLib 1.29 AnalyticHestonEngine; scripts/references/heston_greeks.py)
inline const HestonGreek kHestonQe[] = {
    {"call", "delta", 0.589541909, 0.00151302},    // mc 0.589562 +- 0.000449, bumped 0.589395
    {"call", "gamma", 0.01946693379, 0.000283446}, // mc 0.019486 +- 0.000088, bumped 0.019468
    {"call", "vega", 39.70898447, 0.180459},       // mc 39.699455 +- 0.057168, bumped 39.708411
    {"call", "rho", 51.32764121, 0.140245},        // mc 51.350578 +- 0.039056, bumped 51.327503
    {"call", "theta", -3.826136702, 0.188061},     // mc -3.766615 +- 0.042847, bumped -3.826137
    {"put", "delta", -0.2241737871, 0.000871979},  // mc -0.224360 +- 0.000269, bumped -0.224296
    {"put", "gamma", 0.01229887992, 0.000272147},  // mc 0.012234 +- 0.000067, bumped 0.012306
    {"put", "vega", 31.87370574, 0.133688},        // mc 31.877997 +- 0.040870, bumped 31.866918
    {"put", "rho", -27.1719052, 0.101126},         // mc -27.168090 +- 0.032395, bumped -27.172032
    {"put", "theta", -4.021613753, 0.118678},      // mc -4.023420 +- 0.038957, bumped -4.021614
};
// heston_full_truncation (the same market and model; the case asks for delta and vega)
inline const HestonGreek kHestonFullTruncation[] = {
    {"call", "delta", 0.589541909, 0.00177354}, // mc 0.588968 +- 0.000449, bumped 0.589395
    {"call", "vega", 39.70898447, 0.277699},    // mc 39.615889 +- 0.061726, bumped 39.708411
};

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
