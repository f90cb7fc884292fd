#!/usr/bin/env python3
"""Writes config/examples/portfolio.yaml: the `portfolio` reference workload of DESIGN.md — a
book of 1,000 instruments over 10 underlyings (100 each: Europeans, digitals, arithmetic and
geometric Asians, all four barrier types), a zero-rate curve, vol term structures on half the
models, 100,000 paths, 252 steps, double. Deterministic: the same file every time.

With --instruments N (a multiple of 100) it writes the same mix over N/100 underlyings (the ten
above, then made-up ones, U0010, U0011, ...); with --csv the instruments and positions go to
OUT_trades.csv and OUT_positions.csv beside OUT, which names them (`instruments: {csv: ...}`).

Usage: scripts/make-portfolio.py [--instruments N] [--csv] [--paths P] [--steps-per-year S] [OUT]"""
import argparse
import os

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


def underlyings(count):
    """The ten named underlyings, then made-up ones with flat vols."""
    result = list(UNDERLYINGS[:count])
    for u in range(len(result), count):
        name = f"U{u:04d}"
        FLAT_VOLS[name] = 0.15 + 0.01 * (u % 16)
        result.append((name, 20.0 + (u * 37) % 230, 0.005 * (u % 7), None))
    return result


def instruments_of(u, name, spot):
    """The 100 instruments of one underlying: (id, {field: value}) in a fixed order."""
    items = []
    # 40 Europeans: 4 maturities x 10 strikes, calls above the forward, puts below.
    for t in MATURITIES:
        for k in range(10):
            strike = spot * (0.80 + 0.045 * k)
            option = "call" if k >= 5 else "put"
            items.append((f"{name}_{option[0]}{round(100 * strike / spot)}_{int(t * 12)}m",
                          dict(type="european", option=option, strike=fmt(strike), maturity=t)))
    # 10 digitals: 6 and 12 months, 5 strikes.
    for t in (0.5, 1.0):
        for k in range(5):
            strike = spot * (0.90 + 0.05 * k)
            items.append((f"{name}_dig{round(100 * strike / spot)}_{int(t * 12)}m",
                          dict(type="digital", option="call", strike=fmt(strike), cash=10, maturity=t)))
    # 20 Asians: arithmetic and geometric, 6 and 12 months, monthly fixings, 5 strikes.
    for average in ("arithmetic", "geometric"):
        for t in (0.5, 1.0):
            for k in range(5):
                strike = spot * (0.90 + 0.05 * k)
                option = "call" if k >= 2 else "put"
                items.append((f"{name}_{average[:3]}{option[0]}{round(100 * strike / spot)}_{int(t * 12)}m",
                              dict(type="asian", average=average, option=option, strike=fmt(strike),
                                   maturity=t, fixings=int(12 * t))))
    # 30 barriers: the four types on 6- and 12-month maturities, daily monitoring.
    kinds = [("down_and_out", "call", 0.85), ("down_and_in", "put", 0.85),
             ("up_and_out", "call", 1.20), ("up_and_in", "put", 1.15)]
    for n in range(30):
        barrier_type, option, level = kinds[n % 4]
        t = (0.5, 1.0)[(n // 4) % 2]
        strike = spot * (0.95 + 0.025 * (n // 8))
        rebate = 1.0 if n % 5 == 0 else 0.0
        items.append((f"{name}_{barrier_type.replace('_and_', '')}{n}_{int(t * 12)}m",
                      dict(type="barrier", option=option, strike=fmt(strike), barrier=fmt(spot * level),
                           barrier_type=barrier_type, rebate=fmt(rebate), monitoring=int(252 * t),
                           maturity=t)))
    assert len(items) == 100, len(items)
    return items


CSV_COLUMNS = ["id", "type", "option", "strike", "maturity", "model", "cash", "average", "fixings",
               "barrier", "barrier_type", "rebate", "monitoring"]


def main(out, count, csv, paths, steps_per_year):
    lines = [
        "# The `portfolio` reference workload (DESIGN.md): 1,000 instruments over 10 underlyings,",
        "# 100,000 paths, 252 daily steps, double. Written by scripts/make-portfolio.py; edit the",
        "# script, not this file. Every underlying carries 40 Europeans, 10 digitals, 20 Asians",
        "# (arithmetic and geometric, monthly fixings) and 30 daily-monitored barriers of all four",
        "# types, on maturities of 3, 6, 9 and 12 months; about a third of them are held.",
    ] if count == 1000 and not csv else [
        f"# A book of {count:,} instruments over {count // 100:,} underlyings (the `portfolio` workload's",
        "# mix), written by scripts/make-portfolio.py.",
    ]
    lines += ["market:", "  underlyings:"]
    names = underlyings(count // 100)
    for name, spot, q, _ in names:
        lines.append(f"    - {{name: {name}, spot: {fmt(spot)}, dividend_yield: {fmt(q)}}}")
    lines += ["  rates: {tenors: [0.25, 0.5, 1, 2], zero_rates: [0.042, 0.041, 0.039, 0.037]}",
              "models:"]
    for name, _, _, vols in names:
        if vols:
            vol = "{tenors: [0.25, 0.5, 0.75, 1], vols: [" + ", ".join(fmt(v) for v in vols) + "]}"
        else:
            vol = fmt(FLAT_VOLS[name])
        lines.append(f"  - {{name: {name.lower()}_bs, type: black_scholes, underlying: {name}, volatility: {vol}}}")
    rows, positions = [], []
    for u, (name, spot, _, _) in enumerate(names):
        model = f"{name.lower()}_bs"
        for i, (ident, fields) in enumerate(instruments_of(u, name, spot)):
            rows.append((ident, fields, model))
            if (i + u) % 3 == 0:
                quantity = ((i * 7 + u * 3) % 11) - 5 or 3
                positions.append((ident, quantity * 10))
    stem = os.path.splitext(os.path.basename(out))[0]
    if csv:
        trades, held = f"{stem}_trades.csv", f"{stem}_positions.csv"
        folder = os.path.dirname(out)
        with open(os.path.join(folder, trades), "w") as f:
            f.write(",".join(CSV_COLUMNS) + "\n")
            for ident, fields, model in rows:
                cells = dict(fields, id=ident, model=model)
                f.write(",".join(str(cells.get(c, "")) for c in CSV_COLUMNS) + "\n")
        with open(os.path.join(folder, held), "w") as f:
            f.write("instrument,quantity\n")
            f.writelines(f"{ident},{quantity}\n" for ident, quantity in positions)
        lines += [f"instruments: {{csv: {trades}}}", f"portfolio: {{csv: {held}}}"]
    else:
        lines.append("instruments:")
        for ident, fields, model in rows:
            body = ", ".join(f"{k}: {v}" for k, v in fields.items())
            lines.append(f"  - {{id: {ident}, {body}, model: {model}}}")
        lines.append("portfolio:")
        for ident, quantity in positions:
            lines.append(f"  - {{instrument: {ident}, quantity: {quantity}}}")
    lines += [f"simulation: {{paths: {paths}, steps_per_year: {steps_per_year}, seed: 42, rng: philox, precision: double}}",
              "# `backend: auto`: the tuner's choice for this GPU (tuned once, then from its cache).",
              "engine: {device: auto, backend: auto, block_size: 128}", ""]
    with open(out, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default="config/examples/portfolio.yaml")
    parser.add_argument("--instruments", type=int, default=1000, help="a multiple of 100 (default 1000)")
    parser.add_argument("--csv", action="store_true", help="instruments and positions as CSV files")
    parser.add_argument("--paths", type=int, default=100_000)
    parser.add_argument("--steps-per-year", type=int, default=252)
    a = parser.parse_args()
    if a.instruments < 100 or a.instruments % 100:
        parser.error("--instruments must be a positive multiple of 100")
    main(a.out, a.instruments, a.csv, a.paths, a.steps_per_year)
