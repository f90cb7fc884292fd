#!/usr/bin/env python3
"""Per loader, what the path kernels' SASS holds: LDGSTS (cp.async), BAR.SYNC (block barriers),
LDL/STL (local memory). Reads `cuobjdump -sass` output; one line per loader with the range over
its kernels (every model, precision and distance). A loader whose BAR.SYNC count equals `none`'s
adds no barrier of its own: the ones it has are the kernel's (group staging, reduction).
Usage: sass-loaders.py SASS.txt [LOADER ...]"""
import re
import sys
from collections import defaultdict

path = sys.argv[1]
wanted = sys.argv[2:] or ["NoneLoader", "SmemRollingAsyncLoader", "SmemBatchedAsyncLoader",
                          "SmemBlockAsyncLoader", "SmemRollingLoader", "IdealLoader"]
counts = defaultdict(list)  # loader -> [(function, ldgsts, bar, ldl, stl)]
current = None
tally = None


def flush():
    if current is None:
        return
    for loader in wanted:
        if re.search(r"\d+" + loader + r"I", current):
            counts[loader].append((current, *tally))


for line in open(path, errors="replace"):
    m = re.search(r"Function : (\S+)", line)
    if m:
        flush()
        current = m.group(1) if "path_kernel" in m.group(1) else None
        tally = [0, 0, 0, 0]
        continue
    if current is None:
        continue
    if "LDGSTS" in line:
        tally[0] += 1
    if re.search(r"\bBAR\.SYNC", line):
        tally[1] += 1
    if re.search(r"\bLDL\b|\bLDL\.", line):
        tally[2] += 1
    if re.search(r"\bSTL\b|\bSTL\.", line):
        tally[3] += 1
flush()

print(f"{'loader':26} {'kernels':>7} {'LDGSTS':>9} {'BAR.SYNC':>9} {'LDL':>9} {'STL':>9}")
for loader in wanted:
    rows = counts.get(loader, [])
    if not rows:
        print(f"{loader:26} {0:>7}")
        continue
    cells = []
    for k in range(1, 5):
        values = [r[k] for r in rows]
        lo, hi = min(values), max(values)
        cells.append(f"{lo}" if lo == hi else f"{lo}-{hi}")
    print(f"{loader:26} {len(rows):>7} " + " ".join(f"{c:>9}" for c in cells))
