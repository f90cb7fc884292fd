"""Deterministic references for single-asset payoffs of the terminal spot with a discretely
monitored knock, and a PDE for local volatility; written apart from pfmc's engine.

1. Transition-density recursion. Between consecutive dates the log-spot x moves by a Gaussian
   whose mean and variance may depend on x:
     - Black-Scholes (term structures too): from one event date to the next, exactly, with the
       interval's integrated rate, yield and Black variance (constant in x);
     - the local-vol Euler chain pfmc simulates: one grid step at a time, the vol taken at the
       step's start, sigma(t_i, x - ln F(0, t_i)).
   Backwards from the maturity, V_j(x) = integral of V_{j+1}(y) phi(y; x + mu_j(x), s_j(x)) dy,
   with V_{j+1} set to zero where the knock has fired at date j + 1. The last step (to the
   maturity) is done in closed form (a call, put or digital of a Gaussian log-spot on an
   interval); every other one by the trapezoidal rule on a uniform grid of y with the barrier on
   a node (the integrand jumps there: the node takes half a weight and the live side's value),
   whose error is c h^2 + O(h^4): two grids, h and h/2, and Richardson's extrapolation.
   Three expectations give every knock and rebate: A = E[f 1{alive}] (out), P = E[1{alive}],
   E[f]; knock-out = df (A + R (1 - P)), knock-in = df (E[f] - A + R P).

2. Crank-Nicolson for the local-vol PDE in x = ln S (continuous time, the surface linear in
   time between its rows and in log forward moneyness between its knots, flat outside), with
   Rannacher's start (four implicit half steps) and Richardson in the time step.
"""
import math

import numpy as np
from scipy.linalg import solve_banded
from scipy.signal import fftconvolve
from scipy.special import ndtr

import refcore as rc
import refmc


class Step:
    """One transition: x -> N(x + mu(x), sd(x)^2) over [t0, t1]."""

    def __init__(self, t0, t1, mu, sd, constant):
        self.t0, self.t1, self.mu, self.sd, self.constant = t0, t1, mu, sd, constant


def black_scholes_steps(case, model, dates):
    """Exact transitions between consecutive dates (the last the maturity)."""
    (u,) = rc.underlyings_of(case, model)
    rates, vol, q = case["market"]["rates"], model["volatility"], u.get("dividend_yield", 0.0)
    steps, prev = [], 0.0
    for t in dates:
        var = rc.total_variance(vol, t) - rc.total_variance(vol, prev)
        drift = rc.rate_integral(rates, prev, t) - q * (t - prev) - 0.5 * var
        steps.append(Step(prev, t, (lambda d: lambda x: np.full_like(x, d))(drift),
                          (lambda s: lambda x: np.full_like(x, s))(math.sqrt(var)), True))
        prev = t
    return steps


def local_vol_steps(case, model, grid, maturity):
    """The Euler chain on the group's grid up to the maturity."""
    (u,) = rc.underlyings_of(case, model)
    rates, q, surface = case["market"]["rates"], u.get("dividend_yield", 0.0), model["surface"]
    sc = rc.Scenario(case, model["name"])
    steps = []
    for k in range(rc.step_of(grid, maturity)):
        t0, t1 = grid[k], grid[k + 1]
        dt = t1 - t0
        rq = rc.rate_integral(rates, t0, t1) - q * dt
        lf = refmc.log_forward(sc, t0)

        def mu(x, t0=t0, dt=dt, rq=rq, lf=lf):
            s = refmc.local_vol_at(surface, t0, x - lf)
            return rq - 0.5 * s * s * dt

        def sd(x, t0=t0, dt=dt, lf=lf):
            return refmc.local_vol_at(surface, t0, x - lf) * math.sqrt(dt)

        steps.append(Step(t0, t1, mu, sd, False))
    return steps


