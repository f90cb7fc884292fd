#!/usr/bin/env python3
"""What pfmc.price() costs over the engine called from C++: the same book priced from its file
in a warm process — pfmc_bench's books/NAME/end_to_end (C++: load, price) against
pfmc.price(FILE) (load, price, the run's summary made and parsed). The two alternate, --rounds
times (a round: one pfmc_bench process of --repeat timed runs, then --repeat Python runs), so
that the host's drift over the minute falls on both sides; medians over all rounds.

Also, in this process, run by run: the same load and run timed in C++ with no Python object
made (pfmc._pfmc._time_native_run) against pfmc.price(), alternating — what the binding itself
costs, free of the differences between two processes (on the H100 machine two processes'
medians of the same C++ run differed by up to 35%).

Usage: PYTHONPATH=BUILD/python scripts/python-overhead.py BUILD/pfmc_bench BOOK.yaml
       [--repeat N] [--rounds R]"""
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
    parser.add_argument("--rounds", type=int, default=3)
    a = parser.parse_args()
    pfmc.price(a.book, device="gpu")  # warm-up: context, modules, tuning cache
    cpp, times, columns, with_list = [], [], [], []
    for _ in range(a.rounds):
        out = subprocess.run([a.bench, "--workloads=", f"--books={a.book}",
                              "--benchmark_filter=end_to_end",
                              f"--benchmark_repetitions={a.repeat}", "--benchmark_format=json"],
                             check=True, capture_output=True, text=True)
        runs = json.loads(out.stdout[out.stdout.index("{"):])["benchmarks"]
        cpp += [r["real_time"] for r in runs if r.get("run_type") == "iteration"]
        for _ in range(a.repeat):
            start = time.perf_counter()
            result = pfmc.price(a.book, device="gpu")
            times.append((time.perf_counter() - start) * 1e3)
            prices = len(result.column("price"))  # the columns: one list each
            columns.append((time.perf_counter() - start) * 1e3)
            count = len(result.instruments)  # the list of dicts, made on first use
            with_list.append((time.perf_counter() - start) * 1e3)
            # The lists and dicts asked for go before the next run's clock starts (freeing
            # 100,000 dicts is the caller's cost, not the run's); the run itself is freed when
            # the next one replaces it, inside the clock, as pfmc_bench frees its result.
            result._instruments = result._columns = None
    cpp_ms = statistics.median(cpp)
    py_ms, column_ms = statistics.median(times), statistics.median(columns)
    list_ms = statistics.median(with_list)
    rel = lambda ms: f"{100 * (ms / cpp_ms - 1):+.1f}%"  # noqa: E731
    print(f"{a.book}: {count} instruments ({prices} prices); C++ (pfmc_bench end_to_end) "
          f"{cpp_ms:.1f} ms, Python pfmc.price() {py_ms:.1f} ms ({rel(py_ms)}), with "
          f".column('price') {column_ms:.1f} ms ({rel(column_ms)}), with .instruments made "
          f"{list_ms:.1f} ms ({rel(list_ms)}) (medians of {len(cpp)} and {len(times)}, "
          f"{a.rounds} alternating rounds, warm)")
    print("  C++ runs: " + " ".join(f"{x:.0f}" for x in cpp))
    print("  Python runs: " + " ".join(f"{x:.0f}" for x in times))
    # In this process: the native run and pfmc.price(), alternating.
    native, bound = [], []
    for _ in range(a.rounds * a.repeat):
        native.append(pfmc._pfmc._time_native_run(a.book, "gpu"))
        start = time.perf_counter()
        result = pfmc.price(a.book, device="gpu")
        bound.append((time.perf_counter() - start) * 1e3)
    native_ms, bound_ms = statistics.median(native), statistics.median(bound)
    print(f"  in this process, alternating: native run {native_ms:.2f} ms, pfmc.price() "
          f"{bound_ms:.2f} ms ({100 * (bound_ms / native_ms - 1):+.1f}%) "
          f"(medians of {len(native)} each)")
    r = result.run
    print("  the last Python run's own times: " + ", ".join(
        f"{k} {r[k]:.1f} ms" for k in ("config_ms", "plan_ms", "backends_ms", "kernel_ms",
                                       "results_ms", "total_ms")))


if __name__ == "__main__":
    main()
