#!/usr/bin/python3
"""The CPU reference for pfmc: QuantLib's MCEuropeanEngine on the option of
config/examples/european_cpu.yaml, timed on this machine (one thread, as QuantLib runs).

A European call, S = 100, K = 100, T = 1 year, r = 5%, q = 2%, sigma = 20% (flat, continuously
compounded), priced by Monte Carlo with pseudo-random draws (Mersenne twister, inverse normal),
12 time steps, 200,000 paths, seed 42, no antithetic paths; and in closed form
(AnalyticEuropeanEngine). The wall time is that of building the engine and calling NPV(): the
median over --repeat runs, each with a fresh engine (QuantLib caches a result until the
engine changes). Needs QuantLib's Python module (QuantLib 1.29 on /usr/bin/python3).

Usage: scripts/quantlib-european.py [--repeat N]
"""
import argparse
import statistics
import time

import QuantLib as ql

SPOT, STRIKE, RATE, DIVIDEND, VOLATILITY = 100.0, 100.0, 0.05, 0.02, 0.20
TIME_STEPS, SAMPLES, SEED = 12, 200_000, 42
# A fixed date, so that runs agree; the exercise is 365 days on, which Actual365Fixed makes
# exactly one year.
EVALUATION_DATE = ql.Date(2, ql.January, 2025)
DAY_COUNTER = ql.Actual365Fixed()


def european_call():
    ql.Settings.instance().evaluationDate = EVALUATION_DATE
    maturity = EVALUATION_DATE + 365
    option = ql.VanillaOption(ql.PlainVanillaPayoff(ql.Option.Call, STRIKE),
                              ql.EuropeanExercise(maturity))

    def flat(rate):
        return ql.YieldTermStructureHandle(
            ql.FlatForward(EVALUATION_DATE, rate, DAY_COUNTER, ql.Continuous))

    process = ql.BlackScholesMertonProcess(
        ql.QuoteHandle(ql.SimpleQuote(SPOT)), flat(DIVIDEND), flat(RATE),
        ql.BlackVolTermStructureHandle(
            ql.BlackConstantVol(EVALUATION_DATE, ql.NullCalendar(), VOLATILITY, DAY_COUNTER)))
    years = DAY_COUNTER.yearFraction(EVALUATION_DATE, maturity)
    assert years == 1.0, f"T = {years}, not 1"
    return option, process, years


def monte_carlo_engine(process):
    return ql.MCEuropeanEngine(process, "pseudorandom", timeSteps=TIME_STEPS,
                               antitheticVariate=False, requiredSamples=SAMPLES, seed=SEED)


def timed_price(option, process):
    """Builds a fresh engine and prices: (seconds, price, error estimate)."""
    start = time.perf_counter()
    option.setPricingEngine(monte_carlo_engine(process))
    price = option.NPV()
    seconds = time.perf_counter() - start
    return seconds, price, option.errorEstimate()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs (default 5)")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    option, process, years = european_call()
    runs = [timed_price(option, process) for _ in range(args.repeat)]
    seconds = [run[0] for run in runs]
    _, price, error = runs[-1]
    # The same seed gives the same paths: every run prices the same.
    assert all(run[1] == price for run in runs), "runs with one seed disagree"
    option.setPricingEngine(ql.AnalyticEuropeanEngine(process))
    analytic = option.NPV()

    print(f"QuantLib {ql.__version__} MCEuropeanEngine: European call S={SPOT:g} K={STRIKE:g} "
          f"T={years:g} r={RATE:g} q={DIVIDEND:g} sigma={VOLATILITY:g}")
    print(f"  pseudorandom, timeSteps {TIME_STEPS}, requiredSamples {SAMPLES}, seed {SEED}, "
          "no antithetic")
    print(f"mc_price       {price:.6f}")
    print(f"error_estimate {error:.6f}")
    print(f"analytic_price {analytic:.6f}")
    print(f"mc_minus_bs    {price - analytic:+.6f} ({(price - analytic) / error:+.2f} sigma)")
    print(f"wall_ms        {1e3 * statistics.median(seconds):.1f} (median of {args.repeat}; "
          f"min {1e3 * min(seconds):.1f}, max {1e3 * max(seconds):.1f}; engine setup + NPV)")


if __name__ == "__main__":
    main()
