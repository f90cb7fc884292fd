#!/usr/bin/env python3
"""Times issue 61's risk targets on this machine's GPU: the `portfolio` book
(config/examples/portfolio.yaml) under an N x N spot x vol grid and under 250 historical days
(config/examples/risk_history.csv), as `pfmc risk` runs them, against one `pfmc price` of the
book and against the same grid run as separate `pfmc price` processes (what a user has without
`pfmc risk`). Prints one line a measurement.

  bench/risk_timing.py PFMC [--grid 9] [--separate N]   (--separate: time the first N grid
  points as separate processes, 0: all; default all)
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOOK = os.path.join(ROOT, "config", "examples", "portfolio.yaml")
HISTORY = os.path.join(ROOT, "config", "examples", "risk_history.csv")


def run(cmd):
    start = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - start, out


def grid_points(n):
    spots = [-0.1 + 0.2 * i / (n - 1) for i in range(n)]
    vols = [-0.04 + 0.08 * i / (n - 1) for i in range(n)]
    return spots, vols


def shifted_book(text, spot, vol):
    """The book's YAML with every spot times (1 + spot) and every vol plus `vol`."""
    text = re.sub(r"spot: ([0-9.]+)", lambda m: "spot: %r" % (float(m.group(1)) * (1 + spot)), text)
    text = re.sub(r"volatility: ([0-9.]+)", lambda m: "volatility: %r" % (float(m.group(1)) + vol),
                  text)
    return re.sub(r"vols: \[([0-9., ]+)\]", lambda m: "vols: [%s]" % ", ".join(
        repr(float(v) + vol) for v in m.group(1).split(",")), text)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("pfmc")
    p.add_argument("--grid", type=int, default=9)
    p.add_argument("--separate", type=int, default=0)
    a = p.parse_args()
    book = open(BOOK).read()
    folder = tempfile.mkdtemp(prefix="pfmc_risk_")
    spots, vols = grid_points(a.grid)
    grid_yaml = os.path.join(folder, "grid.yaml")
    with open(grid_yaml, "w") as f:
        f.write(book + "risk:\n  ladders:\n"
                "    - {name: spot, shift: spot, points: [%s]}\n"
                "    - {name: vol, shift: vol, points: [%s]}\n  grid: [spot, vol]\n"
                % (", ".join(repr(s) for s in spots), ", ".join(repr(v) for v in vols)))
    hist_yaml = os.path.join(folder, "historical.yaml")
    with open(hist_yaml, "w") as f:
        f.write(book + "risk:\n  historical: {csv: %s}\n" % HISTORY)
    prices = []
    for _ in range(3):
        wall, out = run([a.pfmc, "price", BOOK, "--format", "json", "--quiet"])
        r = json.loads(out)["run"]
        prices.append((wall, r["kernel_ms"], r["total_ms"]))
    wall, kernel, total = (statistics.median(x) for x in zip(*prices))
    print("price (fresh process, median of 3): wall %.3f s, total_ms %.1f, kernel_ms %.2f"
          % (wall, total, kernel))
    for name, yaml in (("grid %dx%d" % (a.grid, a.grid), grid_yaml), ("historical", hist_yaml)):
        runs = []
        for _ in range(2):  # the first compiles what the scenarios' kernels need
            w, out = run([a.pfmc, "risk", yaml, "--format", "json", "--quiet"])
            r = json.loads(out)
            runs.append((w, r["wall_ms"], r["kernel_ms"], r["passes"], len(r["scenarios"])))
        w, wall_ms, kernel_ms, passes, scenarios = runs[-1]
        print("risk %s (fresh process, second run): %d scenarios in %d passes; process wall "
              "%.3f s; run_risk wall_ms %.1f; kernel_ms %.1f = %.1fx one price's kernels, "
              "process wall %.1fx one price's" % (name, scenarios, passes, w, wall_ms, kernel_ms,
                                                  kernel_ms / kernel, w / wall))
        if name == "historical":
            print("  VaR/ES: %s" % json.dumps(r["tail"]))
    points = [(s, v) for s in spots for v in vols]
    if a.separate > 0:
        points = points[:a.separate]
    start = time.perf_counter()
    for k, (s, v) in enumerate(points):
        path = os.path.join(folder, "point%d.yaml" % k)
        with open(path, "w") as f:
            f.write(shifted_book(book, s, v))
        run([a.pfmc, "price", path, "--format", "json", "--quiet"])
    seconds = time.perf_counter() - start
    print("separate pfmc price processes: %d grid points in %.2f s (%.3f s each)"
          % (len(points), seconds, seconds / len(points)))


if __name__ == "__main__":
    main()
