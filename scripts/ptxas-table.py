#!/usr/bin/env python3
"""Turns `nvcc -Xptxas -v` output into one line per path kernel: precision, model, loader,
distance, registers, stack, spills. Usage: ptxas-table.py BUILD_LOG

Kernel names are demangled with c++filt (binutils) and read from their template arguments:
path_kernel<Model, Loader<Real, Factors, Distance[, more]>, Real, Exercise, Registers>. The
model column names multi-asset models with their assets (MultiBlackScholes3) and the Greeks'
scenario models as greeks:Model; the loader column adds a loader's further arguments (`inline`'s
steps per batch as /b4, a ring's load policy), +exercise for early exercise's kernels and @r128
for the wide instantiations (kernels/launcher_table.cuh)."""
import re
import subprocess
import sys

entry = re.compile(r"Compiling entry function '(\S+)'")
props = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
used = re.compile(r"Used (\d+) registers")


def split_arguments(text):
    """The top-level comma-separated template arguments of `text` (no enclosing <>)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def unqualified(name):
    return re.sub(r"\bpfmc::(models|kernels)::", "", name)


def model_label(model):
    """BlackScholes<float> -> BlackScholes; MultiBlackScholes<float, 3> -> MultiBlackScholes3;
    Scenarios<Heston<double>, 8> -> greeks:Heston."""
    model = unqualified(model)
    outer, _, inner = model.partition("<")
    inner = inner[:-1] if inner.endswith(">") else inner
    if outer == "Scenarios":
        return "greeks:" + model_label(split_arguments(inner)[0])
    arguments = split_arguments(inner)
    return outer + "".join(a for a in arguments[1:])


def parse(demangled):
    """(precision, model, loader, distance) of a path kernel's demangled name, or None."""
    m = re.match(r"void pfmc::kernels::path_kernel<(.*)>\(", demangled)
    if not m:
        return None
    arguments = split_arguments(m.group(1))
    if len(arguments) not in (4, 5):
        return None
    model, loader, real, exercise = arguments[:4]
    registers = arguments[4] if len(arguments) == 5 else "0"  # a wide instantiation's cap
    loader = unqualified(loader)
    loader_name, _, loader_arguments = loader.partition("<")
    loader_arguments = split_arguments(loader_arguments[:-1])
    distance = int(loader_arguments[2]) if len(loader_arguments) > 2 else 0
    label = loader_name[: -len("Loader")] if loader_name.endswith("Loader") else loader_name
    for extra in loader_arguments[3:]:
        label += "/" + ("b" + extra if extra.isdigit() else extra)
    if exercise == "true":
        label += "+exercise"
    if registers != "0":
        label += "@r" + registers
    return ("float" if real == "float" else "double"), model_label(model), label, distance


def kernels(log):
    """{mangled name: (precision, model, loader, distance, registers, stack, spill stores, spill
    loads)} of the path kernels in the nvcc -Xptxas -v output `log`."""
    entries = []  # (mangled name, registers, stack, spill stores, spill loads)
    current, frame = None, None
    for line in open(log, errors="replace"):
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
            entries.append((current, int(m.group(1)), int(frame[0]), int(frame[1]), int(frame[2])))
            current = None
    names = [e[0] for e in entries]
    try:
        demangled = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                                   text=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError) as error:
        sys.exit(f"ptxas-table.py: c++filt failed ({error}); it comes with binutils")
    found = {}
    for (name, registers, stack, stores, loads), readable in zip(entries, demangled):
        kernel = parse(readable)
        if kernel:
            found[name] = kernel + (registers, stack, stores, loads)
    return found


if __name__ == "__main__":
    rows = set(kernels(sys.argv[1]).values())
    print(f"{'precision':9} {'model':22} {'loader':34} {'dist':>4} {'regs':>4} {'stack':>5} {'spill st/ld':>11}")
    for r in sorted(rows):
        print(f"{r[0]:9} {r[1]:22} {r[2]:34} {r[3]:4} {r[4]:4} {r[5]:5} {r[6]:5}/{r[7]:<5}")
    spilled = [r for r in rows if r[6] or r[7]]
    print(f"{len(rows)} kernels, {len(spilled)} with spills")
