#!/usr/bin/env python3
"""The hottest SASS instructions of one profiled kernel: reads `ncu -i REPORT --page source --csv
--print-source sass` and prints the TOP instructions by warp-stall samples (all samples), each
with its share of the kernel's samples and the columns of stall reasons that hold most of its
samples — where a kernel's warps wait, instruction by instruction.
Usage: ncu-hot.py SOURCE.csv [TOP]"""
import csv
import sys

path = sys.argv[1]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
rows = [r for r in csv.reader(open(path, errors="replace"))]
header_at = next((i for i, r in enumerate(rows) if any("Source" == c.strip() for c in r)), None)
if header_at is None:
    sys.exit(f"{path}: no 'Source' column (not a --page source CSV?)")
head = [c.strip() for c in rows[header_at]]
body = [r for r in rows[header_at + 1:] if len(r) == len(head)]


def column(name_start):
    return next((i for i, c in enumerate(head) if c.startswith(name_start)), None)


samples_at = column("Warp Stall Sampling (All")
source_at = head.index("Source")
address_at = column("Address")
if samples_at is None:
    sys.exit(f"{path}: no warp-stall sampling column; columns: {head}")


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


# Per-reason stall columns, where the CSV has them (names starting with "stall" or holding "stall_").
reason_columns = [i for i, c in enumerate(head) if c.lower().startswith("stall") or "stall_" in c]
total = sum(number(r[samples_at]) for r in body) or 1.0
print(f"{len(body)} instructions, {total:.0f} warp-stall samples")
ranked = sorted(body, key=lambda r: -number(r[samples_at]))[:top]
for r in ranked:
    share = 100.0 * number(r[samples_at]) / total
    reasons = sorted(((number(r[i]), head[i]) for i in reason_columns), reverse=True)[:3]
    why = ", ".join(f"{name} {value:.0f}" for value, name in reasons if value > 0)
    address = r[address_at] if address_at is not None else ""
    print(f"{share:5.1f}%  {address:>8}  {r[source_at].strip()[:70]:70}  {why}")
