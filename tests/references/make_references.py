#!/usr/bin/python3
"""Generates tests/reference_cases.hpp: pfmc's reference cases (one per model, every product kind
it prices) and, for every instrument and every Greek, references computed by code that shares
nothing with the engine (this folder: refcore, refclosed, reflattice, refmc; QuantLib 1.29):

  - closed forms: Europeans and digitals on Black-Scholes with term structures, discretely fixed
    geometric Asians, a basket of one leg (a European on that leg), and a call struck near zero
    on any model, whose price is the discounted forward less the strike (refclosed);
  - discretely monitored barriers and knocks on Europeans and digitals, on Black-Scholes and on
    the local-vol Euler chain: a transition-density recursion, Richardson-extrapolated, accurate
    to ~1e-7 (reflattice);
  - local vol in continuous time: Crank-Nicolson (reflattice), whose difference from the Euler
    chain is the scheme's discretisation bias at the case's grid (the allowance of that check);
  - Heston Europeans in continuous time: QuantLib's AnalyticHestonEngine (a zero curve as the
    flat rate of the same discount factor), the scheme's bias at the grid its allowance;
  - arithmetic Asians on Black-Scholes: QuantLib's FdBlackScholesAsianEngine (Richardson over
    two grids);
  - everything else (knocked Asians, baskets, Heston, local-vol Asians, and the Greeks that have
    no deterministic form): an independent Monte Carlo (refmc) over 16x the test's paths, so its
    error is a quarter of pfmc's, on its own draws.

Every deterministic reference is also estimated by the independent Monte Carlo, and the script
prints how many of its standard errors apart the two are: the references check each other.

Usage: tests/references/make_references.py [--quick] [--only CASE,...]
  (QuantLib's Python module: Debian's quantlib-python; numpy, scipy, yaml: Debian's packages.)
  --only: recompute these cases, keep the others' (tests/references/cases/NAME.json).
  --quick: 1/16 of the Monte Carlo paths, printed only (for trying the script).
Writes tests/reference_cases.hpp and the log (tests/references/references.log).
"""
import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import refcore as rc  # noqa: E402
import refclosed  # noqa: E402
import reflattice  # noqa: E402
import refmc  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUTPUT = os.path.join(ROOT, "tests", "reference_cases.hpp")
MC_FACTOR = 16  # the reference's paths over the test's: its standard error is a quarter of pfmc's
# A Monte Carlo Greek whose estimator takes (nearly) the same value on every path -- the rho of a
# call struck near zero is K T DF(T) on each -- has a standard error of rounding alone, and pfmc
# and the reference then differ by their floating-point rounding: each scenario's mean payoff is
# exact to some tens of ulps (a few exp/log and one addition a step: 2^-52 (steps + 10) < 2e-14
# of itself up to 80 steps); the allowance takes 1e-12 of it, amplified by the Greek's weights:
# 1e-12 sum_k |w_k| |V_k|. Measured: 5e-11 at most (curved_curves' rhos, where it is 1e-7).
ROUNDING = 1e-12
ALL_GREEKS = ["delta", "gamma", "vega", "rho", "theta"]



# --- the cases ------------------------------------------------------------------------------

def bs_flat():
    m = dict(maturity=1.0, model="bs")
    k = dict(maturity=1.0, model="bs_knocks")
    knock = lambda t, level, mon, rebate=0.0: dict(type=t, level=level, monitoring=mon,
                                                   **({"rebate": rebate} if rebate else {}))
    return dict(
        name="black_scholes",
        market=dict(underlyings=[dict(name="S", spot=100.0, dividend_yield=0.02)],
                    rates=dict(zero_rate=0.05)),
        # Two models of the same market (each a group of its own, on draws of its own): a
        # model takes at most 64 observation schedules counting the Greeks' 8 scenarios.
        models=[dict(name="bs", type="black_scholes", underlying="S", volatility=0.25),
                dict(name="bs_knocks", type="black_scholes", underlying="S", volatility=0.25)],
        instruments=[
            dict(id="call", type="european", option="call", strike=100.0, **m),
            dict(id="put", type="european", option="put", strike=110.0, **m),
            dict(id="digital", type="digital", option="call", strike=105.0, cash=10.0, **m),
            dict(id="geo_asian", type="asian", average="geometric", option="call", strike=100.0,
                 fixings=12, **m),
            dict(id="arith_asian", type="asian", average="arithmetic", option="put",
                 strike=100.0, fixings=12, **m),
            dict(id="arith_asian_q", type="asian", average="arithmetic", option="call",
                 strike=105.0, fixing_times=[0.25, 0.5, 0.75, 1.0], **m),
            dict(id="down_out_call", type="barrier", option="call", strike=100.0, barrier=85.0,
                 barrier_type="down_and_out", monitoring=52, **m),
            dict(id="down_in_call", type="barrier", option="call", strike=100.0, barrier=85.0,
                 barrier_type="down_and_in", monitoring=52, **m),
            dict(id="up_out_call", type="barrier", option="call", strike=100.0, barrier=130.0,
                 rebate=2.0, barrier_type="up_and_out", monitoring=52, **m),
            dict(id="up_in_put", type="barrier", option="put", strike=105.0, barrier=115.0,
                 rebate=1.0, barrier_type="up_and_in", monitoring=52, **k),
            dict(id="up_out_call_q", type="barrier", option="call", strike=100.0, barrier=115.0,
                 barrier_type="up_and_out", monitoring=4, **m),
            dict(id="down_out_put", type="barrier", option="put", strike=100.0, barrier=90.0,
                 rebate=0.5, barrier_type="down_and_out", monitoring=12, **k),
            dict(id="knocked_digital", type="digital", option="put", strike=95.0, cash=10.0,
                 knock=knock("down_and_out", 85.0, 52, 1.5), **k),
            dict(id="knocked_in_call", type="european", option="call", strike=100.0,
                 knock=knock("up_and_in", 120.0, 12), **k),
            dict(id="knocked_asian", type="asian", average="arithmetic", option="call",
                 strike=100.0, fixings=52, knock=knock("down_and_out", 90.0, 52), **k),
            dict(id="knocked_in_asian", type="asian", average="arithmetic", option="put",
                 strike=100.0, fixings=12, knock=knock("up_and_in", 110.0, 12, 1.0), **k),
            dict(id="knocked_geo", type="asian", average="geometric", option="put", strike=100.0,
                 fixing_times=[0.25, 0.5, 0.75, 1.0], knock=knock("up_and_out", 120.0, 12), **k),
        ],
        simulation=dict(paths=200000, steps_per_year=52, seed=7, greeks=ALL_GREEKS))