def _interval_expectations(m, s, lo, hi):
    """E[1{lo < X < hi}] and E[e^X 1{lo < X < hi}] for X ~ N(m, s^2) (arrays)."""
    a, b = (lo - m) / s, (hi - m) / s
    p = ndtr(b) - ndtr(a)
    e = np.exp(m + 0.5 * s * s) * (ndtr(b - s) - ndtr(a - s))
    return p, e


def _terminal(instrument, m, s, live):
    """E[f(S_T) 1{X_T in live}] and E[1{X_T in live}] for X_T ~ N(m, s^2): f a call, put or
    digital; live an interval (lo, hi) of log-spot."""
    K = instrument["strike"]
    lk = math.log(K)
    lo, hi = live
    if instrument["option"] == "call":
        region = (max(lo, lk), hi)
    else:
        region = (lo, min(hi, lk))
    if region[0] >= region[1]:
        pay = np.zeros_like(m)
    else:
        p, e = _interval_expectations(m, s, region[0], region[1])
        if instrument["type"] == "digital":
            pay = instrument["cash"] * p
        elif instrument["option"] == "call":
            pay = e - K * p
        else:
            pay = K * p - e
    alive, _ = _interval_expectations(m, s, lo, hi)
    return pay, alive


def _quadrature_weights(nodes, h, knock_level, down):
    """Trapezoid weights over the live nodes; the barrier node (if any) takes half a weight."""
    w = np.full(len(nodes), h)
    w[0] = w[-1] = 0.5 * h
    if knock_level is None:
        return w
    at = np.isclose(nodes, knock_level, rtol=0, atol=1e-9 * h)
    dead = nodes < knock_level if down else nodes > knock_level
    w[dead] = 0.0
    w[at] = 0.5 * h
    return w


def _step_back(values, weights, nodes, step, targets, h):
    """Continuation values at `targets` over one step from values at `nodes`."""
    f = values * weights
    if step.constant and targets is nodes:
        mu, sd = float(step.mu(nodes[:1])[0]), float(step.sd(nodes[:1])[0])
        reach = int(math.ceil((abs(mu) + 12 * sd) / h))
        offsets = np.arange(-reach, reach + 1) * h
        kernel = np.exp(-0.5 * ((offsets - mu) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))
        # out[i] = sum_k f[k] kernel(nodes[k] - nodes[i]): a correlation.
        full = fftconvolve(f, kernel[::-1], mode="full")
        return full[reach:reach + len(nodes)]
    out = np.empty(len(targets))
    mus, sds = step.mu(targets), step.sd(targets)
    block = 256
    for i0 in range(0, len(targets), block):
        x = targets[i0:i0 + block, None]
        m, s = mus[i0:i0 + block, None], sds[i0:i0 + block, None]
        lo = np.searchsorted(nodes, float(np.min(x + m - 12 * s)))
        hi = np.searchsorted(nodes, float(np.max(x + m + 12 * s)))
        y = nodes[lo:hi][None, :]
        dens = np.exp(-0.5 * ((y - x - m) / s) ** 2) / (s * math.sqrt(2 * math.pi))
        out[i0:i0 + block] = dens @ f[lo:hi]
    return out


def _recursion(instrument, steps, x0, knock, h):
    """(E[f 1{alive}], E[1{alive}], E[f]) by the recursion on nodes of spacing h."""
    dates = set()
    level = down = None
    if knock:
        ktype, lvl, _, mon = knock
        level, down = math.log(lvl), ktype.startswith("down")
        dates = {round(t, 9) for t in mon}
    monitored = [round(s.t1, 9) in dates for s in steps]
    # Nodes: x0 +- 10 standard deviations of the whole horizon, the barrier on a node.
    total_sd = math.sqrt(sum(float(np.max(s.sd(np.array([x0 - 1, x0, x0 + 1])))) ** 2
                             for s in steps))
    lo, hi = x0 - 10 * total_sd - 0.5, x0 + 10 * total_sd + 0.5
    anchor = level if level is not None else math.log(instrument["strike"])
    nodes = anchor + h * np.arange(math.floor((lo - anchor) / h), math.ceil((hi - anchor) / h) + 1)
    inf = float("inf")
    results = []
    for with_knock, payoff in ((True, True), (True, False), (False, True)):
        last = steps[-1]
        live = (-inf, inf)
        if with_knock and level is not None and monitored[-1]:
            live = (level, inf) if down else (-inf, level)
        targets = nodes if len(steps) > 1 else np.array([x0])
        pay, alive = _terminal(instrument, targets + last.mu(targets), last.sd(targets), live)
        values = pay if payoff else alive
        for j in range(len(steps) - 2, -1, -1):
            kl = level if (with_knock and level is not None and monitored[j]) else None
            w = _quadrature_weights(nodes, h, kl, down)
            targets = nodes if j > 0 else np.array([x0])
            values = _step_back(values, w, nodes, steps[j], targets, h)
        results.append(float(values[0]))
    return results


