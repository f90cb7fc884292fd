#!/usr/bin/env python3
"""Times Result.columns() on a large book (issue 38's target: 100,000 instruments' columns in
<= 10 ms): numpy arrays against lists, medians of --repeat calls in one process, each on a fresh
Result's columns (nothing cached). The book: scripts/make-portfolio.py --instruments N --csv,
priced on the CPU at --paths paths. Run with PYTHONPATH=build/python (or the installed package).

Usage: scripts/columns-timing.py [--instruments 100000] [--paths 8] [--repeat 7]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import pfmc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instruments", type=int, default=100_000)
    parser.add_argument("--paths", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as folder:
        book = os.path.join(folder, "book.yaml")
        subprocess.run([sys.executable, os.path.join(root, "scripts/make-portfolio.py"),
                        "--instruments", str(args.instruments), "--csv", book], check=True,
                       capture_output=True)
        result = pfmc.price(book, device="cpu", paths=args.paths)
    priced = result._priced
    for label, lists in (("numpy arrays", False), ("lists", True)):
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            columns = priced.columns(lists)
            times.append((time.perf_counter() - start) * 1e3)
            del columns
        print(f"{args.instruments:,} instruments, columns as {label:<12}: median "
              f"{statistics.median(times):7.2f} ms  ({' '.join(f'{t:.2f}' for t in times)})")


if __name__ == "__main__":
    main()