def bs_term():
    m = dict(model="bs")
    return dict(
        name="black_scholes_term",
        market=dict(underlyings=[dict(name="S", spot=100.0, dividend_yield=0.01)],
                    rates=dict(tenors=[0.5, 1.0, 2.0], zero_rates=[0.02, 0.03, 0.035])),
        models=[dict(name="bs", type="black_scholes", underlying="S",
                     volatility=dict(tenors=[0.25, 0.5, 1.0, 2.0], vols=[0.30, 0.26, 0.23, 0.21]))],
        instruments=[
            dict(id="call", type="european", option="call", strike=100.0, maturity=1.5, **m),
            dict(id="put", type="european", option="put", strike=95.0, maturity=0.75, **m),
            dict(id="digital", type="digital", option="put", strike=100.0, cash=5.0, maturity=1.0,
                 **m),
            dict(id="geo_asian", type="asian", average="geometric", option="call", strike=100.0,
                 fixings=6, maturity=1.5, **m),
            dict(id="arith_asian", type="asian", average="arithmetic", option="call",
                 strike=100.0, fixings=6, maturity=1.5, **m),
            dict(id="down_out_call", type="barrier", option="call", strike=100.0, barrier=85.0,
                 barrier_type="down_and_out", monitoring=26, maturity=1.0, **m),
            dict(id="up_out_put", type="barrier", option="put", strike=100.0, barrier=115.0,
                 rebate=1.0, barrier_type="up_and_out", monitoring=6, maturity=1.0, **m),
            dict(id="knocked_asian", type="asian", average="arithmetic", option="put",
                 strike=100.0, fixings=12, maturity=1.0,
                 knock=dict(type="down_and_in", level=88.0, monitoring=26), **m),
        ],
        simulation=dict(paths=200000, steps_per_year=26, seed=7, greeks=ALL_GREEKS))


def heston(scheme):
    m = dict(maturity=1.0, model="h")
    instruments = [
        dict(id="call", type="european", option="call", strike=100.0, **m),
        dict(id="put", type="european", option="put", strike=90.0, **m),
        dict(id="digital", type="digital", option="call", strike=105.0, cash=10.0, **m),
        dict(id="geo_asian", type="asian", average="geometric", option="call", strike=100.0,
             fixings=12, **m),
        dict(id="arith_asian", type="asian", average="arithmetic", option="put", strike=100.0,
             fixings=12, **m),
        dict(id="down_out_call", type="barrier", option="call", strike=100.0, barrier=85.0,
             barrier_type="down_and_out", monitoring=52, **m),
        dict(id="up_out_call", type="barrier", option="call", strike=100.0, barrier=130.0,
             rebate=2.0, barrier_type="up_and_out", monitoring=12, **m),
        dict(id="knocked_digital", type="digital", option="put", strike=95.0, cash=10.0,
             knock=dict(type="down_and_out", level=85.0, monitoring=52), **m),
        dict(id="knocked_asian", type="asian", average="arithmetic", option="call",
             strike=100.0, fixings=12, knock=dict(type="up_and_out", level=125.0, monitoring=52),
             **m),
    ]
    if scheme == "full_truncation":
        instruments = [i for i in instruments if i["id"] in ("call", "digital", "arith_asian",
                                                             "down_out_call")]
    return dict(
        name="heston_" + scheme,
        market=dict(underlyings=[dict(name="S", spot=100.0, dividend_yield=0.02)],
                    rates=dict(zero_rate=0.01)),
        models=[dict(name="h", type="heston", underlying="S", v0=0.04, kappa=2.0, theta=0.06,
                     xi=0.5, rho=-0.7, scheme=scheme)],
        instruments=instruments,
        simulation=dict(paths=100000, steps_per_year=52, seed=11,
                        greeks=ALL_GREEKS if scheme == "qe" else ["delta", "vega"]))


