#!/usr/bin/env python3
"""Loads and validates a book of N trades from columns (pfmc.validate(yaml, instruments=...,
positions=...)) against the same book from its CSV files (pfmc.validate(yaml with {csv: ...})),
each in fresh processes (--repeat of each, in turn; medians). The columns: numpy arrays made
from csv.reader's rows (a new str object for every cell: the hardest case, each a cache miss),
and, where pandas is installed, a pandas DataFrame read by pandas.read_csv. Issue 38's target:
from a DataFrame no slower than from CSV. The book:
scripts/make-portfolio.py --instruments N --csv. Run with PYTHONPATH=build/python.

Usage: scripts/dataframe-timing.py [--instruments 100000] [--repeat 5]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

# In the child: the columns are made before the clock starts (a user's DataFrame exists already).
CHILD = r"""
import csv, sys, time, numpy as np, pfmc
yaml, trades, positions, how = sys.argv[1:5]


def columns(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    names, body = rows[0], rows[1:]
    out = {}
    for c, name in enumerate(names):
        cells = [r[c] for r in body]
        try:
            out[name] = np.array([float(x) if x else np.nan for x in cells])
        except ValueError:
            out[name] = np.array(cells, dtype=object)
    return out


if how == "csv":
    start = time.perf_counter()
    pfmc.validate(yaml)
else:
    if how == "dataframe":
        import pandas
        t, p = pandas.read_csv(trades), pandas.read_csv(positions)
    else:
        t, p = columns(trades), columns(positions)
    bare = yaml + ".bare.yaml"
    with open(yaml) as f, open(bare, "w") as g:
        g.writelines(l for l in f if not l.startswith(("instruments:", "portfolio:")))
    start = time.perf_counter()
    pfmc.validate(bare, instruments=t, positions=p)
print((time.perf_counter() - start) * 1e3)
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instruments", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as folder:
        yaml = os.path.join(folder, "book.yaml")
        subprocess.run([sys.executable, os.path.join(root, "scripts/make-portfolio.py"),
                        "--instruments", str(args.instruments), "--csv", yaml], check=True,
                       capture_output=True)
        trades, positions = (os.path.join(folder, f"book_{k}.csv") for k in ("trades", "positions"))
        times = {"csv": [], "numpy": []}
        try:
            import pandas  # noqa: F401
            times["dataframe"] = []
        except ImportError:
            print("pandas is not installed: no DataFrame timing")
        for _ in range(args.repeat):
            for how in times:
                out = subprocess.run([sys.executable, "-c", CHILD, yaml, trades, positions, how],
                                     check=True, capture_output=True, text=True)
                times[how].append(float(out.stdout))
    for how, t in times.items():
        print(f"{args.instruments:,} trades from {how:<9}: load and validate, median "
              f"{statistics.median(t):7.1f} ms ({' '.join(f'{x:.1f}' for x in t)})")


if __name__ == "__main__":
    main()
