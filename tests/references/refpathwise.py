"""The means of pfmc's pathwise Greek estimators (greeks_method: pathwise), computed apart from
pfmc: numpy paths on numpy's own draws (refmc's schemes: exact Black-Scholes steps, Heston QE or
full truncation, local vol's Euler), and each Greek a central difference, path by path, of a
payoff functional at small steps of the Greek's input (common random numbers). No tangent of
pfmc's is used, nor any of its code.

The estimator (docs/guide.md: Greeks, `pathwise`): on each path, the derivative of the discounted payoff
by the input, where the payoff jumps (a digital at its strike K, a knock at its level L) the
jump's delta function replaced by a uniform kernel k_w of half-width w: 1% of |K| for a
digital, 0.01 of log-spot for a spot knock, 1% of max(|L|, 1) for a basket knock's level. For a
path whose observation is s (a spot, an average or a basket's level), whose knock's extreme is x
(the log of the extreme spot, or the extreme level, over the monitoring dates), alive A (1
without a knock), payoff p before the knock, rebate r, discount D and amount paid P = A p +
(1 - A) r:

    dV/dθ = D [A p_w'(s) s_θ + (p(s) - r) κ k_w(x - L) x_θ] + D_θ P,

p_w' the payoff's slope (a call's or put's exact; a digital's ± cash k_w(s - K)), κ the knock's
sign (+1 down-and-out; flipped by up and by in). That is the derivative at θ0 of the path's

    Φ(θ) = D0 A0 p_w(s(θ)) + D0 (p(s0) - r) κ R_w(x(θ) - L) + D(θ) P0,

with p_w the payoff whose digital jump is a ramp over ±w, R_w(u) the ramp 0 -> 1 over
u in [-w, w], and the subscript 0 the unmoved path's. Φ is Lipschitz in θ, so the mean of its
central difference at a small step h is the estimator's mean up to O(h²) (measured: the same at
2h, the difference the allowance), with a per-path spread no larger than the estimator's.

Gamma (by spot a) is the central difference of that pathwise delta at spot a moved ±1% (pfmc's
spot bump): the paths from the moved spot on the same draws, each with its own Φ (a max or min
basket's level and a basket knock's extreme read on the path moved, as pfmc reads them).

Heston QE switches its variance scheme at psi = 1.5: a path crossing it jumps, and pathwise
tangents do not see the jump. A path whose scheme branches differ between the +h and -h paths
takes the one-sided difference on the side whose branches are the unmoved path's: the mean
without the jumps (the estimator's); the jumps' share of the central difference is reported
apart.

The bumps' means on the same draws (refcore.scenarios: pfmc's bump sizes, the unsmoothed payoff)
come along where asked, for tests that compare the two estimators on pfmc's own draws.
"""
import math

import numpy as np

import refcore as rc
import refmc

# docs/guide.md, Greeks: the kernel's half-width, relative (engine/plan/pathwise.cpp: kJumpSmoothing).
JUMP_SMOOTHING = 0.01
# The central differences' steps: relative for a spot, absolute for a vol (a Heston model's
# sqrt(v0) and sqrt(theta); a local-vol surface's every node), the zero rates and valuation time
# (years). Small against every kernel and ramp (1% of the spot or more), large against rounding
# (a path's Φ is about 1e2, so 1e-16 * 1e2 / 1e-5 = 1e-9 of each Greek).
STEPS = {"delta": 1e-4, "vega": 1e-4, "rho": 1e-5, "theta": 1e-5}
FIRST_ORDER = ("delta", "vega", "rho", "theta")


def _model(case, name):
    return next(m for m in case["models"] if m["name"] == name)


def _spots(case, model):
    return [u["spot"] for u in rc.underlyings_of(case, model)]


def _bumped(case, model_name, greek, asset, step):
    """The scenario of `case` with the Greek's input moved by `step` (relative for a spot)."""
    model = _model(case, model_name)
    single = len(_spots(case, model)) == 1
    if greek == "delta":
        return rc.Scenario(rc._bump_spot(case, model, -1 if single else asset, step), model_name)
    if greek == "vega":
        return rc.Scenario(rc._bump_vol(case, model_name, asset, step), model_name)
    if greek == "rho":
        return rc.Scenario(rc._bump_rates(case, step), model_name)
    return rc.Scenario(case, model_name, step)  # theta: valuation `step` later, the dates held