# A square surface (4 times x 4 knots), skewed in moneyness and in time: read transposed, it is
# another surface.
SKEW = dict(times=[0.25, 0.5, 1.0, 2.0], log_moneyness=[-0.4, -0.1, 0.1, 0.4],
            vols=[[0.42, 0.30, 0.24, 0.21], [0.38, 0.28, 0.23, 0.21], [0.34, 0.26, 0.22, 0.20],
                  [0.30, 0.24, 0.21, 0.20]])


def local_vol():
    m = dict(maturity=1.0, model="lv")
    return dict(
        name="local_vol",
        market=dict(underlyings=[dict(name="S", spot=100.0, dividend_yield=0.01)],
                    rates=dict(zero_rate=0.03)),
        models=[dict(name="lv", type="local_vol", underlying="S", surface=SKEW)],
        instruments=[
            dict(id="call_90", type="european", option="call", strike=90.0, **m),
            dict(id="call_110", type="european", option="call", strike=110.0, **m),
            dict(id="put_100", type="european", option="put", strike=100.0, **m),
            dict(id="put_80", type="european", option="put", strike=80.0, maturity=0.5,
                 model="lv"),
            dict(id="digital", type="digital", option="call", strike=105.0, cash=10.0, **m),
            dict(id="down_out_call", type="barrier", option="call", strike=100.0, barrier=85.0,
                 barrier_type="down_and_out", monitoring=52, **m),
            dict(id="up_out_call_q", type="barrier", option="call", strike=100.0, barrier=115.0,
                 rebate=1.0, barrier_type="up_and_out", monitoring=4, **m),
            dict(id="arith_asian", type="asian", average="arithmetic", option="call",
                 strike=100.0, fixings=12, **m),
            dict(id="geo_asian", type="asian", average="geometric", option="put", strike=100.0,
                 fixings=12, **m),
            dict(id="knocked_asian", type="asian", average="arithmetic", option="put",
                 strike=100.0, fixings=12, knock=dict(type="down_and_in", level=85.0,
                                                      monitoring=52, rebate=0.5), **m),
        ],
        simulation=dict(paths=200000, steps_per_year=52, seed=3, greeks=ALL_GREEKS))


def baskets():
    on = lambda model: dict(maturity=1.0, model=model)
    w = [0.5, 0.3, 0.2]
    return dict(
        name="baskets",
        market=dict(underlyings=[dict(name="A", spot=100.0), dict(name="B", spot=90.0,
                                                                    dividend_yield=0.01),
                                 dict(name="C", spot=110.0)],
                    rates=dict(zero_rate=0.03)),
        # Four models of the same market (groups of their own): a model takes at most 64
        # observation schedules counting the Greeks' 16 scenarios.
        models=[dict(name=name, type="multi_black_scholes", underlyings=["A", "B", "C"],
                     volatilities=[0.2, 0.3, 0.25],
                     correlation=[[1.0, 0.5, 0.3], [0.5, 1.0, 0.4], [0.3, 0.4, 1.0]])
                for name in ("weighted", "extremes", "knocked", "knocked_min")],
        instruments=[
            dict(id="weighted_call", type="basket", payoff="weighted", weights=w, option="call",
                 strike=100.0, **on("weighted")),
            dict(id="weighted_put", type="basket", payoff="weighted", weights=w, option="put",
                 strike=95.0, **on("weighted")),
            dict(id="equal_call", type="basket", payoff="weighted", option="call", strike=100.0,
                 **on("weighted")),
            dict(id="max_call", type="basket", payoff="max", option="call", strike=110.0, **on("extremes")),
            dict(id="min_put", type="basket", payoff="min", option="put", strike=95.0, **on("extremes")),
            dict(id="spread_call", type="basket", payoff="weighted", weights=[1.0, -1.0, 0.0],
                 option="call", strike=5.0, **on("extremes")),
            dict(id="knocked_weighted", type="basket", payoff="weighted", weights=w,
                 option="call", strike=100.0,
                 knock=dict(type="down_and_out", level=88.0, monitoring=52, rebate=1.0), **on("knocked")),
            dict(id="knocked_max", type="basket", payoff="max", option="call", strike=110.0,
                 knock=dict(type="up_and_in", level=125.0, monitoring=12), **on("knocked")),
            dict(id="knocked_min", type="basket", payoff="min", option="put", strike=95.0,
                 knock=dict(type="up_and_out", level=105.0, monitoring=12), **on("knocked_min")),
        ],
        simulation=dict(paths=100000, steps_per_year=52, seed=5, greeks=ALL_GREEKS))


