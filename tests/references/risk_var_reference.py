#!/usr/bin/env python3
"""Historical VaR and expected shortfall of a book of European options by full revaluation in
closed form (Black-Scholes with a continuous dividend yield, written here from the formula: no
code shared with pfmc), over config/examples/risk_history.csv: each window of `horizon`
consecutive days sums its moves (spot log returns, absolute vol changes, rate changes in bp) and
applies them to today's market, the book is revalued, and with n windows and
k = ceil(n (1 - level)) VaR is the k-th largest loss and ES the mean of the k largest.
Writes tests/risk_var_references.hpp (the book, the market and the measures), which
tests/test_risk.cpp compares with `pfmc risk` on the same file.
Usage: tests/references/risk_var_reference.py \
  | clang-format --assume-filename=tests/risk_var_references.hpp > tests/risk_var_references.hpp
"""
import csv
import math
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HISTORY = os.path.join(ROOT, "config", "examples", "risk_history.csv")
RATE = 0.032
MARKET = {"SPX": (100.0, 0.015, 0.20), "SX5E": (50.0, 0.03, 0.22)}  # spot, dividend, vol
# id, underlying, call?, strike, maturity, quantity
BOOK = [("spx_p90", "SPX", False, 90.0, 0.25, 200.0),
        ("spx_c100", "SPX", True, 100.0, 0.5, -100.0),
        ("spx_c110", "SPX", True, 110.0, 1.0, 150.0),
        ("sx5e_p48", "SX5E", False, 48.0, 0.5, 300.0),
        ("sx5e_c55", "SX5E", True, 55.0, 1.0, -250.0)]
LEVELS = [0.99, 0.975]
HORIZONS = [1, 10]


def ncdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def black_scholes(call, s, k, t, r, q, v):
    d1 = (math.log(s / k) + (r - q + 0.5 * v * v) * t) / (v * math.sqrt(t))
    d2 = d1 - v * math.sqrt(t)
    if call:
        return s * math.exp(-q * t) * ncdf(d1) - k * math.exp(-r * t) * ncdf(d2)
    return k * math.exp(-r * t) * ncdf(-d2) - s * math.exp(-q * t) * ncdf(-d1)


def book_value(spot_log, vol_change, rate_change):
    total = 0.0
    for _, u, call, k, t, qty in BOOK:
        s, q, v = MARKET[u]
        total += qty * black_scholes(call, s * math.exp(spot_log[u]), k, t, RATE + rate_change, q,
                                     v + vol_change[u])
    return total


def measures(pnl, level):
    losses = sorted((-p for p in pnl), reverse=True)
    k = max(1, math.ceil(len(losses) * (1 - level) - 1e-9))
    return losses[k - 1], sum(losses[:k]) / k


def main():
    with open(HISTORY) as f:
        days = list(csv.DictReader(f))
    base = book_value({u: 0.0 for u in MARKET}, {u: 0.0 for u in MARKET}, 0.0)
    print("#pragma once")
    print("// Written by tests/references/risk_var_reference.py (closed-form full revaluation over")
    print("// config/examples/risk_history.csv): edit the script, not this file.")
    print("namespace pfmc::testing::risk_var {")
    print("inline constexpr double kRate = %r;" % RATE)
    print("struct Market { const char* name; double spot, dividend, vol; };")
    print("inline constexpr Market kMarket[] = {%s};" % ", ".join(
        '{"%s", %r, %r, %r}' % (u, s, q, v) for u, (s, q, v) in MARKET.items()))
    print("struct Option { const char* id; const char* underlying; bool call; double strike, "
          "maturity, quantity; };")
    print("inline constexpr Option kBook[] = {")
    for i, u, call, k, t, qty in BOOK:
        print('    {"%s", "%s", %s, %r, %r, %r},' % (i, u, "true" if call else "false", k, t, qty))
    print("};")
    print("inline constexpr double kBaseValue = %.12g;" % base)
    print("struct Measure { int horizon; double level, var, expected_shortfall; };")
    print("inline constexpr Measure kMeasures[] = {")
    for h in HORIZONS:
        pnl = []
        for last in range(h - 1, len(days)):
            window = days[last - h + 1:last + 1]
            spot = {u: sum(float(d["spot:" + u]) for d in window) for u in MARKET}
            vol = {u: sum(float(d["vol:" + u]) for d in window) for u in MARKET}
            rate = sum(float(d["rate_bp"]) for d in window) / 1e4
            pnl.append(book_value(spot, vol, rate) - base)
        for level in LEVELS:
            var, es = measures(pnl, level)
            print("    {%d, %r, %.12g, %.12g}," % (h, level, var, es))
    print("};")
    print("} // namespace pfmc::testing::risk_var")


if __name__ == "__main__":
    main()
