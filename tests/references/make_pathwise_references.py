#!/usr/bin/python3
"""Generates tests/pathwise_references.hpp: the means of pfmc's pathwise Greek estimators on
knocks, digitals, Asians and baskets under Black-Scholes, Heston (QE, full truncation) and local
vol, computed apart from pfmc by refpathwise.py (numpy paths on their own draws; each Greek a
central difference, path by path, of the payoff with its jumps smoothed as the estimator smooths
them), each with its standard error and the central differences' error; and the noise ratios of
the pathwise and bumped Europeans' vegas (Gauss-Legendre quadrature).

Each table comes with the YAML of the run it describes (the test prices that YAML; the paths
are the test's, the reference's own are more), so a case cannot drift from its reference.

Usage: /usr/bin/python3 tests/references/make_pathwise_references.py
"""
import copy
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import refcore as rc  # noqa: E402
import refpathwise as rp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUTPUT = os.path.join(ROOT, "tests", "pathwise_references.hpp")
COMMAND = "/usr/bin/python3 tests/references/make_pathwise_references.py"
ALL_GREEKS = ["delta", "gamma", "vega", "rho", "theta"]


def cpp_name(name):
    return "k" + "".join(part.capitalize() for part in name.split("_"))


def case_yaml(case):
    return rc.case_yaml(case)


def json_case(name, test_paths):
    """A reference case of make_references.py (tests/references/cases), at the test's paths,
    its Greeks pathwise."""
    case = copy.deepcopy(json.load(open(os.path.join(HERE, "cases", name + ".json")))["case"])
    case.pop("name", None)
    case["simulation"]["paths"] = test_paths
    case["simulation"]["greeks_method"] = "pathwise"
    return case


def spot_knocks_case():
    """tests/test_pathwise.cpp's SpotKnocks book: bs_yaml's market (S = 100, q = 1%, r = 4%),
    its Black-Scholes model at 25% (a down-and-out and an up-and-in call monitored monthly, a
    knocked Asian with a rebate) and a calm one at 5% (knocks 2% from the spot over half a year:
    the kernel's width matters there, its bias many standard errors: a wrong width shows)."""
    market = dict(underlyings=[dict(name="S", spot=100.0, dividend_yield=0.01)],
                  rates=dict(zero_rate=0.04))
    models = [dict(name="bs", type="black_scholes", underlying="S", volatility=0.25),
              dict(name="calm", type="black_scholes", underlying="S", volatility=0.05)]
    instruments = [
        dict(id="do", type="barrier", option="call", strike=100.0, barrier=85.0,
             barrier_type="down_and_out", monitoring=12, maturity=1.0, model="bs"),
        dict(id="ui", type="barrier", option="call", strike=100.0, barrier=120.0,
             barrier_type="up_and_in", monitoring=12, maturity=1.0, model="bs"),
        dict(id="ka", type="asian", average="arithmetic", option="call", strike=100.0,
             maturity=1.0, fixings=12, model="bs",
             knock=dict(type="down_and_out", level=85.0, monitoring=12, rebate=1.0)),
        dict(id="do_near", type="barrier", option="call", strike=100.0, barrier=98.0,
             barrier_type="down_and_out", monitoring=12, maturity=0.5, model="calm"),
        dict(id="uo_near", type="barrier", option="put", strike=100.0, barrier=102.0,
             rebate=1.0, barrier_type="up_and_out", monitoring=12, maturity=0.5, model="calm")]
    return dict(market=market, models=models, instruments=instruments,
                simulation=dict(paths=200000, steps_per_year=12, seed=9, greeks=ALL_GREEKS,
                                greeks_method="pathwise"))


def basket_book_case():
    """tests/test_pathwise.cpp's BasketsAndAsians book: basket_yaml's model abc (A, B at 100, C
    at 90 with q = 2%; vols 0.2, 0.3, 0.4; r = 5%), a weighted call and put, a max call and a
    knocked weighted call, on 4 steps a year (the knock's monthly dates added)."""
    market = dict(underlyings=[dict(name="A", spot=100.0), dict(name="B", spot=100.0),
                               dict(name="C", spot=90.0, dividend_yield=0.02)],
                  rates=dict(zero_rate=0.05))
    models = [dict(name="abc", type="multi_black_scholes", underlyings=["A", "B", "C"],
                   volatilities=[0.2, 0.3, 0.4],
                   correlation=[[1.0, 0.5, 0.3], [0.5, 1.0, 0.2], [0.3, 0.2, 1.0]])]
    w = [0.3, 0.3, 0.4]
    instruments = [
        dict(id="w", type="basket", payoff="weighted", weights=w, option="call", strike=95.0,
             maturity=1.0, model="abc"),
        dict(id="wp", type="basket", payoff="weighted", weights=w, option="put", strike=95.0,
             maturity=0.75, model="abc"),
        dict(id="mx", type="basket", payoff="max", option="call", strike=100.0, maturity=1.0,
             model="abc"),
        dict(id="kw", type="basket", payoff="weighted", weights=w, option="call", strike=95.0,
             maturity=1.0, model="abc",
             knock=dict(type="down_and_out", level=80.0, monitoring=12))]
    return dict(market=market, models=models, instruments=instruments,
                simulation=dict(paths=100000, steps_per_year=4, seed=5, greeks=ALL_GREEKS,
                                greeks_method="pathwise"))


