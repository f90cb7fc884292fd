#!/usr/bin/env python3
"""Writes config/examples/portfolio.yaml: the `portfolio` reference workload of DESIGN.md — a
book of 1,000 instruments over 10 underlyings (100 each: Europeans, digitals, arithmetic and
geometric Asians, all four barrier types), a zero-rate curve, vol term structures on half the
models, 100,000 paths, 252 steps, double. Deterministic: the same file every time.
Usage: scripts/make-portfolio.py [OUT]"""
import sys

UNDERLYINGS = [  # name, spot, dividend yield, vol pillars (None: flat vol)
    ("SPX", 100.0, 0.015, (0.22, 0.21, 0.20, 0.19)), ("SX5E", 50.0, 0.030, None),
    ("NKY", 250.0, 0.020, (0.24, 0.23, 0.22, 0.215)), ("UKX", 75.0, 0.035, None),
    ("DAX", 160.0, 0.000, (0.21, 0.205, 0.20, 0.20)), ("HSI", 200.0, 0.030, None),
    ("AS51", 70.0, 0.040, (0.18, 0.18, 0.175, 0.17)), ("KOSPI", 30.0, 0.018, None),
    ("SPTSX", 210.0, 0.027, (0.16, 0.165, 0.17, 0.17)), ("SMI", 115.0, 0.028, None),
]
FLAT_VOLS = {"SX5E": 0.21, "UKX": 0.17, "HSI": 0.25, "KOSPI": 0.23, "SMI": 0.16}
MATURITIES = (0.25, 0.5, 0.75, 1.0)


def fmt(x):
    return f"{x:.6g}"


def main(out):
    lines = [
        "# The `portfolio` reference workload (DESIGN.md): 1,000 instruments over 10 underlyings,",
        "# 100,000 paths, 252 daily steps, double. Written by scripts/make-portfolio.py; edit the",
        "# script, not this file. Every underlying carries 40 Europeans, 10 digitals, 20 Asians",
        "# (arithmetic and geometric, monthly fixings) and 30 daily-monitored barriers of all four",
        "# types, on maturities of 3, 6, 9 and 12 months; about a third of them are held.",
        "market:",
        "  underlyings:",
    ]
    for name, spot, q, _ in UNDERLYINGS:
        lines.append(f"    - {{name: {name}, spot: {fmt(spot)}, dividend_yield: {fmt(q)}}}")
    lines += ["  rates: {tenors: [0.25, 0.5, 1, 2], zero_rates: [0.042, 0.041, 0.039, 0.037]}",
              "models:"]
    for name, _, _, vols in UNDERLYINGS:
        if vols:
            vol = "{tenors: [0.25, 0.5, 0.75, 1], vols: [" + ", ".join(fmt(v) for v in vols) + "]}"
        else:
            vol = fmt(FLAT_VOLS[name])
        lines.append(f"  - {{name: {name.lower()}_bs, type: black_scholes, underlying: {name}, volatility: {vol}}}")
    lines.append("instruments:")
    positions = []
    for u, (name, spot, _, _) in enumerate(UNDERLYINGS):
        model = f"{name.lower()}_bs"
        items = []
        # 40 Europeans: 4 maturities x 10 strikes, calls above the forward, puts below.
        for t in MATURITIES:
            for k in range(10):
                strike = spot * (0.80 + 0.045 * k)
                option = "call" if k >= 5 else "put"
                items.append((f"{name}_{option[0]}{round(100 * strike / spot)}_{int(t * 12)}m",
                              f"type: european, option: {option}, strike: {fmt(strike)}, maturity: {t}"))
        # 10 digitals: 6 and 12 months, 5 strikes.
        for t in (0.5, 1.0):
            for k in range(5):
                strike = spot * (0.90 + 0.05 * k)
                items.append((f"{name}_dig{round(100 * strike / spot)}_{int(t * 12)}m",
                              f"type: digital, option: call, strike: {fmt(strike)}, cash: 10, maturity: {t}"))
        # 20 Asians: arithmetic and geometric, 6 and 12 months, monthly fixings, 5 strikes.
        for average in ("arithmetic", "geometric"):
            for t in (0.5, 1.0):
                for k in range(5):
                    strike = spot * (0.90 + 0.05 * k)
                    option = "call" if k >= 2 else "put"
                    items.append((f"{name}_{average[:3]}{option[0]}{round(100 * strike / spot)}_{int(t * 12)}m",
                                  f"type: asian, average: {average}, option: {option}, strike: {fmt(strike)}, "
                                  f"maturity: {t}, fixings: {int(12 * t)}"))
        # 30 barriers: the four types on 6- and 12-month maturities, daily monitoring.
        kinds = [("down_and_out", "call", 0.85), ("down_and_in", "put", 0.85),
                 ("up_and_out", "call", 1.20), ("up_and_in", "put", 1.15)]
        n = 0
        while n < 30:
            barrier_type, option, level = kinds[n % 4]
            t = (0.5, 1.0)[(n // 4) % 2]
            strike = spot * (0.95 + 0.025 * (n // 8))
            rebate = 1.0 if n % 5 == 0 else 0.0
            items.append((f"{name}_{barrier_type.replace('_and_', '')}{n}_{int(t * 12)}m",
                          f"type: barrier, option: {option}, strike: {fmt(strike)}, barrier: {fmt(spot * level)}, "
                          f"barrier_type: {barrier_type}, rebate: {fmt(rebate)}, monitoring: {int(252 * t)}, "
                          f"maturity: {t}"))
            n += 1
        assert len(items) == 100, len(items)
        for i, (ident, body) in enumerate(items):
            lines.append(f"  - {{id: {ident}, {body}, model: {model}}}")
            if (i + u) % 3 == 0:
                quantity = ((i * 7 + u * 3) % 11) - 5 or 3
                positions.append((ident, quantity * 10))
    lines.append("portfolio:")
    for ident, quantity in positions:
        lines.append(f"  - {{instrument: {ident}, quantity: {quantity}}}")
    lines += ["simulation: {paths: 100000, steps_per_year: 252, seed: 42, rng: philox, precision: double}",
              "# `backend: auto`: the tuner's choice for this GPU (tuned once, then from its cache).",
              "engine: {device: auto, backend: auto, block_size: 128}", ""]
    with open(out, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "config/examples/portfolio.yaml")
