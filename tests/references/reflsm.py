"""An independent Longstaff-Schwartz (numpy), written from the method pfmc documents
(docs/guide.md: Early exercise) and from Longstaff and Schwartz (2001), to measure what the method itself gives
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
scenario (refcore.scenarios) is priced with the base market's rule on the same draws; or
pathwise (pathwise_with_rule), each path's cash flow differentiated at its own exercise date, on
Black-Scholes by its formula, on any model by central differences with that date held
(frozen_date_paths). The rule's noise is measured over independent replicates (replicate) or,
more sharply, on common random numbers (replicate_paired: two rules priced on the same paths).
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
    _, grid = _dates_and_grid(case, instrument)
    z = rng.standard_normal((len(grid) - 1, refmc.factors_of(model), paths))
    return _moments(priced_paths(case, instrument, rule, z, greeks))


def _moments(estimates):
    return {g: (float(np.mean(e)), float(np.std(e, ddof=1) / math.sqrt(len(e))))
            for g, e in estimates.items()}


def _exercised(case, instrument, rule, sc, grid, z):
    """The rule's exercise on the scenario `sc`'s paths from the draws z: each path's exercise
    date (an index into the dates), its discounted cash flow there, and the paths' spots, times
    and (Heston) variances."""
    model = next(m for m in case["models"] if m["name"] == instrument["model"])
    dates, _ = _dates_and_grid(case, instrument)
    steps = [rc.step_of(grid, t) for t in dates]
    K = instrument["strike"]
    xs, variances, times = _simulate(sc.case, model, sc, grid, z)
    rates = sc.case["market"]["rates"]
    levels = _levels(instrument, xs, steps)
    paths = z.shape[2]
    paid = np.full(paths, np.nan)
    at = np.full(paths, len(steps) - 1)
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
        at[take] = j
    return dict(paid=paid, at=at, levels=levels, steps=steps, times=times, rates=rates,
                variances=variances)


def priced_paths(case, instrument, rule, z, greeks=()):
    """The pricing pass on the draws z: {name: per-path values}, the price's and, per Greek, the
    per-path combination of the scenarios' values (the rule held fixed)."""
    model = next(m for m in case["models"] if m["name"] == instrument["model"])
    _, grid = _dates_and_grid(case, instrument)
    scs, weights = rc.scenarios(case, model["name"], list(greeks), grid[1])
    values = [_exercised(case, instrument, rule, sc, grid, z)["paid"] for sc in scs]
    out = {"price": values[0]}
    for g, a, w in weights:
        out[g if a is None else "%s[%d]" % (g, a)] = sum(
            wk * vk for wk, vk in zip(w, values) if wk != 0.0)
    return out


# The frozen-date differences' steps (refpathwise.STEPS: relative for the spot, absolute for a
# vol, the rates and valuation time).
FROZEN_STEPS = {"delta": 1e-4, "vega": 1e-4, "rho": 1e-5, "theta": 1e-5}


def frozen_date_paths(case, instrument, rule, z, greeks=("delta", "vega", "rho", "theta")):
    """What pfmc's greeks_method: pathwise estimates for early exercise, on any model, by central
    differences instead of tangents: each path's exercise date is the rule's on the unmoved
    market, and its cash flow there, payoff(L_tau) D(tau), is differentiated by each input at
    small steps with that date held (the paths moved on the same draws; theta: valuation later,
    the dates held). The cash flow is Lipschitz in each input, so the difference's mean is the
    derivative's. Under Heston QE, a path whose scheme branches differ between the +h and -h
    paths takes the one-sided difference on the side of the unmoved path's branches (the
    tangents do not see the switch). Returns {name: per-path values} and the paths switched."""
    import refpathwise as rp
    model = next(m for m in case["models"] if m["name"] == instrument["model"])
    _, grid = _dates_and_grid(case, instrument)
    base = _exercised(case, instrument, rule, rc.Scenario(case, model["name"]), grid, z)
    at = base["at"]
    idx = np.arange(z.shape[2])
    qe = model["type"] == "heston" and model.get("scheme", "qe") == "qe"

    def cash_flow(sc):
        model_ = sc.model
        xs, variances, times = _simulate(sc.case, model_, sc, grid, z)
        steps = base["steps"]
        levels = np.stack(_levels(instrument, xs, steps))[at, idx]
        rates = sc.case["market"]["rates"]
        discount = np.array([rc.discount(rates, times[k]) for k in steps])[at]
        branches = (rp._qe_branches(model_, times, variances) if qe else None)
        return _payoff(instrument, levels) * discount, branches

    out = {"price": base["paid"]}
    switched = 0
    base_flow, base_branches = cash_flow(rc.Scenario(case, model["name"]))
    spot = rc.underlyings_of(case, model)[0]["spot"]
    for g in greeks:
        h = FROZEN_STEPS[g]
        up, up_b = cash_flow(rp._bumped(case, model["name"], g, 0, h))
        down, down_b = cash_flow(rp._bumped(case, model["name"], g, 0, -h))
        width = 2 * h * (spot if g == "delta" else 1.0)
        estimate = (up - down) / width
        if qe:
            moved = np.any(up_b != down_b, axis=0)
            same_up = np.all(up_b == base_branches, axis=0)
            one_sided = np.where(same_up, (up - base_flow) / (0.5 * width),
                                 (base_flow - down) / (0.5 * width))
            estimate = np.where(moved, one_sided, estimate)
            switched += int(moved.sum())
        out[g] = estimate
    return out, switched