class Instrument:
    """An instrument's schedule as grid steps and its payoff's terms."""

    def __init__(self, ins, grid):
        self.ins = ins
        self.id = ins["id"]
        self.kind = ins["type"]
        self.maturity = ins["maturity"]
        self.at = rc.step_of(grid, self.maturity)
        self.fixings = ([rc.step_of(grid, t) for t in rc.fixings_of(ins)]
                        if self.kind == "asian" else None)
        knock = rc.knock_of(ins)
        self.knock = None
        self.rebate = 0.0
        if knock:
            ktype, level, self.rebate, dates = knock
            basket = self.kind == "basket"
            self.knock = dict(down=ktype.startswith("down"), knock_in=ktype.endswith("_in"),
                              level=level if basket else math.log(level),
                              width=(JUMP_SMOOTHING * max(abs(level), 1.0) if basket
                                     else JUMP_SMOOTHING),
                              steps=[rc.step_of(grid, t) for t in dates], basket=basket)
        self.strike = ins["strike"]
        self.call = ins["option"] == "call"
        self.digital = self.kind == "digital"
        self.cash = ins.get("cash", 0.0)
        self.payoff_width = JUMP_SMOOTHING * abs(self.strike)

    def observe(self, xs):
        """(s, x): the payoff's observation and the knock's extreme (None without a knock)."""
        if self.kind == "basket":
            s = refmc.basket_level(self.ins, [np.exp(x[self.at]) for x in xs])
        elif self.kind == "asian":
            if self.ins["average"] == "arithmetic":
                s = np.mean([np.exp(xs[0][k]) for k in self.fixings], axis=0)
            else:
                s = np.exp(np.mean([xs[0][k] for k in self.fixings], axis=0))
        else:
            s = np.exp(xs[0][self.at])
        if self.knock is None:
            return s, None
        k = self.knock
        if k["basket"]:
            seen = [refmc.basket_level(self.ins, [np.exp(x[j]) for x in xs]) for j in k["steps"]]
        else:
            seen = [xs[0][j] for j in k["steps"]]
        x = np.minimum.reduce(seen) if k["down"] else np.maximum.reduce(seen)
        return s, x

    def payoff(self, s):
        if self.digital:
            return self.cash * ((s > self.strike) if self.call else (s < self.strike))
        return np.maximum(s - self.strike, 0.0) if self.call else np.maximum(self.strike - s, 0.0)

    def smoothed_payoff(self, s):
        """p_w: a digital's jump a ramp over ±w; a call's or put's payoff as it is."""
        if not self.digital:
            return self.payoff(s)
        u = (s - self.strike) if self.call else (self.strike - s)
        return self.cash * _ramp(u, self.payoff_width)

    def alive(self, x):
        if self.knock is None:
            return 1.0
        k = self.knock
        crossed = x <= k["level"] if k["down"] else x >= k["level"]
        return (crossed if k["knock_in"] else ~crossed).astype(float)

    def knock_sign(self):
        k = self.knock
        return (1.0 if k["down"] else -1.0) * (-1.0 if k["knock_in"] else 1.0)


def _ramp(u, w):
    return np.clip((u + w) / (2.0 * w), 0.0, 1.0)


class Frozen:
    """A path's unmoved quantities that Φ holds: D0 A0, D0 (p(s0) - r) κ and P0."""

    def __init__(self, instrument, s, x, discount):
        i = instrument
        alive = i.alive(x)
        p = i.payoff(s)
        self.slope_weight = discount * alive
        self.knock_weight = (discount * (p - i.rebate) * i.knock_sign() if i.knock is not None
                             else None)
        self.paid = alive * p + (1.0 - alive) * i.rebate


def functional(instrument, frozen, s, x, discount):
    """Φ on each path at the moved path's observation s, extreme x and discount."""
    i = instrument
    phi = frozen.slope_weight * i.smoothed_payoff(s) + discount * frozen.paid
    if i.knock is not None:
        phi = phi + frozen.knock_weight * _ramp(x - i.knock["level"], i.knock["width"])
    return phi


