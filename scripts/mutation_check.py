#!/usr/bin/env python3
"""The mutation check (issues 33 and 59): plants, one at a time, the bugs of tests/mutations.txt
and runs the tests that exist to catch them; a mutation is caught when at least one fails.

  scripts/mutation-check.sh --check            every mutation's text occurs once where it is
                                                planted (seconds; CI runs it first)
  scripts/mutation-check.sh --ci BUILD         the `ci` tier in BUILD itself (a configured CPU
                                                build of this checkout, e.g. CI's build-ci): each
                                                mutant rebuilt incrementally and its `catch` tests
                                                run; every planted file restored and touched
  scripts/mutation-check.sh [--cpu] [WORK]     the `ci` and `cpu` tiers in a copy of the tree built
                                                for the CPU suites (default WORK /tmp/pfmc-mutants):
                                                test_engine_cpu whole for each (~25 min, 2 cores)
  scripts/mutation-check.sh --gpu BUILD        the `gpu` tier on a GPU: BUILD's test_gpu, every
                                                kernel compiled by NVRTC from a mutated copy of the
                                                device sources (PFMC_KERNEL_SOURCES), its `catch`
                                                tests, the mutants side by side
  --only NAME,...  only these;  --list  the names, tiers and files

Prints each mutation's result and the tests that caught it (the ci tier: the first), then the count as
`mutations: N caught of N (...)`; exits 1 if any survived, did not apply or did not build, or
the unmutated tree fails the tests first.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(ROOT, "tests", "mutations.txt")


class Mutation:
    def __init__(self, name, line):
        self.name, self.line = name, line
        self.tier = self.file = self.catch = None
        self.text, self.replacement = [], []
        self.suite = "test_engine_cpu"  # the test program of its catch tests (ci and cpu tiers)

    def apply(self, root):
        """Plants the mutation in `root`'s copy of its file; returns the original text."""
        path = os.path.join(root, self.file)
        with open(path) as f:
            source = f.read()
        text, replacement = "\n".join(self.text), "\n".join(self.replacement)
        if source.count(text) != 1:
            raise ValueError("%s: its text occurs %d times in %s" % (self.name, source.count(text), self.file))
        with open(path, "w") as f:
            f.write(source.replace(text, replacement))
        return source


def parse(path=LIST):
    mutations, current = [], None
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("== "):
                current = Mutation(line[3:].strip(), number)
                mutations.append(current)
            elif not line.strip() or line.startswith("#"):
                continue
            elif current is None:
                sys.exit("%s:%d: text before the first '== name'" % (path, number))
            elif line.startswith("- ") or line == "-":
                current.text.append(line[2:])
            elif line.startswith("+ ") or line == "+":
                current.replacement.append(line[2:])
            elif ":" in line and line.split(":", 1)[0] in ("tier", "file", "catch", "suite"):
                key, value = line.split(":", 1)
                setattr(current, key, value.strip())
            else:
                sys.exit("%s:%d: not a mutation's line: %s" % (path, number, line))
    return mutations


def check(mutations):
    """The list's own rules, and each text once in its file: the problems, one a line."""
    problems, names = [], set()
    for m in mutations:
        where = "tests/mutations.txt:%d: %s" % (m.line, m.name)
        if m.name in names:
            problems.append("%s: named twice" % where)
        names.add(m.name)
        if m.tier not in ("ci", "cpu", "gpu"):
            problems.append("%s: tier is %r (ci, cpu or gpu)" % (where, m.tier))
        if not m.file or not m.catch or not m.text or not m.replacement:
            problems.append("%s: needs file, catch, text (- lines) and replacement (+ lines)" % where)
            continue
        if m.text == m.replacement:
            problems.append("%s: the replacement is the text" % where)
        path = os.path.join(ROOT, m.file)
        if not os.path.isfile(path):
            problems.append("%s: %s does not exist" % (where, m.file))
            continue
        count = open(path).read().count("\n".join(m.text))
        if count != 1:
            problems.append("%s: its text occurs %d times in %s (the code moved: update the "
                            "mutation, so that it still plants its bug)" % (where, count, m.file))
    return problems


