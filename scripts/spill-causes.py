#!/usr/bin/env python3
"""What each path kernel's spills are the price of: ptxas's registers and spills of the same
kernels built with their own register caps (a normal build) and with one high cap (a build
configured with -DPFMC_REGISTER_CAP=255), both with -DPFMC_PTXAS_VERBOSE=ON.
Usage: spill-causes.py CAPPED_LOG UNCAPPED_LOG

A kernel that spills at its cap and not uncapped spills for the cap alone: the table gives the
registers it takes uncapped. One that spills uncapped too holds more live values than registers
(or indexes an array dynamically, which is stack, not spill). Kernels are matched by their
mangled names, so the two logs must come from the same sources."""
import importlib.util
import os
import statistics
import sys

spec = importlib.util.spec_from_file_location(
    "ptxas_table", os.path.join(os.path.dirname(os.path.abspath(__file__)), "ptxas-table.py"))
ptxas_table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ptxas_table)

if len(sys.argv) != 3:
    sys.exit(__doc__)
capped = ptxas_table.kernels(sys.argv[1])
uncapped = ptxas_table.kernels(sys.argv[2])
both = sorted((capped[name], uncapped[name]) for name in capped.keys() & uncapped.keys())
print(f"{'precision':9} {'model':16} {'loader':30} {'dist':>4} | {'cap':>3} {'spill st/ld':>11} | "
      f"{'uncapped':>8} {'spill st/ld':>11} {'stack':>5} | cause")
cap_only, beyond, none = [], [], 0
for c, u in both:
    if not (c[6] or c[7]):
        none += 1
        continue
    if u[6] or u[7]:
        cause = f"spills at {u[4]} registers too"
        beyond.append(c)
    else:
        cause = f"the cap: {u[4]} registers uncapped"
        cap_only.append(u[4])
    print(f"{c[0]:9} {c[1]:16} {c[2]:30} {c[3]:4} | {c[4]:3} {c[6]:5}/{c[7]:<5} | "
          f"{u[4]:8} {u[6]:5}/{u[7]:<5} {u[5]:5} | {cause}")
print(f"{len(both)} kernels in both logs: {none} spill nothing at their caps; "
      f"{len(cap_only)} spill for the cap alone"
      + (f" (uncapped they take {min(cap_only)}-{max(cap_only)} registers, median "
         f"{statistics.median(cap_only):g})" if cap_only else "")
      + f"; {len(beyond)} spill uncapped too")