def heston_lewis():
    """tests/test_methods_cpu.cpp's Heston case (Lewis's semi-analytic 16.070154917 at K = 100)."""
    m = dict(maturity=1.0, model="h")
    return dict(
        name="heston_lewis",
        market=dict(underlyings=[dict(name="S", spot=100.0, dividend_yield=0.02)],
                    rates=dict(zero_rate=0.01)),
        models=[dict(name="h", type="heston", underlying="S", v0=0.04, kappa=4.0, theta=0.25,
                     xi=1.0, rho=-0.5, scheme="qe")],
        instruments=[dict(id="c100", type="european", option="call", strike=100.0, **m),
                     dict(id="c120", type="european", option="call", strike=120.0, **m),
                     dict(id="p90", type="european", option="put", strike=90.0, **m)],
        simulation=dict(paths=100000, steps_per_year=52, seed=11))


# The curved market of issue 59: zero rates rising from 1% to 4.5% (flat outside their tenors),
# so that the integrated rate of a step, ln(DF(t0) / DF(t1)), differs from any average of the
# zero rates at its ends; every model's drift integrates it.
CURVE = dict(tenors=[0.25, 1.0, 3.0], zero_rates=[0.01, 0.03, 0.045])

# A local-vol surface whose last time (0.5) comes before the maturities (1.0): past it the surface
# is flat in time (its last row), and its first row is far from its last.
SHORT_SURFACE = dict(times=[0.1, 0.25, 0.5], log_moneyness=[-0.4, -0.1, 0.1, 0.4],
                     vols=[[0.50, 0.40, 0.34, 0.30], [0.36, 0.28, 0.24, 0.22],
                           [0.28, 0.20, 0.17, 0.16]])

# A call struck at a ten-thousandth of the spot: the discounted forward less the strike, exact in
# expectation on every model and scheme, within K DF / 2 (refclosed.discounted_forward_call).
TINY_STRIKE = 0.01


def curved_curves():
    """Every model under CURVE, Black-Scholes under a vol term structure, local vol priced past
    its surface's last time; maturities on whole days (QuantLib's Heston)."""
    on = lambda model, T=1.0: dict(maturity=T, model=model)
    return dict(
        name="curved_curves",
        market=dict(underlyings=[dict(name="S", spot=100.0, dividend_yield=0.01),
                                 dict(name="A", spot=100.0),
                                 dict(name="B", spot=90.0, dividend_yield=0.02)],
                    rates=CURVE),
        models=[dict(name="bs", type="black_scholes", underlying="S",
                     volatility=dict(tenors=[0.25, 1.0, 2.0], vols=[0.30, 0.24, 0.21])),
                dict(name="h", type="heston", underlying="S", v0=0.04, kappa=2.0, theta=0.06,
                     xi=0.5, rho=-0.7, scheme="qe"),
                dict(name="lv", type="local_vol", underlying="S", surface=SHORT_SURFACE),
                dict(name="ab", type="multi_black_scholes", underlyings=["A", "B"],
                     volatilities=[0.2, 0.3], correlation=[[1.0, 0.5], [0.5, 1.0]])],
        instruments=[
            dict(id="bs_call", type="european", option="call", strike=100.0, **on("bs", 1.5)),
            dict(id="bs_put", type="european", option="put", strike=95.0, **on("bs", 0.75)),
            dict(id="bs_forward", type="european", option="call", strike=TINY_STRIKE,
                 **on("bs", 1.5)),
            dict(id="h_call", type="european", option="call", strike=100.0, **on("h")),
            dict(id="h_put", type="european", option="put", strike=90.0, **on("h")),
            dict(id="h_forward", type="european", option="call", strike=TINY_STRIKE, **on("h")),
            dict(id="lv_call", type="european", option="call", strike=100.0, **on("lv")),
            dict(id="lv_put", type="european", option="put", strike=90.0, **on("lv")),
            dict(id="lv_forward", type="european", option="call", strike=TINY_STRIKE, **on("lv")),
            dict(id="lv_down_out", type="barrier", option="call", strike=100.0, barrier=85.0,
                 barrier_type="down_and_out", monitoring=12, **on("lv")),
            dict(id="ab_leg", type="basket", payoff="weighted", weights=[0.0, 1.0],
                 option="call", strike=90.0, **on("ab")),
            dict(id="ab_call", type="basket", payoff="weighted", weights=[0.6, 0.4],
                 option="call", strike=95.0, **on("ab")),
            dict(id="ab_forward", type="basket", payoff="weighted", weights=[0.6, 0.4],
                 option="call", strike=TINY_STRIKE, **on("ab")),
        ],
        simulation=dict(paths=100000, steps_per_year=24, seed=13, greeks=ALL_GREEKS))


