"""An independent Monte Carlo for pfmc's reference cases, in numpy: its own draws (numpy's PCG64,
not Philox), its own path schemes and payoffs, written from the models' published definitions:

  - black_scholes, multi_black_scholes: exact log steps over each grid interval (integrated
    rate, yield and Black variance; a basket's legs correlated by the Cholesky factor);
  - heston: Andersen's QE with gamma1 = gamma2 = 1/2, psi_c = 1.5 and his martingale correction
    (QE-M), or full-truncation Euler (Lord, Koekkoek, van Dijk), on the group's grid;
  - local_vol: Euler in log space with the vol at each step's start, the surface linear in time
    between its rows and in log forward moneyness between its knots, flat outside.

Each scenario of the Greeks is simulated on the same draws (common random numbers), so a Greek's
estimate per path is the fixed combination of its scenarios' payoffs, as the finite difference
of the price at the same bumps. Pathwise deltas (dV/dS0 of a European or Asian on a
spot-homogeneous model) are estimated too, where they apply.
"""
import math

import numpy as np
from scipy.special import ndtr

import refcore as rc


# --- paths ----------------------------------------------------------------------------------

def _times(grid, shift):
    return np.array([0.0] + [t - shift for t in grid[1:]])


def _bs_paths(sc, times, z):
    (u,) = rc.underlyings_of(sc.case, sc.model)
    rates, vol = sc.case["market"]["rates"], sc.model["volatility"]
    x = np.empty((len(times), z.shape[2]))
    x[0] = math.log(u["spot"])
    for k in range(len(times) - 1):
        t0, t1 = times[k], times[k + 1]
        var = max(0.0, rc.total_variance(vol, t1) - rc.total_variance(vol, t0))
        drift = rc.rate_integral(rates, t0, t1) - u.get("dividend_yield", 0.0) * (t1 - t0)
        x[k + 1] = x[k] + drift - 0.5 * var + math.sqrt(var) * z[k, 0]
    return [x]


def _multi_bs_paths(sc, times, z):
    us = rc.underlyings_of(sc.case, sc.model)
    rates, vols = sc.case["market"]["rates"], sc.model["volatilities"]
    chol = np.linalg.cholesky(np.array(sc.model["correlation"], dtype=float))
    xs = [np.empty((len(times), z.shape[2])) for _ in us]
    for a, u in enumerate(us):
        xs[a][0] = math.log(u["spot"])
    for k in range(len(times) - 1):
        t0, t1 = times[k], times[k + 1]
        w = np.tensordot(chol, z[k], axes=(1, 0))
        for a, u in enumerate(us):
            var = vols[a] ** 2 * (t1 - t0)
            drift = rc.rate_integral(rates, t0, t1) - u.get("dividend_yield", 0.0) * (t1 - t0)
            xs[a][k + 1] = xs[a][k] + drift - 0.5 * var + math.sqrt(var) * w[a]
    return xs


def _heston_paths(sc, times, z, variances=None):
    """Log spots on the grid; the variance at each grid time too into `variances` (a list)."""
    (u,) = rc.underlyings_of(sc.case, sc.model)
    m = sc.model
    rates, q = sc.case["market"]["rates"], u.get("dividend_yield", 0.0)
    kappa, theta, xi, rho = m["kappa"], m["theta"], m["xi"], m["rho"]
    n = z.shape[2]
    x = np.empty((len(times), n))
    x[0] = math.log(u["spot"])
    v = np.full(n, float(m["v0"]))
    if variances is not None:
        variances.append(v)
    full_truncation = m.get("scheme", "qe") == "full_truncation"
    for k in range(len(times) - 1):
        t0, t1 = times[k], times[k + 1]
        dt = t1 - t0
        rq = rc.rate_integral(rates, t0, t1) - q * dt
        zv, zs = z[k, 0], z[k, 1]
        if full_truncation:
            vp = np.maximum(v, 0.0)
            x[k + 1] = x[k] + rq - 0.5 * vp * dt + np.sqrt(vp * dt) * (
                rho * zv + math.sqrt(1 - rho * rho) * zs)
            v = v + kappa * (theta - vp) * dt + xi * np.sqrt(vp * dt) * zv
            if variances is not None:
                variances.append(v)
            continue
        e = math.exp(-kappa * dt)
        mean = theta + (v - theta) * e
        s2 = v * xi * xi * e * (1 - e) / kappa + theta * xi * xi * (1 - e) ** 2 / (2 * kappa)
        psi = s2 / (mean * mean)
        k2 = 0.5 * dt * (kappa * rho / xi - 0.5) + rho / xi
        k3 = k4 = 0.5 * dt * (1 - rho * rho)
        big_a = k2 + 0.5 * k4
        quad = psi <= 1.5
        nxt = np.empty(n)
        k0 = np.empty(n)
        # Quadratic branch.
        pq = np.where(quad, psi, 1.0)
        b2 = 2 / pq - 1 + np.sqrt(2 / pq) * np.sqrt(2 / pq - 1)
        a = mean / (1 + b2)
        nxt[quad] = (a * (np.sqrt(b2) + zv) ** 2)[quad]
        k0[quad] = (-big_a * b2 * a / (1 - 2 * big_a * a) + 0.5 * np.log(1 - 2 * big_a * a))[quad]
        # Exponential branch, U = Phi(zv).
        ex = ~quad
        pe = np.where(ex, psi, 3.0)
        p0 = (pe - 1) / (pe + 1)
        beta = (1 - p0) / mean
        one_minus_u = ndtr(-zv)
        with np.errstate(divide="ignore"):
            tail = np.log((1 - p0) / one_minus_u) / beta
        nxt[ex] = np.where(ndtr(zv) <= p0, 0.0, tail)[ex]
        k0[ex] = (-np.log(p0 + beta * (1 - p0) / (beta - big_a)))[ex]
        # K0* = k0 - (K1 + K3 / 2) v replaces K0 (E[S(t + dt) | t] = S(t) e^{(r - q) dt}), so
        # K1's v term cancels: K0* + K1 v = k0 - K3 v / 2.
        x[k + 1] = x[k] + rq + k0 - 0.5 * k3 * v + k2 * nxt + np.sqrt(k3 * v + k4 * nxt) * zs
        v = nxt
        if variances is not None:
            variances.append(v)
    return [x]


