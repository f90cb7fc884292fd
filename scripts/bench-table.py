#!/usr/bin/env python3
"""Summarises pfmc_bench's JSON (--benchmark_out): per workload, the median time of every
backend configuration, its speedup over `none`, GB/s and fraction of copy bandwidth; the best
per backend first. Usage: bench-table.py bench.json [--all]"""
import json
import sys
from collections import defaultdict

data = json.load(open(sys.argv[1]))
show_all = "--all" in sys.argv
best_only = "--best" in sys.argv  # one line per workload: workload backend distance padding
rows = defaultdict(dict)
for b in data["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name = b["run_name"].replace("/manual_time", "")
    workload, config = name.split("/", 1)
    rows[workload][config] = b

if "end_to_end" in rows and not best_only:
    print("\nend to end (warm process):")
    for config, b in rows["end_to_end"].items():
        print(f"  {config:40} {b['real_time']:9.2f} ms  {b['instruments_per_s']:10.0f} instruments/s "
              f"(generation + kernels: {b['instruments_per_s_device']:10.0f}/s)  groups {b['groups']:.0f}, "
              f"launches {b['kernel_launches']:.0f}, generation calls {b['generation_calls']:.0f}, "
              f"host syncs {b['host_syncs']:.0f}; kernel {b['kernel_ms']:.3f} ms + generation "
              f"{b['rng_ms']:.3f} ms (loading {b.get('kernel_load_ms', 0):.1f} ms)")

for workload, configs in rows.items():
    base = configs.get("none")
    if not base:
        continue
    if best_only:
        candidates = {c: b for c, b in configs.items()
                      if not c.startswith(("ceiling", "none/"))}
        config = min(candidates, key=lambda c: candidates[c]["real_time"])
        parts = config.split("/")
        distance = next((p[1:] for p in parts if p.startswith("d") and p[1:].isdigit()), "4")
        padding = {"pad_none": "none", "slot_major": "slot_major"}.get(parts[-1], "auto")
        print(workload, parts[0], distance, padding)
        continue
    t0 = base["real_time"]
    print(f"\n{workload}: none {t0:.3f} ms, {base['GB_per_s']:.0f} GB/s "
          f"({100 * base['copy_bw_fraction']:.1f}% of copy bandwidth)")
    best = {}
    for config, b in configs.items():
        backend = config.split("/")[0]
        if backend not in best or b["real_time"] < best[backend][1]["real_time"]:
            best[backend] = (config, b)
    print(f"  {'best of backend':44} {'ms':>8} {'speedup':>8} {'GB/s':>7} {'%copy':>6}")
    for backend, (config, b) in sorted(best.items(), key=lambda kv: kv[1][1]["real_time"]):
        print(f"  {config:44} {b['real_time']:8.3f} {t0 / b['real_time']:8.2f} "
              f"{b['GB_per_s']:7.0f} {100 * b['copy_bw_fraction']:6.1f}")
    if show_all:
        print(f"  {'every configuration':44}")
        for config, b in sorted(configs.items()):
            print(f"  {config:44} {b['real_time']:8.3f} {t0 / b['real_time']:8.2f} "
                  f"{b['GB_per_s']:7.0f} {100 * b['copy_bw_fraction']:6.1f}")
