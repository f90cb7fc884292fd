#pragma once
// Written by tests/references/quantlib_local_vol.py (QuantLib 1.29); do not edit.
// QuantLib's LocalVolSurface on the reference SSVI surface (rho -0.6, eta 1.2, gamma 0.45)
// at (T, k = ln(K / F(T))); the dense grid's local vols differ from a grid twice as
// coarse by at most kQuantLibGridSpread.

namespace pfmc::testing::calibration {

struct LocalVolPoint {
  double T;
  double k;
  double vol;
};
inline constexpr LocalVolPoint kQuantLibLocalVols[] = {
    {0.15, -0.3, 0.52874616648648176}, {0.15, -0.1, 0.33457064752942123},
    {0.15, 0, 0.20327392039785483},    {0.15, 0.1, 0.15251728868364409},
    {0.15, 0.2, 0.20050605388345924},  {0.4, -0.3, 0.42718772098059227},
    {0.4, -0.1, 0.28147334386564576},  {0.4, 0, 0.19312573160301483},
    {0.4, 0.1, 0.14091042384110153},   {0.4, 0.2, 0.15932350509844742},
    {0.75, -0.3, 0.36739766356279818}, {0.75, -0.1, 0.24998488612645306},
    {0.75, 0, 0.18318435393180041},    {0.75, 0.1, 0.13716044396027982},
    {0.75, 0.2, 0.13877991520487964},  {1.4, -0.3, 0.33363008535990324},
    {1.4, -0.1, 0.23577875746946617},  {1.4, 0, 0.18320855517330525},
    {1.4, 0.1, 0.14303544513535332},   {1.4, 0.2, 0.13264372444057473},
};
inline constexpr double kQuantLibGridSpread = 7.56e-06;

} // namespace pfmc::testing::calibration