def pathwise_with_rule(case, instrument, rule, paths, rng):
    """The pricing pass with pathwise Greeks, the rule held fixed (what pfmc's greeks_method:
    pathwise estimates for early exercise): each path's cash flow payoff(L_tau) D(tau),
    differentiated at its own exercise date tau, where L is the spot or a basket's level, on
    Black-Scholes or correlated Black-Scholes with a flat rate, dividend yields and vols:
    log S_a(t_k) = log S0_a + mu_a t_k + sigma_a W_a(t_k), mu_a = r - q_a - sigma_a^2 / 2,
    W_a(t_k) = sum_{i<k} sqrt(dt_i) (C z_i)_a (C the correlation's Cholesky factor),
    D = exp(-r t). dL = sum_a leg_a d log S_a (leg_a = w_a S_a where it counts: every leg of a
    weighted basket, the winner of a max or min), and d log S_a is 1/S0_a by asset a's spot,
    W_a - sigma_a t by its vol, t by the rate (a parallel shift) and, by valuation time h (the
    dates fixed: the first step t_1 - h long, every t_k h shorter), -mu_a - sigma_a (C z_0)_a /
    (2 sqrt t_1); the discount adds -t payoff D to rho and r payoff D to theta. Returns {name:
    (mean, std error)}: the price, delta and vega (per asset, "delta[a]", of a basket), rho and
    theta."""
    model = next(m for m in case["models"] if m["name"] == instrument["model"])
    rates = case["market"]["rates"]
    us = rc.underlyings_of(case, model)
    n = len(us)
    assert model["type"] in ("black_scholes", "multi_black_scholes") and "zero_rate" in rates
    sigmas = [model["volatility"]] if n == 1 else list(model["volatilities"])
    assert not any(isinstance(v, dict) for v in sigmas)
    _, grid = _dates_and_grid(case, instrument)
    z = rng.standard_normal((len(grid) - 1, n, paths))
    return _moments(pathwise_paths(case, instrument, rule, z))


def pathwise_paths(case, instrument, rule, z):
    """pathwise_with_rule's per-path estimates on the draws z: {name: per-path values}."""
    model = next(m for m in case["models"] if m["name"] == instrument["model"])
    rates = case["market"]["rates"]
    us = rc.underlyings_of(case, model)
    n = len(us)
    sigmas = [model["volatility"]] if n == 1 else list(model["volatilities"])
    r = rates["zero_rate"]
    mus = [r - u.get("dividend_yield", 0.0) - 0.5 * v * v for u, v in zip(us, sigmas)]
    chol = (np.linalg.cholesky(np.array(model["correlation"], dtype=float)) if n > 1
            else np.ones((1, 1)))
    dates, grid = _dates_and_grid(case, instrument)
    steps = [rc.step_of(grid, t) for t in dates]
    paths = z.shape[2]
    sc = rc.Scenario(case, model["name"])
    xs, _, times = _simulate(case, model, sc, grid, z)
    cz = np.einsum("ab,kbp->kap", chol, z)  # the correlated draws
    w = np.concatenate([np.zeros((1, n, paths)),
                        np.cumsum(np.sqrt(np.diff(times))[:, None, None] * cz, axis=0)])
    K = instrument["strike"]
    levels = _levels(instrument, xs, steps)
    at = np.full(paths, -1)  # each path's exercise date (an index into steps)
    for j, k in enumerate(steps):
        open_ = at < 0
        if j == len(steps) - 1:
            at[open_] = j
            break
        beta = rule.coefficients[j]
        if beta is None:
            continue
        value = _payoff(instrument, levels[j]) * rc.discount(rates, times[k])
        cont = _basis(levels[j] / K, None, rule.degree) @ beta
        at[open_ & (value > 0) & (value >= cont)] = j
    idx = np.arange(paths)
    k = np.array(steps)[at]
    t = times[k]
    level = np.stack(levels)[at, idx]
    spots = [np.exp(x[k, idx]) for x in xs]
    if instrument["type"] == "basket":
        kind = instrument.get("payoff", "weighted")
        wts = instrument.get("weights", [1.0 / n] * n if kind == "weighted" else [1.0] * n)
        legs = [wts[a] * spots[a] for a in range(n)]
        if kind != "weighted":
            winner = (np.argmax if kind == "max" else np.argmin)(np.stack(legs), axis=0)
            legs = [np.where(winner == a, legs[a], 0.0) for a in range(n)]
    else:
        legs = spots
    d = np.exp(-r * t)
    payoff = _payoff(instrument, level)
    call = instrument["option"] == "call"
    slope = (level > K).astype(float) if call else -(level < K).astype(float)
    estimates = {"price": payoff * d}
    name = (lambda g, a: g) if n == 1 else (lambda g, a: "%s[%d]" % (g, a))
    for a in range(n):
        estimates[name("delta", a)] = slope * legs[a] / us[a]["spot"] * d
    for a in range(n):
        estimates[name("vega", a)] = slope * legs[a] * (w[k, a, idx] - sigmas[a] * t) * d
    estimates["rho"] = slope * sum(legs) * t * d - t * payoff * d
    theta_log = [-mus[a] - sigmas[a] * cz[0, a] / (2 * math.sqrt(times[1])) for a in range(n)]
    estimates["theta"] = (slope * sum(legs[a] * theta_log[a] for a in range(n)) * d
                          + r * payoff * d)
    return estimates


