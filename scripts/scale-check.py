#!/usr/bin/env python3
"""Scaling of split runs (engine/scale/) on this host's GPUs, fresh and warm.

For each workload (config/examples/NAME.yaml at PATHS paths):
  fresh: `pfmc price --devices N` for N = 1, 2, 4, 8 (as many as the host has) and, in a build with
         PFMC_MPI, `mpirun -np N` one rank per GPU; each --repeat times in a row, the first
         dropped (it warms the GPUs' clocks): medians of the run's total_ms, the process's wall
         time (what `time` says, the devices' set-up included), the slowest worker's kernels;
  warm:  one Python process (the pfmc package) pricing it --warm-repeat times at each N in turn:
         medians after the first run at that N, the first run's extra cost, and the time outside
         the slowest worker's kernels (and draws);
and checks that every configuration's prices are bit-identical to one device's. On a host of one
GPU it runs the same-GPU splits instead ([0, 0] and 2 ranks sharing it): identical bits, and
their overhead. --trace DIR: one more fresh run at 1 device and at the most, with PFMC_TRACE,
and a timeline of each (base/trace.hpp). --json FILE: every figure.

Usage: scripts/scale-check.py [--build DIR] [--repeat N] [--warm-repeat N] [--mpirun PATH]
                              [--trace DIR] [--json FILE] [--no-warm] [WORKLOAD:PATHS ...]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def gpu_count():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    except OSError:
        return 0
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def gpu_name():
    out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout
    return out.splitlines()[0].strip() if out else "?"


def prices(result):
    return ([(i["id"], i["price"], i["std_error"]) for i in result["instruments"]],
            result.get("portfolio"))


def slowest_kernels(run):
    """The slowest worker's path kernels and its draws' generation (ms); the run's own where it
    did not split."""
    workers = run.get("workers") or []
    if not workers:
        return run["kernel_ms"], run["kernel_ms"] + run.get("rng_ms", 0.0)
    return (max(w["kernel_ms"] for w in workers),
            max(w["kernel_ms"] + w.get("rng_ms", 0.0) for w in workers))


def run_fresh(command, repeat, env=None):
    """The command `repeat` times: (results, process wall ms) of the runs after the first."""
    results, walls = [], []
    for k in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        wall = (time.perf_counter() - start) * 1e3
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)}: exit {done.returncode}: {done.stderr[-2000:]}")
        if k > 0 or repeat == 1:
            results.append(json.loads(done.stdout))
            walls.append(wall)
    return results, walls


def summary(results, walls):
    runs = [r["run"] for r in results]
    kernels = [slowest_kernels(r) for r in runs]
    return {
        "total_ms": statistics.median(r["total_ms"] for r in runs),
        "wall_ms": statistics.median(walls),
        "kernel_ms": statistics.median(k[0] for k in kernels),
        "kernel_rng_ms": statistics.median(k[1] for k in kernels),
        "backends_ms": statistics.median(r.get("backends_ms", 0.0) for r in runs),
        "device_ms": statistics.median(r.get("device_ms", 0.0) for r in runs),
        "totals": [r["total_ms"] for r in runs],
        "walls": walls,
        "workers": runs[0].get("workers", []),
    }


def timeline(path, wall_ms):
    """The trace's spans by start (ms from the process's start): name, device, start, length;
    spans under 0.3 ms left out (launches, short waits), and the process's end."""
    events = json.load(open(path))["traceEvents"]
    events.sort(key=lambda e: e["ts"])
    lines = []
    for e in events:
        if e["dur"] < 300 and e["name"] not in ("context", "open device", "plan", "backends"):
            continue
        lines.append(f"  {e['ts'] / 1e3:9.2f} ms  +{e['dur'] / 1e3:8.2f} ms  "
                     f"thread {e['tid']:>5}  device {e['args']['device']:>2}  {e['name']}")
    main = [e for e in events if e["name"] == "main"]
    if main:
        end = (main[0]["ts"] + main[0]["dur"]) / 1e3
        lines.append(f"  main returns at {end:.1f} ms; the process ended at {wall_ms:.1f} ms "
                     f"(exit: {wall_ms - end:.1f} ms, the start's clock tick ±10 ms)")
    return "\n".join(lines)


