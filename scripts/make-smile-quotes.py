#!/usr/bin/env python3
"""Writes config/examples/smile_vols.csv: an equity index's implied-vol quotes as a desk's
market-data system exports them (underlying, expiry, strike, vol), from an SSVI surface
(Gatheral and Jacquier 2014) with an index's shape: a skew that steepens towards short expiries
(rho -0.7, phi = eta / theta^gamma) and an upward term structure of at-the-money vols, rounded to
a hundredth of a vol point as quotes are. SSVI is free of static arbitrage where
eta (1 + |rho|) <= 2 (Theorem 4.2 of the paper): here 1.0 x 1.7 = 1.7.

Market: spot 100 (an index in points / 50), dividend yield 1.5%, zero rate 3%, as in
config/examples/smile.yaml. Expiries 1, 3, 6, 12, 24 months; strikes 60 to 140 by 5, each expiry
keeping the strikes within 3.5 standard deviations of its forward.
Usage: scripts/make-smile-quotes.py > config/examples/smile_vols.csv
"""
import math

SPOT, DIVIDEND, RATE = 100.0, 0.015, 0.03
EXPIRIES = [1 / 12, 0.25, 0.5, 1.0, 2.0]
ATM_VOLS = [0.165, 0.17, 0.178, 0.185, 0.192]
RHO, ETA, GAMMA = -0.7, 1.0, 0.4


def main():
    print("underlying,expiry,strike,vol")
    for t, atm in zip(EXPIRIES, ATM_VOLS):
        theta = atm * atm * t
        phi = ETA / theta ** GAMMA
        forward = SPOT * math.exp((RATE - DIVIDEND) * t)
        for strike in range(60, 145, 5):
            k = math.log(strike / forward)
            if abs(k) > 3.5 * atm * math.sqrt(t):
                continue
            w = theta / 2 * (1 + RHO * phi * k + math.sqrt((phi * k + RHO) ** 2 + 1 - RHO * RHO))
            print("SPX,%.6g,%d,%.4f" % (t, strike, math.sqrt(w / t)))


if __name__ == "__main__":
    main()
