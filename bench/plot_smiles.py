#!/usr/bin/env python3
"""Draw each expiry's smile from `pfmc calibrate --format json`: the quoted vols, the SSVI
surface fitted to them (a line through the strikes) and the calibrated Heston model's vols at the
quotes; a panel an expiry, with each fit's root-mean-square error in vol points in its legend.

`pfmc calibrate CONFIG --model NAME --plot FILE.png` runs this script on its report; it can also
be run by hand:
  bench/plot_smiles.py REPORT.json --output FILE.png
Needs matplotlib (Debian: python3-matplotlib). Exit status: 0 when the PNG is written, 2 for bad
arguments or a report without quotes, 1 when matplotlib is missing.
"""

import math
import sys

import plot_common

PROG = "plot_smiles.py"


def smiles(report):
    """(expiry, quotes of it, SSVI curve of it) by expiry, in increasing order."""
    by_expiry = {}
    for q in report["quotes"]:
        by_expiry.setdefault(q["expiry"], []).append(q)
    curves = {c["expiry"]: c for c in report["ssvi"]["smiles"]}
    return [(t, sorted(by_expiry[t], key=lambda q: q["strike"]), curves.get(t))
            for t in sorted(by_expiry)]


def rms(errors):
    return math.sqrt(sum(e * e for e in errors) / len(errors)) if errors else 0.0


def draw(ax, expiry, quotes, curve):
    strikes = [q["strike"] for q in quotes]
    ax.plot(strikes, [100 * q["quote"] for q in quotes], "o", color="black", markersize=4,
            label="quotes")
    if curve is not None:
        ax.plot(curve["strikes"], [100 * v for v in curve["vols"]], "-", color="#1f77b4",
                label="SSVI (rms %.3g vol pts)" % rms([q["ssvi_error_vol_points"] for q in quotes]))
    ax.plot(strikes, [100 * q["model"] for q in quotes], "x", color="#d62728",
            label="Heston (rms %.3g vol pts)" % rms([q["error_vol_points"] for q in quotes]))
    ax.set_title("expiry %g" % expiry)
    ax.set_xlabel("strike")
    ax.set_ylabel("implied vol, %")
    ax.legend(loc="best", fontsize="x-small")


def draw_all(plt, report, todo):
    columns = min(3, len(todo))
    rows = (len(todo) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(4.6 * columns, 3.6 * rows), squeeze=False)
    for ax, (expiry, quotes, curve) in zip(axes.flat, todo):
        draw(ax, expiry, quotes, curve)
    for ax in list(axes.flat)[len(todo):]:
        ax.axis("off")
    fig.suptitle("%s: %s's quotes, the SSVI surface and the Heston fit"
                 % (report.get("underlying", ""), report.get("model", "")))
    return fig


def main():
    return plot_common.run(PROG, __doc__, "`pfmc calibrate --format json`", smiles,
                           "has no quotes to draw", draw_all)


if __name__ == "__main__":
    sys.exit(main())
