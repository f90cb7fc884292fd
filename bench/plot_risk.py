#!/usr/bin/env python3
"""Draw the charts of a risk run from `pfmc risk --format json`: each ladder's portfolio P&L
against its move (error bars: the P&L's standard-error bound) with the Greeks' Taylor line
delta x + gamma x^2 / 2 beside it (spot ladders), the grid as a heat map, and the histogram of the
historical P&Ls with VaR and expected shortfall marked; one panel each, stacked in one PNG.

`pfmc risk CONFIG --plot FILE.png` runs this script on the report; it can also be run by hand:
  bench/plot_risk.py REPORT.json --output FILE.png
Needs matplotlib (Debian: python3-matplotlib). Exit status: 0 when the PNG is written, 2 for bad
arguments or a report without a portfolio to draw, 1 when matplotlib is missing.
"""

import sys

import plot_common

PROG = "plot_risk.py"
SETS = ("grid", "scenarios", "historical")


def panels(report):
    """(kind, title, data) of each panel, in the report's order."""
    out, ladders = [], {}
    for s in report["scenarios"]:
        if "pnl" not in s:
            continue
        if s["set"] not in SETS:
            ladders.setdefault(s["set"], []).append(s)
    taylor = {t["ladder"]: t for t in report.get("taylor", [])}
    for name, rows in ladders.items():
        out.append(("ladder", name, (rows, taylor.get(name))))
    grid = [s for s in report["scenarios"] if s["set"] == "grid" and "pnl" in s]
    if grid:
        out.append(("grid", "grid", grid))
    history = [s["pnl"] for s in report["scenarios"] if s["set"] == "historical" and "pnl" in s]
    if history:
        out.append(("historical", "historical", (history, report.get("tail", []),
                                                  report.get("horizon", 1))))
    return out


def draw_ladder(ax, name, rows, taylor):
    rows = sorted(rows, key=lambda s: s["coordinates"][0])
    x = [s["coordinates"][0] for s in rows]
    ax.errorbar(x, [s["pnl"] for s in rows], yerr=[s["pnl_std_error_bound"] for s in rows],
                marker="o", capsize=3, label="P&L (Monte Carlo, common draws)")
    if taylor is not None:
        # The ladder's points as written are its moves (relative or absolute spot moves).
        fine = [x[0] + (x[-1] - x[0]) * i / 200 for i in range(201)]
        ax.plot(fine, [taylor["delta"] * v + 0.5 * taylor["gamma"] * v * v for v in fine], "--",
                label="delta x + gamma x^2 / 2")
    ax.axhline(0.0, color="grey", linewidth=0.5)
    ax.set_title("%s ladder: portfolio P&L" % name)
    ax.set_xlabel(name)
    ax.set_ylabel("P&L")
    ax.legend(loc="best", fontsize="small")


def draw_grid(fig, ax, rows):
    xs = sorted({s["coordinates"][0] for s in rows})
    ys = sorted({s["coordinates"][1] for s in rows})
    cells = [[0.0] * len(xs) for _ in ys]
    for s in rows:
        cells[ys.index(s["coordinates"][1])][xs.index(s["coordinates"][0])] = s["pnl"]
    image = ax.imshow(cells, origin="lower", aspect="auto", cmap="RdYlGn")
    ax.set_xticks(range(len(xs)), ["%g" % v for v in xs], rotation=45)
    ax.set_yticks(range(len(ys)), ["%g" % v for v in ys])
    first, second = rows[0]["name"].split(",")
    ax.set_xlabel(first.split("=")[0])
    ax.set_ylabel(second.split("=")[0])
    ax.set_title("grid: portfolio P&L")
    fig.colorbar(image, ax=ax)


def draw_historical(ax, pnl, tail, horizon):
    ax.hist(pnl, bins=max(10, len(pnl) // 8), color="#1f77b4", alpha=0.8)
    for t, colour in zip(tail, ("#d62728", "#ff7f0e", "#9467bd", "#8c564b")):
        ax.axvline(-t["var"], color=colour, linestyle="-",
                   label="VaR %.1f%%: %.4g" % (100 * t["level"], t["var"]))
        ax.axvline(-t["expected_shortfall"], color=colour, linestyle=":",
                   label="ES %.1f%%: %.4g" % (100 * t["level"], t["expected_shortfall"]))
    ax.set_title("historical %d-day P&L of %d windows" % (horizon, len(pnl)))
    ax.set_xlabel("P&L")
    ax.set_ylabel("windows")
    ax.legend(loc="best", fontsize="small")


def draw(plt, report, todo):
    fig, axes = plt.subplots(len(todo), 1, figsize=(8, 4.2 * len(todo)), squeeze=False)
    for ax, (kind, name, data) in zip(axes[:, 0], todo):
        if kind == "ladder":
            draw_ladder(ax, name, *data)
        elif kind == "grid":
            draw_grid(fig, ax, data)
        else:
            draw_historical(ax, *data)
    return fig


def main():
    return plot_common.run(PROG, __doc__, "`pfmc risk --format json`", panels,
                           "has no portfolio P&L to draw (a config without a portfolio: use "
                           "--per-instrument and draw it yourself)", draw)


if __name__ == "__main__":
    sys.exit(main())
