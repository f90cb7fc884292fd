#!/usr/bin/env python3
"""Early exercise's two passes, timed warm in one process (the Python package, the engine
in-process): config/examples/american.yaml (an American put, 1,000,000 regression paths and
1,000,000 priced paths on 50 exercise dates, double) priced --repeat times after one warm-up run;
medians of the run's own timings (run.regression_ms: the regression pass — its paths' records,
the backward induction's 49 reductions and fits; run.kernel_ms: the pricing pass's kernels) and
what they give per second, and each pass's memory floor at the run's measured copy bandwidth:

  regression: records written (a Real a path a date: 8 B in double) + per date but the last, the
              level read (a Real) and the cash flow read and written (2 x 8 B) -> 1,576 B a
              path on 50 dates in double;
  pricing:    no per-path traffic (its draws are computed in the kernel) -> its floor is the
              arithmetic, which ncu's speed of light reports (scripts/gpu-check.sh exercise).

Usage: PYTHONPATH=build-device/python scripts/exercise-bench.py [CONFIG] [--repeat N]
"""
import argparse
import statistics

import pfmc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config", nargs="?", default="config/examples/american.yaml")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", default="gpu")
    args = parser.parse_args()

    pfmc.price(args.config, device=args.device)  # warm-up: context, modules, clocks
    runs = [pfmc.price(args.config, device=args.device) for _ in range(args.repeat)]
    run = runs[-1].run
    instrument = runs[-1].instruments[0]
    median = lambda key: statistics.median(r.run[key] for r in runs)  # noqa: E731
    regression_ms, kernel_ms, total_ms = median("regression_ms"), median("kernel_ms"), median(
        "total_ms")
    paths = run["paths"]
    regression_paths = instrument["exercise"]["regression_paths"]
    dates = instrument["exercise"]["dates"]
    print("price %.6f +- %.6f (%s, %d dates, %d regression paths, %d priced paths)" % (
        instrument["price"], instrument["std_error"], instrument["exercise"]["style"], dates,
        regression_paths, paths))
    print("median of %d warm runs: regression %.3f ms, pricing kernels %.3f ms, total %.3f ms" % (
        args.repeat, regression_ms, kernel_ms, total_ms))
    print("regression pass: %.3g paths/s, %.3g path-steps/s" % (
        regression_paths / (regression_ms * 1e-3), regression_paths * run["steps"] /
        (regression_ms * 1e-3)))
    print("pricing pass:    %.3g paths/s, %.3g path-steps/s" % (
        paths / (kernel_ms * 1e-3), paths * run["steps"] / (kernel_ms * 1e-3)))
    bandwidth = run.get("copy_bandwidth_gbps", 0.0)
    if bandwidth > 0:
        real = 8 if run["precision"] == "double" else 4
        regression_bytes = regression_paths * (real * dates + (real + 16) * (dates - 1))
        floor_ms = regression_bytes / (bandwidth * 1e9) * 1e3
        print("regression memory floor %.3f ms (%.2f GB at %.0f GB/s): the pass is at %.1f%% "
              "of it" % (floor_ms, regression_bytes * 1e-9, bandwidth,
                         100.0 * floor_ms / regression_ms))


if __name__ == "__main__":
    main()
