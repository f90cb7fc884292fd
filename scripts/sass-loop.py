#!/usr/bin/env python3
"""The step loops of chosen path kernels in `cuobjdump -sass` output: for each kernel, every loop
(a backward branch and its target) with what it holds — instructions, global loads, cp.async
copies and their waits, shared and local memory, barriers, MUFU and double-precision math — and
the largest loop (the step loop) listed in full. Where a loader's instructions sit against the
path's math, and whether the compiler kept a look-ahead's loads ahead of their use, is read here.
Usage: sass-loop.py SASS.txt [--wide] --loaders Loader:distance ...
(--wide: the kernels under kWideRegisters, `...Li128EE` in the mangled name)."""
import argparse
import re
from collections import Counter

parser = argparse.ArgumentParser()
parser.add_argument("sass")
parser.add_argument("--wide", action="store_true")
parser.add_argument("--loaders", nargs="+", required=True)
args = parser.parse_args()

CLASSES = [
    ("LDG", r"\bLDG\b|\bLDG\."),
    ("LDGSTS", r"\bLDGSTS"),
    ("DEPBAR/LDGDEPBAR", r"\bDEPBAR|\bLDGDEPBAR"),
    ("LDS", r"\bLDS\b|\bLDS\."),
    ("STS", r"\bSTS\b|\bSTS\."),
    ("LDL/STL", r"\bLDL\b|\bLDL\.|\bSTL\b|\bSTL\."),
    ("BAR", r"\bBAR\."),
    ("MUFU", r"\bMUFU\."),
    ("DFMA/DMUL/DADD", r"\bD(FMA|MUL|ADD)\b"),
    ("BRA", r"\bBRA\b"),
]


def kernels(path):
    name, body = None, []
    for line in open(path, errors="replace"):
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
            continue
        if name:
            body.append(line.rstrip("\n"))
    if name:
        yield name, body


def wanted(name):
    if "path_kernel" not in name or "BlackScholes" not in name:
        return None
    if args.wide != bool(re.search(r"ELi128EEEv", name)):
        return None
    for spec in args.loaders:
        loader, distance = spec.split(":")
        if re.search(r"\d+" + loader + r"I[df]Li1ELi" + distance + r"E", name):
            return spec
    return None


for name, body in kernels(args.sass):
    spec = wanted(name)
    if not spec:
        continue
    instructions = []  # (address, text)
    for line in body:
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*(/\*.*)?$", line)
        if m and m.group(2) and not m.group(2).startswith("/*"):
            instructions.append((int(m.group(1), 16), m.group(2)))
    loops = []
    for address, text in instructions:
        if "BRA" in text:
            t = re.search(r"0x([0-9a-f]+)", text)
            if t and int(t.group(1), 16) <= address:
                loops.append((int(t.group(1), 16), address))
    print(f"== {spec} {'wide ' if args.wide else ''}{name[:140]}")
    print(f"   {len(instructions)} instructions, {len(loops)} loops")
    for lo, hi in loops:
        inside = [t for a, t in instructions if lo <= a <= hi]
        counts = Counter()
        for t in inside:
            for label, pattern in CLASSES:
                if re.search(pattern, t):
                    counts[label] += 1
        held = ", ".join(f"{label} {counts[label]}" for label, _ in CLASSES if counts[label])
        print(f"   loop {lo:#06x}-{hi:#06x}: {len(inside)} instructions; {held}")
    if loops:
        lo, hi = max(loops, key=lambda r: r[1] - r[0])
        print(f"   -- the largest loop, {lo:#06x}-{hi:#06x}:")
        for a, t in instructions:
            if lo <= a <= hi:
                print(f"   {a:06x}  {t}")
    print()
