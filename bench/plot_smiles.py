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

import argparse
import json
import math
import sys

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


def main():
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="the JSON that `pfmc calibrate --format json` prints")
    parser.add_argument("--output", required=True, help="the PNG to write")
    args = parser.parse_args()
    try:
        with open(args.report, encoding="utf-8") as f:
            report = json.load(f)
        todo = smiles(report)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("%s: cannot read %s: %s" % (PROG, args.report, e), file=sys.stderr)
        return 2
    if not todo:
        print("%s: %s has no quotes to draw" % (PROG, args.report), file=sys.stderr)
        return 2
    try:
        import matplotlib  # pylint: disable=import-outside-toplevel
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    except ImportError:
        print("%s: matplotlib is missing (python3-matplotlib)" % PROG, file=sys.stderr)
        return 1
    columns = min(3, len(todo))
    rows = (len(todo) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(4.6 * columns, 3.6 * rows), squeeze=False)
    for ax, (expiry, quotes, curve) in zip(axes.flat, todo):
        draw(ax, expiry, quotes, curve)
    for ax in list(axes.flat)[len(todo):]:
        ax.axis("off")
    fig.suptitle("%s: %s's quotes, the SSVI surface and the Heston fit"
                 % (report.get("underlying", ""), report.get("model", "")))
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
