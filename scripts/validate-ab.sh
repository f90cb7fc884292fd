#!/usr/bin/env bash
# Two pfmc builds' `pfmc validate FILE` in fresh processes, alternating N times; prints each
# build's median, min and max wall seconds. On a machine whose speed drifts within minutes (the
# 2-core development machine: ±30%), alternation is what makes two builds comparable.
# Usage: scripts/validate-ab.sh N FILE OLD_PFMC NEW_PFMC
set -euo pipefail
[ $# -eq 4 ] || { sed -n 2,5p "$0" >&2; exit 2; }
python3 - "$@" <<'PY'
import statistics, subprocess, sys, time
n, config, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
seconds = {b: [] for b in builds}
for _ in range(n):
    for b in builds:
        start = time.monotonic()
        subprocess.run([b, "validate", config], stdout=subprocess.DEVNULL, check=True)
        seconds[b].append(time.monotonic() - start)
for b in builds:
    s = seconds[b]
    print(f"{b}: median {statistics.median(s):.3f} s  min {min(s):.3f}  max {max(s):.3f}  (n={n})")
PY
