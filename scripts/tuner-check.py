#!/usr/bin/env python3
"""How close is `pfmc tune`'s choice to the exhaustive best of `pfmc bench`? Reads the bench
CSVs (one per workload) and the tune logs' "model '...': <choice>, X ms" lines.
Usage: tuner-check.py WORKLOAD=bench.csv:tune.log ..."""
import csv
import re
import sys

for arg in sys.argv[1:]:
    workload, files = arg.split("=", 1)
    bench_csv, tune_log = files.split(":")
    rows = list(csv.DictReader(open(bench_csv)))
    by_model = {}
    for r in rows:
        if r["backend"] != "ideal":  # the bench's free-draws diagnostic, never a choice
            by_model.setdefault(r["model"], []).append(r)
    for line in open(tune_log):
        m = re.match(r"model '([^']+)': (\S+)(?: d(\d+))?(?: (\S+))?, ([0-9.]+) ms .* in ([0-9.]+) s", line)
        if not m or m.group(1) not in by_model:
            continue
        model, backend, distance, padding, _, seconds = m.groups()
        distance = distance or "0"
        padding = padding or "auto"
        best = min(by_model[model], key=lambda r: float(r["median_ms"]))
        chosen = [r for r in by_model[model] if r["backend"] == backend and
                  r["prefetch_distance"] == distance and r["padding"] == padding]
        if not chosen:
            print(f"{workload} {model}: tuner chose {backend} d{distance} {padding}, not in the sweep")
            continue
        ratio = float(chosen[0]["median_ms"]) / float(best["median_ms"])
        print(f"{workload} {model}: tuner {backend} d{distance} {padding} {float(chosen[0]['median_ms']):.4f} ms "
              f"in {seconds} s; exhaustive best {best['backend']} d{best['prefetch_distance']} "
              f"{best['padding']} {float(best['median_ms']):.4f} ms; tuner/best = {ratio:.3f}")
