#pragma once
// Written by tests/references/risk_var_reference.py (closed-form full revaluation over
// config/examples/risk_history.csv): edit the script, not this file.
namespace pfmc::testing::risk_var {
inline constexpr double kRate = 0.032;
struct Market {
  const char* name;
  double spot, dividend, vol;
};
inline constexpr Market kMarket[] = {{"SPX", 100.0, 0.015, 0.2}, {"SX5E", 50.0, 0.03, 0.22}};
struct Option {
  const char* id;
  const char* underlying;
  bool call;
  double strike, maturity, quantity;
};
inline constexpr Option kBook[] = {
    {"spx_p90", "SPX", false, 90.0, 0.25, 200.0},  {"spx_c100", "SPX", true, 100.0, 0.5, -100.0},
    {"spx_c110", "SPX", true, 110.0, 1.0, 150.0},  {"sx5e_p48", "SX5E", false, 48.0, 0.5, 300.0},
    {"sx5e_c55", "SX5E", true, 55.0, 1.0, -250.0},
};
inline constexpr double kBaseValue = 253.022723268;
struct Measure {
  int horizon;
  double level, var, expected_shortfall;
};
inline constexpr Measure kMeasures[] = {
    {1, 0.99, 590.889891595, 636.035522474},
    {1, 0.975, 375.470323125, 530.431100046},
    {10, 0.99, 1217.01590154, 1291.05069236},
    {10, 0.975, 912.053892336, 1129.5722866},
};
} // namespace pfmc::testing::risk_var