def fine_steps():
    """Theta on a grid finer than a day (1000 steps a year): the valuation moves by half the
    first step (0.0005 of a year), not by a day. A day would move it past the first step's end:
    that step's interval turns negative, Black-Scholes clips its variance to zero, and the
    shifted scenario keeps sigma^2 (T - 0.001) of variance where sigma^2 (T - 1/365) is due
    (theta's variance part 0.37 of itself: about 11 a year off here). The bumped theta's noise
    grows as the first step shrinks (that step's draw changes its weight by a fraction of itself
    on every path: ~260 a path at 0.001, a standard error of ~0.6 at 200,000 paths), so the
    maturity is short, where theta is large (-18 a year at the money)."""
    on = dict(maturity=0.05, model="bs")
    return dict(
        name="fine_steps",
        market=dict(underlyings=[dict(name="S", spot=100.0, dividend_yield=0.01)], rates=CURVE),
        models=[dict(name="bs", type="black_scholes", underlying="S", volatility=0.2)],
        instruments=[dict(id="call", type="european", option="call", strike=100.0, **on),
                     dict(id="put", type="european", option="put", strike=98.0, **on)],
        simulation=dict(paths=200000, steps_per_year=1000, seed=17, greeks=["theta"]))


def quantlib_heston(case, model, instrument):
    """QuantLib's AnalyticHestonEngine (continuous time), flat yield, T in years of an Actual/365
    day count with the maturity on a whole day. A zero curve at tenors enters as the flat rate
    of the same discount factor at T, -ln DF(T) / T: with deterministic rates the log-spot at T
    depends on the rates only through their integral to T, and the payoff is discounted by
    DF(T), so a European's price is the same."""
    import QuantLib as ql
    (u,) = rc.underlyings_of(case, model)
    ev = ql.Date(2, ql.January, 2025)
    ql.Settings.instance().evaluationDate = ev
    dc = ql.Actual365Fixed()
    days = instrument["maturity"] * 365
    assert abs(days - round(days)) < 1e-9
    flat = lambda x: ql.YieldTermStructureHandle(ql.FlatForward(ev, x, dc, ql.Continuous))
    rate = -math.log(rc.discount(case["market"]["rates"], instrument["maturity"])) / \
        instrument["maturity"]
    process = ql.HestonProcess(flat(rate),
                               flat(u.get("dividend_yield", 0.0)),
                               ql.QuoteHandle(ql.SimpleQuote(u["spot"])), model["v0"],
                               model["kappa"], model["theta"], model["xi"], model["rho"])
    kind = ql.Option.Call if instrument["option"] == "call" else ql.Option.Put
    option = ql.VanillaOption(ql.PlainVanillaPayoff(kind, instrument["strike"]),
                              ql.EuropeanExercise(ev + int(round(days))))
    option.setPricingEngine(ql.AnalyticHestonEngine(ql.HestonModel(process), 1e-12, 100000))
    return option.NPV()


def knocked_control():
    """tests/test_knock.cpp's knocked call with a control variate and a bumped delta."""
    return dict(
        name="knocked_control",
        market=dict(underlyings=[dict(name="S", spot=100.0)], rates=dict(zero_rate=0.05)),
        models=[dict(name="bs", type="black_scholes", underlying="S", volatility=0.2)],
        instruments=[dict(id="k", type="european", option="call", strike=100.0, maturity=1.0,
                          model="bs", knock=dict(type="down_and_out", level=80.0,
                                                 monitoring=52))],
        simulation=dict(paths=20000, steps_per_year=52, seed=7, control_variate=True,
                        greeks=["delta"]))


def controlled_asian():
    """tests/test_methods_cpu.cpp's control-variate case: a call and an arithmetic Asian."""
    m = dict(maturity=1.0, model="bs")
    return dict(
        name="controlled_asian",
        market=dict(underlyings=[dict(name="S", spot=100.0, dividend_yield=0.01)],
                    rates=dict(zero_rate=0.04)),
        models=[dict(name="bs", type="black_scholes", underlying="S", volatility=0.25)],
        instruments=[dict(id="call", type="european", option="call", strike=105.0, **m),
                     dict(id="asian", type="asian", average="arithmetic", option="call",
                          strike=100.0, fixings=12, **m)],
        simulation=dict(paths=50000, steps_per_year=12, seed=9, control_variate=True))


def shipped_basket():
    """config/examples/basket.yaml as shipped, with every Greek on 40,000 paths and 52 steps a
    year (its knock is monitored weekly: the same dates; the legs step exactly)."""
    import yaml
    with open(os.path.join(ROOT, "config", "examples", "basket.yaml")) as f:
        case = yaml.safe_load(f)
    case["name"] = "shipped_basket"
    case["simulation"] = dict(paths=40000, steps_per_year=52, seed=42, greeks=ALL_GREEKS)
    return case


CASES = [bs_flat, bs_term, lambda: heston("qe"), lambda: heston("full_truncation"), local_vol,
         baskets, shipped_basket, knocked_control, controlled_asian, heston_lewis, curved_curves,
         fine_steps]


# --- deterministic references ---------------------------------------------------------------