def surface_row(surface, t):
    """The local-vol surface's row at time t: linear between its times, flat outside."""
    ts, vols = surface["times"], np.array(surface["vols"], dtype=float)
    if t >= ts[-1]:
        return vols[-1]
    if t <= ts[0]:
        return vols[0]
    hi = next(i for i, s in enumerate(ts) if s > t)
    w = (t - ts[hi - 1]) / (ts[hi] - ts[hi - 1])
    return vols[hi - 1] + w * (vols[hi] - vols[hi - 1])


def local_vol_at(surface, t, moneyness):
    """sigma(t, k): the time row, linear in k between the knots, flat outside."""
    return np.interp(moneyness, surface["log_moneyness"], surface_row(surface, t))


def log_forward(sc, t):
    (u,) = rc.underlyings_of(sc.case, sc.model)
    return (math.log(u["spot"]) - u.get("dividend_yield", 0.0) * t
            - math.log(rc.discount(sc.case["market"]["rates"], t)))


def _local_vol_paths(sc, times, z):
    (u,) = rc.underlyings_of(sc.case, sc.model)
    rates, q, surface = sc.case["market"]["rates"], u.get("dividend_yield", 0.0), sc.model["surface"]
    x = np.empty((len(times), z.shape[2]))
    x[0] = math.log(u["spot"])
    for k in range(len(times) - 1):
        t0, t1 = times[k], times[k + 1]
        dt = t1 - t0
        sigma = local_vol_at(surface, t0, x[k] - log_forward(sc, t0))
        x[k + 1] = x[k] + rc.rate_integral(rates, t0, t1) - q * dt - 0.5 * sigma * sigma * dt + \
            sigma * math.sqrt(dt) * z[k, 0]
    return [x]


PATHS = {"black_scholes": _bs_paths, "multi_black_scholes": _multi_bs_paths,
         "heston": _heston_paths, "local_vol": _local_vol_paths}


def factors_of(model):
    if model["type"] == "multi_black_scholes":
        return len(model["underlyings"])
    return 2 if model["type"] == "heston" else 1


# --- payoffs --------------------------------------------------------------------------------

def basket_level(instrument, spots):
    """Sum w S, max w S or min w S of the legs' spots (arrays)."""
    n = len(spots)
    kind = instrument.get("payoff", "weighted")
    w = instrument.get("weights", [1.0 / n] * n if kind == "weighted" else [1.0] * n)
    legs = [w[a] * spots[a] for a in range(n)]
    if kind == "weighted":
        return sum(legs)
    return np.maximum.reduce(legs) if kind == "max" else np.minimum.reduce(legs)


def _vanilla(option, strike, s):
    return np.maximum(s - strike, 0.0) if option == "call" else np.maximum(strike - s, 0.0)


def discounted_payoff(instrument, xs, grid, rates):
    """The instrument's discounted payoff on each path: xs[asset][grid step] are log spots on the
    scenario's grid `grid` (the instrument's dates already moved to it)."""
    T = instrument["maturity"]
    kind = instrument["type"]
    spot_at = lambda t: np.exp(xs[0][rc.step_of(grid, t)])
    if kind == "basket":
        k = rc.step_of(grid, T)
        level = lambda kk: basket_level(instrument, [np.exp(x[kk]) for x in xs])
        pay = _vanilla(instrument["option"], instrument["strike"], level(k))
    elif kind == "asian":
        steps = [rc.step_of(grid, t) for t in rc.fixings_of(instrument)]
        if instrument["average"] == "arithmetic":
            a = np.mean([np.exp(xs[0][k]) for k in steps], axis=0)
        else:
            a = np.exp(np.mean([xs[0][k] for k in steps], axis=0))
        pay = _vanilla(instrument["option"], instrument["strike"], a)
    elif kind == "digital":
        s = spot_at(T)
        hit = s > instrument["strike"] if instrument["option"] == "call" else s < instrument["strike"]
        pay = np.where(hit, instrument["cash"], 0.0)
    else:  # european, barrier
        pay = _vanilla(instrument["option"], instrument["strike"], spot_at(T))
    knock = rc.knock_of(instrument)
    if knock:
        ktype, level_k, rebate, dates = knock
        steps = [rc.step_of(grid, t) for t in dates]
        if kind == "basket":
            seen = [basket_level(instrument, [np.exp(x[k]) for x in xs]) for k in steps]
        else:
            seen = [xs[0][k] for k in steps]
            level_k = math.log(level_k)
        if ktype.startswith("down"):
            crossed = np.minimum.reduce(seen) <= level_k
        else:
            crossed = np.maximum.reduce(seen) >= level_k
        alive = crossed if ktype.endswith("_in") else ~crossed
        pay = np.where(alive, pay, rebate)
    return pay * rc.discount(rates, T)


