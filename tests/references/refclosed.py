"""Closed forms for the reference cases, written apart from pfmc's engine/analytic: a European
and a cash-or-nothing digital on Black-Scholes with term structures, and a discretely fixed
geometric Asian (the log of a geometric average of a Gaussian log-spot is Gaussian: its mean and
variance are sums over the fixings' intervals)."""
import math

from scipy.stats import norm

import refcore as rc


def _lognormal_call_put(option, forward, strike, variance, df):
    """df * E[(F e^{X} - K)+] (call) or E[(K - F e^{X})+] (put), X ~ N(-var/2, var), with a
    forward already including the convexity: E[F e^X] = F."""
    sd = math.sqrt(variance)
    d1 = (math.log(forward / strike) + 0.5 * variance) / sd
    d2 = d1 - sd
    if option == "call":
        return df * (forward * norm.cdf(d1) - strike * norm.cdf(d2))
    return df * (strike * norm.cdf(-d2) - forward * norm.cdf(-d1))


def _bs_inputs(case, model, T):
    (u,) = rc.underlyings_of(case, model)
    rates = case["market"]["rates"]
    df = rc.discount(rates, T)
    forward = u["spot"] * math.exp(-u.get("dividend_yield", 0.0) * T) / df
    return forward, rc.total_variance(model["volatility"], T), df


def european(case, model, instrument):
    F, var, df = _bs_inputs(case, model, instrument["maturity"])
    return _lognormal_call_put(instrument["option"], F, instrument["strike"], var, df)


def digital(case, model, instrument):
    F, var, df = _bs_inputs(case, model, instrument["maturity"])
    d2 = (math.log(F / instrument["strike"]) - 0.5 * var) / math.sqrt(var)
    p = norm.cdf(d2) if instrument["option"] == "call" else norm.cdf(-d2)
    return df * instrument["cash"] * p


def geometric_asian(case, model, instrument):
    """G = exp(mean_i ln S(t_i)); ln S(t_i) = ln S0 + m(t_i) + W(V(t_i)) with m(t) the integrated
    drift (rates, yield, -V/2) and V the total variance: mean of ln G is the mean of the m(t_i),
    its variance sum_j dV_j ((n - j) / n)^2 over the fixing intervals."""
    (u,) = rc.underlyings_of(case, model)
    rates, vol = case["market"]["rates"], model["volatility"]
    q = u.get("dividend_yield", 0.0)
    times = rc.fixings_of(instrument)
    n = len(times)
    drift = lambda t: (math.log(u["spot"]) + math.log(1.0 / rc.discount(rates, t)) - q * t -
                       0.5 * rc.total_variance(vol, t))
    mean = sum(drift(t) for t in times) / n
    var, prev = 0.0, 0.0
    for j, t in enumerate(times):
        var += (rc.total_variance(vol, t) - rc.total_variance(vol, prev)) * ((n - j) / n) ** 2
        prev = t
    df = rc.discount(rates, instrument["maturity"])
    # E[G] = exp(mean + var / 2): the lognormal's forward.
    return _lognormal_call_put(instrument["option"], math.exp(mean + 0.5 * var),
                               instrument["strike"], var, df)


def basket_leg(case, model, instrument):
    """A weighted basket call or put with one non-zero weight w > 0 on a correlated
    Black-Scholes model is w times a European on that leg at strike K / w: the leg is lognormal
    with its own flat vol, whatever the correlation."""
    legs = [(a, w) for a, w in enumerate(instrument["weights"]) if w != 0.0]
    (a, w), = legs
    assert w > 0.0
    u = rc.underlyings_of(case, model)[a]
    T = instrument["maturity"]
    df = rc.discount(case["market"]["rates"], T)
    forward = u["spot"] * math.exp(-u.get("dividend_yield", 0.0) * T) / df
    variance = model["volatilities"][a] ** 2 * T
    return w * _lognormal_call_put(instrument["option"], forward, instrument["strike"] / w,
                                   variance, df)


def discounted_forward_call(case, model, instrument):
    """A call struck at a tiny K on any model with deterministic rates, whose discounted spot is
    a martingale (every scheme pfmc steps is one in expectation, step by step):
    df E[(X - K)+] = df (E[X] - K) + df E[(K - X)+], X the terminal spot or weighted basket
    (weights >= 0), E[X] = sum w S0 e^{-qT} / df. The put part lies in [0, K] (X >= 0): the
    reference takes its middle, K df / 2, and allows the other half. Returns (value,
    allowance)."""
    T, K = instrument["maturity"], instrument["strike"]
    df = rc.discount(case["market"]["rates"], T)
    us = rc.underlyings_of(case, model)
    if instrument["type"] == "basket":
        assert instrument.get("payoff", "weighted") == "weighted"
        weights = instrument["weights"]
    else:
        weights = [1.0]
    assert all(w >= 0.0 for w in weights)
    forward_value = sum(w * u["spot"] * math.exp(-u.get("dividend_yield", 0.0) * T)
                        for w, u in zip(weights, us))
    return forward_value - K * df + 0.5 * K * df, 0.5 * K * df
