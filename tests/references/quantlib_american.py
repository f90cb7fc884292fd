#!/usr/bin/python3
"""Reference prices for pfmc's early exercise (tests/test_exercise.cpp): QuantLib 1.29's finite
differences (FdBlackScholesVanillaEngine) on Longstaff and Schwartz's own American puts (2001,
Table 1: K = 40, r = 6%, no dividends), at S = 36, 40, 44, sigma = 0.2 and 0.4, T = 1 and 2.

For each option two exercises:
  - bermudan: every 5 days (73 dates a year, the maturity last): what pfmc prices with
    `exercise: american` on `steps_per_year: 73` (its grid steps fall on those days exactly);
  - american: any time (the continuous limit the 73-date option approaches from below).
Flat, continuously compounded rate and volatility, Actual365Fixed: T = 1 is 365 days.

The FD grid (4000 time steps x 1600 space points, Douglas scheme) is converged to about 1e-4 on
these options (checked against 2000 x 800: the prices move by less than 2e-4).

Needs QuantLib's Python module (Debian: quantlib-python, on /usr/bin/python3).
Usage: tests/references/quantlib_american.py  (prints a C++ table for the test)
"""
import QuantLib as ql

STRIKE, RATE = 40.0, 0.06
EVALUATION_DATE = ql.Date(2, ql.January, 2025)
DAY_COUNTER = ql.Actual365Fixed()
DAYS_BETWEEN_DATES = 5
TIME_STEPS, SPACE_POINTS = 4000, 1600


def flat(rate, valuation=EVALUATION_DATE):
    return ql.YieldTermStructureHandle(
        ql.FlatForward(valuation, rate, DAY_COUNTER, ql.Continuous))


def process(spot, volatility, rate=RATE, valuation=EVALUATION_DATE):
    """Black-Scholes without dividends, flat rate and volatility."""
    return ql.BlackScholesMertonProcess(
        ql.QuoteHandle(ql.SimpleQuote(spot)), flat(0.0, valuation), flat(rate, valuation),
        ql.BlackVolTermStructureHandle(
            ql.BlackConstantVol(valuation, ql.NullCalendar(), volatility, DAY_COUNTER)))


def put_price(spot, volatility, years, exercise_kind, rate=RATE, valuation_delay=0):
    """valuation_delay: days between EVALUATION_DATE and the valuation (the dates held)."""
    valuation = EVALUATION_DATE + valuation_delay
    ql.Settings.instance().evaluationDate = valuation
    days = 365 * years
    maturity = EVALUATION_DATE + days
    if exercise_kind == "american":
        exercise = ql.AmericanExercise(valuation, maturity)
    else:
        dates = [EVALUATION_DATE + d for d in range(DAYS_BETWEEN_DATES, days + 1,
                                                     DAYS_BETWEEN_DATES)]
        exercise = ql.BermudanExercise(dates)
    option = ql.VanillaOption(ql.PlainVanillaPayoff(ql.Option.Put, STRIKE), exercise)
    option.setPricingEngine(
        ql.FdBlackScholesVanillaEngine(process(spot, volatility, rate, valuation), TIME_STEPS,
                                       SPACE_POINTS))
    value = option.NPV()
    ql.Settings.instance().evaluationDate = EVALUATION_DATE
    return value


def european_put(spot, volatility, years):
    ql.Settings.instance().evaluationDate = EVALUATION_DATE
    option = ql.VanillaOption(ql.PlainVanillaPayoff(ql.Option.Put, STRIKE),
                              ql.EuropeanExercise(EVALUATION_DATE + 365 * years))
    option.setPricingEngine(ql.AnalyticEuropeanEngine(process(spot, volatility)))
    return option.NPV()


# A Heston put (tests/test_exercise.cpp's HestonPut): S = K = 100, r = 5%, no dividends, T = 1,
# v0 = theta = 0.04, kappa = 2, xi = 0.3, rho = -0.7.
HESTON = dict(spot=100.0, strike=100.0, rate=0.05, v0=0.04, kappa=2.0, theta=0.04, xi=0.3,
              rho=-0.7)


