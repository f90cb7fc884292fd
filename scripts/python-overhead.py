#!/usr/bin/env python3
"""What pfmc.price() costs over the engine called from C++: the same book priced from its file
in a warm process, median of --repeat runs each — pfmc_bench's books/NAME/end_to_end (C++: load,
price) against pfmc.price(FILE) (load, price, the JSON report made and parsed).

Usage: PYTHONPATH=BUILD/python scripts/python-overhead.py BUILD/pfmc_bench BOOK.yaml [--repeat N]"""
import argparse
import json
import statistics
import subprocess
import time

import pfmc


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bench")
    parser.add_argument("book")
    parser.add_argument("--repeat", type=int, default=5)
    a = parser.parse_args()
    out = subprocess.run([a.bench, "--workloads=", f"--books={a.book}",
                          "--benchmark_filter=end_to_end", f"--benchmark_repetitions={a.repeat}",
                          "--benchmark_format=json"], check=True, capture_output=True, text=True)
    runs = json.loads(out.stdout[out.stdout.index("{"):])["benchmarks"]
    cpp_ms = statistics.median(r["real_time"] for r in runs if r.get("run_type") == "iteration")
    pfmc.price(a.book, device="gpu")  # warm-up: context, modules, tuning cache
    times, with_list = [], []
    for _ in range(a.repeat):
        start = time.perf_counter()
        result = pfmc.price(a.book, device="gpu")
        times.append((time.perf_counter() - start) * 1e3)
        count = len(result.instruments)  # the list, made on first use
        with_list.append((time.perf_counter() - start) * 1e3)
    py_ms, list_ms = statistics.median(times), statistics.median(with_list)
    print(f"{a.book}: {count} instruments; C++ (pfmc_bench end_to_end) {cpp_ms:.1f} ms, "
          f"Python pfmc.price() {py_ms:.1f} ms ({100 * (py_ms / cpp_ms - 1):+.1f}%), with "
          f".instruments made {list_ms:.1f} ms ({100 * (list_ms / cpp_ms - 1):+.1f}%) "
          f"(median of {a.repeat}, warm)")
    r = result.run
    print("  the last Python run's own times: " + ", ".join(
        f"{k} {r[k]:.1f} ms" for k in ("config_ms", "plan_ms", "backends_ms", "kernel_ms",
                                       "results_ms", "total_ms")))


if __name__ == "__main__":
    main()