WARM_SCRIPT = r"""
import json, sys, pfmc
config, paths, counts, repeat = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), int(sys.argv[4])
out = {}
for n in counts:
    runs = []
    for k in range(repeat):
        r = pfmc.price(config, paths=paths, device="gpu", devices=str(n), tuning_cache="")
        runs.append({"run": r.run, "prices": [(i["id"], i["price"], i["std_error"]) for i in r.instruments],
                     "portfolio": r.portfolio})
    out[str(n)] = runs
json.dump(out, sys.stdout)
"""


def run_warm(build, config, paths, counts, repeat):
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    done = subprocess.run([sys.executable, "-c", WARM_SCRIPT, config, str(paths),
                           json.dumps(counts), str(repeat)], capture_output=True, text=True,
                          env=env)
    if done.returncode != 0:
        raise RuntimeError(f"warm process: exit {done.returncode}: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build-device")
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--warm-repeat", type=int, default=5)
    parser.add_argument("--mpirun", default=shutil.which("mpirun") or "")
    parser.add_argument("--trace", default="")
    parser.add_argument("--json", default="")
    parser.add_argument("--no-warm", action="store_true")
    parser.add_argument("workloads", nargs="*")
    args = parser.parse_args()
    workloads = args.workloads or ["bandwidth_bound:32768000", "portfolio:40000000",
                                   "american:8000000"]
    build = os.path.join(ROOT, args.build) if not os.path.isabs(args.build) else args.build
    pfmc = os.path.join(build, "pfmc")
    if not os.access(pfmc, os.X_OK):
        sys.exit(f"scale-check: no {pfmc} (build first)")
    gpus = gpu_count()
    if gpus < 1:
        sys.exit("scale-check: no GPU")
    mpi = bool(args.mpirun) and "PFMC_MPI:BOOL=ON" in open(os.path.join(build, "CMakeCache.txt")).read()
    launch = [args.mpirun, "--oversubscribe"] + (["--allow-run-as-root"] if os.getuid() == 0 else [])
    status = 0
    report = {"gpus": gpus, "gpu": gpu_name(), "workloads": {}}
    for entry in workloads:
        workload, paths = entry.split(":")
        config = os.path.join(ROOT, "config/examples", workload + ".yaml")
        flags = ["price", config, "--device", "gpu", "--paths", paths, "--format", "json", "--quiet"]
        print(f"== {workload}, {int(paths):,} paths, {gpus} GPU(s) on {report['gpu']}", flush=True)
        counts = [n for n in (1, 2, 4, 8) if n <= gpus]
        configs = [(f"--devices {n}", [pfmc] + flags + ["--devices", str(n)], n, None)
                   for n in counts]
        if gpus > 1:
            # The command line narrows what CUDA starts to the run's GPUs
            # (engine/core/visible_devices.hpp); the same run with every GPU started:
            wide = dict(os.environ, PFMC_NARROW_DEVICES="0")
            configs.append((f"--devices 1, {gpus} started", [pfmc] + flags + ["--devices", "1"], 1,
                            wide))
        if mpi:
            configs += [(f"mpirun -np {n}", launch + ["-np", str(n), pfmc] + flags, n, None)
                        for n in counts if n > 1]
        if gpus == 1:
            configs.append(("--devices 0,0", [pfmc] + flags + ["--devices", "0,0"], 2, None))
            if mpi:
                configs.append(("mpirun -np 2 (1 GPU)", launch + ["-np", "2", pfmc] + flags, 2,
                                None))
        rows = {}
        base_prices = None
        print(f"{'fresh process':<22} {'total_ms':>9} {'speedup':>8} {'wall_ms':>9} {'speedup':>8} "
              f"{'kernel_ms':>9} {'backends':>9}  prices", flush=True)
        for label, command, workers, env in configs:
            try:
                results, walls = run_fresh(command, args.repeat, env)
            except RuntimeError as e:
                print(f"{label:<22} FAILED: {e}")
                status = 1
                continue
            s = summary(results, walls)
            if base_prices is None:
                base_prices = prices(results[0])
                verdict = "reference"
            else:
                verdict = "identical" if prices(results[0]) == base_prices else "DIFFERENT"
                status |= verdict != "identical"
            s["prices"] = verdict
            rows[label] = s
            base = rows["--devices 1"]
            print(f"{label:<22} {s['total_ms']:9.1f} {base['total_ms'] / s['total_ms']:7.2f}x "
                  f"{s['wall_ms']:9.1f} {base['wall_ms'] / s['wall_ms']:7.2f}x "
                  f"{s['kernel_ms']:9.1f} {s['backends_ms']:9.1f}  {verdict}", flush=True)
        report["workloads"][workload] = {"paths": int(paths), "fresh": rows}
        if args.trace:
            os.makedirs(args.trace, exist_ok=True)
            for n in sorted({1, counts[-1]}):
                path = os.path.join(args.trace, f"{workload}-{n}.json")
                env = dict(os.environ, PFMC_TRACE=path)
                try:
                    _, walls = run_fresh([pfmc] + flags + ["--devices", str(n)], 1, env)
                    print(f"-- trace, --devices {n} (fresh process):\n{timeline(path, walls[0])}",
                          flush=True)
                except (RuntimeError, OSError, ValueError) as e:
                    print(f"-- trace --devices {n}: {e}")
            if mpi and counts[-1] > 1:
                n = counts[-1]
                pattern = os.path.join(args.trace, f"{workload}-mpi{n}-%p.json")
                env = dict(os.environ, PFMC_TRACE=pattern)
                try:
                    before = set(os.listdir(args.trace))
                    _, walls = run_fresh(launch + ["-np", str(n), pfmc] + flags, 1, env)
                    for name in sorted(set(os.listdir(args.trace)) - before):
                        print(f"-- trace, mpirun -np {n}, {name}:\n"
                              f"{timeline(os.path.join(args.trace, name), walls[0])}", flush=True)
                except (RuntimeError, OSError, ValueError) as e:
                    print(f"-- trace mpirun -np {n}: {e}")
        if args.no_warm:
            continue
        try:
            warm = run_warm(build, config, int(paths), counts, args.warm_repeat)
        except RuntimeError as e:
            print(f"warm: FAILED: {e}")
            status = 1
            continue
        print(f"{'warm process':<22} {'total_ms':>9} {'speedup':>8} {'first+ms':>9} "
              f"{'kernel_ms':>9} {'outside':>8} {'outside+rng':>11}  prices")
        warm_rows = {}
        for n in counts:
            runs = warm[str(n)]
            later = runs[1:] or runs
            total = statistics.median(r["run"]["total_ms"] for r in later)
            kernel = statistics.median(slowest_kernels(r["run"])[0] for r in later)
            outside = statistics.median(r["run"]["total_ms"] - slowest_kernels(r["run"])[0]
                                        for r in later)
            outside_rng = statistics.median(r["run"]["total_ms"] - slowest_kernels(r["run"])[1]
                                            for r in later)
            first_extra = runs[0]["run"]["total_ms"] - total
            same = all((r["prices"], r["portfolio"]) ==
                       (warm[str(counts[0])][0]["prices"], warm[str(counts[0])][0]["portfolio"])
                       for r in runs)
            status |= not same
            warm_rows[n] = {"total_ms": total, "kernel_ms": kernel, "outside_ms": outside,
                            "outside_rng_ms": outside_rng, "first_extra_ms": first_extra,
                            "totals": [r["run"]["total_ms"] for r in runs],
                            "prices": "identical" if same else "DIFFERENT"}
            base = warm_rows[counts[0]]["total_ms"]
            print(f"{'devices=' + str(n):<22} {total:9.1f} {base / total:7.2f}x {first_extra:9.1f} "
                  f"{kernel:9.1f} {outside:8.2f} {outside_rng:11.2f}  "
                  f"{'identical' if same else 'DIFFERENT'}", flush=True)
        report["workloads"][workload]["warm"] = warm_rows
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
