#!/usr/bin/env python3
"""Runs a command and prints its wall time and peak resident memory on stderr (last line):
`measure.py CMD ARGS...` -> "... (12.3 s wall, 45678 KB max RSS)". Exit status: the command's."""
import resource
import subprocess
import sys
import time

start = time.monotonic()
code = subprocess.run(sys.argv[1:]).returncode
wall = time.monotonic() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"({wall:.3f} s wall, {rss} KB max RSS)", file=sys.stderr)
sys.exit(code)