def underlying_of(case, model_name, key):
    """A per-asset key's leg name ("delta[1]" -> the model's second underlying), else ""."""
    if "[" not in key:
        return key, ""
    greek, asset = key[:-1].split("[")
    model = next(m for m in case["models"] if m["name"] == model_name)
    return greek, model["underlyings"][int(asset)]


def reference_rows(case, reference_paths, seed, bumped=False):
    """The rows of every group of `case` (and, with bumped, the estimators' gaps)."""
    rows, gaps, notes = [], [], []
    greeks = case["simulation"]["greeks"]
    for k, name in enumerate(rc.groups(case)):
        started = time.time()
        result = rp.pathwise_means(case, name, reference_paths, seed + k, greeks, bumped=bumped)
        means, bumps = result if bumped else (result, None)
        jumps = 0
        for iid, per_key in means.items():
            for key, s in per_key.items():
                greek, leg = underlying_of(case, name, key)
                rows.append('    {"%s", "%s", "%s", %.9g, %.3g, %.3g},' % (
                    iid, greek, leg, s["value"], s["std_error"], s["fd_error"]))
                jumps += s["switched"]
                if bumps is not None:
                    b, gap = bumps[iid][key]
                    gaps.append('    {"%s", "%s", "%s", %.9g, %.3g},' % (
                        iid, greek, leg, gap.mean(), gap.std_error()))
        print("%s: %d paths in %.0f s (QE paths switched under a step: %d)" % (
            name, reference_paths, time.time() - started, jumps), flush=True)
        notes.append("model %s: %d paths, seed %d" % (name, reference_paths, seed + k))
    return rows, gaps, notes


def yaml_literal(name, case):
    return ['inline constexpr char %sYaml[] = R"yaml(%s)yaml";' % (name, case_yaml(case)), ""]


def table(name, comment, case, reference_paths, seed, bumped=False):
    rows, gaps, notes = reference_rows(case, reference_paths, seed, bumped)
    out = ["/// " + line for line in comment]
    out += ["/// Reference: %s." % "; ".join(notes)]
    out += yaml_literal(name, case)
    out += ["inline constexpr PathwiseReference %s[] = {" % name] + rows + ["};", ""]
    if bumped:
        out += ["/// %s's pathwise estimators' means less the bumps' (refcore.scenarios: pfmc's"
                % name, "/// bump sizes) on the same draws.",
                "inline constexpr EstimatorGap %sGaps[] = {" % name] + gaps + ["};", ""]
    return out


# --- the noise of pathwise and bumped Europeans' deltas and vegas ----------------------------

def european_noise_ratios(paths):
    """For test_pathwise.cpp's Europeans (S = 100, q = 1%, r = 4%, vol 25%, T = 1; a 105 call and
    a 95 put): the ratio of the per-path standard deviations of the pathwise and the bumped
    (±1 vol point, same draws) vega, by Gauss-Legendre quadrature over the
    terminal normal, and the relative standard error of that ratio as `paths` paths estimate it
    (the delta method: log(s_pw / s_bump) has variance Var(U) / 4n, U = (X - mx)² / vx -
    (Y - my)² / vy)."""
    # The kinks (and the pathwise estimator's jump) make the integrands non-smooth: the normal
    # line is split at each, Gauss-Legendre on each piece.
    S0, r, q, v, T = 100.0, 0.04, 0.01, 0.25, 1.0
    D = math.exp(-r * T)

    def terminal(z, spot=S0, vol=v):
        return spot * np.exp((r - q - 0.5 * vol * vol) * T + vol * math.sqrt(T) * z)

    out = {}
    for name, call, K in (("call", True, 105.0), ("put", False, 95.0)):
        f = (lambda s: np.maximum(s - K, 0.0)) if call else (lambda s: np.maximum(K - s, 0.0))
        slope = (lambda s: (s > K).astype(float)) if call else (lambda s: -(s < K).astype(float))
        # (The bumps take a European's delta pathwise too, docs/guide.md: Greeks: the same estimator.)
        estimators = {
            "vega": (lambda z: D * slope(terminal(z)) * terminal(z) * (math.sqrt(T) * z - v * T),
                     lambda z: D * (f(terminal(z, vol=v + 0.01)) - f(terminal(z, vol=v - 0.01)))
                     / 0.02)}
        for greek, (pw, bump) in estimators.items():
            # The kinks in z: where S_T, at each vol, crosses K.
            cuts = [(math.log(K / S0) - (r - q - 0.5 * s * s) * T) / (s * math.sqrt(T))
                    for s in (v, v + 0.01, v - 0.01)]
            z, wz = _pieces(sorted(cuts))
            x, y = pw(z), bump(z)
            mx, my = np.sum(wz * x), np.sum(wz * y)
            vx, vy = np.sum(wz * (x - mx) ** 2), np.sum(wz * (y - my) ** 2)
            u = (x - mx) ** 2 / vx - (y - my) ** 2 / vy
            relative = math.sqrt(np.sum(wz * u * u) / (4 * paths))
            out[name, greek] = (math.sqrt(vx / vy), relative)
    return out