def quantlib_arithmetic_asian(case, model, instrument):
    """QuantLib's FdBlackScholesAsianEngine on a flat market, dates on whole days of an
    Actual/360 year (T i / n of 360 days), Richardson from the (400, 400, 200) and (800, 800,
    400) grids (the error falls as h^2: measured 1.05e-3 -> 2.6e-4 between 400 and 1600)."""
    import QuantLib as ql
    (u,) = rc.underlyings_of(case, model)
    ev = ql.Date(2, ql.January, 2025)
    ql.Settings.instance().evaluationDate = ev
    dc = ql.Actual360()
    flat = lambda x: ql.YieldTermStructureHandle(ql.FlatForward(ev, x, dc, ql.Continuous))
    proc = ql.BlackScholesMertonProcess(
        ql.QuoteHandle(ql.SimpleQuote(u["spot"])), flat(u.get("dividend_yield", 0.0)),
        flat(case["market"]["rates"]["zero_rate"]),
        ql.BlackVolTermStructureHandle(ql.BlackConstantVol(ev, ql.NullCalendar(),
                                                           model["volatility"], dc)))
    days = [t * 360 for t in rc.fixings_of(instrument)]
    assert all(abs(d - round(d)) < 1e-9 for d in days), "fixings not on whole days"
    dates = [ev + int(round(d)) for d in days]
    kind = ql.Option.Call if instrument["option"] == "call" else ql.Option.Put
    option = ql.DiscreteAveragingAsianOption(ql.Average.Arithmetic, 0.0, 0, dates,
                                             ql.PlainVanillaPayoff(kind, instrument["strike"]),
                                             ql.EuropeanExercise(dates[-1]))
    values = []
    for grid in ((400, 400, 200), (800, 800, 400)):
        option.setPricingEngine(ql.FdBlackScholesAsianEngine(proc, *grid))
        values.append(option.NPV())
    value = (4 * values[1] - values[0]) / 3
    return value, abs(value - values[1]) / 3


def is_forward_call(case, model, instrument):
    """A call (on the spot, or on a weighted basket of weights >= 0) struck at most a thousandth
    of its underlying's spot value: refclosed.discounted_forward_call prices it on any model."""
    if instrument["option"] != "call" or rc.knock_of(instrument):
        return False
    if instrument["type"] == "basket":
        if instrument.get("payoff", "weighted") != "weighted" or "weights" not in instrument:
            return False
        weights = instrument["weights"]
    elif instrument["type"] == "european":
        weights = [1.0]
    else:
        return False
    if any(w < 0.0 for w in weights):
        return False
    level = sum(w * u["spot"] for w, u in zip(weights, rc.underlyings_of(case, model)))
    return instrument["strike"] <= 1e-3 * level


def deterministic(case, model, instrument, grid, cheap_only):
    """[(value, allowance, origin)] for the price; the first is the one the Greeks bump.
    cheap_only: leave out what is too slow to run for every bumped scenario (QuantLib's Asian
    FD, the PDE)."""
    out = _deterministic(case, model, instrument, grid, cheap_only)
    if is_forward_call(case, model, instrument):
        v, allowance = refclosed.discounted_forward_call(case, model, instrument)
        out.append((v, allowance, "discounted forward less the strike (any model with "
                    "deterministic rates); allowance: half the put part's range [0, K DF]"))
    return out


def _deterministic(case, model, instrument, grid, cheap_only):
    t, knock = instrument["type"], rc.knock_of(instrument)
    if model["type"] == "black_scholes":
        if t == "european" and not knock:
            return [(refclosed.european(case, model, instrument), 0.0, "Black-Scholes")]
        if t == "digital" and not knock:
            return [(refclosed.digital(case, model, instrument), 0.0, "cash-or-nothing")]
        if t == "asian" and instrument["average"] == "geometric" and not knock:
            return [(refclosed.geometric_asian(case, model, instrument), 0.0,
                     "geometric Asian (Gaussian log-average)")]
        if t in ("european", "digital", "barrier"):
            v, err = reflattice.knocked_price(case, model, instrument)
            return [(v, max(err, 1e-6), "transition-density recursion")]
        if (t == "asian" and instrument["average"] == "arithmetic" and not knock and not
                cheap_only and "zero_rate" in case["market"]["rates"]
                and not isinstance(model["volatility"], dict)):
            v, err = quantlib_arithmetic_asian(case, model, instrument)
            return [(v, max(err, 1e-5), "QuantLib FdBlackScholesAsianEngine")]
    if model["type"] == "local_vol" and t in ("european", "digital", "barrier"):
        v, err = reflattice.knocked_price(case, model, instrument, grid=grid)
        out = [(v, max(err, 1e-6), "local-vol Euler chain: transition-density recursion")]
        if not knock and not cheap_only:
            pde, perr = reflattice.local_vol_pde(case, model, instrument)
            out.append((pde, abs(v - pde) + max(perr, 1e-5),
                        "Crank-Nicolson PDE (continuous time); allowance: the Euler chain's "
                        "bias at this grid, chain %.6f" % v))
        return out
    if (model["type"] == "multi_black_scholes" and t == "basket" and not knock and
            instrument.get("payoff", "weighted") == "weighted" and "weights" in instrument and
            sum(1 for w in instrument["weights"] if w != 0.0) == 1 and
            max(instrument["weights"]) > 0.0):
        return [(refclosed.basket_leg(case, model, instrument), 0.0,
                 "Black-Scholes on the basket's one leg")]
    return []


