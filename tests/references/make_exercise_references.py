#!/usr/bin/python3
"""Generates tests/exercise_references.hpp: early exercise's references and the allowances of its
tests, derived apart from pfmc.

For each case, QuantLib's finite differences give the converged price (and Greeks, bumped as
pfmc bumps), and the independent Longstaff-Schwartz of reflsm.py, run as pfmc runs it (the same
grid, basis, regression and pricing paths), measures over independent replicates:
  - bias: the mean of the estimator minus the converged value (LSM's rule is at best optimal:
    a low bias for prices; a bias of either sign for Greeks with the rule held fixed), and the
    standard error of that mean;
  - rule noise: the spread of one replicate beyond the standard error it reports (a pricing
    pass's error), i.e. how far another regression's rule moves the result.
A test then expects |pfmc - (converged + bias)| <= kSigmas sqrt(se^2 + bias_se^2 + noise^2).

The tables measured since issue 59 (kAmericanCall, kPutGammaTheta, the GPU suite's full-size
Greeks, the Heston put's pathwise Greeks) take the rule's noise on common random numbers
instead (reflsm.replicate_paired: two rules priced on the same paths, their paired difference),
which needs no pricing error subtracted from a spread of about the same size: the older tables'
noise is at best that of their 32 replicates' spreads (12% of the spread), e.g. the bumped
theta's 0.37 measured 0.09 so.

Usage: /usr/bin/python3 tests/references/make_exercise_references.py [--replicates N]
(the header: --replicates 32; about an hour on one core)
"""
import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import quantlib_american as qa  # noqa: E402
import reflattice  # noqa: E402
import reflsm  # noqa: E402
import refcore  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUTPUT = os.path.join(ROOT, "tests", "exercise_references.hpp")
GREEKS = ["delta", "gamma", "vega", "rho", "theta"]
PATHWISE_GREEKS = ["delta", "vega", "rho", "theta"]


def put_case(spot, volatility, years, paths=40000):
    return dict(market=dict(underlyings=[dict(name="S", spot=spot)], rates=dict(zero_rate=0.06)),
                models=[dict(name="bs", type="black_scholes", underlying="S",
                             volatility=volatility)],
                instruments=[dict(id="put", type="european", option="put", strike=40.0,
                                  maturity=float(years), model="bs", exercise="american")],
                simulation=dict(paths=paths, steps_per_year=73))


def measure(case, replicates, seed, degree=3, greeks=(), pathwise=False):
    ins = case["instruments"][0]
    paths = case["simulation"]["paths"]
    return reflsm.replicate(case, ins, paths, paths, replicates, seed, degree, greeks, pathwise)


def allowance(stats, name, converged):
    mean, mean_se, spread, reported = stats[name]
    noise = math.sqrt(max(0.0, spread * spread - reported * reported))
    return mean - converged, mean_se, noise


def table(name, comment, rows):
    """A C++ table of Measured initializers, after its comment's lines."""
    return ["/// " + line for line in comment] + [
        "inline constexpr Measured %s[] = {" % name] + rows + ["};", ""]


def greek_rows(label, stats, names, converged):
    """The Measured initializers of the Greeks `names` against converged[name] (printed)."""
    rows = []
    for g in names:
        bias, bias_se, noise = allowance(stats, g, converged[g])
        print("%s %-5s FD %.6f, LSM %.6f (bias %+.5f +- %.5f, noise %.5f)" % (
            label, g, converged[g], stats[g][0], bias, bias_se, noise), flush=True)
        rows.append("    {%.6f, %.6f, %.6f, %.6f}, // %s" % (converged[g], bias, bias_se, noise, g))
    return rows