def run(command, log, cwd=ROOT, env=None, timeout=None):
    with open(log, "w") as out:
        try:
            return subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                  env=env, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            out.write("\n(timed out after %s s)\n" % timeout)
            return 124


def failed_tests(log, status):
    """The failed tests' names in a gtest log; a crash or a run that matched nothing is named too."""
    text = open(log, errors="replace").read()
    failed = sorted({l.split()[3].rstrip(",") for l in text.splitlines()
                     if l.startswith("[  FAILED  ] ") and not l[13:14].isdigit()})
    if status != 0 and not failed:
        failed = ["(ended with status %d)" % status]
    return failed, "0 tests from 0 test" in text or "[==========] 0 tests" in text


def report(results):
    caught = sum(1 for r in results if r[1] == "caught")
    width = max([len(r[0]) for r in results] + [10])
    for name, outcome, detail in results:
        print("%-*s %s%s" % (width, name, outcome, (": " + detail) if detail else ""))
    print("mutations: %d caught of %d" % (caught, len(results)))
    return 0 if caught == len(results) else 1


def catch_run(binary, mutation, log, env=None, timeout=900, fail_fast=False):
    """Its catch tests; with fail_fast, stopped at the first failure (caught is all the tier asks:
    the ci tier's ten *ReferenceCases* mutants each ran seven seconds of cases)."""
    command = [binary, "--gtest_brief=1", "--gtest_filter=" + mutation.catch]
    if fail_fast:
        command.append("--gtest_fail_fast")
    return failed_tests(log, run(command, log, env=env, timeout=timeout))


def ci_tier(mutations, build):
    """Each mutant in BUILD itself: incremental rebuilds of its suite, its catch tests."""
    work = tempfile.mkdtemp(prefix="pfmc-mutants-ci-")
    jobs = str(os.cpu_count() or 2)
    suites = sorted({m.suite for m in mutations})
    build_cmd = ["cmake", "--build", build, "-j", jobs, "--target"] + suites
    if run(build_cmd, os.path.join(work, "build.log")) != 0:
        sys.exit("the unmutated tree does not build: %s/build.log" % work)
    # The unmutated tree passes every mutation's tests (else a failure would mean nothing).
    for suite in suites:
        filters = ":".join(sorted({m.catch for m in mutations if m.suite == suite}))
        log = os.path.join(work, suite + ".base.log")
        failed, _ = failed_tests(log, run([os.path.join(build, suite), "--gtest_brief=1",
                                           "--gtest_filter=" + filters], log))
        if failed:
            sys.exit("the unmutated tree fails already: %s (%s)" % (" ".join(failed), log))
    results = []
    for m in mutations:
        start = time.time()
        original = m.apply(ROOT)
        try:
            # Its own suite alone: the others are relinked once, at the end (a planner mutant
            # rebuilt every suite's binary, pfmc's too, 13 s of its 20).
            own = ["cmake", "--build", build, "-j", jobs, "--target", m.suite]
            if run(own, os.path.join(work, m.name + ".build.log")) != 0:
                results.append((m.name, "DID NOT BUILD", "%s/%s.build.log" % (work, m.name)))
                continue
            failed, none_ran = catch_run(os.path.join(build, m.suite), m,
                                         os.path.join(work, m.name + ".log"), fail_fast=True)
        finally:
            with open(os.path.join(ROOT, m.file), "w") as f:
                f.write(original)  # a new mtime: the next build compiles the original again
        if none_ran:
            results.append((m.name, "NO TEST MATCHES ITS catch", m.catch))
        elif failed:
            results.append((m.name, "caught", "%d s, by %s" % (time.time() - start, " ".join(failed[:6]))))
        else:
            results.append((m.name, "SURVIVED", "its catch tests passed: " + m.catch))
    run(build_cmd, os.path.join(work, "rebuild.log"))
    return report(results)