def pathwise_delta_applies(model, instrument):
    return (model["type"] in ("black_scholes", "heston") and instrument["type"] in
            ("european", "asian") and rc.knock_of(instrument) is None)


def pathwise_delta(instrument, xs, grid, rates, spot0):
    """dV/dS0 per path: (S > K) S / S0 (call) or -(S < K) S / S0 (put), S the terminal spot or
    the average; paths scale with S0 on these models."""
    T = instrument["maturity"]
    if instrument["type"] == "asian":
        steps = [rc.step_of(grid, t) for t in rc.fixings_of(instrument)]
        if instrument["average"] == "arithmetic":
            s = np.mean([np.exp(xs[0][k]) for k in steps], axis=0)
        else:
            s = np.exp(np.mean([xs[0][k] for k in steps], axis=0))
    else:
        s = np.exp(xs[0][rc.step_of(grid, T)])
    K = instrument["strike"]
    itm = np.where(s > K, 1.0, 0.0) if instrument["option"] == "call" else np.where(s < K, -1.0, 0.0)
    return itm * s / spot0 * rc.discount(rates, T)


# --- statistics -----------------------------------------------------------------------------

class Moments:
    """Mean and standard error of per-path estimates fed in batches (shifted sums)."""

    def __init__(self):
        self.n, self.shift, self.s, self.s2 = 0, None, 0.0, 0.0

    def add(self, values):
        if self.shift is None:
            self.shift = float(np.mean(values))
        d = values - self.shift
        self.n += len(values)
        self.s += float(np.sum(d))
        self.s2 += float(np.sum(d * d))

    def mean(self):
        return self.shift + self.s / self.n

    def std_error(self):
        m = self.s / self.n
        return math.sqrt(max(0.0, (self.s2 / self.n - m * m)) * self.n / (self.n - 1) / self.n)


def price_case(case, paths, seed, batch=100000, greeks=None):
    """Reference estimates of every instrument of the case over `paths` paths of its own draws:
    {id: {"price": Moments, "greeks": [(name, asset, Moments)], "pathwise_delta": Moments,
          "weights": [each Greek's weights over the scenarios], "scenarios": [Moments of each
          scenario's payoff]}}."""
    greeks = list(greeks if greeks is not None else case["simulation"].get("greeks", []))
    steps_per_year = case["simulation"].get("steps_per_year", 252)
    rng = np.random.Generator(np.random.PCG64(seed))
    out = {}
    for name, (model, instruments) in rc.groups(case).items():
        grid = rc.group_grid(instruments, steps_per_year)
        scs, weights = rc.scenarios(case, name, greeks, grid[1])
        spot0 = rc.underlyings_of(case, model)[0]["spot"]
        stats = {i["id"]: {"price": Moments(), "greeks": [(g, a, Moments()) for g, a, _ in weights],
                           "pathwise_delta": Moments() if pathwise_delta_applies(model, i)
                           else None, "weights": [w for _, _, w in weights],
                           "scenarios": [Moments() for _ in scs]} for i in instruments}
        done = 0
        while done < paths:
            n = min(batch, paths - done)
            z = rng.standard_normal((len(grid) - 1, factors_of(model), n))
            values = {i["id"]: [] for i in instruments}
            base_xs = None
            for sc in scs:
                g = _times(grid, sc.shift)
                xs = PATHS[model["type"]](sc, g, z)
                if base_xs is None:
                    base_xs = xs
                for i in instruments:
                    values[i["id"]].append(discounted_payoff(rc.shifted(i, sc.shift), xs, list(g),
                                                             sc.case["market"]["rates"]))
            for i in instruments:
                v = values[i["id"]]
                s = stats[i["id"]]
                s["price"].add(v[0])
                for m, vk in zip(s["scenarios"], v):
                    m.add(vk)
                for (gname, a, m), (_, _, w) in zip(s["greeks"], weights):
                    m.add(sum(wk * vk for wk, vk in zip(w, v) if wk != 0.0))
                if s["pathwise_delta"] is not None:
                    s["pathwise_delta"].add(pathwise_delta(i, base_xs, grid, case["market"]["rates"],
                                                           spot0))
            done += n
        out.update(stats)
    return out
