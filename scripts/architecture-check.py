#!/usr/bin/env python3
"""The architecture's rules, checked on the tree (seconds; CI runs it before the build):

  layers    no file includes a higher layer: base < models < kernels < config < engine < apps
            (tests/, bench/ and the generated files may include any)
  cycles    no include cycle among the project's files
  lengths   files under kernels/ and engine/ at most 500 lines, device files (.cu, .cuh) at most
            300; the files over today are listed below, each with where it is to be split, and a
            listed file back under its limit fails too (drop it from the list), so that the list
            cannot go stale

Exits 1 with one line per breach (file, what, the limit); --list prints the include graph's
layers and each listed file's length.
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAYERS = ["base", "models", "kernels", "config", "engine", "apps"]
SUFFIXES = {".hpp", ".cpp", ".cuh", ".cu", ".h"}
DEVICE = {".cu", ".cuh"}
LIMIT_LAYERS = {"kernels", "engine"}  # the 500-line rule; device files everywhere 300
FILE_LIMIT = 500
DEVICE_LIMIT = 300

# Over their limit today (issue 60), each with where its split goes. Remove a line once its file
# is under the limit (the check says so).
KNOWN_LONG = {
    "engine/run/gpu_engine.cu": "the compile-before-run to kernels/dispatch/'s select_kernel",
    "engine/run/device_unit.cuh": "the variant choice to kernels/dispatch/",
    "kernels/launcher_table.cuh": "made from kernels/dispatch/'s one list",
    "models/payoff.cuh": "the payoff kinds apart from the knock and rebate logic",
    "models/path.cuh": "the observation schedule apart from the stepper",
    "models/exercise.cuh": "the regression's pass apart from the exercise decision",
}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def project_files():
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file():
                yield layer, path


def resolve(including, name):
    """The project file an #include "name" of `including` means, or None (not ours)."""
    for candidate in (ROOT / name, including.parent / name):
        if candidate.is_file() and candidate.resolve().is_relative_to(ROOT):
            return candidate.resolve()
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print each listed long file's length")
    args = parser.parse_args()

    rank = {layer: i for i, layer in enumerate(LAYERS)}
    breaches = []
    graph = {}
    lengths = {}
    for layer, path in project_files():
        text = path.read_text(errors="replace")
        rel = path.relative_to(ROOT).as_posix()
        lengths[rel] = text.count("\n")
        edges = []
        for name in INCLUDE.findall(text):
            target = resolve(path, name)
            if target is None:
                continue
            edges.append(target)
            top = target.relative_to(ROOT).parts[0]
            if top in rank and rank[top] > rank[layer]:
                breaches.append(f"{rel}: includes {name}, a higher layer ({layer} < {top}: "
                                f"{' < '.join(LAYERS)})")
        graph[path.resolve()] = edges

    # Cycles: depth-first, each file's state 0 unseen, 1 on the stack, 2 done.
    state = {}
    stack = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt, 0) == 0:
                visit(nxt)
            elif state[nxt] == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                breaches.append("include cycle: " +
                                " -> ".join(p.relative_to(ROOT).as_posix() for p in cycle))
        stack.pop()
        state[node] = 2

    sys.setrecursionlimit(10000)
    for node in graph:
        if state.get(node, 0) == 0:
            visit(node)

    for rel, n in sorted(lengths.items()):
        suffix = pathlib.PurePosixPath(rel).suffix
        layer = rel.split("/")[0]
        limit = None
        if suffix in DEVICE:
            limit = DEVICE_LIMIT
        elif layer in LIMIT_LAYERS:
            limit = FILE_LIMIT
        if limit is None:
            continue
        if n > limit and rel not in KNOWN_LONG:
            breaches.append(f"{rel}: {n} lines, over its limit of {limit}")
        elif n <= limit and rel in KNOWN_LONG:
            breaches.append(f"{rel}: {n} lines, under its limit of {limit}: remove it from "
                            "KNOWN_LONG in scripts/architecture-check.py")
    for rel in KNOWN_LONG:
        if rel not in lengths:
            breaches.append(f"{rel}: listed in KNOWN_LONG but not in the tree")

    if args.list:
        for rel, why in KNOWN_LONG.items():
            print(f"{rel}: {lengths.get(rel, 0)} lines ({why})")
    for b in breaches:
        print(b)
    print(f"architecture: {len(graph)} files, {sum(len(e) for e in graph.values())} includes; "
          f"{len(breaches)} breach{'es' if len(breaches) != 1 else ''} "
          f"({len(KNOWN_LONG)} long files listed)")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