def paired_rows(label, stats, names, converged):
    """Measured initializers of reflsm.replicate_paired's statistics against converged[name]
    (printed)."""
    rows = []
    for g in names:
        mean, mean_se, noise, reported = stats[g]
        bias = mean - converged[g]
        print("%s %-8s converged %.6f, LSM %.6f (bias %+.5f +- %.5f, noise %.5f, a pass's se "
              "%.5f)" % (label, g, converged[g], mean, bias, mean_se, noise, reported), flush=True)
        rows.append("    {%.6f, %.6f, %.6f, %.6f}, // %s" % (converged[g], bias, mean_se, noise, g))
    return rows


def paired(case, regression_paths, paths, replicates, seed, degree=3, greeks=(),
           estimator="bumps"):
    """reflsm.replicate_paired on the case's instrument."""
    stats, switched = reflsm.replicate_paired(case, case["instruments"][0], regression_paths, paths,
                                              replicates, seed, degree, greeks, estimator)
    if switched:
        print("QE paths switched under a step: %d" % switched, flush=True)
    return stats


def measured(label, case, converged, replicates, seed, degree=3, converged_name="converged"):
    """The method's bias and noise on `case` against `converged` (printed), as a C++ Measured
    initializer."""
    stats = measure(case, replicates, seed, degree)
    bias, bias_se, noise = allowance(stats, "price", converged)
    print("%s: %s %.6f, LSM %.6f (bias %+.4f +- %.4f, noise %.4f)" % (
        label, converged_name, converged, stats["price"][0], bias, bias_se, noise), flush=True)
    return "{%.6f, %.6f, %.6f, %.6f}" % (converged, bias, bias_se, noise)