def cpu_tier(mutations, work):
    """The old check: a copy of the tree built for the CPU suites, test_engine_cpu whole."""
    src, build = os.path.join(work, "src"), os.path.join(work, "build")
    os.makedirs(src, exist_ok=True)
    os.makedirs(build, exist_ok=True)
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout
    # Every file newer than the copy's objects: a mutant's object never stands for the original.
    tar = subprocess.Popen(["tar", "--null", "-T", "-", "-cf", "-"], cwd=ROOT,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    untar = subprocess.Popen(["tar", "-xf", "-", "-C", src, "--touch"], stdin=tar.stdout)
    tar.stdin.write(files)
    tar.stdin.close()
    untar.wait()
    tar.wait()
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
            "-DCMAKE_CUDA_ARCHITECTURES=90", "-DCMAKE_CUDA_COMPILER=" + nvcc, "-DPFMC_KERNELS=none",
            "-DPFMC_BUILD_BENCH=OFF", "-DPFMC_PYTHON=OFF", "-DPFMC_MPI=OFF"],
           os.path.join(work, "configure.log")) != 0:
        sys.exit("configure failed: %s/configure.log" % work)
    suites = sorted({m.suite for m in mutations})
    build_cmd = ["cmake", "--build", build, "-j", str(os.cpu_count() or 2), "--target"] + suites

    def suite(log, name="test_engine_cpu"):
        # The reference cases first, in a process of their own: a mutation that makes another
        # test read out of bounds must not hide what they find.
        failed = []
        parts = ("*ReferenceCases*", "-*ReferenceCases*") if name == "test_engine_cpu" else ("*",)
        for part in parts:
            status = run([os.path.join(build, name), "--gtest_brief=1", "--gtest_filter=" + part],
                         log + part[0])
            failed += failed_tests(log + part[0], status)[0]
        return sorted(set(failed))

    print("building the unmutated copy in %s ..." % build, flush=True)
    if run(build_cmd, os.path.join(work, "build.log")) != 0:
        sys.exit("the unmutated copy does not build: %s/build.log" % work)
    base = sum((suite(os.path.join(work, name + ".base.log"), name) for name in suites), [])
    if base:
        sys.exit("the unmutated copy fails already: " + " ".join(base))
    results = []
    for m in mutations:
        original = m.apply(src)
        try:
            if run(build_cmd, os.path.join(work, m.name + ".build.log")) != 0:
                results.append((m.name, "DID NOT BUILD", "%s/%s.build.log" % (work, m.name)))
                continue
            failed = suite(os.path.join(work, m.name + ".log"), m.suite)
        finally:
            with open(os.path.join(src, m.file), "w") as f:
                f.write(original)
        results.append((m.name, "caught" if failed else "SURVIVED",
                        ("by %d: %s" % (len(failed), " ".join(failed[:6]))) if failed else ""))
    run(build_cmd, os.path.join(work, "rebuild.log"))
    return report(results)