def heston_put(exercise_kind):
    ql.Settings.instance().evaluationDate = EVALUATION_DATE
    h = HESTON
    maturity = EVALUATION_DATE + 365
    model = ql.HestonModel(ql.HestonProcess(flat(h["rate"]), flat(0.0),
                                            ql.QuoteHandle(ql.SimpleQuote(h["spot"])), h["v0"],
                                            h["kappa"], h["theta"], h["xi"], h["rho"]))
    if exercise_kind == "european":
        exercise = ql.EuropeanExercise(maturity)
    else:
        exercise = ql.BermudanExercise([EVALUATION_DATE + d for d in
                                        range(DAYS_BETWEEN_DATES, 366, DAYS_BETWEEN_DATES)])
    option = ql.VanillaOption(ql.PlainVanillaPayoff(ql.Option.Put, h["strike"]), exercise)
    # 400 time steps, 400 spot and 100 variance points: from 200 x 200 x 50 the Bermudan moves
    # by 1.9e-3 and the European by 3e-4 (it is 1.5e-4 from AnalyticHestonEngine's).
    option.setPricingEngine(ql.FdHestonVanillaEngine(model, 400, 400, 100))
    return option.NPV()


def black_scholes_call(spot, strike, rate, volatility, years):
    """QuantLib's AnalyticEuropeanEngine, no dividends, T = 365 days a year."""
    ql.Settings.instance().evaluationDate = EVALUATION_DATE
    option = ql.VanillaOption(ql.PlainVanillaPayoff(ql.Option.Call, strike),
                              ql.EuropeanExercise(EVALUATION_DATE + int(365 * years)))
    option.setPricingEngine(ql.AnalyticEuropeanEngine(process(spot, volatility, rate)))
    return option.NPV()


def bermudan_put_50_dates_a_year(spot, volatility, strike=40.0, rate=RATE):
    """The 1-year put exercisable at t = i/50, i = 1..50 (config/examples/american.yaml): QuantLib's
    dates are whole days, so the year is rescaled to 350 days (dates every 7 days) with the rate
    and variance rescaled to keep r T and sigma^2 T: the same option."""
    ql.Settings.instance().evaluationDate = EVALUATION_DATE
    scale = 365.0 / 350.0
    dates = [EVALUATION_DATE + d for d in range(7, 351, 7)]
    option = ql.VanillaOption(ql.PlainVanillaPayoff(ql.Option.Put, strike),
                              ql.BermudanExercise(dates))
    scaled = process(spot, volatility * scale ** 0.5, rate * scale)
    option.setPricingEngine(ql.FdBlackScholesVanillaEngine(scaled, TIME_STEPS, SPACE_POINTS))
    return option.NPV()


def bermudan_put_greeks(spot, volatility, years):
    """Every Greek of the Bermudan (every 5 days) put as pfmc takes them: delta and gamma by
    central differences of 1% of the spot, vega of one vol point, rho of 10 bp (central), theta
    as (V(valuation + 1 day) - V) / (1/365) with the exercise dates held."""
    h = 0.01 * spot
    v = put_price(spot, volatility, years, "bermudan")
    up = put_price(spot + h, volatility, years, "bermudan")
    down = put_price(spot - h, volatility, years, "bermudan")
    vega = (put_price(spot, volatility + 0.01, years, "bermudan") -
            put_price(spot, volatility - 0.01, years, "bermudan")) / 0.02
    rho = (put_price(spot, volatility, years, "bermudan", rate=RATE + 0.001) -
           put_price(spot, volatility, years, "bermudan", rate=RATE - 0.001)) / 0.002
    later = put_price(spot, volatility, years, "bermudan", valuation_delay=1)
    return dict(delta=(up - down) / (2 * h), gamma=(up - 2 * v + down) / (h * h), vega=vega,
                rho=rho, theta=(later - v) * 365.0)


def bumped_greeks(spot, volatility, years):
    """Delta, gamma and vega of bermudan_put_greeks (the tuple main() prints)."""
    g = bermudan_put_greeks(spot, volatility, years)
    return g["delta"], g["gamma"], g["vega"]


def main():
    print("// tests/references/quantlib_american.py (QuantLib %s): {S, sigma, T, european, "
          "bermudan every 5 days, american}" % ql.__version__)
    for spot in (36.0, 40.0, 44.0):
        for volatility in (0.2, 0.4):
            for years in (1, 2):
                print("    {%.0f, %.1f, %d, %.6f, %.6f, %.6f}," % (
                    spot, volatility, years, european_put(spot, volatility, years),
                    put_price(spot, volatility, years, "bermudan"),
                    put_price(spot, volatility, years, "american")))
    print("// config/examples/american.yaml: the put exercisable 50 times a year: %.6f" %
          bermudan_put_50_dates_a_year(36.0, 0.2))
    print("// bumped Greeks of the S = 40, sigma = 0.2, T = 1 Bermudan: delta %.5f, gamma %.5f, "
          "vega %.4f" % bumped_greeks(40.0, 0.2, 1))
    print("// Heston put %s: european %.6f, bermudan every 5 days %.6f" % (
        HESTON, heston_put("european"), heston_put("bermudan")))


if __name__ == "__main__":
    main()