def put_row(spot, vol, years, paths, replicates, seed):
    """A PutCase row of the LS put: QuantLib's prices and the method's measured bias and noise
    at `paths` regression and priced paths."""
    berm = qa.put_price(spot, vol, years, "bermudan")
    stats = measure(put_case(spot, vol, years, paths), replicates, seed)
    bias, bias_se, noise = allowance(stats, "price", berm)
    print("put S=%g vol=%g T=%d, %d paths: FD %.6f, LSM %.6f (bias %+.4f +- %.4f, noise %.4f)"
          % (spot, vol, years, paths, berm, stats["price"][0], bias, bias_se, noise), flush=True)
    return "    {%g, %g, %d, %.6f, %.6f, {%.6f, %.6f, %.6f, %.6f}}," % (
        spot, vol, years, qa.european_put(spot, vol, years),
        qa.put_price(spot, vol, years, "american"), berm, bias, bias_se, noise)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replicates", type=int, default=32)
    args = parser.parse_args()
    R = args.replicates
    out = ["#pragma once",
           "// Generated by tests/references/make_exercise_references.py --replicates %d: do not"
           % R,
           "// edit, rerun it. Converged values (QuantLib 1.29's finite differences, or published",
           "// bounds) and what the Longstaff-Schwartz method gives away at pfmc's sizes, measured",
           "// by an independent implementation (tests/references/reflsm.py) over %d replicates."
           % R,
           "",
           "namespace pfmc::testing::exercise {",
           "",
           "/// A test expects |pfmc - (converged + bias)| <= kSigmas sqrt(se² + bias_se² + "
           "noise²).",
           "struct Measured {",
           "  double converged; ///< the option's value (finite differences, or a bound's middle)",
           "  double bias;      ///< LSM's mean at pfmc's sizes minus `converged`",
           "  double bias_se;   ///< the standard error of that mean",
           "  double noise;     ///< the rule's own spread beyond a pricing pass's standard error",
           "};",
           ""]
    started = time.time()
    # Longstaff and Schwartz's puts: 40,000 regression and 40,000 priced paths, 73 steps a year.
    out += ["/// Longstaff and Schwartz (2001, Table 1): K = 40, r = 6%, american on 73 steps a",
            "/// year (exercise every 5 days); european, american: QuantLib's, for orderings.",
            "struct PutCase {",
            "  double spot, volatility;",
            "  int years;",
            "  double european, american;",
            "  Measured bermudan;",
            "};",
            "inline constexpr PutCase kPuts[] = {"]
    k = 0
    for spot in (36.0, 40.0, 44.0):
        for vol in (0.2, 0.4):
            for years in (1, 2):
                out.append(put_row(spot, vol, years, 40000, R, 1000 + k))
                k += 1
    out += ["};", ""]
    # Three of them at the GPU suite's size: 10^6 regression and 10^6 priced paths.
    out += ["/// kPuts[0], kPuts[7] and kPuts[9] at 1,000,000 regression and 1,000,000 priced",
            "/// paths (the GPU suite's size).",
            "inline constexpr PutCase kPutsAtFullSize[] = {"]
    for spot, vol, years in ((36.0, 0.2, 1), (40.0, 0.4, 2), (44.0, 0.2, 2)):
        out.append(put_row(spot, vol, years, 1000000, max(4, R // 4), 2000 + k))
        k += 1
    out += ["};", ""]
    # An American call without dividends is worth the European: what the rule gives away.
    call = dict(market=dict(underlyings=[dict(name="S", spot=100.0)], rates=dict(zero_rate=0.05)),
                models=[dict(name="bs", type="black_scholes", underlying="S", volatility=0.2)],
                instruments=[dict(id="am", type="european", option="call", strike=100.0,
                                  maturity=1.0, model="bs", exercise="american")],
                simulation=dict(paths=40000, steps_per_year=50))
    european = qa.black_scholes_call(100.0, 100.0, 0.05, 0.2, 1.0)
    stats = paired(call, 40000, 400000, R, 4242)
    row = paired_rows("american call", stats, ["price"], {"price": european})[0]
    out += ["/// An American call without dividends (S = K = 100, r = 5%, vol = 0.2, T = 1, 50",
            "/// steps a year, 40,000 regression and 400,000 priced paths): worth the European",
            "/// (Black-Scholes). Measured on common random numbers (reflsm.replicate_paired: %d" % R,
            "/// replicates of two rules priced on one set of 400,000 paths each).",
            "inline constexpr Measured kAmericanCall = %s;" % row.strip().split(" //")[0].rstrip(
                ","), ""]
    # Greeks of the S = 40, vol = 0.2, T = 1 put.
    fd = qa.bermudan_put_greeks(40.0, 0.2, 1)
    stats = measure(put_case(40.0, 0.2, 1), R, 77, greeks=GREEKS)
    out += table("kPutGreeks", [
        "Every Greek of the S = K = 40, vol = 0.2, T = 1 put (kPuts[4]), bumped as pfmc",
        "bumps (QuantLib's Bermudan every 5 days); the LSM's Greeks with its rule held",
        "fixed, on common random numbers."], greek_rows("greek", stats, GREEKS, fd))
    # The same put's first-order Greeks pathwise, the rule held fixed: another estimator, whose
    # bias against the converged Greeks differs from the bumps' (it leaves out what a move does
    # at the exercise boundary, the bumps keep it).
    stats = measure(put_case(40.0, 0.2, 1), R, 78, pathwise=True)
    out += table("kPutPathwiseGreeks", [
        "Its delta, vega, rho and theta pathwise with the rule held fixed (pfmc's",
        "greeks_method: pathwise; reflsm.pathwise_with_rule): what that estimator gives away",
        "against the converged Greeks above, measured apart."],
        greek_rows("pathwise", stats, PATHWISE_GREEKS, fd))
    # Heston put: regression on x and v / theta at degree 2.
    h = qa.HESTON
    heston = dict(market=dict(underlyings=[dict(name="S", spot=h["spot"])],
                              rates=dict(zero_rate=h["rate"])),
                  models=[dict(name="h", type="heston", underlying="S", v0=h["v0"],
                               kappa=h["kappa"], theta=h["theta"], xi=h["xi"], rho=h["rho"])],
                  instruments=[dict(id="put", type="european", option="put", strike=h["strike"],
                                    maturity=1.0, model="h", exercise="american")],
                  simulation=dict(paths=40000, steps_per_year=73))
    out += ["/// The Heston put (S = K = 100, r = 5%, v0 = theta = 0.04, kappa = 2, xi = 0.3,",
            "/// rho = -0.7, T = 1; QuantLib's FdHestonVanillaEngine, Bermudan every 5 days);",
            "/// regression on x and v / theta at degree 2.",
            "inline constexpr Measured kHestonPut = %s;" % measured(
                "heston put", heston, qa.heston_put("bermudan"), R, 91, degree=2,
                converged_name="FD"), ""]
    # A Bermudan put on the skewed local-vol surface of the reference cases: the continuous-time
    # price from Crank-Nicolson with the exercise dates; the bias measured on pfmc's Euler chain
    # (52 steps a year and the dates) includes the scheme's.
    import make_references as mr
    lv = dict(market=dict(underlyings=[dict(name="S", spot=100.0, dividend_yield=0.01)],
                          rates=dict(zero_rate=0.03)),
              models=[dict(name="lv", type="local_vol", underlying="S", surface=mr.SKEW)],
              instruments=[dict(id="put", type="european", option="put", strike=100.0,
                                maturity=1.0, model="lv", exercise="bermudan",
                                exercise_dates=12)],
              simulation=dict(paths=40000, steps_per_year=52))
    pde, pde_err = reflattice.local_vol_pde(lv, lv["models"][0], lv["instruments"][0],
                                            time_steps=1200)
    out += ["/// A Bermudan put (K = 100, 12 monthly dates, T = 1) on the reference cases' skewed",
            "/// local-vol surface (S = 100, r = 3%, q = 1%): `converged` from Crank-Nicolson in",
            "/// continuous time with the dates (%.1e its error bound); the bias, on pfmc's" % pde_err,
            "/// Euler chain at 52 steps a year, includes the scheme's.",
            "inline constexpr Measured kLocalVolBermudanPut = %s;" % measured(
                "local-vol bermudan put", lv, pde, R, 57, converged_name="PDE"), ""]
    # Andersen and Broadie's max-call: published bounds [13.892, 13.934].
    ab = dict(market=dict(underlyings=[dict(name="A", spot=100.0, dividend_yield=0.1),
                                       dict(name="B", spot=100.0, dividend_yield=0.1)],
                          rates=dict(zero_rate=0.05)),
              models=[dict(name="ab", type="multi_black_scholes", underlyings=["A", "B"],
                           volatilities=[0.2, 0.2], correlation=[[1.0, 0.0], [0.0, 1.0]])],
              instruments=[dict(id="maxcall", type="basket", payoff="max", option="call",
                                strike=100.0, maturity=3.0, model="ab", exercise="bermudan",
                                exercise_dates=9)],
              simulation=dict(paths=40000, steps_per_year=0))
    low, high = 13.892, 13.934
    out += ["/// Andersen and Broadie's max-call (2004, Table 2): its value lies in [%.3f," % low,
            "/// %.3f]; `converged` is the middle, and half the interval adds to the" % high,
            "/// allowance. pfmc's basis: a cubic in max(S1, S2) / K.",
            "inline constexpr double kMaxCallHalfInterval = %.3f;" % (0.5 * (high - low)),
            "inline constexpr Measured kMaxCall = %s;" % measured(
                "max-call", ab, 0.5 * (low + high), R, 5, converged_name="bounds' middle"), ""]
    # Its first-order Greeks pathwise, the rule held fixed: no converged Greeks are published,
    # so the reference is the estimator's own mean at pfmc's sizes.
    stats = measure(ab, R, 6, pathwise=True)
    names = ["delta[0]", "delta[1]", "vega[0]", "vega[1]", "rho", "theta"]
    out += table("kMaxCallPathwiseGreeks", [
        "The max-call's delta and vega per underlying, rho and theta pathwise with the rule",
        "held fixed: no converged Greeks are published, so `converged` is the estimator's",
        "mean at pfmc's sizes (its bias 0), with that mean's standard error and the rule's",
        "noise."], greek_rows("max-call pathwise", stats, names, {g: stats[g][0] for g in names}))
    # The S = 40 put's gamma and theta bumped at 800,000 priced paths (40,000 regression paths):
    # the CPU test's second run, where their bands are narrower than what they guard.
    put = put_case(40.0, 0.2, 1)
    stats = paired(put, 40000, 400000, R, 79, greeks=["gamma", "theta"])
    out += table("kPutGammaTheta", [
        "kPutGreeks' gamma and theta at 40,000 regression and 800,000 priced paths: the bias",
        "and the rule's noise on common random numbers (reflsm.replicate_paired: %d replicates" % R,
        "of two rules priced on one set of 400,000 paths each)."],
        paired_rows("gamma/theta", stats, ["gamma", "theta"], fd))
    # The GPU suite's sizes: 10^6 regression paths; 4 * 10^6 priced paths for delta, vega, rho and
    # theta, bumped and pathwise, and 3.2 * 10^7 for gamma (its band then within 10% of it).
    gpu_reps = max(4, R // 2)
    stats = paired(put, 1000000, 1000000, gpu_reps, 80, greeks=GREEKS)
    gamma = paired(put, 1000000, 4000000, gpu_reps, 81, greeks=["gamma"])
    stats["gamma"] = gamma["gamma"]
    out += table("kPutGreeksAtFullSize", [
        "kPutGreeks at the GPU suite's size: 1,000,000 regression paths (and 4,000,000 priced",
        "paths, gamma 32,000,000): %d replicates of two rules priced on one set of 1,000,000" %
        gpu_reps, "paths each (gamma: 4,000,000) (reflsm.replicate_paired)."],
        paired_rows("full-size greek", stats, GREEKS, fd))
    stats = paired(put, 1000000, 1000000, gpu_reps, 82, estimator="pathwise")
    out += table("kPutPathwiseGreeksAtFullSize", [
        "kPutPathwiseGreeks at the GPU suite's size (1,000,000 regression, 4,000,000 priced",
        "paths): %d replicates of two rules priced on one set of 1,000,000 paths each." % gpu_reps],
        paired_rows("full-size pathwise", stats, PATHWISE_GREEKS, fd))
    # The Heston put's first-order Greeks pathwise, the rule held fixed (greeks_method:
    # pathwise), at the CPU test's sizes (an American on 24 steps a year): no converged Greeks of this estimator are published, so
    # `converged` is its mean (its bias 0), each path's cash flow differentiated at its own
    # exercise date by central differences (reflsm.frozen_date_paths: no tangent of pfmc's).
    heston_pathwise = dict(heston, simulation=dict(paths=20000, steps_per_year=24))
    stats = paired(heston_pathwise, 20000, 20000, R, 92, degree=2, estimator="frozen")
    names = PATHWISE_GREEKS
    out += table("kHestonPutPathwiseGreeks", [
        "The Heston put's delta, vega, rho and theta pathwise with the rule held fixed (20,000",
        "regression and priced paths, 24 steps a year, degree 2): `converged` is the",
        "estimator's mean (its bias 0; reflsm.frozen_date_paths: each path's cash flow",
        "differentiated at its exercise date by central differences), with that mean's",
        "standard error and the rule's noise on common random numbers (%d replicates)." % R],
        paired_rows("heston pathwise", stats, names, {g: stats[g][0] for g in names}))
    out += ["} // namespace pfmc::testing::exercise", ""]
    refcore.write_header(OUTPUT, out)
    print("wrote %s (%.0f s)" % (OUTPUT, time.time() - started))


if __name__ == "__main__":
    main()