def deterministic_greeks(case, model_name, instrument, grid):
    """{(greek, asset): (bumped value, derivative or None)} from the first deterministic
    reference of each scenario, or None when the instrument has none cheap enough (everything
    but closed forms and the Black-Scholes recursion goes to the Monte Carlo)."""
    model = next(m for m in case["models"] if m["name"] == model_name)
    if model["type"] != "black_scholes":
        return None
    if instrument["type"] == "asian" and (instrument["average"] == "arithmetic" or
                                          rc.knock_of(instrument)):
        return None
    greeks = case["simulation"].get("greeks", [])
    scs, weights = rc.scenarios(case, model_name, greeks, grid[1])

    def value(sc_case, inst):
        m = next(mm for mm in sc_case["models"] if mm["name"] == model_name)
        return deterministic(sc_case, m, inst, grid, True)[0][0]

    values = [value(sc.case, rc.shifted(instrument, sc.shift)) for sc in scs]
    out = {}
    for g, a, w in weights:
        out[(g, a)] = [sum(wk * vk for wk, vk in zip(w, values)), None]
    if "delta" in greeks and refmc.pathwise_delta_applies(model, instrument):
        # dV/dS0 by a central difference of 1e-4 of the spot: its O(h^2) error ~1e-9.
        tiny = 1e-4
        up = value(rc._bump_spot(case, model, -1, tiny), instrument)
        down = value(rc._bump_spot(case, model, -1, -tiny), instrument)
        spot = rc.underlyings_of(case, model)[0]["spot"]
        out[("delta", None)][1] = (up - down) / (2 * tiny * spot)
    return out


# --- output ---------------------------------------------------------------------------------

def cpp_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", '\\n"\n    "') + '"'


def ref_cpp(value, se, allowance, origin):
    return "{%.10g, %.6g, %.6g, %s}" % (value, se, allowance, cpp_string(origin))


def build_case(case, quick, log):
    started = time.time()
    paths = case["simulation"]["paths"]
    mc_paths = paths * MC_FACTOR // (16 if quick else 1)
    seed = 20261127 + sum(map(ord, case["name"]))
    estimates = refmc.price_case(case, mc_paths, seed)
    log("case %s: %d instruments, pfmc %d paths, reference Monte Carlo %d paths (%.0f s)" % (
        case["name"], len(case["instruments"]), paths, mc_paths, time.time() - started))
    underlying_names = {}
    for m in case["models"]:
        underlying_names[m["name"]] = [u["name"] for u in rc.underlyings_of(case, m)]
    out = []
    for name, (model, instruments) in rc.groups(case).items():
        grid = rc.group_grid(instruments, case["simulation"].get("steps_per_year", 252))
        for ins in instruments:
            est = estimates[ins["id"]]
            p = est["price"]
            refs = deterministic(case, model, ins, grid, False)
            for v, allowance, origin in refs:
                log("  %-18s %-55.55s %12.6f  mc %12.6f +- %.6f  (%+.2f se)" % (
                    ins["id"], origin, v, p.mean(), p.std_error(),
                    (p.mean() - v) / p.std_error()))
            prices = [(v, 0.0, a, o) for v, a, o in refs] or [
                (p.mean(), p.std_error(), 0.0, "independent Monte Carlo (numpy, %d paths)" %
                 mc_paths)]
            if model["type"] == "heston" and ins["type"] == "european" and not rc.knock_of(ins):
                # Continuous time: the scheme's bias at this grid, measured by the Monte Carlo
                # of the same scheme, is the allowance (plus 3 of its standard errors).
                exact = quantlib_heston(case, model, ins)
                bias = abs(p.mean() - exact) + 3 * p.std_error()
                log("  %-18s %-55s %12.6f  scheme bias %+.6f +- %.6f" % (
                    ins["id"], "QuantLib AnalyticHestonEngine", exact, p.mean() - exact,
                    p.std_error()))
                prices.append((exact, 0.0, bias, "QuantLib AnalyticHestonEngine; allowance: the "
                               "scheme's bias at this grid (independent Monte Carlo) + 3 se"))
            if not refs:
                log("  %-18s %-55s %12.6f +- %.6f" % (ins["id"], "independent Monte Carlo",
                                                       p.mean(), p.std_error()))
            det = deterministic_greeks(case, name, ins, grid) if est["greeks"] else None
            greeks = []
            for k, (g, a, moments) in enumerate(est["greeks"]):
                under = underlying_names[name][a] if a is not None else ""
                if det is not None:
                    bumped, derivative = det[(g, a)]
                    origin = refs[0][2] + ", bumped as pfmc bumps"
                    log("    %-6s%-4s bumped %12.6f  mc %12.6f +- %.6f  (%+.2f se)" % (
                        g, under, bumped, moments.mean(), moments.std_error(),
                        (moments.mean() - bumped) / moments.std_error()))
                    b = (bumped, 0.0, 1e-6, origin)
                    d = (derivative, 0.0, 1e-6, refs[0][2] + ", dV/dS0") \
                        if derivative is not None else None
                else:
                    rounding = ROUNDING * sum(abs(w) * abs(v.mean()) for w, v in
                                              zip(est["weights"][k], est["scenarios"]) if w)
                    b = (moments.mean(), moments.std_error(), rounding,
                         "independent Monte Carlo, common random numbers, bumped as pfmc bumps; "
                         "allowance: rounding, 1e-12 of the bumped values")
                    d = None
                    pw = est["pathwise_delta"]
                    if g == "delta" and pw is not None:
                        d = (pw.mean(), pw.std_error(), 0.0,
                             "independent Monte Carlo, pathwise dV/dS0")
                greeks.append((g, under, b, d))
            out.append((ins["id"], prices, greeks))
    return paths, out


