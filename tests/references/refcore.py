"""The reference cases' market, schedules, grids and Greek scenarios, written from pfmc's documented
definitions (docs/config.md, docs/guide.md: Greeks) and sharing no code with the engine.

A case is a plain dict shaped like pfmc's YAML (market, models, instruments, simulation). This
module turns it into:
  - the YAML text pfmc is given (`case_yaml`),
  - each model's group: its instruments and its time grid (the uniform steps_per_year grid plus
    every maturity, fixing and monitoring date, dates within 1e-10 merged),
  - the Greeks' scenarios (spot +-1% of itself, vol +-1 point, zero rates +-10 bp, one day of
    calendar time), each a transformed copy of the case, and the weights that make Greeks of
    their payoffs.
"""
import copy
import math
import shutil
import subprocess

SPOT_BUMP, VOL_BUMP, RATE_BUMP, TIME_BUMP = 0.01, 0.01, 0.001, 1.0 / 365
TIME_TOLERANCE = 1e-10


# --- term structures ------------------------------------------------------------------------

def _interpolate(tenors, values, t):
    """Linear between pillars, flat outside."""
    if t <= tenors[0]:
        return values[0]
    if t >= tenors[-1]:
        return values[-1]
    for i in range(1, len(tenors)):
        if t < tenors[i]:
            w = (t - tenors[i - 1]) / (tenors[i] - tenors[i - 1])
            return values[i - 1] + w * (values[i] - values[i - 1])
    return values[-1]


def discount(rates, t):
    """exp(-z(t) t), zero rates linear in their tenor (flat outside)."""
    if "zero_rate" in rates:
        return math.exp(-rates["zero_rate"] * t)
    return math.exp(-_interpolate(rates["tenors"], rates["zero_rates"], t) * t)


def rate_integral(rates, t0, t1):
    return math.log(discount(rates, t0) / discount(rates, t1))


def total_variance(vol, t):
    """A Black volatility: a number, or {tenors, vols} with total variance linear in time between
    the pillars (flat vol outside)."""
    if not isinstance(vol, dict):
        return vol * vol * t
    tenors, vols = vol["tenors"], vol["vols"]
    if t <= tenors[0]:
        return vols[0] ** 2 * t
    if t >= tenors[-1]:
        return vols[-1] ** 2 * t
    return _interpolate(tenors, [v * v * s for v, s in zip(vols, tenors)], t)


# --- schedules and grids --------------------------------------------------------------------

def _dates(count, times, maturity):
    if times is not None:
        return list(times)
    return [maturity * i / count for i in range(1, count + 1)]


def knock_of(instrument):
    """(type, level, rebate, monitoring dates) or None: `type: barrier`'s own keys or `knock`."""
    T = instrument["maturity"]
    if instrument["type"] == "barrier":
        return (instrument["barrier_type"], instrument["barrier"], instrument.get("rebate", 0.0),
                _dates(instrument.get("monitoring"), instrument.get("monitoring_times"), T))
    k = instrument.get("knock")
    if k is None:
        return None
    return (k["type"], k["level"], k.get("rebate", 0.0),
            _dates(k.get("monitoring"), k.get("monitoring_times"), T))


def fixings_of(instrument):
    return _dates(instrument.get("fixings"), instrument.get("fixing_times"),
                  instrument["maturity"])


def exercise_dates_of(instrument):
    """A Bermudan's dates (exercise_dates: N, or exercise_times); an American's are its group's
    grid steps (reflsm), not events."""
    if instrument.get("exercise") != "bermudan":
        return []
    return _dates(instrument.get("exercise_dates"), instrument.get("exercise_times"),
                  instrument["maturity"])


def event_dates(instrument):
    dates = [instrument["maturity"]] + exercise_dates_of(instrument)
    if instrument["type"] == "asian":
        dates += fixings_of(instrument)
    knock = knock_of(instrument)
    if knock:
        dates += knock[3]
    return dates