def gpu_tier(mutations, build, jobs, timeout=480):
    """Each mutant's device sources in a folder of its own, read by NVRTC: no rebuild."""
    binary = os.path.join(build, "test_gpu")
    work = tempfile.mkdtemp(prefix="pfmc-mutants-gpu-")
    base_env = dict(os.environ, PFMC_COMPILE_AT_RUNTIME="1", PFMC_TEST_WARM="0")

    def tree(name):
        root = os.path.join(work, name)
        for part in ("kernels", "models"):
            shutil.copytree(os.path.join(ROOT, part), os.path.join(root, part))
        return root

    def start(name, mutation):
        root = tree(name)
        if mutation is not None:
            mutation.apply(root)
        env = dict(base_env, PFMC_KERNEL_SOURCES=root,
                   PFMC_KERNEL_CACHE=os.path.join(work, name + "-cache"))
        catch = mutation.catch if mutation else ":".join(sorted({m.catch for m in mutations}))
        log = open(os.path.join(work, name + ".log"), "w")
        return subprocess.Popen([binary, "--gtest_brief=1", "--gtest_filter=" + catch], env=env,
                                stdout=log, stderr=subprocess.STDOUT), log.name

    # The unmutated sources beside the mutants: every catch test must pass with the kernels
    # NVRTC compiles from them, else a mutant's failure would mean nothing.
    results, running, base_failed, timed_out = [], [], None, set()
    pending = [None] + list(mutations)
    while pending or running:
        while pending and len(running) < jobs:
            m = pending.pop(0)
            running.append((m, time.time()) + start(m.name if m else "unmutated", m))
        time.sleep(2)
        for item in list(running):
            m, began, process, log = item
            if process.poll() is None:
                if time.time() - began > timeout:
                    process.kill()
                    timed_out.add(m.name if m else None)
                continue
            running.remove(item)
            failed, none_ran = failed_tests(log, process.returncode)
            if (m.name if m else None) in timed_out:
                # Cut at the time limit (its kernels still compiling, or a hang): not a catch.
                failed = [f for f in failed if not f.startswith("(ended with status")]
                if not failed:
                    if m is None:
                        base_failed = ["(timed out after %d s)" % timeout]
                        print("unmutated: timed out after %d s" % timeout, flush=True)
                    else:
                        results.append((m.name, "TIMED OUT", "after %d s" % timeout))
                        print("%s: TIMED OUT" % m.name, flush=True)
                    continue
            if m is None:
                base_failed = failed or (["(no test ran)"] if none_ran else [])
                print("unmutated: %s in %d s" % ("failed: " + " ".join(base_failed) if base_failed
                                                 else "passed", time.time() - began), flush=True)
                continue
            elif none_ran:
                results.append((m.name, "NO TEST MATCHES ITS catch", m.catch))
            elif failed:
                results.append((m.name, "caught", "%d s, by %s" % (time.time() - began, " ".join(failed[:6]))))
            else:
                results.append((m.name, "SURVIVED", "its catch tests passed: " + m.catch))
            # Each as it ends: a call cut short still says what it found.
            print("%s: %s" % (results[-1][0], results[-1][1]), flush=True)
    status = report(sorted(results))
    if base_failed:
        print("the unmutated device sources fail the catch tests: %s (%s/unmutated.log)"
              % (" ".join(base_failed), work))
        return 1
    return status


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--list", action="store_true")
    mode.add_argument("--ci", metavar="BUILD")
    mode.add_argument("--gpu", metavar="BUILD")
    mode.add_argument("--cpu", action="store_true")
    parser.add_argument("--only", default="")
    parser.add_argument("--jobs", type=int, default=4, help="--gpu: mutants at once (default 4)")
    parser.add_argument("--seconds", type=int, default=480,
                        help="--gpu: each mutant's time limit (default 480)")
    parser.add_argument("work", nargs="?", default="/tmp/pfmc-mutants")
    args = parser.parse_args()
    mutations = parse()
    problems = check(mutations)
    if args.list:
        for m in mutations:
            print("%-48s %-4s %s" % (m.name, m.tier, m.file))
        print("%d mutations: %s" % (len(mutations), ", ".join(
            "%d %s" % (sum(1 for m in mutations if m.tier == t), t) for t in ("ci", "cpu", "gpu"))))
        return 0
    if problems:
        print("\n".join(problems))
        print("mutation check: %d of %d mutations no longer apply" % (len(problems), len(mutations)))
        return 1
    if args.check:
        print("mutation check: all %d mutations apply (%s)" % (len(mutations), ", ".join(
            "%d %s" % (sum(1 for m in mutations if m.tier == t), t) for t in ("ci", "cpu", "gpu"))))
        return 0
    only = set(filter(None, args.only.split(",")))
    unknown = only - {m.name for m in mutations}
    if unknown:
        print("no mutation is named %s" % ", ".join(sorted(unknown)))
        return 2
    pick = lambda tiers: [m for m in mutations if m.tier in tiers and (not only or m.name in only)]
    if args.ci:
        return ci_tier(pick(("ci",)), os.path.abspath(args.ci))
    if args.gpu:
        return gpu_tier(pick(("gpu",)), os.path.abspath(args.gpu), args.jobs, args.seconds)
    return cpu_tier(pick(("ci", "cpu")), os.path.abspath(args.work))


if __name__ == "__main__":
    sys.exit(main())