def _pieces(cuts, lo=-12.0, hi=12.0, order=200):
    """Gauss-Legendre nodes and weights of the standard normal's density on [lo, hi] split at
    the cuts."""
    g, gw = np.polynomial.legendre.leggauss(order)
    edges = [lo] + [c for c in cuts if lo < c < hi] + [hi]
    zs, ws = [], []
    for a, b in zip(edges[:-1], edges[1:]):
        if b - a < 1e-14:
            continue
        z = 0.5 * (b - a) * g + 0.5 * (a + b)
        zs.append(z)
        ws.append(0.5 * (b - a) * gw * np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi))
    return np.concatenate(zs), np.concatenate(ws)


def main():
    started = time.time()
    out = ["#pragma once",
           "// Generated by `%s`: do not edit, rerun it." % COMMAND,
           "// The means of pfmc's pathwise Greek estimators (greeks_method: pathwise) computed",
           "// apart from pfmc by tests/references/refpathwise.py: numpy paths on their own",
           "// draws, each Greek a central difference, path by path, of the payoff with its",
           "// jumps smoothed as the estimator smooths them (a uniform kernel of half-width 1%;",
           "// see the module's docstring). A test expects |pfmc - value| <= kSigmas sqrt(se² +",
           "// std_error²) + allowance.",
           "",
           "namespace pfmc::testing::pathwise {",
           "",
           "/// One Greek's reference: the estimator's mean on the reference's paths.",
           "struct PathwiseReference {",
           "  const char* id;",
           "  const char* greek;",
           "  const char* underlying; ///< a basket's leg, else \"\"",
           "  double value;           ///< the mean of the central differences at step h",
           "  double std_error;       ///< its standard error",
           "  double allowance;       ///< the differences' own error: |mean at h - mean at 2h|",
           "};",
           "",
           "/// The pathwise estimator's mean less the bumps' on the reference's draws.",
           "struct EstimatorGap {",
           "  const char* id;",
           "  const char* greek;",
           "  const char* underlying;",
           "  double gap;",
           "  double std_error;",
           "};",
           ""]
    out += table("kSpotKnocks", [
        "Spot knocks on Black-Scholes (test_pathwise.cpp's SpotKnocks): monthly down-and-out",
        "and up-and-in calls and a knocked Asian at 25% vol, and two knocks 2% from the spot at",
        "5% vol, where the kernel's width moves every Greek by many standard errors."],
        spot_knocks_case(), 2000000, 101)
    out += table("kBasketBook", [
        "test_pathwise.cpp's BasketsAndAsians book: weighted, max and knocked baskets of three",
        "correlated assets, every Greek per asset, pathwise and bumped."],
        basket_book_case(), 1000000, 201, bumped=True)
    out += table("kShippedBasket", [
        "The reference case shipped_basket (config/examples/basket.yaml) at its 40,000 paths:",
        "weighted 4-asset calls (one knocked weekly at 80), a two-asset max and min call."],
        json_case("shipped_basket", 40000), 640000, 301)
    out += table("kHestonQe", [
        "The reference case heston_qe at 100,000 paths: Europeans, a digital, Asians, barriers,",
        "a knocked digital and Asian under Heston QE."],
        json_case("heston_qe", 100000), 1000000, 401)
    out += table("kHestonFullTruncation", [
        "The reference case heston_full_truncation at 100,000 paths (delta and vega)."],
        json_case("heston_full_truncation", 100000), 1000000, 501)
    out += table("kLocalVol", [
        "The reference case local_vol at 100,000 paths: Europeans, a digital, barriers, Asians",
        "and a knocked Asian on the skewed surface."],
        json_case("local_vol", 100000), 1000000, 601)
    ratios = european_noise_ratios(200000)
    out += ["/// test_pathwise.cpp's Europeans at 200,000 paths (S = 100, q = 1%, r = 4%, vol 25%,",
            "/// T = 1; a 105 call, a 95 put): the pathwise vega's per-path standard deviation",
            "/// over the bumps' (±1 vol point) on the same draws (Gauss-Legendre over the terminal",
            "/// normal, split at the kinks), and that ratio's relative standard error at 200,000",
            "/// paths (the delta method).",
            "struct NoiseRatio {",
            "  const char* id;",
            "  const char* greek;",
            "  double ratio;",
            "  double relative_error;",
            "};",
            "inline constexpr NoiseRatio kEuropeanNoiseRatios[] = {"]
    for (name, greek), (ratio, relative) in sorted(ratios.items()):
        out.append('    {"%s", "%s", %.9f, %.3g},' % (name, greek, ratio, relative))
        print("%s %s: sd ratio %.6f, relative error %.2e" % (name, greek, ratio, relative))
    out += ["};", "", "} // namespace pfmc::testing::pathwise", ""]
    rc.write_header(OUTPUT, out)
    print("wrote %s (%.0f s)" % (OUTPUT, time.time() - started))


if __name__ == "__main__":
    main()