def group_grid(instruments, steps_per_year):
    """The model's grid: 0, the uniform times k / steps_per_year up to the horizon, and the
    events; an event within the tolerance of a uniform time stands for it."""
    horizon = max(i["maturity"] for i in instruments)
    events = sorted(t for i in instruments for t in event_dates(i)
                    if TIME_TOLERANCE < t <= horizon + TIME_TOLERANCE)
    merged = []
    for t in events:
        t = min(t, horizon)
        if not merged or t - merged[-1] > TIME_TOLERANCE:
            merged.append(t)
    grid, e = [0.0], 0
    uniform = math.floor(horizon * steps_per_year) if steps_per_year > 0 else 0
    for k in range(1, uniform + 1):
        t = k / steps_per_year
        while e < len(merged) and merged[e] < t - TIME_TOLERANCE:
            grid.append(merged[e])
            e += 1
        if e < len(merged) and merged[e] <= t + TIME_TOLERANCE:
            continue
        grid.append(t)
    grid += merged[e:]
    return grid


def step_of(grid, t):
    """The grid index of date t."""
    for k, g in enumerate(grid):
        if g >= t - TIME_TOLERANCE:
            return k
    raise ValueError("date %r beyond the grid" % t)


# --- models ---------------------------------------------------------------------------------

def underlyings_of(case, model):
    by_name = {u["name"]: u for u in case["market"]["underlyings"]}
    names = model["underlyings"] if model["type"] == "multi_black_scholes" else [model["underlying"]]
    return [by_name[n] for n in names]


def groups(case):
    """{model name: (model, its instruments)} in the case's model order."""
    out = {}
    for m in case["models"]:
        ins = [i for i in case["instruments"] if i["model"] == m["name"]]
        if ins:
            out[m["name"]] = (m, ins)
    return out


# --- Greeks' scenarios ----------------------------------------------------------------------

class Scenario:
    """A transformed case: its market and model, and the valuation shift (theta)."""

    def __init__(self, case, model_name, shift=0.0):
        self.case, self.shift = case, shift
        self.model = next(m for m in case["models"] if m["name"] == model_name)


def _bump_spot(case, model, asset, relative):
    c = copy.deepcopy(case)
    names = model["underlyings"] if model["type"] == "multi_black_scholes" else [model["underlying"]]
    for a, n in enumerate(names):
        if asset < 0 or a == asset:
            for u in c["market"]["underlyings"]:
                if u["name"] == n:
                    u["spot"] *= 1.0 + relative
    return c


def _bump_vol(case, model_name, asset, h):
    c = copy.deepcopy(case)
    m = next(m for m in c["models"] if m["name"] == model_name)
    if m["type"] == "black_scholes":
        if isinstance(m["volatility"], dict):
            m["volatility"]["vols"] = [v + h for v in m["volatility"]["vols"]]
        else:
            m["volatility"] += h
    elif m["type"] == "heston":
        m["v0"] = (math.sqrt(m["v0"]) + h) ** 2
        m["theta"] = (math.sqrt(m["theta"]) + h) ** 2
    elif m["type"] == "local_vol":
        m["surface"]["vols"] = [[v + h for v in row] for row in m["surface"]["vols"]]
    else:
        m["volatilities"][asset] += h
    return c


def _bump_rates(case, h):
    c = copy.deepcopy(case)
    r = c["market"]["rates"]
    if "zero_rate" in r:
        r["zero_rate"] += h
    else:
        r["zero_rates"] = [z + h for z in r["zero_rates"]]
    return c


