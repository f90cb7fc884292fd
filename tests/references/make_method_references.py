#!/usr/bin/python3
"""Generates tests/method_references.hpp: the references of the method checks of
tests/test_methods_cpu.cpp, tests/test_gpu_models.cpp, tests/test_knock.cpp and
tests/test_sobol.cpp (issue 59: each check able to fail, each allowance derived here), computed
by code that shares nothing with the engine (this folder's refcore, refclosed, reflattice and
refmc; QuantLib 1.29; scipy):

  1. Heston, the issue's case (S = 100, q = 2%, r = 1%, v0 = 0.04, kappa = 4, theta = 0.25,
     xi = 1, rho = -0.5, T = 1): each scheme's price at each grid the tests run (QE-M and full
     truncation at 4 and 12 steps a year, QE at 252) by the independent Monte Carlo of the same
     scheme (refmc), beside QuantLib's AnalyticHestonEngine: their difference is the scheme's
     discretisation bias at that grid, measured with its standard error.
  2. Antithetic variates on test_support.hpp's bs_yaml call (K = 105): the standard deviation
     and kurtosis of one path's discounted payoff and of an antithetic pair's mean, by quadrature
     over the terminal normal (on exact log steps the payoff depends on the path through it
     alone): the standard error a run must report, and how far its estimate of it may stray.
  3. Black-Scholes Greeks: (a) bumped as pfmc bumps (spot +-1%, vol +-1 point, rates +-10 bp,
     one day forward; delta pathwise), every scenario's closed form combined as the estimator
     combines them (refcore.scenarios, refclosed.european): the bumped estimator's mean, exactly;
     (b) pathwise on test_gpu_models.cpp's piecewise-linear zero curve: delta, vega, rho and
     theta the closed form's derivatives (central differences of 1e-5, checked against the
     formulas written out here, theta's with the curve's forward rate), gamma the central
     difference of delta at +-1% (pfmc's pathwise gamma).
  4. Calls on the max and the min of two correlated assets (Stulz's case): quadrature over the
     first asset's normal of the second's closed-form calls.
  5. Down-and-out arithmetic Asian calls (tests/test_knock.cpp): refmc at 16x the test's paths.
  6. Plain Sobol on path-dependent products (tests/test_sobol.cpp): each product's reference
     (QuantLib's FdBlackScholesAsianEngine, refclosed's geometric Asian, reflattice's recursion
     for the barriers); the error that a Sobol point set of the test's size makes on it, as the
     root-mean-square error over independently scrambled Sobol sets (scipy's Owen scrambling)
     of that size, paths built by the same Brownian bridge as pfmc's (terminal point first,
     then midpoints breadth first); and the estimate of the very point set pfmc's plain Sobol
     takes (scipy's unscrambled set: the same direction numbers as cuRAND's, origin skipped,
     cuRAND's (k + 1/2) / 2^32).

Usage: tests/references/make_method_references.py [--quick [--write-quick]] [--only SECTIONS]
  --quick: 1/16 of the Monte Carlo paths, printed only (for trying the script).
  --only antithetic,greeks,two-asset calls,sobol,knocked asians,heston: those sections, printed.
Takes about 12 minutes on 2 cores (9 of them QE at 252 steps); writes tests/method_references.hpp and
prints a log.
"""
import argparse
import math
import os
import sys
import time

import numpy as np
from scipy import integrate
from scipy.special import ndtr, ndtri
from scipy.stats import norm, qmc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import make_references as mr  # noqa: E402
import refclosed  # noqa: E402
import refcore as rc  # noqa: E402
import reflattice  # noqa: E402
import refmc  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUTPUT = os.path.join(ROOT, "tests", "method_references.hpp")
GREEKS = ["delta", "gamma", "vega", "rho", "theta"]


def log(line):
    print(line, flush=True)


# --- 1. Heston schemes ----------------------------------------------------------------------

HESTON_STRIKES = [("c80", "call", 80.0), ("c100", "call", 100.0), ("c120", "call", 120.0),
                  ("p90", "put", 90.0)]
