#!/usr/bin/env python3
"""Notebook-style example of the Python package: price a strip of calls and puts from a dict
config, look at the results as a table, and plot price against strike with Black-Scholes beside
it and the Monte Carlo 95% intervals as error bars.

    PYTHONPATH=build/python python3 examples/price_vs_strike.py [--device cpu] [--output strike.png]
"""
import argparse
import math

import pfmc

# %% A strip of Europeans on one underlying, built as a dict (no YAML file needed).
SPOT, RATE, VOL, MATURITY = 100.0, 0.03, 0.25, 1.0
STRIKES = [60 + 5 * i for i in range(17)]
config = {
    "market": {"underlyings": [{"name": "SPX", "spot": SPOT}], "rates": {"zero_rate": RATE}},
    "models": [{"name": "spx", "type": "black_scholes", "underlying": "SPX", "volatility": VOL}],
    "instruments": [{"id": f"{option}_{k}", "type": "european", "option": option, "strike": k,
                     "maturity": MATURITY, "model": "spx"}
                    for option in ("call", "put") for k in STRIKES],
    "simulation": {"paths": 200_000, "seed": 42},
}


def black_scholes(option, k):
    d1 = (math.log(SPOT / k) + (RATE + VOL * VOL / 2) * MATURITY) / (VOL * math.sqrt(MATURITY))
    d2 = d1 - VOL * math.sqrt(MATURITY)
    n = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))  # noqa: E731
    call = SPOT * n(d1) - k * math.exp(-RATE * MATURITY) * n(d2)
    return call if option == "call" else call - SPOT + k * math.exp(-RATE * MATURITY)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="auto", help="auto, gpu or cpu")
    parser.add_argument("--output", default="price_vs_strike.png")
    args = parser.parse_args()

    # %% Price it: the command line's flags are keyword arguments.
    result = pfmc.price(config, device=args.device, control_variate=True)
    print(result)
    worst = 0.0
    for item in result.instruments:
        option, k = item["id"].split("_")
        worst = max(worst, abs(item["price"] - black_scholes(option, float(k))) / item["std_error"])
    print(f"largest distance from Black-Scholes: {worst:.2f} standard errors")

    # %% The plot: Monte Carlo prices with 95% intervals over the closed form.
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for option, colour in (("call", "tab:blue"), ("put", "tab:orange")):
        items = [i for i in result.instruments if i["id"].startswith(option)]
        ks = [float(i["id"].split("_")[1]) for i in items]
        ax.errorbar(ks, [i["price"] for i in items], yerr=[1.96 * i["std_error"] for i in items],
                    fmt="o", ms=3, color=colour, label=f"{option}: pfmc ({result.run['paths']:,} paths)")
        fine = [60 + 0.5 * j for j in range(161)]
        ax.plot(fine, [black_scholes(option, k) for k in fine], color=colour, lw=0.8,
                label=f"{option}: Black-Scholes")
    ax.set_xlabel("strike")
    ax.set_ylabel("price")
    ax.set_title(f"Europeans, spot {SPOT:g}, vol {VOL:g}, {MATURITY:g}y "
                 f"({result.run['device']}, {result.run['total_ms']:.0f} ms)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"plot: {args.output}")


if __name__ == "__main__":
    main()
