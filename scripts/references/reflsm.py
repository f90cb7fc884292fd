"""An independent Longstaff-Schwartz (numpy), written from the method pfmc documents (README:
Early exercise) and from Longstaff and Schwartz (2001), to measure what the method itself gives
away at pfmc's sizes: its low bias against a converged price, and how much the fitted rule
moves between independent regressions. The test allowances of early exercise are derived from
these measurements, never from pfmc's output.

The method: a regression pass over its own paths records at each exercise date the level the
payoff reads (a spot, or a basket's level) and, under Heston, the variance; backwards from the
maturity, the discounted cash flows of the in-the-money paths are regressed (least squares) on
every monomial of total degree <= d in x = level / strike (and y = v / theta); a date with fewer
than twice as many such paths as functions is not exercised at; a path exercises where its
discounted payoff is at least the fitted value. A pricing pass over fresh paths exercises at the
first date where the payoff is positive and, discounted, at least the fitted value. Greeks: each
scenario (refcore.scenarios) is priced with the base market's rule on the same draws.
"""
import math

import numpy as np

import refcore as rc
import refmc


def _dates_and_grid(case, instrument):
    """The exercise dates (an American: every grid step; the maturity last) and the grid."""
    grid = rc.group_grid([instrument], case["simulation"].get("steps_per_year", 252))
    if instrument.get("exercise") == "american":
        return grid[1:rc.step_of(grid, instrument["maturity"]) + 1], grid
    return rc.exercise_dates_of(instrument), grid


def _basis(x, y, degree):
    cols = []
    for total in range(degree + 1):
        if y is None:
            cols.append(x ** total)
        else:
            for j in range(total + 1):
                cols.append(x ** (total - j) * y ** j)
    return np.stack(cols, axis=1)


class Rule:
    def __init__(self, coefficients, degree, variance_scale):
        self.coefficients, self.degree, self.variance_scale = coefficients, degree, variance_scale


def _levels(instrument, xs, steps):
    if instrument["type"] == "basket":
        return [refmc.basket_level(instrument, [np.exp(x[k]) for x in xs]) for k in steps]
    return [np.exp(xs[0][k]) for k in steps]


def _payoff(instrument, level):
    K = instrument["strike"]
    return np.maximum(level - K, 0) if instrument["option"] == "call" else np.maximum(K - level, 0)


def _simulate(case, model, sc, grid, z):
    variances = [] if model["type"] == "heston" else None
    times = np.array([0.0] + [t - sc.shift for t in grid[1:]])
    if variances is not None:
        xs = refmc._heston_paths(sc, times, z, variances)
    else:
        xs = refmc.PATHS[model["type"]](sc, times, z)
    return xs, variances, times


def fit_rule(case, instrument, paths, rng, degree):
    model = next(m for m in case["models"] if m["name"] == instrument["model"])
    dates, grid = _dates_and_grid(case, instrument)
    steps = [rc.step_of(grid, t) for t in dates]
    z = rng.standard_normal((len(grid) - 1, refmc.factors_of(model), paths))
    sc = rc.Scenario(case, model["name"])
    xs, variances, _ = _simulate(case, model, sc, grid, z)
    rates = case["market"]["rates"]
    levels = _levels(instrument, xs, steps)
    scale = model["theta"] if model["type"] == "heston" else None
    disc = [rc.discount(rates, t) for t in dates]
    cash = _payoff(instrument, levels[-1]) * disc[-1]
    coefficients = [None] * len(dates)
    K = instrument["strike"]
    for j in range(len(dates) - 2, -1, -1):
        value = _payoff(instrument, levels[j]) * disc[j]
        itm = value > 0
        y = variances[steps[j]] / scale if scale else None
        phi = _basis(levels[j][itm] / K, y[itm] if y is not None else None, degree)
        if itm.sum() < 2 * phi.shape[1]:
            continue
        beta, *_ = np.linalg.lstsq(phi, cash[itm], rcond=None)
        coefficients[j] = beta
        exercise = np.zeros_like(itm)
        exercise[itm] = value[itm] >= phi @ beta
        cash = np.where(exercise, value, cash)
    return Rule(coefficients, degree, scale)


def price_with_rule(case, instrument, rule, paths, rng, greeks=()):
    """The pricing pass: the price's per-path values and, per Greek, the per-path combination of
    the scenarios' values (the rule held fixed). Returns {name: (mean, std error)}."""
    model = next(m for m in case["models"] if m["name"] == instrument["model"])
    dates, grid = _dates_and_grid(case, instrument)
    steps = [rc.step_of(grid, t) for t in dates]
    z = rng.standard_normal((len(grid) - 1, refmc.factors_of(model), paths))
    scs, weights = rc.scenarios(case, model["name"], list(greeks), grid[1])
    K = instrument["strike"]
    values = []
    for sc in scs:
        xs, variances, times = _simulate(sc.case, model, sc, grid, z)
        rates = sc.case["market"]["rates"]
        levels = _levels(instrument, xs, steps)
        paid = np.full(paths, np.nan)
        for j, k in enumerate(steps):
            value = _payoff(instrument, levels[j]) * rc.discount(rates, times[k])
            open_ = np.isnan(paid)
            if j == len(steps) - 1:
                paid[open_] = value[open_]
                break
            beta = rule.coefficients[j]
            if beta is None:
                continue
            y = variances[k] / rule.variance_scale if rule.variance_scale else None
            cont = _basis(levels[j] / K, y, rule.degree) @ beta
            take = open_ & (value > 0) & (value >= cont)
            paid[take] = value[take]
        values.append(paid)
    out = {"price": (float(np.mean(values[0])), float(np.std(values[0], ddof=1) / math.sqrt(paths)))}
    for g, a, w in weights:
        est = sum(wk * vk for wk, vk in zip(w, values) if wk != 0.0)
        out[g if a is None else "%s[%d]" % (g, a)] = (float(np.mean(est)),
                                                      float(np.std(est, ddof=1) / math.sqrt(paths)))
    return out


def replicate(case, instrument, regression_paths, paths, replicates, seed, degree=3, greeks=()):
    """The LSM estimator's distribution at these sizes over independent replicates (a fresh
    regression and pricing pass each): {name: (mean over replicates, standard error of that mean,
    spread of one replicate, its mean reported standard error)}; the spread beyond the reported
    error is the rule's own noise."""
    rng = np.random.Generator(np.random.PCG64(seed))
    runs = []
    for _ in range(replicates):
        rule = fit_rule(case, instrument, regression_paths, rng, degree)
        runs.append(price_with_rule(case, instrument, rule, paths, rng, greeks))
    out = {}
    for name in runs[0]:
        means = np.array([r[name][0] for r in runs])
        reported = float(np.mean([r[name][1] for r in runs]))
        spread = float(np.std(means, ddof=1))
        out[name] = (float(np.mean(means)), spread / math.sqrt(replicates), spread, reported)
    return out