# (scheme, steps a year, paths): 16M paths (standard error ~0.007 at K = 100) where the tests
# run 2M-4M, and at 252 steps, where the GPU test runs 1M.
HESTON_RUNS = [("qe", 4, 16_000_000), ("full_truncation", 4, 16_000_000),
               ("qe", 12, 16_000_000), ("full_truncation", 12, 16_000_000),
               ("qe", 252, 16_000_000)]


def heston_case(scheme, steps):
    return dict(
        market=dict(underlyings=[dict(name="S", spot=100.0, dividend_yield=0.02)],
                    rates=dict(zero_rate=0.01)),
        models=[dict(name="h", type="heston", underlying="S", v0=0.04, kappa=4.0, theta=0.25,
                     xi=1.0, rho=-0.5, scheme=scheme)],
        instruments=[dict(id=i, type="european", option=o, strike=k, maturity=1.0, model="h")
                     for i, o, k in HESTON_STRIKES],
        simulation=dict(paths=1, steps_per_year=steps))


def heston_section(scale):
    rows = []
    exact = {}
    case = heston_case("qe", 4)
    for ins in case["instruments"]:
        exact[ins["id"]] = mr.quantlib_heston(case, case["models"][0], ins)
    for scheme, steps, paths in HESTON_RUNS:
        started = time.time()
        paths //= scale
        # A batch's draws are steps x 2 x batch doubles: at most ~100 MB.
        batch = max(10000, min(200000, 3_000_000 // steps))
        est = refmc.price_case(heston_case(scheme, steps), paths, 5900 + steps +
                               (0 if scheme == "qe" else 1000), batch=batch, greeks=[])
        for iid, _, _ in HESTON_STRIKES:
            p = est[iid]["price"]
            rows.append((scheme, steps, iid, p.mean(), p.std_error(), exact[iid], paths))
            log("  heston %-15s %3d steps %-4s mc %.6f +- %.6f  exact %.6f  bias %+.6f" % (
                scheme, steps, iid, p.mean(), p.std_error(), exact[iid], p.mean() - exact[iid]))
        log("  (%d paths, %.0f s)" % (paths, time.time() - started))
    out = [
        "/// Heston, the issue's case (S = 100, q = 2%, r = 1%, v0 = 0.04, kappa = 4, theta = 0.25,",
        "/// xi = 1, rho = -0.5; calls at 80, 100, 120 and a put at 90, T = 1): `price` and",
        "/// `std_error` the independent Monte Carlo of the same scheme on the same grid",
        "/// (tests/references/refmc.py, its own draws), `exact` QuantLib 1.29's",
        "/// AnalyticHestonEngine; price - exact is the scheme's discretisation bias at that grid.",
        "struct HestonSchemePrice {",
        "  const char* scheme;",
        "  int steps_per_year;",
        "  const char* id;",
        "  double price, std_error;",
        "  double exact;",
        "  std::uint64_t paths;",
        "};",
        "inline constexpr HestonSchemePrice kHestonSchemes[] = {",
    ]
    out += ['    {"%s", %d, "%s", %.8f, %.8f, %.12f, %d},' % r for r in rows]
    out += ["};", ""]
    return out


# --- 2. antithetic variates -----------------------------------------------------------------

def bs_market(spot=100.0, q=0.01, r=0.04, vol=0.25):
    """test_support.hpp's bs_yaml market (model `bs`)."""
    return dict(market=dict(underlyings=[dict(name="S", spot=spot, dividend_yield=q)],
                            rates=dict(zero_rate=r)),
                models=[dict(name="bs", type="black_scholes", underlying="S", volatility=vol)])


def antithetic_section():
    s0, k, q, r, vol, T = 100.0, 105.0, 0.01, 0.04, 0.25, 1.0
    df = math.exp(-r * T)
    f = lambda z: df * max(s0 * math.exp((r - q - 0.5 * vol * vol) * T + vol * math.sqrt(T) * z)
                           - k, 0.0)
    pair = lambda z: 0.5 * (f(z) + f(-z))

    def moments(g):
        # The payoff is 0 below the strike's z: integrate from there (and its mirror for pairs).
        raw = [integrate.quad(lambda z: g(z) ** p * norm.pdf(z), -12, 12, points=[z_k, -z_k],
                              limit=400, epsabs=1e-14, epsrel=1e-12)[0] for p in (1, 2, 3, 4)]
        m1, m2, m3, m4 = raw
        var = m2 - m1 * m1
        central4 = m4 - 4 * m1 * m3 + 6 * m1 * m1 * m2 - 3 * m1 ** 4
        return m1, math.sqrt(var), central4 / (var * var)

    z_k = (math.log(k / s0) - (r - q - 0.5 * vol * vol) * T) / (vol * math.sqrt(T))
    mean, sd, kurt = moments(f)
    pmean, psd, pkurt = moments(pair)
    closed = refclosed.european(bs_market(), bs_market()["models"][0],
                                dict(option="call", strike=k, maturity=T))
    assert abs(mean - closed) < 1e-9 and abs(pmean - closed) < 1e-9, (mean, pmean, closed)
    log("  antithetic call K=105: price %.9f; path sd %.6f kurtosis %.4f; pair sd %.6f "
        "kurtosis %.4f; ratio of standard errors at equal paths %.5f" % (
            mean, sd, kurt, psd, pkurt, psd * math.sqrt(2) / sd))
    return [
        "/// Antithetic variates on bs_yaml's call (S = 100, K = 105, q = 1%, r = 4%, vol = 25%,",
        "/// T = 1): the standard deviation and kurtosis (mu4 / sigma^4) of one path's discounted",
        "/// payoff and of an antithetic pair's mean, by quadrature over the terminal normal",
        "/// (exact log steps: the payoff depends on the path through it alone; the price agrees",
        "/// with refclosed's Black-Scholes to 1e-9).",
        "struct SampleMoments {",
        "  double sd, kurtosis;",
        "};",
        "inline constexpr SampleMoments kCallPath = {%.10f, %.8f};" % (sd, kurt),
        "inline constexpr SampleMoments kCallPair = {%.10f, %.8f};" % (psd, pkurt),
        "",
    ]


# --- 3. Greeks ------------------------------------------------------------------------------

def bs_delta(case, model, ins, tiny=1e-4):
    spot = rc.underlyings_of(case, model)[0]["spot"]
    up = refclosed.european(rc._bump_spot(case, model, -1, tiny), model, ins)
    down = refclosed.european(rc._bump_spot(case, model, -1, -tiny), model, ins)
    return (up - down) / (2 * tiny * spot)


def bumped_greeks(case, ins, first_grid_time):
    """The bumped estimator's mean: the scenarios' closed forms combined by their weights;
    delta the derivative (pfmc takes a European's delta pathwise under bumps too)."""
    scs, weights = rc.scenarios(case, "bs", GREEKS, first_grid_time)
    values = [refclosed.european(sc.case, sc.model, rc.shifted(ins, sc.shift)) for sc in scs]
    out = {g: sum(wk * vk for wk, vk in zip(w, values)) for g, _, w in weights}
    out["delta"] = bs_delta(case, case["models"][0], ins)
    return [out[g] for g in GREEKS]


def bs_formulas(s, k, T, df, q, vol, forward_rate, option):
    """Black-Scholes' Greeks written out; on a curve, theta's rate is the forward rate at T
    (d(z(T) T)/dT), rho's the parallel shift's (T K df N(d2))."""
    F = s * math.exp(-q * T) / df
    sd = vol * math.sqrt(T)
    d1 = (math.log(F / k) + 0.5 * sd * sd) / sd
    d2 = d1 - sd
    sign = 1 if option == "call" else -1
    delta = sign * math.exp(-q * T) * ndtr(sign * d1)
    gamma = math.exp(-q * T) * norm.pdf(d1) / (s * sd)
    vega = s * math.exp(-q * T) * norm.pdf(d1) * math.sqrt(T)
    rho = sign * k * T * df * ndtr(sign * d2)
    theta = (-s * math.exp(-q * T) * norm.pdf(d1) * vol / (2 * math.sqrt(T))
             + sign * (q * s * math.exp(-q * T) * ndtr(sign * d1)
                       - forward_rate * k * df * ndtr(sign * d2)))
    return [delta, gamma, vega, rho, theta]


def greeks_section():
    out = [
        "/// Greeks in the order delta, gamma, vega, rho, theta. `expected`: the estimator's mean;",
        "/// `closed_form`: Black-Scholes' derivatives (printed beside; expected - closed_form is",
        "/// the finite differences' bias, which the estimator carries).",
        "struct GreekReferences {",
        "  const char* id;",
        "  double expected[5];",
        "  double closed_form[5];",
        "};",
    ]
    # (a) test_methods_cpu.cpp: bs_yaml's call K = 105 and put K = 95, 52 steps a year, bumped.
    case = dict(bs_market(), instruments=[
        dict(id="call", type="european", option="call", strike=105.0, maturity=1.0, model="bs"),
        dict(id="put", type="european", option="put", strike=95.0, maturity=1.0, model="bs")],
        simulation=dict(steps_per_year=52))
    rows = []
    for ins in case["instruments"]:
        expected = bumped_greeks(case, ins, 1.0 / 52)
        closed = bs_formulas(100.0, ins["strike"], 1.0, math.exp(-0.04), 0.01, 0.25, 0.04,
                             ins["option"])
        rows.append((ins["id"], expected, closed))
        log("  bumped %-4s " % ins["id"] + "  ".join(
            "%s %.6f (closed %.6f, bias %+.2e)" % (g, e, c, e - c)
            for g, e, c in zip(GREEKS, expected, closed)))
    out += [
        "/// tests/test_methods_cpu.cpp's bs_yaml call (K = 105) and put (K = 95), 52 steps a",
        "/// year, bumped as pfmc bumps (spot +-1% of itself, vol +-1 point, rates +-10 bp, one",
        "/// day forward): delta the derivative (pathwise), the others the closed forms of the",
        "/// scenarios combined as the bumps combine them (refcore.scenarios).",
        "inline constexpr GreekReferences kBumpedGreeks[] = {",
    ]
    fmt = lambda v: "{" + ", ".join("%.12g" % x for x in v) + "}"
    out += ['    {"%s", %s, %s},' % (i, fmt(e), fmt(c)) for i, e, c in rows]
    out += ["};", ""]

    # test_methods_cpu.cpp's flat local-vol surface (vol 20%; S = 100, q = 1%, r = 3%): its
    # Euler step in log space is exact, so the bumped delta's mean is Black-Scholes' central
    # difference at +-1% of the spot.
    lv = dict(bs_market(q=0.01, r=0.03, vol=0.2),
              instruments=[dict(id="c100", type="european", option="call", strike=100.0,
                                maturity=1.0, model="bs")])
    c100 = lv["instruments"][0]
    up, down = (refclosed.european(rc._bump_spot(lv, lv["models"][0], -1, h), lv["models"][0],
                                   c100) for h in (0.01, -0.01))
    lv_delta = (up - down) / 2.0
    log("  flat local vol c100: bumped delta %.9f (closed form %.9f)" % (
        lv_delta, bs_delta(lv, lv["models"][0], c100)))
    out += [
        "/// test_methods_cpu.cpp's flat local-vol surface (vol 20%; S = 100, q = 1%, r = 3%, K = 100,",
        "/// T = 1): its log-Euler step is exact, so the bumped delta's mean is Black-Scholes'",
        "/// central difference at +-1% of the spot.",
        "inline constexpr double kFlatLocalVolBumpedDelta = %.12g;" % lv_delta,
        "",
    ]

    # (b) test_gpu_models.cpp's model_book("black_scholes"): the call on A (S = 100, q = 2%,
    # vol 25%, K = 100, T = 1) under zero rates (0.5, 1%), (2, 2%), linear between, flat
    # outside; the Greeks pathwise (auto on this book).
    curve = dict(tenors=[0.5, 2.0], zero_rates=[0.01, 0.02])
    case = dict(market=dict(underlyings=[dict(name="A", spot=100.0, dividend_yield=0.02)],
                            rates=curve),
                models=[dict(name="m", type="black_scholes", underlying="A", volatility=0.25)],
                instruments=[dict(id="c", type="european", option="call", strike=100.0,
                                  maturity=1.0, model="m")])
    model, ins = case["models"][0], case["instruments"][0]
    h = 1e-5
    price = lambda c, i=ins: refclosed.european(c, c["models"][0], i)
    delta = bs_delta(case, model, ins)
    gamma = (bs_delta(rc._bump_spot(case, model, -1, 0.01), model, ins) -
             bs_delta(rc._bump_spot(case, model, -1, -0.01), model, ins)) / (2 * 0.01 * 100.0)
    vega = (price(rc._bump_vol(case, "m", 0, h)) - price(rc._bump_vol(case, "m", 0, -h))) / (2 * h)
    rho = (price(rc._bump_rates(case, h)) - price(rc._bump_rates(case, -h))) / (2 * h)
    theta = (price(case, rc.shifted(ins, h)) - price(case, rc.shifted(ins, -h))) / (2 * h)
    expected = [delta, gamma, vega, rho, theta]
    z1 = 0.01 + (1.0 - 0.5) / 1.5 * 0.01
    forward_rate = z1 + 1.0 * 0.01 / 1.5  # d(z(T) T)/dT at T = 1
    closed = bs_formulas(100.0, 100.0, 1.0, math.exp(-z1), 0.02, 0.25, forward_rate, "call")
    for g, e, c in zip(GREEKS, expected, closed):
        if g != "gamma":  # gamma's reference is a difference of 1%: its bias is O(1e-4) relative
            assert abs(e - c) <= 1e-6 * max(1.0, abs(c)), (g, e, c)
    flat_theta = bs_formulas(100.0, 100.0, 1.0, math.exp(-z1), 0.02, 0.25, z1, "call")[4]
    log("  curve pathwise c: " + "  ".join("%s %.8f (formula %.8f)" % (g, e, c)
                                           for g, e, c in zip(GREEKS, expected, closed)) +
        "; theta with the zero rate at T in place of the forward rate: %.6f" % flat_theta)
    out += [
        "/// tests/test_gpu_models.cpp's model_book(\"black_scholes\") call on A (S = 100, q = 2%,",
        "/// vol 25%, K = 100, T = 1) under its zero curve ((0.5, 1%), (2, 2%), linear between,",
        "/// flat outside), Greeks pathwise: delta, vega, rho (a parallel shift) and theta",
        "/// (calendar time, the curve held in time to each date) the closed form's derivatives by",
        "/// central differences of 1e-5, within 1e-6 of the formulas (theta's rate term takes the",
        "/// forward rate at T, 2%%, not the zero rate, 1.33%%: %.6f with the zero rate); gamma" %
        flat_theta,
        "/// the central difference of delta at +-1% of the spot, as pfmc's pathwise gamma.",
        "inline constexpr GreekReferences kCurvePathwiseGreeks = "
        '{"c", %s, %s};' % (fmt(expected), fmt(closed)),
        "",
    ]
    return out


# --- two-asset max and min calls -----------------------------------------------------------

def two_asset_calls(s1, s2, vol1, vol2, corr, r, strike, T):
    """max(S1, S2) and min(S1, S2) calls on correlated Black-Scholes (no yield), by quadrature over
    the first asset's normal: given it, S2 is lognormal and each payoff is a call (or a sum of
    calls) on S2 in closed form. Written apart from Stulz's formula (pfmc's engine/analytic)."""
    drift1 = math.log(s1) + (r - 0.5 * vol1 * vol1) * T
    s = vol2 * math.sqrt(T * (1 - corr * corr))

    def call2(z1, a):  # E[(S2 - a)+ | Z1 = z1]
        m = math.log(s2) + (r - 0.5 * vol2 * vol2) * T + vol2 * math.sqrt(T) * corr * z1
        d1 = (m - math.log(a) + s * s) / s
        return math.exp(m + 0.5 * s * s) * ndtr(d1) - a * ndtr(d1 - s)

    def integrand(z1, kind):
        x1 = math.exp(drift1 + vol1 * math.sqrt(T) * z1)
        if kind == "max":
            v = (x1 - strike) + call2(z1, x1) if x1 >= strike else call2(z1, strike)
        else:
            v = call2(z1, strike) - call2(z1, x1) if x1 > strike else 0.0
        return v * norm.pdf(z1)

    z_k = (math.log(strike) - drift1) / (vol1 * math.sqrt(T))
    df = math.exp(-r * T)
    return [df * sum(integrate.quad(integrand, a, b, args=(kind,), epsabs=1e-13, epsrel=1e-13,
                                    limit=400)[0] for a, b in ((-14, z_k), (z_k, 14)))
            for kind in ("max", "min")]


def two_asset_section():
    mx, mn = two_asset_calls(100.0, 100.0, 0.3, 0.3, 0.9, 0.05, 100.0, 1.0)
    # max + min pays what the two calls pay: their Black-Scholes prices check the quadrature.
    case = dict(market=dict(underlyings=[dict(name="A", spot=100.0)], rates=dict(zero_rate=0.05)),
                models=[dict(name="a", type="black_scholes", underlying="A", volatility=0.3)])
    call = refclosed.european(case, case["models"][0],
                              dict(option="call", strike=100.0, maturity=1.0))
    log("  two-asset calls: max %.10f, min %.10f (Stulz's table: 17.565, 10.898); max + min - "
        "2 calls %.1e" % (mx, mn, mx + mn - 2 * call))
    assert abs(mx + mn - 2 * call) < 1e-9 and abs(mx - 17.565) < 5e-4 and abs(mn - 10.898) < 1e-3
    return [
        "/// Calls on the max and the min of two assets (S = 100 each, vol 30% each, correlation",
        "/// 0.9, r = 5%, no yield, K = 100, T = 1; test_support.hpp's `ab` model): quadrature",
        "/// over the first asset's normal of the second's closed-form calls (max + min is two",
        "/// Black-Scholes calls to 1e-9). Stulz's table prints 17.565 and 10.898: the second is",
        "/// 10.89736 misprinted (tests/test_analytic.cpp).",
        "inline constexpr double kMaxCall = %.10f;" % mx,
        "inline constexpr double kMinCall = %.10f;" % mn,
        "",
    ]


# --- 4. knocked Asians ----------------------------------------------------------------------

KNOCK_LEVELS = [60, 80, 90, 95]
KNOCK_PATHS = 100000  # tests/test_knock.cpp's run


def knocked_asians_case():
    opening = dict(type="asian", average="arithmetic", option="call", strike=100.0,
                   fixings=52, maturity=1.0, model="bs")
    instruments = [dict(opening, id="plain")]
    instruments += [dict(opening, id="l%d" % lv, knock=dict(type="down_and_out", level=float(lv),
                                                            monitoring=52))
                    for lv in KNOCK_LEVELS]
    return dict(bs_market(q=0.0, r=0.05, vol=0.2), instruments=instruments,
                simulation=dict(paths=KNOCK_PATHS, steps_per_year=52))


def knocked_asians_section(scale):
    started = time.time()
    case = knocked_asians_case()
    paths = 16 * KNOCK_PATHS // scale
    est = refmc.price_case(case, paths, 7707, greeks=[])
    rows = []
    for ins in case["instruments"]:
        p = est[ins["id"]]["price"]
        rows.append((ins["id"], p.mean(), p.std_error()))
        log("  knocked asian %-6s %.6f +- %.6f" % rows[-1])
    log("  (%d paths, %.0f s)" % (paths, time.time() - started))
    out = [
        "/// tests/test_knock.cpp's arithmetic Asian calls (S = 100, q = 0, r = 5%, vol 20%, K = 100,",
        "/// 52 weekly fixings, T = 1), plain and down-and-out at 60, 80, 90 and 95 monitored",
        "/// weekly, 52 steps a year: the independent Monte Carlo (refmc) over %d paths, 16x the" %
        paths,
        "/// test's %d." % KNOCK_PATHS,
        "struct McPrice {",
        "  const char* id;",
        "  double price, std_error;",
        "};",
        "inline constexpr std::uint64_t kKnockedAsianPaths = %d;" % KNOCK_PATHS,
        "inline constexpr McPrice kKnockedAsians[] = {",
    ]
    out += ['    {"%s", %.8f, %.8f},' % r for r in rows]
    out += ["};", ""]
    return out


# --- 5. plain Sobol on path-dependent products ----------------------------------------------

SOBOL_LOG2_POINTS = 16
SOBOL_POINTS = 2 ** SOBOL_LOG2_POINTS  # tests/test_sobol.cpp's paths
SOBOL_STEPS = 12
SOBOL_SCRAMBLES = 128


def sobol_case():
    asian = dict(type="asian", option="call", strike=100.0, fixings=12, maturity=1.0, model="bs")
    return dict(bs_market(), instruments=[
        dict(asian, id="arithmetic", average="arithmetic"),
        dict(asian, id="geometric", average="geometric"),
        dict(id="down_out", type="barrier", option="call", strike=100.0, barrier=85.0,
             barrier_type="down_and_out", monitoring=12, maturity=1.0, model="bs"),
        dict(id="up_out", type="barrier", option="put", strike=100.0, barrier=115.0,
             barrier_type="up_and_out", monitoring=12, maturity=1.0, model="bs")],
        simulation=dict(steps_per_year=SOBOL_STEPS))


def bridge_increments(u, times):
    """Standard normals per step (the columns of z[step]) from the normals u[:, slot] by the
    Brownian bridge: slot 0 the terminal point, then midpoints of the intervals breadth first."""
    n = len(times) - 1
    w = np.zeros((u.shape[0], n + 1))
    w[:, n] = math.sqrt(times[n]) * u[:, 0]
    intervals, slot = [(0, n)], 1
    while intervals:
        lo, hi = intervals.pop(0)
        if hi - lo < 2:
            continue
        j = lo + (hi - lo) // 2
        tl, tj, tr = times[lo], times[j], times[hi]
        mean = ((tr - tj) * w[:, lo] + (tj - tl) * w[:, hi]) / (tr - tl)
        w[:, j] = mean + math.sqrt((tj - tl) * (tr - tj) / (tr - tl)) * u[:, slot]
        slot += 1
        intervals += [(lo, j), (j, hi)]
    assert slot == n
    dt = np.diff(times)
    return (np.diff(w, axis=1) / np.sqrt(dt)).T[:, None, :]  # [step][factor][path]


def sobol_prices(case, uniforms):
    grid = rc.group_grid(case["instruments"], SOBOL_STEPS)
    z = bridge_increments(ndtri(uniforms), np.array(grid))
    xs = refmc.PATHS["black_scholes"](rc.Scenario(case, "bs"), np.array(grid), z)
    return {i["id"]: float(np.mean(refmc.discounted_payoff(i, xs, grid, case["market"]["rates"])))
            for i in case["instruments"]}


def sobol_section():
    started = time.time()
    case = sobol_case()
    model = case["models"][0]
    refs = {}
    for ins in case["instruments"]:
        if ins["type"] == "barrier":
            v, err = reflattice.knocked_price(case, model, ins)
            refs[ins["id"]] = (v, max(err, 1e-6), "transition-density recursion (reflattice)")
        elif ins["average"] == "geometric":
            refs[ins["id"]] = (refclosed.geometric_asian(case, model, ins), 0.0,
                               "closed form (refclosed)")
        else:
            v, err = mr.quantlib_arithmetic_asian(case, model, ins)
            refs[ins["id"]] = (v, max(err, 1e-5), "QuantLib FdBlackScholesAsianEngine")
    grid = rc.group_grid(case["instruments"], SOBOL_STEPS)
    assert len(grid) == SOBOL_STEPS + 1
    errors = {i["id"]: [] for i in case["instruments"]}
    for s in range(SOBOL_SCRAMBLES):
        u = qmc.Sobol(SOBOL_STEPS, scramble=True, seed=4100 + s).random_base2(SOBOL_LOG2_POINTS)
        for iid, p in sobol_prices(case, u).items():
            errors[iid].append(p - refs[iid][0])
    # Points 1..N of the unscrambled sequence (the origin skipped), each 32-bit integer k taken
    # as (k + 1/2) / 2^32 as cuRAND's inverse-normal transform takes it.
    plain = qmc.Sobol(SOBOL_STEPS, scramble=False, bits=32).random_base2(SOBOL_LOG2_POINTS + 1)
    plain = plain[1:SOBOL_POINTS + 1] + 2.0 ** -33
    plain_prices = sobol_prices(case, plain)
    rows = []
    for ins in case["instruments"]:
        iid = ins["id"]
        e = np.array(errors[iid])
        rmse = math.sqrt(float(np.mean(e * e)))
        plain_error = plain_prices[iid] - refs[iid][0]
        # The unscrambled set's error is of the size the scrambled sets' spread says.
        assert abs(plain_error) <= 4 * rmse + refs[iid][1], (iid, plain_error, rmse)
        rows.append((iid, refs[iid][0], refs[iid][1], rmse, plain_prices[iid], refs[iid][2]))
        log("  sobol %-10s reference %.8f (+- %.1e, %s); scrambled: mean error %+.2e +- %.1e, "
            "rms %.3e; unscrambled %+.3e (%.2f rms)" % (
                iid, refs[iid][0], refs[iid][1], refs[iid][2], float(np.mean(e)),
                float(np.std(e)) / math.sqrt(len(e)), rmse, plain_error, plain_error / rmse))
    log("  (%d scrambles of %d points, %.0f s)" % (SOBOL_SCRAMBLES, SOBOL_POINTS,
                                                   time.time() - started))
    out = [
        "/// tests/test_sobol.cpp: bs_yaml's market, 12 steps a year, monthly fixings and",
        "/// monitoring (12 Sobol dimensions), %d points, paths by the Brownian bridge." %
        SOBOL_POINTS,
        "/// `value`: the reference, within `reference_error`; `rms_error`: the root-mean-square",
        "/// error of %d independently Owen-scrambled Sobol sets of this size (scipy 1.10)." %
        SOBOL_SCRAMBLES,
        "/// `same_points`: the estimate of the unscrambled set that pfmc's plain Sobol takes,",
        "/// computed apart from it: cuRAND's SOBOL32 generator and scipy's share Joe and Kuo's",
        "/// direction numbers (new-joe-kuo-6.21201), pfmc skips the origin, and cuRAND takes each",
        "/// 32-bit integer k as (k + 1/2) / 2^32 before the inverse normal; scipy's points, this",
        "/// script's bridge, refmc's paths and payoffs. Its error from `value` is within 4",
        "/// `rms_error` (the script asserts it).",
        "struct QuasiReference {",
        "  const char* id;",
        "  double value, reference_error;",
        "  double rms_error, same_points;",
        "  const char* origin;",
        "};",
        "inline constexpr std::uint64_t kSobolPoints = %d;" % SOBOL_POINTS,
        "inline constexpr QuasiReference kSobolReferences[] = {",
    ]
    out += ['    {"%s", %.12f, %.3g, %.6g, %.12f, "%s"},' % r for r in rows]
    out += ["};", ""]
    return out


# --- output ---------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default="", help="sections to print (writes nothing)")
    parser.add_argument("--write-quick", action="store_true",
                        help="with --quick: write the header anyway (marked as quick)")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    scale = 16 if args.quick else 1
    started = time.time()
    body = []
    for name, section in (("antithetic", antithetic_section), ("greeks", greeks_section),
                          ("two-asset calls", two_asset_section),
                          ("sobol", sobol_section),
                          ("knocked asians", lambda: knocked_asians_section(scale)),
                          ("heston", lambda: heston_section(scale))):
        if only and name not in only:
            continue
        log("%s:" % name)
        body += section()
    if only or (args.quick and not args.write_quick):
        print("\n".join(body))
        return
    lines = [
        "#pragma once",
        "// Generated by tests/references/make_method_references.py%s: do not edit, rerun it" %
        (" --quick --write-quick (1/16 of the paths: NOT FOR COMMITTING)" if args.quick else ""),
        "// (about 12 minutes on 2 cores). The references of the method checks (issue 59), each",
        "// computed apart from the engine; the script's docstring says how, each table's comment",
        "// what it holds.",
        "",
        "#include <cstdint>",
        "",
        "namespace pfmc::testing::method_references {",
        "",
    ] + body + ["} // namespace pfmc::testing::method_references", ""]
    rc.write_header(OUTPUT, lines)
    log("wrote %s (%.0f s)" % (OUTPUT, time.time() - started))


if __name__ == "__main__":
    main()
