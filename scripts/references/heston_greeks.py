#!/usr/bin/python3
"""Heston Greeks of the reference cases' Europeans from QuantLib's AnalyticHestonEngine, for
tests/test_pathwise.cpp (issue 37's "Heston by a difference of QuantLib's analytic engine").

For the call (K = 100) and the put (K = 90) of cases/heston_qe.json and
cases/heston_full_truncation.json (the same market and model, two schemes), it prints:

  - the derivatives: delta, vega (a parallel shift of sqrt(v0) and sqrt(theta), as pfmc's bumps
    define it), rho (parallel zero rate), theta (valuation time forward, -dV/dT), each a central
    difference of the analytic price at a small step; gamma as the central difference of the
    analytic delta at +-1% of the spot (the mean of pfmc's pathwise gamma estimator);
  - each Greek's allowance for the scheme's discretisation at the case's grid (52 steps a year):
    |independent Monte Carlo's bumped Greek - QuantLib's central difference at the same bump|
    + 3 of that Monte Carlo's standard errors. The independent Monte Carlo (refmc.py, numpy, the
    same scheme, 1.6M paths) is in the case files; nothing here reads pfmc's output.

Run: /usr/bin/python3 scripts/references/heston_greeks.py  (Debian's quantlib-python 1.29)
"""
import json
import os

import QuantLib as ql

HERE = os.path.dirname(os.path.abspath(__file__))
EV = ql.Date(2, ql.January, 2025)
DC = ql.Actual365Fixed()

# pfmc's bumps (engine/plan/plan.hpp): spot 1% relative, vol 0.01, rates 10 bp, time one day.
SPOT_BUMP, VOL_BUMP, RATE_BUMP, TIME_BUMP_DAYS = 0.01, 0.01, 0.001, 1


def price(kind, strike, spot, v0, kappa, theta, xi, rho, r, q, days):
    ql.Settings.instance().evaluationDate = EV
    flat = lambda x: ql.YieldTermStructureHandle(ql.FlatForward(EV, x, DC, ql.Continuous))
    process = ql.HestonProcess(flat(r), flat(q), ql.QuoteHandle(ql.SimpleQuote(spot)), v0, kappa,
                               theta, xi, rho)
    option = ql.VanillaOption(
        ql.PlainVanillaPayoff(ql.Option.Call if kind == "call" else ql.Option.Put, strike),
        ql.EuropeanExercise(EV + days))
    option.setPricingEngine(ql.AnalyticHestonEngine(ql.HestonModel(process), 1e-13, 100000))
    return option.NPV()


def greeks(kind, strike, case, spot_h, vol_h, rate_h, days_h):
    """Central differences at the given steps: delta, gamma (of delta at +-1%), vega, rho,
    theta."""
    m = case["models"][0]
    u = case["market"]["underlyings"][0]
    base = dict(spot=u["spot"], v0=m["v0"], kappa=m["kappa"], theta=m["theta"], xi=m["xi"],
                rho=m["rho"], r=case["market"]["rates"]["zero_rate"], q=u["dividend_yield"],
                days=365)
    at = lambda **kw: price(kind, strike, **{**base, **kw})
    S = base["spot"]

    def delta(spot):
        h = spot_h * S
        return (at(spot=spot + h) - at(spot=spot - h)) / (2 * h)

    def vol(h):
        return dict(v0=(base["v0"] ** 0.5 + h) ** 2, theta=(base["theta"] ** 0.5 + h) ** 2)

    out = dict(delta=delta(S),
               gamma=(delta(S * (1 + SPOT_BUMP)) - delta(S * (1 - SPOT_BUMP))) /
               (2 * SPOT_BUMP * S),
               vega=(at(**vol(vol_h)) - at(**vol(-vol_h))) / (2 * vol_h),
               rho=(at(r=base["r"] + rate_h) - at(r=base["r"] - rate_h)) / (2 * rate_h),
               theta=(at(days=365 - days_h) - at(days=365 + days_h)) / (2 * days_h / 365))
    return out


def main():
    for name in ("heston_qe", "heston_full_truncation"):
        case_file = json.load(open(os.path.join(HERE, "cases", name + ".json")))
        case = case_file["case"]
        refs = {i[0]: {g[0]: g[2] for g in i[2]} for i in case_file["instruments"]}
        print("// %s (QuantLib %s AnalyticHestonEngine; scripts/references/heston_greeks.py)" %
              (name, ql.__version__))
        for kind, strike, iid in (("call", 100.0, "call"), ("put", 90.0, "put")):
            if iid not in refs:
                continue
            # Derivatives: small steps (central differences' error O(h^2), far below 1e-6 here;
            # the engine's integration tolerance 1e-13). The spot step is 1e-4 of the spot.
            exact = greeks(kind, strike, case, 1e-4, 1e-4, 1e-5, 1)
            bumped = greeks(kind, strike, case, SPOT_BUMP, VOL_BUMP, RATE_BUMP, TIME_BUMP_DAYS)
            for g in ("delta", "gamma", "vega", "rho", "theta"):
                if g not in refs[iid]:
                    continue
                mc, se = refs[iid][g][0], refs[iid][g][1]
                allowance = abs(mc - bumped[g]) + 3 * se
                print('    {"%s", "%s", %.10g, %.6g},  // mc %.6f +- %.6f, bumped %.6f' %
                      (iid, g, exact[g], allowance, mc, se, bumped[g]))


if __name__ == "__main__":
    main()
