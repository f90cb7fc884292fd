#!/usr/bin/env python3
"""Writes a pfmc config with the options NVIDIA's cuda-samples MonteCarloMultiGPU prices, so that
pfmc and the sample can be timed on the same book (scripts/peers.sh runs the sample).

The sample seeds glibc's rand() with srand(123) and draws, option by option, S, X and T with
    float randFloat(float low, float high) {
        float t = (float)rand() / (float)RAND_MAX;
        return (1.0f - t) * low + t * high;
    }
in float32: S in [5, 50], X in [10, 25], T in [1, 5]; R = 0.06 and V = 0.10 for all. This script
calls the same rand() (libc.so.6 through ctypes) and rounds to float32 after every operation, as
an x86-64 build without FMA contraction does (the sample's CMake build: no -march, so gcc emits
no FMA). Each value is written as the shortest decimal that reads back as the sample's float32.

Usage: scripts/make-mc-sample-book.py [--options N] [--paths N] [--output FILE]
"""
import argparse
import ctypes
import struct
import sys

SEED = 123  # srand(123) in the sample's main()
RAND_MAX = 2147483647  # glibc
RATE = 0.06
VOLATILITY = 0.10


def f32(x):
    """Rounds a Python float (a double) to the nearest float32, as a C float store does."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


class SampleDraws:
    """The sample's randFloat over glibc's rand(), seeded as the sample seeds it."""

    def __init__(self, seed):
        self.libc = ctypes.CDLL("libc.so.6")
        self.libc.rand.restype = ctypes.c_int
        self.libc.srand.argtypes = [ctypes.c_uint]
        self.libc.srand(seed)

    def rand_float(self, low, high):
        # (float)rand() and (float)RAND_MAX round to float32 first (RAND_MAX becomes 2^31);
        # then every operation of the expression rounds: /, 1 - t, (1 - t) * low, t * high, +.
        t = f32(f32(self.libc.rand()) / f32(RAND_MAX))
        return f32(f32(f32(1.0 - t) * low) + f32(t * high))


def shortest(x):
    """The shortest decimal that reads back (as a double, then rounded to float32) as x."""
    for digits in range(1, 10):
        text = f"{x:.{digits}g}"
        if f32(float(text)) == x:
            return text
    raise AssertionError(f"no 9-digit decimal for float32 {x!r}")


def sample_options(count):
    draws = SampleDraws(SEED)
    options = []
    for _ in range(count):
        # Three statements in the sample, so the order of the draws is fixed: S, X, then T.
        spot = draws.rand_float(5.0, 50.0)
        strike = draws.rand_float(10.0, 25.0)
        maturity = draws.rand_float(1.0, 5.0)
        options.append((spot, strike, maturity))
    return options


def config_lines(options, paths):
    count = len(options)
    width = len(str(count - 1))
    lines = [
        f"# NVIDIA cuda-samples MonteCarloMultiGPU's book: {count:,} European calls, each on an",
        "# underlying of its own (no dividend) with a Black-Scholes vol of 10%, r = 6%. S, K and T",
        "# are the float32 values the sample draws after srand(123): S in [5, 50], K in [10, 25],",
        "# T in [1, 5] years. The sample steps each path straight to maturity; steps_per_year 0",
        "# gives a grid of the instruments' dates only. Written by",
        f"# scripts/make-mc-sample-book.py --options {count} --paths {paths}; edit the script, not",
        "# this file. scripts/peers.sh runs and times the sample itself.",
        "market:",
        "  underlyings:",
    ]
    number = [f"{i:0{width}d}" for i in range(count)]
    for n, (spot, _, _) in zip(number, options):
        lines.append(f"    - {{name: S{n}, spot: {shortest(spot)}}}")
    lines.append(f"  rates: {{zero_rate: {RATE}}}")
    lines.append("models:")
    for n in number:
        lines.append(f"  - {{name: bs{n}, type: black_scholes, underlying: S{n}, "
                     f"volatility: {VOLATILITY}}}")
    lines.append("instruments:")
    for n, (_, strike, maturity) in zip(number, options):
        lines.append(f"  - {{id: call{n}, type: european, option: call, "
                     f"strike: {shortest(strike)}, "
                     f"maturity: {shortest(maturity)}, model: bs{n}}}")
    lines.append(f"simulation: {{paths: {paths}, steps_per_year: 0, seed: 42, rng: philox, "
                 "precision: float}")
    lines.append("engine: {device: gpu, backend: auto}")
    return lines


def positive(text):
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--options", type=positive, default=8192,
                        help="number of options (the sample's OPT_N on one GPU: 8192)")
    parser.add_argument("--paths", type=positive, default=262144,
                        help="Monte Carlo paths (the sample's PATH_N: 262144)")
    parser.add_argument("--output", help="file to write (default: stdout)")
    args = parser.parse_args()
    text = "\n".join(config_lines(sample_options(args.options), args.paths)) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