def write_header(built, argv):
    lines = [
        "#pragma once",
        "// Generated by tests/references/make_references.py (%s): do not edit, rerun it." %
        " ".join(argv),
        "// Each case is a run of pfmc (the YAML without its engine mapping) and, for every",
        "// instrument and Greek, references computed apart from the engine: value, the",
        "// reference's own standard error (0: deterministic), the allowance on top of the",
        "// standard errors, and where the value and the allowance come from.",
        "",
        "#include <cstdint>",
        "#include <optional>",
        "#include <vector>",
        "",
        "namespace pfmc::testing::references {",
        "",
        "struct Reference {",
        "  double value;",
        "  double std_error; ///< the reference's own (0: deterministic)",
        "  double allowance; ///< on top of kSigmas combined standard errors",
        "  const char* origin;",
        "};",
        "",
        "struct GreekReference {",
        "  const char* greek;",
        "  const char* underlying;              ///< a basket's leg, else \"\"",
        "  Reference bumped;                    ///< the central difference pfmc's bumps take",
        "  std::optional<Reference> derivative; ///< dV/dS0, where delta may be pathwise",
        "};",
        "",
        "struct InstrumentReference {",
        "  const char* id;",
        "  std::vector<Reference> price; ///< every one must hold",
        "  std::vector<GreekReference> greeks;",
        "};",
        "",
        "struct ReferenceCase {",
        "  const char* name;",
        "  const char* yaml; ///< without `engine:`",
        "  std::uint64_t paths;",
        "  std::vector<InstrumentReference> instruments;",
        "};",
        "",
        "inline const std::vector<ReferenceCase>& reference_cases() {",
        "  static const std::vector<ReferenceCase> cases = {",
    ]
    for case, (paths, instruments) in built:
        lines.append("  {%s,\n   %s,\n   %d,\n   {" % (cpp_string(case["name"]),
                                                      cpp_string(rc.case_yaml(case)), paths))
        for iid, prices, greeks in instruments:
            lines.append("    {%s,\n     {%s},\n     {" % (
                cpp_string(iid), ",\n      ".join(ref_cpp(*r) for r in prices)))
            for g, under, b, d in greeks:
                lines.append("      {%s, %s, %s, %s}," % (
                    cpp_string(g), cpp_string(under), ref_cpp(*b),
                    "Reference" + ref_cpp(*d) if d else "std::nullopt"))
            lines.append("     }},")
        lines.append("   }},")
    lines += ["  };", "  return cases;", "}", "", "} // namespace pfmc::testing::references", ""]
    rc.write_header(OUTPUT, lines)


CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    log_lines = []

    def log(s):
        print(s, flush=True)
        log_lines.append(s)

    import numpy
    import scipy
    try:
        import QuantLib
        ql_version = QuantLib.__version__
    except ImportError:
        ql_version = "missing"
    log("numpy %s, scipy %s, QuantLib %s" % (numpy.__version__, scipy.__version__, ql_version))
    # Each case's references are kept in cases/NAME.json (with its log and the case itself):
    # --only recomputes some and the header is written from all of them.
    os.makedirs(CACHE, exist_ok=True)
    built = []
    for make in CASES:
        case = make()
        path = os.path.join(CACHE, case["name"] + ".json")
        if only and case["name"] not in only:
            with open(path) as f:
                kept = json.load(f)
            if kept["case"] != json.loads(json.dumps(case)):
                sys.exit("%s: the case changed since its references were made: rerun it" %
                         case["name"])
            built.append((case, (kept["paths"], kept["instruments"])))
            log_lines.extend(kept["log"])
            continue
        first = len(log_lines)
        paths, instruments = build_case(case, args.quick, log)
        built.append((case, (paths, instruments)))
        if not args.quick:
            with open(path, "w") as f:
                json.dump(dict(case=case, paths=paths, instruments=instruments,
                               log=log_lines[first:]), f, indent=1)
    if args.quick:
        return
    write_header(built, ["tests/references/make_references.py"])
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "references.log"),
              "w") as f:
        f.write("\n".join(log_lines) + "\n")


if __name__ == "__main__":
    main()