def scenarios(case, model_name, greeks, first_grid_time):
    """The scenarios (base first) and, per Greek, (name, asset or None, weights over them):
    delta (V+ - V-) / 2h, gamma (V+ - 2V + V-) / h^2 with h 1% of the spot; vega and rho central
    differences; theta (V(valuation + d) - V) / d with d one day or half the first step."""
    model = next(m for m in case["models"] if m["name"] == model_name)
    spots = [u["spot"] for u in underlyings_of(case, model)]
    assets = len(spots)
    out = [Scenario(case, model_name)]
    index = {}
    if "delta" in greeks or "gamma" in greeks:
        index["spot"] = len(out)
        for a in range(assets):
            for sign in (1, -1):
                out.append(Scenario(_bump_spot(case, model, a if assets > 1 else -1,
                                               sign * SPOT_BUMP), model_name))
    if "vega" in greeks:
        index["vol"] = len(out)
        for a in range(assets):
            for sign in (1, -1):
                out.append(Scenario(_bump_vol(case, model_name, a, sign * VOL_BUMP), model_name))
    if "rho" in greeks:
        index["rate"] = len(out)
        for sign in (1, -1):
            out.append(Scenario(_bump_rates(case, sign * RATE_BUMP), model_name))
    shift = 0.0
    if "theta" in greeks:
        index["time"] = len(out)
        shift = min(TIME_BUMP, 0.5 * first_grid_time)
        out.append(Scenario(case, model_name, shift))
    weights = []
    n = len(out)
    for g in greeks:
        per_asset = assets > 1 and g in ("delta", "gamma", "vega")
        for a in range(assets if per_asset else 1):
            w = [0.0] * n
            h = SPOT_BUMP * spots[a]
            if g == "delta":
                w[index["spot"] + 2 * a], w[index["spot"] + 2 * a + 1] = 1 / (2 * h), -1 / (2 * h)
            elif g == "gamma":
                w[index["spot"] + 2 * a] = w[index["spot"] + 2 * a + 1] = 1 / (h * h)
                w[0] = -2 / (h * h)
            elif g == "vega":
                w[index["vol"] + 2 * a] = 1 / (2 * VOL_BUMP)
                w[index["vol"] + 2 * a + 1] = -1 / (2 * VOL_BUMP)
            elif g == "rho":
                w[index["rate"]], w[index["rate"] + 1] = 1 / (2 * RATE_BUMP), -1 / (2 * RATE_BUMP)
            elif g == "theta":
                w[index["time"]], w[0] = 1 / shift, -1 / shift
            weights.append((g, a if per_asset else None, w))
    return out, weights


def shifted(instrument, shift):
    """The instrument seen from a valuation `shift` later: every date earlier by it."""
    if shift == 0.0:
        return instrument
    i = copy.deepcopy(instrument)
    T = i["maturity"]
    if i["type"] == "asian":
        i["fixing_times"] = [t - shift for t in fixings_of(instrument)]
        i.pop("fixings", None)
    knock = knock_of(instrument)
    if knock:
        dates = [t - shift for t in knock[3]]
        if i["type"] == "barrier":
            i["monitoring_times"] = dates
            i.pop("monitoring", None)
        else:
            i["knock"] = dict(i["knock"], monitoring_times=dates)
            i["knock"].pop("monitoring", None)
    i["maturity"] = T - shift
    return i


# --- YAML for pfmc --------------------------------------------------------------------------

def _flow(value):
    if isinstance(value, dict):
        return "{" + ", ".join("%s: %s" % (k, _flow(v)) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def case_yaml(case):
    """pfmc's YAML for the case, without the engine mapping (the tests add theirs)."""
    lines = ["market:", "  underlyings:"]
    lines += ["    - " + _flow(u) for u in case["market"]["underlyings"]]
    lines += ["  rates: " + _flow(case["market"]["rates"]), "models:"]
    lines += ["  - " + _flow(m) for m in case["models"]]
    lines += ["instruments:"]
    lines += ["  - " + _flow(i) for i in case["instruments"]]
    lines += ["simulation: " + _flow(case["simulation"])]
    return "\n".join(lines) + "\n"


def write_header(path, lines):
    """Writes a generated C++ header, its lines joined by newlines, then formats it in place with
    clang-format where there is one (the house style the committed headers are checked by)."""
    with open(path, "w") as f:
        f.write("\n".join(lines))
    if shutil.which("clang-format"):
        subprocess.run(["clang-format", "-i", path], check=True)