class Path:
    """One scenario's simulation on a batch of draws: each instrument's (s, x), its discount and,
    under Heston QE, each step's scheme branch (True: quadratic)."""

    def __init__(self, sc, grid, z, instruments):
        times = np.array([0.0] + [t - sc.shift for t in grid[1:]])
        model = sc.model
        variances = [] if model["type"] == "heston" else None
        if variances is not None:
            xs = refmc._heston_paths(sc, times, z, variances)
        else:
            xs = refmc.PATHS[model["type"]](sc, times, z)
        self.branches = None
        if variances is not None and model.get("scheme", "qe") == "qe":
            self.branches = _qe_branches(model, times, variances)
        rates = sc.case["market"]["rates"]
        self.obs = {i.id: i.observe(xs) for i in instruments}
        self.discount = {i.id: rc.discount(rates, i.maturity - sc.shift) for i in instruments}
        self.xs, self.times, self.rates = xs, times, rates


def _qe_branches(model, times, variances):
    """QE's branch at each step (psi <= 1.5: quadratic) from the variance at its start."""
    kappa, theta, xi = model["kappa"], model["theta"], model["xi"]
    out = []
    for k in range(len(times) - 1):
        dt = times[k + 1] - times[k]
        v = variances[k]
        e = math.exp(-kappa * dt)
        mean = theta + (v - theta) * e
        s2 = v * xi * xi * e * (1 - e) / kappa + theta * xi * xi * (1 - e) ** 2 / (2 * kappa)
        out.append(s2 / (mean * mean) <= 1.5)
    return np.stack(out)


class Estimate:
    """A Greek's per-path estimates, accumulated: at step h and at 2h, the jumps' share."""

    def __init__(self):
        self.at_h, self.at_2h, self.jumps = refmc.Moments(), refmc.Moments(), refmc.Moments()
        self.switched = 0

    def summary(self):
        return dict(value=self.at_h.mean(), std_error=self.at_h.std_error(),
                    at_2h=self.at_2h.mean(), fd_error=abs(self.at_h.mean() - self.at_2h.mean()),
                    jumps=self.jumps.mean() if self.jumps.n else 0.0, switched=self.switched)


def _difference(instrument, frozen, up, down, base, width):
    """The per-path central difference of Φ over the paths `up` and `down` (steps ±h, the
    difference divided by `width` = 2h in the input's units), one-sided where a QE path's
    branches differ between them; and the jumps' share (central less one-sided)."""
    i = instrument
    f_up = functional(i, frozen, *up.obs[i.id], up.discount[i.id])
    f_down = functional(i, frozen, *down.obs[i.id], down.discount[i.id])
    central = (f_up - f_down) / width
    if up.branches is None or down.branches is None:
        return central, None, 0
    switched = np.any(up.branches != down.branches, axis=0)
    if not switched.any():
        return central, np.zeros_like(central), 0
    f_base = functional(i, frozen, *base.obs[i.id], base.discount[i.id])
    up_same = np.all(up.branches == base.branches, axis=0)
    one_sided = np.where(up_same, (f_up - f_base) / (0.5 * width), (f_base - f_down) / (0.5 * width))
    estimate = np.where(switched, one_sided, central)
    return estimate, central - estimate, int(switched.sum())


def _plan(case, model_name, greeks):
    """The first-order inputs to move: (greek, asset or None, relative-to spot)."""
    model = _model(case, model_name)
    spots = _spots(case, model)
    n = len(spots)
    out = []
    for g in greeks:
        if g not in FIRST_ORDER:
            continue
        per_asset = n > 1 and g in ("delta", "vega")
        for a in range(n if per_asset else 1):
            out.append((g, a if per_asset else None))
    return out, spots


def _key(g, a, n):
    return g if a is None or n == 1 else "%s[%d]" % (g, a)


def _first_order(case, model_name, grid, z, instruments, inputs, spots, scale=1):
    """{instrument id: {key: (estimate, jumps, switched)}} on the paths from `case` (a moved spot
    for gamma's deltas), at steps scale * STEPS."""
    base = Path(rc.Scenario(case, model_name), grid, z, instruments)
    frozen = {i.id: Frozen(i, *base.obs[i.id], base.discount[i.id]) for i in instruments}
    out = {i.id: {} for i in instruments}
    n = len(spots)
    for g, a in inputs:
        h = scale * STEPS[g]
        up = Path(_bumped(case, model_name, g, a if a is not None else 0, h), grid, z, instruments)
        down = Path(_bumped(case, model_name, g, a if a is not None else 0, -h), grid, z,
                    instruments)
        width = 2 * h * (spots[a if a is not None else 0] if g == "delta" else 1.0)
        for i in instruments:
            out[i.id][_key(g, a, n)] = _difference(i, frozen[i.id], up, down, base, width)
    return out, base


