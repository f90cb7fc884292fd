#!/usr/bin/env python3
"""Turns `nvcc -Xptxas -v` output into one line per path kernel: precision, model, loader,
distance, registers, stack, spills. Usage: ptxas-table.py BUILD_LOG"""
import re
import sys

entry = re.compile(r"Compiling entry function '(\S+)'")
props = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
used = re.compile(r"Used (\d+) registers")
name = re.compile(r"models\d+(\w+?)I([fd])EE.*?NS0_\d+(\w+?)LoaderI[fd]Li(\d+)ELi(\d+)E(?:NS0_\d+(\w+?)EE)?")

rows, current, frame = [], None, None
for line in open(sys.argv[1], errors="replace"):
    m = entry.search(line)
    if m:
        current, frame = m.group(1), None
        continue
    m = props.search(line)
    if m and current:
        frame = m.groups()
        continue
    m = used.search(line)
    if m and current and frame:
        n = name.search(current)
        if n:
            model, real, loader, factors, distance, policy = n.groups()
            loader = loader + ("/" + policy if policy else "")
            rows.append((("float" if real == "f" else "double"), model, loader, int(distance),
                         int(m.group(1)), int(frame[0]), int(frame[1]), int(frame[2])))
        current = None
print(f"{'precision':9} {'model':14} {'loader':34} {'dist':>4} {'regs':>4} {'stack':>5} {'spill st/ld':>11}")
for r in sorted(set(rows)):
    print(f"{r[0]:9} {r[1]:14} {r[2]:34} {r[3]:4} {r[4]:4} {r[5]:5} {r[6]:5}/{r[7]:<5}")
spilled = [r for r in rows if r[6] or r[7]]
print(f"{len(set(rows))} kernels, {len(spilled)} with spills")
