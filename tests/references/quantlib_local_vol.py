#!/usr/bin/python3
"""Reference local vols for pfmc's Dupire (tests/test_market.cpp): QuantLib 1.29's LocalVolSurface
(Dupire by finite differences of a Black variance surface) on the SSVI surface of
quantlib_heston_calibration.py's `ssvi` quotes, sharing no code with pfmc.

The surface: SSVI (Gatheral and Jacquier 2014) with rho -0.6, eta 1.2, gamma 0.45 and the
at-the-money total variance theta_T = atm(T)^2 T at the quoted expiries (30, 91, 182, 365, 730
days), linear in T between them (from 0 at T = 0) — the surface pfmc's fit recovers from those
quotes (Ssvi.RecoversTheSurfaceBehindItsOwnQuotes). QuantLib sees it as a BlackVarianceSurface on
a dense grid (dates every DAY_STEP days, strikes every STRIKE_STEP) with bicubic interpolation,
and differentiates that. Points are taken away from the expiries, where theta's slope jumps.

The grid's own error: each local vol is computed on two grids (the dense one and one twice as
coarse); the header records the larger of their differences, from which the test's allowance
is derived.

Market: spot 100, dividend yield 1%, zero rate 3%, flat and continuous, Actual365Fixed.
Usage: tests/references/quantlib_local_vol.py \\
  | clang-format --assume-filename=tests/local_vol_references.hpp > tests/local_vol_references.hpp
"""
import math

import QuantLib as ql

SPOT, DIVIDEND, RATE = 100.0, 0.01, 0.03
DAYS = [30, 91, 182, 365, 730]
ATM_VOLS = [0.24, 0.22, 0.21, 0.20, 0.195]
RHO, ETA, GAMMA = -0.6, 1.2, 0.45
TODAY = ql.Date(2, ql.January, 2025)
DC = ql.Actual365Fixed()
POINTS = [(t, k) for t in (0.15, 0.4, 0.75, 1.4) for k in (-0.3, -0.1, 0.0, 0.1, 0.2)]


def theta(t):
    expiries = [d / 365.0 for d in DAYS]
    thetas = [v * v * e for v, e in zip(ATM_VOLS, expiries)]
    if t <= expiries[0]:
        return thetas[0] * t / expiries[0]
    for i in range(1, len(expiries)):
        if t <= expiries[i]:
            return thetas[i - 1] + (thetas[i] - thetas[i - 1]) * (t - expiries[i - 1]) / (
                expiries[i] - expiries[i - 1])
    slope = (thetas[-1] - thetas[-2]) / (expiries[-1] - expiries[-2])
    return thetas[-1] + slope * (t - expiries[-1])


def total_variance(t, k):
    th = theta(t)
    phi = ETA / th ** GAMMA
    return th / 2 * (1 + RHO * phi * k + math.sqrt((phi * k + RHO) ** 2 + 1 - RHO * RHO))


def forward(t):
    return SPOT * math.exp((RATE - DIVIDEND) * t)


def local_vols(day_step, strike_step):
    ql.Settings.instance().evaluationDate = TODAY
    dates = [TODAY + d for d in range(day_step, 2 * 365 + 1, day_step)]
    strikes = [40.0 + strike_step * i for i in range(int(160 / strike_step) + 1)]
    matrix = ql.Matrix(len(strikes), len(dates))
    for j, date in enumerate(dates):
        t = DC.yearFraction(TODAY, date)
        for i, strike in enumerate(strikes):
            matrix[i][j] = math.sqrt(total_variance(t, math.log(strike / forward(t))) / t)
    surface = ql.BlackVarianceSurface(TODAY, ql.NullCalendar(), dates, strikes, matrix, DC)
    surface.setInterpolation("bicubic")
    surface.enableExtrapolation()
    rates = ql.YieldTermStructureHandle(ql.FlatForward(TODAY, RATE, DC, ql.Continuous))
    dividends = ql.YieldTermStructureHandle(ql.FlatForward(TODAY, DIVIDEND, DC, ql.Continuous))
    local = ql.LocalVolSurface(ql.BlackVolTermStructureHandle(surface), rates, dividends,
                               ql.QuoteHandle(ql.SimpleQuote(SPOT)))
    return [local.localVol(t, forward(t) * math.exp(k), True) for t, k in POINTS]


def main():
    fine = local_vols(1, 0.5)
    coarse = local_vols(2, 1.0)
    spread = max(abs(a - b) for a, b in zip(fine, coarse))
    print("#pragma once")
    print("// Written by tests/references/quantlib_local_vol.py (QuantLib %s); do not edit."
          % ql.__version__)
    print("// QuantLib's LocalVolSurface on the reference SSVI surface (rho %g, eta %g, gamma %g)"
          % (RHO, ETA, GAMMA))
    print("// at (T, k = ln(K / F(T))); the dense grid's local vols differ from a grid twice as")
    print("// coarse by at most kQuantLibGridSpread.")
    print()
    print("namespace pfmc::testing::calibration {")
    print()
    print("struct LocalVolPoint {")
    print("  double T;")
    print("  double k;")
    print("  double vol;")
    print("};")
    print("inline constexpr LocalVolPoint kQuantLibLocalVols[] = {")
    for (t, k), vol in zip(POINTS, fine):
        print("    {%g, %g, %.17g}," % (t, k, vol))
    print("};")
    print("inline constexpr double kQuantLibGridSpread = %.3g;" % spread)
    print()
    print("} // namespace pfmc::testing::calibration")


if __name__ == "__main__":
    main()
