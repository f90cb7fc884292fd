#!/usr/bin/python3
"""Reference calibrations for pfmc's Heston calibration (tests/test_market.cpp): QuantLib 1.29's
HestonModel fitted by its Levenberg-Marquardt to HestonModelHelpers, on two sets of quotes that
share nothing with pfmc's code:

  - heston: the implied vols of a known Heston model (QuantLib's AnalyticHestonEngine prices,
    inverted by QuantLib's impliedVolatility), which a calibration must recover;
  - ssvi: an equity-index smile from an SSVI surface (Gatheral and Jacquier 2014, total variance
    w(k, theta_t) = theta_t / 2 (1 + rho phi k + sqrt((phi k + rho)^2 + 1 - rho^2)), phi =
    eta / theta^gamma, arbitrage-free for these parameters), which no Heston model fits exactly:
    the test asks pfmc for no worse a fit than QuantLib's.

Market: spot 100, dividend yield 1%, zero rate 3%, flat and continuously compounded,
Actual365Fixed; expiries are whole days (T = days / 365). Each helper's error is the implied vol
error (ImpliedVolError), so QuantLib minimises what the test compares: the root mean square of
model - quote vols, in vol points.

Needs QuantLib's Python module (Debian: quantlib-python, on /usr/bin/python3).
Usage: tests/references/quantlib_heston_calibration.py \\
  | clang-format --assume-filename=tests/heston_calibration_references.hpp > tests/heston_calibration_references.hpp
"""
import math

import QuantLib as ql

SPOT, DIVIDEND, RATE = 100.0, 0.01, 0.03
TODAY = ql.Date(2, ql.January, 2025)
DAYS = [30, 91, 182, 365, 730]
STRIKES = [70.0, 80.0, 90.0, 95.0, 100.0, 105.0, 110.0, 120.0, 130.0]
TRUTH = dict(v0=0.04, kappa=1.5, theta=0.06, xi=0.5, rho=-0.7)
SSVI = dict(atm_vols=[0.24, 0.22, 0.21, 0.20, 0.195], rho=-0.6, eta=1.2, gamma=0.45)
START = dict(v0=0.04, kappa=1.5, theta=0.04, xi=0.6, rho=-0.5)

ql.Settings.instance().evaluationDate = TODAY
DC = ql.Actual365Fixed()
spot = ql.QuoteHandle(ql.SimpleQuote(SPOT))
rates = ql.YieldTermStructureHandle(ql.FlatForward(TODAY, RATE, DC, ql.Continuous))
dividends = ql.YieldTermStructureHandle(ql.FlatForward(TODAY, DIVIDEND, DC, ql.Continuous))


def forward(t):
    return SPOT * math.exp((RATE - DIVIDEND) * t)


def heston_quotes():
    """The truth's implied vols, out-of-the-money options, by QuantLib alone."""
    process = ql.HestonProcess(rates, dividends, spot, TRUTH["v0"], TRUTH["kappa"],
                               TRUTH["theta"], TRUTH["xi"], TRUTH["rho"])
    engine = ql.AnalyticHestonEngine(ql.HestonModel(process), 1e-12, 100000)
    quotes = []
    for days in DAYS:
        t = days / 365.0
        for strike in STRIKES:
            kind = ql.Option.Call if strike >= forward(t) else ql.Option.Put
            option = ql.EuropeanOption(ql.PlainVanillaPayoff(kind, strike),
                                       ql.EuropeanExercise(TODAY + days))
            option.setPricingEngine(engine)
            vol_ts = ql.BlackVolTermStructureHandle(
                ql.BlackConstantVol(TODAY, ql.NullCalendar(), 0.2, DC))
            bsm = ql.BlackScholesMertonProcess(spot, dividends, rates, vol_ts)
            vol = option.impliedVolatility(option.NPV(), bsm, 1e-14, 1000, 1e-4, 4.0)
            quotes.append((days, strike, vol))
    return quotes


