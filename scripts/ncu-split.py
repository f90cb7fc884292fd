#!/usr/bin/env python3
"""Where one profiled kernel's time goes, function by function: reads `ncu -i REPORT --page source
--csv --print-source sass` and splits its SASS at the kernel's start and every CALL target (the
kernel body and its out-of-line functions: pay_prices, pay_estimates, pay_pathwise, ...), printing
each one's share of the warp-stall samples and of the instructions executed, its local-memory
instructions and its barriers. With a function's start address, also that function's opcodes by
samples. Usage: ncu-split.py SOURCE.csv [START_ADDRESS]"""
import bisect
import collections
import csv
import re
import sys

rows = list(csv.reader(open(sys.argv[1], errors="replace")))
header_at = next((i for i, r in enumerate(rows) if r and r[0] == "Address"), None)
if header_at is None:
    sys.exit(f"{sys.argv[1]}: no 'Address' column (not a --page source CSV of SASS?)")
head = rows[header_at]
body = [r for r in rows[header_at + 1:] if len(r) == len(head) and r[0].startswith("0x")]
source = head.index("Source")
samples_at = head.index("Warp Stall Sampling (All Samples)")
executed_at = head.index("Instructions Executed")


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


starts = {int(body[0][0], 16)}
for r in body:
    call = re.search(r"CALL\.\S+\s+(0x[0-9a-f]+)", r[source])
    if call:
        starts.add(int(call.group(1), 16))
starts = sorted(starts)
totals = collections.defaultdict(lambda: [0.0, 0.0, 0, 0.0, 0.0])  # samples, executed, sass, local, bar
ops = collections.defaultdict(lambda: [0.0, 0.0])
chosen = int(sys.argv[2], 16) if len(sys.argv) > 2 else None
for r in body:
    address = int(r[0], 16)
    start = starts[bisect.bisect_right(starts, address) - 1]
    s, e = number(r[samples_at]), number(r[executed_at])
    t = totals[start]
    t[0] += s
    t[1] += e
    t[2] += 1
    if re.search(r"\b(LDL|STL)\b", r[source]):
        t[3] += e
    if "BAR" in r[source]:
        t[4] += e
    if start == chosen:
        text = re.sub(r"^@!?U?P\w+\s+", "", r[source].strip())
        op = (text.split() or ["?"])[0].split(".")[0]
        ops[op][0] += s
        ops[op][1] += e
all_samples = sum(t[0] for t in totals.values()) or 1.0
all_executed = sum(t[1] for t in totals.values()) or 1.0
print(f"{len(body)} SASS instructions, {all_samples:.0f} warp-stall samples, "
      f"{all_executed / 1e6:.1f} M warp instructions executed")
for k, start in enumerate(starts):
    s, e, n, local, bar = totals[start]
    if e == 0:
        continue
    name = "kernel" if k == 0 else f"function {k}"
    print(f"  {name:11} {hex(start)}  {n:6} SASS  samples {100 * s / all_samples:5.1f}%  "
          f"executed {e / 1e6:8.2f} M ({100 * e / all_executed:5.1f}%)  local {local / 1e6:6.2f} M  "
          f"barriers {bar / 1e3:.0f} k")
if chosen is not None:
    s_all = sum(v[0] for v in ops.values()) or 1.0
    e_all = sum(v[1] for v in ops.values()) or 1.0
    for op, (s, e) in sorted(ops.items(), key=lambda x: -x[1][0])[:20]:
        print(f"    {op:10} samples {100 * s / s_all:5.1f}%  executed {e / 1e6:7.2f} M ({100 * e / e_all:5.1f}%)")
