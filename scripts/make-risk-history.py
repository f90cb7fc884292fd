#!/usr/bin/env python3
"""Writes config/examples/risk_history.csv: 250 business days of daily market moves as a desk's
risk system exports them for historical VaR (date, then a column per move: spot:NAME daily log
returns, vol:NAME absolute changes of each index's vol, rate_bp changes of the zero rates in basis
points). Synthetic, from a fixed seed: the two indices' returns correlated 0.75 with fat tails (a
normal scaled by a regime that is calm 90% of days and three times as wide otherwise), vols moving
against their index (-0.6), the rate a small random walk. Usage:
  scripts/make-risk-history.py > config/examples/risk_history.csv
"""
import datetime
import math
import random

DAYS = 250
LAST = datetime.date(2026, 12, 4)  # a Friday
DAILY_VOL = {"SPX": 0.011, "SX5E": 0.013}
CORRELATION = 0.75


def business_days(last, count):
    days, day = [], last
    while len(days) < count:
        if day.weekday() < 5:
            days.append(day)
        day -= datetime.timedelta(days=1)
    return list(reversed(days))


def main():
    rng = random.Random(20261207)
    print("date,spot:SPX,spot:SX5E,vol:SPX,vol:SX5E,rate_bp")
    for day in business_days(LAST, DAYS):
        scale = 1.0 if rng.random() < 0.9 else 3.0
        a = rng.gauss(0.0, 1.0)
        b = CORRELATION * a + math.sqrt(1 - CORRELATION ** 2) * rng.gauss(0.0, 1.0)
        spx = scale * DAILY_VOL["SPX"] * a
        sx5e = scale * DAILY_VOL["SX5E"] * b
        vol_spx = -0.6 * spx + 0.003 * rng.gauss(0.0, 1.0)
        vol_sx5e = -0.6 * sx5e + 0.003 * rng.gauss(0.0, 1.0)
        rate = round(rng.gauss(0.0, 3.0), 1)
        print("%s,%.6f,%.6f,%.6f,%.6f,%.1f" % (day.isoformat(), spx, sx5e, vol_spx, vol_sx5e, rate))


if __name__ == "__main__":
    main()