def knocked_price(case, model, instrument, grid=None, h=None):
    """The discounted price of a European/digital, knocked or not, on Black-Scholes or the
    local-vol Euler chain (grid: the group's), Richardson-extrapolated from h/2 and h/4; and its
    difference from the extrapolation of h and h/2 (a bound on its error)."""
    T = instrument["maturity"]
    knock = rc.knock_of(instrument)
    (u,) = rc.underlyings_of(case, model)
    x0 = math.log(u["spot"])
    if model["type"] == "black_scholes":
        dates = []
        for t in sorted((knock[3] if knock else []) + [T]):
            if not dates or t - dates[-1] > rc.TIME_TOLERANCE:
                dates.append(t)
            else:  # the same date (a scenario's shifted dates differ by rounding)
                dates[-1] = max(dates[-1], t)
        steps = black_scholes_steps(case, model, dates)
    else:
        steps = local_vol_steps(case, model, grid, T)
    min_sd = min(float(np.min(s.sd(np.linspace(x0 - 2, x0 + 2, 41)))) for s in steps)
    h = h or min_sd / 8
    values = [_recursion(instrument, steps, x0, knock, h / k) for k in (1, 2, 4)]
    extrapolated = [[(4 * b - c) / 3 for b, c in zip(fine, coarse)]
                    for coarse, fine in zip(values, values[1:])]
    df = rc.discount(case["market"]["rates"], T)

    def combine(a, p, f):
        if knock is None:
            return df * f
        ktype, _, rebate, _ = knock
        if ktype.endswith("_out"):
            return df * (a + rebate * (1 - p))
        return df * (f - a + rebate * p)

    value = combine(*extrapolated[1])
    return value, abs(value - combine(*extrapolated[0]))


# --- the local-vol PDE ----------------------------------------------------------------------