def ssvi_quotes():
    quotes = []
    for days, atm in zip(DAYS, SSVI["atm_vols"]):
        t = days / 365.0
        theta = atm * atm * t
        phi = SSVI["eta"] / theta ** SSVI["gamma"]
        rho = SSVI["rho"]
        for strike in STRIKES:
            k = math.log(strike / forward(t))
            w = theta / 2 * (1 + rho * phi * k + math.sqrt((phi * k + rho) ** 2 + 1 - rho * rho))
            quotes.append((days, strike, math.sqrt(w / t)))
    return quotes


def calibrate(quotes):
    process = ql.HestonProcess(rates, dividends, spot, START["v0"], START["kappa"],
                               START["theta"], START["xi"], START["rho"])
    model = ql.HestonModel(process)
    engine = ql.AnalyticHestonEngine(model, 1e-12, 100000)
    helpers = []
    for days, strike, vol in quotes:
        helper = ql.HestonModelHelper(ql.Period(days, ql.Days), ql.NullCalendar(), SPOT, strike,
                                      ql.QuoteHandle(ql.SimpleQuote(vol)), rates, dividends,
                                      ql.BlackCalibrationHelper.ImpliedVolError)
        helper.setPricingEngine(engine)
        helpers.append(helper)
    method = ql.LevenbergMarquardt(1e-12, 1e-12, 1e-12)
    model.calibrate(helpers, method, ql.EndCriteria(10000, 1000, 1e-14, 1e-14, 1e-14))
    errors = []
    for helper, (days, strike, vol) in zip(helpers, quotes):
        model_vol = helper.impliedVolatility(helper.modelValue(), 1e-14, 1000, 1e-4, 4.0)
        errors.append(100 * (model_vol - vol))
    rmse = math.sqrt(sum(e * e for e in errors) / len(errors))
    v0, kappa, theta, xi, rho = (model.v0(), model.kappa(), model.theta(), model.sigma(),
                                 model.rho())
    return dict(v0=v0, kappa=kappa, theta=theta, xi=xi, rho=rho, rmse=rmse)


def emit(name, quotes, fit):
    print("// %s: %d quotes (days, strike, vol); QuantLib's fit: v0 %.6f kappa %.6f theta %.6f "
          "xi %.6f rho %.6f" % (name, len(quotes), fit["v0"], fit["kappa"], fit["theta"],
                                 fit["xi"], fit["rho"]))
    print("inline const std::vector<CalibrationQuote> k%sQuotes = {" % name)
    for days, strike, vol in quotes:
        print("    {%d, %.1f, %.17g}," % (days, strike, vol))
    print("};")
    print("inline constexpr double k%sQuantLibRmse = %.17g; // vol points" % (name, fit["rmse"]))
    print()


def main():
    print("#pragma once")
    print("// Written by tests/references/quantlib_heston_calibration.py (QuantLib %s); do not"
          % ql.__version__)
    print("// edit. Market: spot %g, dividend yield %g, zero rate %g (flat, continuous), T = days / 365."
          % (SPOT, DIVIDEND, RATE))
    print()
    print("#include <vector>")
    print()
    print("namespace pfmc::testing::calibration {")
    print()
    print("struct CalibrationQuote {")
    print("  int days;")
    print("  double strike;")
    print("  double vol;")
    print("};")
    print("inline constexpr double kSpot = %g, kDividend = %g, kRate = %g;" % (SPOT, DIVIDEND, RATE))
    print("// The Heston quotes' model.")
    print("inline constexpr double kTruth[5] = {%g, %g, %g, %g, %g}; // v0, kappa, theta, xi, rho"
          % (TRUTH["v0"], TRUTH["kappa"], TRUTH["theta"], TRUTH["xi"], TRUTH["rho"]))
    print()
    for name, quotes in (("Heston", heston_quotes()), ("Ssvi", ssvi_quotes())):
        emit(name, quotes, calibrate(quotes))
    print("} // namespace pfmc::testing::calibration")


if __name__ == "__main__":
    main()