def pathwise_means(case, model_name, paths, seed, greeks, batch=50000, bumped=False):
    """The pathwise estimators' means for every instrument of the model's group in `case`: {id:
    {key: summary}} (key: the Greek, with [asset] for a basket's per-asset Greeks). With bumped,
    also {id: {key: (Moments of the bumps' estimates, Moments of the pathwise less the bumps')}},
    the bumps (refcore.scenarios) on the same draws."""
    model, members = rc.groups(case)[model_name]
    grid = rc.group_grid(members, case["simulation"].get("steps_per_year", 252))
    instruments = [Instrument(i, grid) for i in members]
    inputs, spots = _plan(case, model_name, greeks)
    n = len(spots)
    gammas = list(range(n)) if "gamma" in greeks else []
    stats = {i.id: {} for i in instruments}
    bump_stats = {i.id: {} for i in instruments}
    rng = np.random.Generator(np.random.PCG64(seed))
    done = 0
    while done < paths:
        m = min(batch, paths - done)
        z = rng.standard_normal((len(grid) - 1, refmc.factors_of(model), m))
        at_h = {}
        for scale, field in ((1, "at_h"), (2, "at_2h")):
            batch_estimates = _estimates(case, model_name, grid, z, instruments, inputs, spots,
                                         gammas, scale)
            for (iid, key), (e, jumps, switched) in batch_estimates.items():
                est = stats[iid].setdefault(key, Estimate())
                getattr(est, field).add(e)
                if field == "at_h":
                    at_h[iid, key] = e
                    if jumps is not None:
                        est.jumps.add(jumps)
                        est.switched += switched
        if bumped:
            for (iid, key), e in _bump_estimates(case, model_name, grid, z, instruments,
                                                 greeks).items():
                b, gap = bump_stats[iid].setdefault(key, (refmc.Moments(), refmc.Moments()))
                b.add(e)
                gap.add(at_h[iid, key] - e)
        done += m
    out = {iid: {k: e.summary() for k, e in s.items()} for iid, s in stats.items()}
    return (out, bump_stats) if bumped else out


def _estimates(case, model_name, grid, z, instruments, inputs, spots, gammas, scale):
    """{(id, key): (per-path estimate, jumps' share or None, paths switched)} of one batch."""
    model = _model(case, model_name)
    n = len(spots)
    out = {}
    first, _ = _first_order(case, model_name, grid, z, instruments, inputs, spots, scale)
    for i in instruments:
        for key, value in first[i.id].items():
            out[i.id, key] = value
    for a in gammas:
        asset = a if n > 1 else None
        deltas = []
        for sign in (1, -1):
            moved = rc._bump_spot(case, model, a if n > 1 else -1, sign * rc.SPOT_BUMP)
            d, _ = _first_order(moved, model_name, grid, z, instruments, [("delta", asset)],
                                _spots(moved, model), scale)
            deltas.append(d)
        key = _key("delta", asset, n)
        for i in instruments:
            gamma = (deltas[0][i.id][key][0] - deltas[1][i.id][key][0]) / (
                2 * rc.SPOT_BUMP * spots[a])
            out[i.id, _key("gamma", asset, n)] = (gamma, None, 0)
    return out


def _bump_estimates(case, model_name, grid, z, instruments, greeks):
    """{(id, key): per-path estimate} of the bumps' Greeks (refcore.scenarios) on the draws z."""
    model = _model(case, model_name)
    n = len(_spots(case, model))
    scenarios, weights = rc.scenarios(case, model_name, list(greeks), grid[1])
    values = {i.id: [] for i in instruments}
    for sc in scenarios:
        times = refmc._times(grid, sc.shift)
        xs = refmc.PATHS[model["type"]](sc, times, z)
        for i in instruments:
            values[i.id].append(refmc.discounted_payoff(rc.shifted(i.ins, sc.shift), xs,
                                                        list(times), sc.case["market"]["rates"]))
    out = {}
    for i in instruments:
        for g, a, w in weights:
            out[i.id, _key(g, a, n)] = sum(wk * vk for wk, vk in zip(w, values[i.id]) if wk != 0.0)
    return out