def local_vol_pde(case, model, instrument, space_points=4001, time_steps=1000):
    """Continuous-time price of a European or digital on the local-vol model (a flat yield; the
    zero curve flat or at tenors: over each time step the short rate is its average there,
    ln(DF(t0) / DF(t1)) / (t1 - t0), exact for the step's discounting and drift), or of a
    Bermudan call or put (`exercise: bermudan`, exercise_dates N: the time steps
    land on its dates, where the value becomes max(value, payoff) and the next step restarts
    with two implicit half steps): Crank-Nicolson in x = ln S with Rannacher's start; Richardson
    in the time step and then in the space step (both errors O(h^2)); and the change of the last
    extrapolation (a bound on its error)."""
    exercise = [round(t, 12) for t in rc.exercise_dates_of(instrument)[:-1]]
    if instrument.get("exercise") == "american":
        raise ValueError("the PDE takes Bermudan dates, not every step")
    if exercise:
        per = len(rc.exercise_dates_of(instrument))
        time_steps = per * max(1, round(time_steps / per))

    def solve(n_t, space_points):
        (u,) = rc.underlyings_of(case, model)
        rates = case["market"]["rates"]
        q = u.get("dividend_yield", 0.0)
        T, K = instrument["maturity"], instrument["strike"]
        x0 = math.log(u["spot"])
        width = 8 * 0.5 * math.sqrt(T)
        h = 2 * width / (space_points - 1)
        # The strike on a node (the digital takes half its cash there): a clean h^2 expansion.
        shift = (math.log(K) - (x0 - width)) / h
        x = x0 - width + h * np.arange(space_points) + (shift - math.floor(shift)) * h
        if instrument["type"] == "digital":
            hit = x > math.log(K) if instrument["option"] == "call" else x < math.log(K)
            v = np.where(hit, instrument["cash"], 0.0)
            v[np.isclose(x, math.log(K), atol=1e-12)] = 0.5 * instrument["cash"]
        else:
            v = np.maximum(np.exp(x) - K, 0) if instrument["option"] == "call" else \
                np.maximum(K - np.exp(x), 0)
        dt = T / n_t
        surface = model["surface"]
        lf = lambda t: x0 - q * t - math.log(rc.discount(rates, t))

        def operator(t, span):
            """The generator at t (the vol's time), the short rate averaged over [t - span/2,
            t + span/2]."""
            r = rc.rate_integral(rates, t - 0.5 * span, t + 0.5 * span) / span
            s2 = refmc.local_vol_at(surface, t, x - lf(t)) ** 2
            drift = r - q - 0.5 * s2
            lower = 0.5 * s2 / h ** 2 - drift / (2 * h)
            upper = 0.5 * s2 / h ** 2 + drift / (2 * h)
            diag = -s2 / h ** 2 - r
            return lower, diag, upper

        def apply(lower, diag, upper, v):
            out = diag * v
            out[1:] += lower[1:] * v[:-1]
            out[:-1] += upper[:-1] * v[1:]
            return out

        def boundary(tau):
            """Dirichlet values at the grid's ends, tau = T - t before the maturity."""
            df = rc.discount(rates, T) / rc.discount(rates, T - tau)
            fq = math.exp(-q * tau)
            lo, hi = math.exp(x[0]), math.exp(x[-1])
            if instrument["type"] == "digital":
                cash = instrument["cash"] * df
                return (0.0, cash) if instrument["option"] == "call" else (cash, 0.0)
            if instrument["option"] == "call":
                return 0.0, hi * fq - K * df
            return K * df - lo * fq, 0.0

        def implicit(lower, diag, upper, rhs, theta_dt, edges):
            ab = np.zeros((3, len(x)))
            ab[0, 1:] = -theta_dt * upper[:-1]
            ab[1] = 1 - theta_dt * diag
            ab[2, :-1] = -theta_dt * lower[1:]
            ab[1, 0], ab[0, 1] = 1, 0
            ab[1, -1], ab[2, -2] = 1, 0
            rhs = rhs.copy()
            rhs[0], rhs[-1] = edges
            return solve_banded((1, 1), ab, rhs)

        intrinsic = v.copy() if instrument["type"] != "digital" else None
        t = T
        steps_left = n_t
        restart = 2  # full steps to take as two implicit half steps (Rannacher)
        while steps_left > 0:
            parts = [(0.5 * dt, 1.0)] * 2 if restart > 0 else [(dt, 0.5)]
            restart = max(0, restart - 1)
            for span, theta in parts:
                lower, diag, upper = operator(t - 0.5 * span, span)
                rhs = v + (1 - theta) * span * apply(lower, diag, upper, v)
                t -= span
                edges = boundary(T - t)
                if exercise and intrinsic is not None:
                    edges = (max(edges[0], intrinsic[0]), max(edges[1], intrinsic[-1]))
                v = implicit(lower, diag, upper, rhs, theta * span, edges)
            steps_left -= 1
            if exercise and any(abs(t - e) < 1e-9 for e in exercise):
                v = np.maximum(v, intrinsic)
                restart = 1
        return float(np.interp(x0, x, v))

    def in_time(n_x):
        return (4 * solve(2 * time_steps, n_x) - solve(time_steps, n_x)) / 3

    coarse, fine = in_time(space_points), in_time(2 * space_points - 1)
    value = (4 * fine - coarse) / 3
    return value, abs(value - fine)