def replicate(case, instrument, regression_paths, paths, replicates, seed, degree=3, greeks=(),
              pathwise=False):
    """The LSM estimator's distribution at these sizes over independent replicates (a fresh
    regression and pricing pass each): {name: (mean over replicates, standard error of that mean,
    spread of one replicate, its mean reported standard error)}; the spread beyond the reported
    error is the rule's own noise."""
    rng = np.random.Generator(np.random.PCG64(seed))
    runs = []
    for _ in range(replicates):
        rule = fit_rule(case, instrument, regression_paths, rng, degree)
        runs.append(pathwise_with_rule(case, instrument, rule, paths, rng) if pathwise
                    else price_with_rule(case, instrument, rule, paths, rng, greeks))
    out = {}
    for name in runs[0]:
        means = np.array([r[name][0] for r in runs])
        reported = float(np.mean([r[name][1] for r in runs]))
        spread = float(np.std(means, ddof=1))
        out[name] = (float(np.mean(means)), spread / math.sqrt(replicates), spread, reported)
    return out


def replicate_paired(case, instrument, regression_paths, paths, replicates, seed, degree=3,
                     greeks=(), estimator="bumps", chunk=500000):
    """The LSM estimator's distribution at these sizes, its rule's noise measured on common
    random numbers: each replicate fits two rules A and B on independent regression paths and
    prices both on one set of `paths` fresh paths (in chunks). The replicate's value is their
    mean; the rules' noise (the spread, over rules, of the value a rule gives) comes from their
    paired difference: E[(m_A - m_B)²] = 2 noise² + se_d², se_d the standard error of the
    per-path difference on those paths, so noise² is the mean over replicates of ((m_A - m_B)² -
    se_d²) / 2, with no larger pricing error to subtract (unlike the spread of independent
    replicates, replicate()). Estimators: "bumps" (priced_paths: the rule held fixed over the
    Greeks' scenarios), "pathwise" (pathwise_paths, Black-Scholes), "frozen" (frozen_date_paths,
    any model). Returns {name: (mean over replicates, its standard error, the rules' noise, a
    pricing pass's mean standard error)} and the QE paths switched (frozen)."""
    model = next(m for m in case["models"] if m["name"] == instrument["model"])
    _, grid = _dates_and_grid(case, instrument)
    rng = np.random.Generator(np.random.PCG64(seed))
    values, noise2, reported = {}, {}, {}
    switched = 0
    for _ in range(replicates):
        rules = [fit_rule(case, instrument, regression_paths, rng, degree) for _ in range(2)]
        sums = {}
        done = 0
        while done < paths:
            n = min(chunk, paths - done)
            z = rng.standard_normal((len(grid) - 1, refmc.factors_of(model), n))
            per_rule = []
            for rule in rules:
                if estimator == "bumps":
                    per_rule.append(priced_paths(case, instrument, rule, z, greeks))
                elif estimator == "frozen":
                    v, s = frozen_date_paths(case, instrument, rule, z)
                    per_rule.append(v)
                    switched += s
                else:
                    per_rule.append(pathwise_paths(case, instrument, rule, z))
            for name in per_rule[0]:
                a, b = per_rule[0][name], per_rule[1][name]
                acc = sums.setdefault(name, [refmc.Moments(), refmc.Moments(), refmc.Moments()])
                for m, v in zip(acc, (a, b, a - b)):
                    m.add(v)
            done += n
        for name, (a, b, d) in sums.items():
            values.setdefault(name, []).append(0.5 * (a.mean() + b.mean()))
            noise2.setdefault(name, []).append(0.5 * (d.mean() ** 2 - d.std_error() ** 2))
            reported.setdefault(name, []).append(0.5 * (a.std_error() + b.std_error()))
    out = {}
    for name, v in values.items():
        v = np.array(v)
        out[name] = (float(np.mean(v)), float(np.std(v, ddof=1)) / math.sqrt(replicates),
                     math.sqrt(max(0.0, float(np.mean(noise2[name])))),
                     float(np.mean(reported[name])))
    return out, switched
