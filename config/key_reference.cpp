// The config reference's table (key_reference.hpp): one entry per key of each section, in the
// order the loader's messages list them.

#include "config/key_reference.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "config/csv_table.hpp"
#include "config/setting_rules.hpp"
#include "config/spellings.hpp"

namespace pfmc::config::reference {

namespace {

/// A key, built a field at a time: K("spot", Kind::number, "number > 0").req().unit("...")...
class K {
public:
  K(std::string name, Kind kind, std::string type) {
    key_.name = std::move(name);
    key_.kind = kind;
    key_.type = std::move(type);
  }
  K& req() {
    key_.required = true;
    return *this;
  }
  K& def(std::string value) {
    key_.default_value = std::move(value);
    return *this;
  }
  K& unit(std::string value) {
    key_.unit = std::move(value);
    return *this;
  }
  K& only(std::vector<std::string> types) {
    key_.only_for = std::move(types);
    return *this;
  }
  K& yaml_only() {
    key_.source = Source::yaml;
    return *this;
  }
  K& csv_only() {
    key_.source = Source::csv;
    return *this;
  }
  K& doc(std::string text) {
    key_.description = std::move(text);
    return *this;
  }
  K& ex(std::string yaml) {
    key_.example = std::move(yaml);
    return *this;
  }
  K& values(std::vector<std::string> allowed) {
    key_.allowed = std::move(allowed);
    return *this;
  }
  K& of(std::string section) {
    key_.section = std::move(section);
    return *this;
  }
  K& json(std::string schema) {
    key_.json = std::move(schema);
    return *this;
  }
  operator Key() const { return key_; } // NOLINT(google-explicit-constructor)

private:
  Key key_;
};

using spellings::of;

// JSON Schemas of the values that take several shapes.
const char* const kPositiveIntegerOrAuto =
    R"({"anyOf": [{"const": "auto"}, {"type": "integer", "minimum": 1}]})";
const char* const kBytes =
    R"({"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": )"
    R"("^[0-9]+(\\.[0-9]+)?\\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)?$"}]})";

Section top_level() {
  return {
      "",
      "The top level",
      "A run's YAML file: the market, the models on it, the instruments, the positions held, "
      "how to simulate, where to run and, optionally, the risk to price.",
      {K("market", Kind::section, "mapping").req().of("market").doc("Spots, rates and quotes."),
       K("models", Kind::section_list, "list")
           .req()
           .of("models[]")
           .doc("The dynamics; each instrument names one."),
       K("instruments", Kind::list_or_csv, "list or {csv: FILE}")
           .req()
           .of("instruments[]")
           .doc("What is priced: a list, or a CSV trade list (one instrument a row)."),
       K("portfolio", Kind::list_or_csv, "list or {csv: FILE}")
           .of("portfolio[]")
           .doc("The positions whose value is reported; none: no portfolio value."),
       K("simulation", Kind::section, "mapping")
           .of("simulation")
           .doc("Paths, steps, generator, precision, methods and Greeks; every key has a default."),
       K("engine", Kind::section, "mapping")
           .of("engine")
           .doc("Where and how to run: device, backend, memory; every key has a default."),
       K("risk", Kind::section, "mapping")
           .of("risk")
           .doc("Ladders, stress scenarios and historical VaR, priced by `pfmc risk`.")},
      ""};
}

Section market() {
  return {
      "market",
      "market",
      "Today's market: underlyings with their spots, the zero curve, and implied-vol quotes.",
      {K("underlyings", Kind::section_list, "list")
           .req()
           .of("market.underlyings[]")
           .doc("Every underlying a model names."),
       K("rates", Kind::section, "mapping")
           .req()
           .of("market.rates")
           .doc("The zero curve (continuously compounded), flat or by tenor."),
       K("implied_vols", Kind::custom, "list")
           .of("market.implied_vols[]")
           .doc("Black implied-vol quotes per underlying: grids, or `{csv: FILE}` items (columns "
                "`underlying, expiry, strike, vol`). Checked for calendar and butterfly "
                "arbitrage; fitted by `pfmc calibrate` and by `surface: implied`.")
           .json(R"({"type": "array", "minItems": 1, "items": {"anyOf": [)"
                 R"({"$ref": "#/$defs/market.implied_vols[]"}, {"$ref": "#/$defs/csv_file"}]}})")},
      ""};
}

Section market_underlyings() {
  return {"market.underlyings[]",
          "market.underlyings[] (an underlying)",
          "",
          {K("name", Kind::text, "name").req().doc("Unique; models name it.").ex("SPX"),
           K("spot", Kind::number, "number > 0").req().doc("Today's spot.").ex("100.0"),
           K("dividend_yield", Kind::number, "number in [-1, 1]")
               .def("0")
               .unit("per year, continuous")
               .doc("Continuous dividend yield.")
               .ex("0.02")},
          ""};
}

Section market_rates() {
  return {"market.rates",
          "market.rates",
          "Give either `zero_rate`, or `tenors` with `zero_rates`.",
          {K("zero_rate", Kind::number, "number in [-1, 1]")
               .unit("per year, continuous")
               .doc("A flat zero rate.")
               .ex("0.05"),
           K("tenors", Kind::numbers, "increasing list of numbers > 0")
               .unit("years")
               .doc("The curve's pillars (with `zero_rates`); linear in rate·time between them, "
                    "flat beyond.")
               .ex("[0.5, 1, 2]"),
           K("zero_rates", Kind::numbers, "list of numbers in [-1, 1], one per tenor")
               .unit("per year, continuous")
               .doc("The zero rate at each tenor.")
               .ex("[0.03, 0.035, 0.04]")},
          ""};
}

Section market_implied_vols() {
  return {
      "market.implied_vols[]",
      "market.implied_vols[] (a grid of quotes)",
      "One underlying's quotes: `vols[i][j]` is the Black vol at `expiries[i]` and the j-th "
      "option, placed by one of `strikes`, `log_moneyness` or `deltas`. An item `{csv: FILE, "
      "delimiter}` instead gives a quote a row (Excel's CSV as trade lists read it).",
      {K("underlying", Kind::text, "name").req().doc("An underlying of the market.").ex("SPX"),
       K("expiries", Kind::numbers, "increasing list of numbers > 0")
           .req()
           .unit("years")
           .ex("[0.25, 0.5, 1]"),
       K("strikes", Kind::numbers, "increasing list of numbers > 0")
           .doc("The options' strikes (or `log_moneyness`, or `deltas`).")
           .ex("[80, 90, 100, 110, 120]"),
       K("log_moneyness", Kind::numbers, "increasing list of numbers")
           .doc("The options' forward log-moneyness k = ln(K / F(T)), F the underlying's "
                "forward at each expiry.")
           .ex("[-0.2, -0.1, 0, 0.1]"),
       K("deltas", Kind::numbers, "decreasing list of numbers in (0, 1)")
           .doc("The options' forward call deltas N(d1), each turned into a strike under its "
                "own quoted vol: K = F exp(-vol sqrt(T) N^-1(delta) + vol^2 T / 2).")
           .ex("[0.9, 0.75, 0.5, 0.25, 0.1]"),
       K("vols", Kind::number_rows, "rows of numbers in (0, 5], a row an expiry, a vol a strike")
           .req()
           .ex("[[0.28, 0.24, 0.21, 0.19, 0.18], ...]")},
      "underlying, expiry, one of strike, log_moneyness and delta, vol; an underlying's rows by "
      "expiry, then strike"};
}

Section models() {
  return {"models[]",
          "models[] (a model)",
          "A model of one underlying (`black_scholes`, `heston`, `local_vol`) or of 2-4 correlated "
          "ones (`multi_black_scholes`). Instruments on one model share its paths (a simulation "
          "group).",
          {K("name", Kind::text, "name").req().doc("Unique; instruments name it.").ex("spx_bs"),
           K("type", Kind::choice, "choice").req().values(of(spellings::kModelTypes)).ex("heston"),
           K("underlying", Kind::text, "name")
               .req()
               .only({"black_scholes", "heston", "local_vol"})
               .doc("An underlying of the market.")
               .ex("SPX"),
           K("volatility", Kind::custom, "number in (0, 5], or {tenors, vols}")
               .req()
               .only({"black_scholes"})
               .unit("per sqrt(year)")
               .of("models[].volatility")
               .doc("A flat Black vol, or a term structure (total variance linear between "
                    "pillars; it must not decrease).")
               .ex("0.2")
               .json(R"({"anyOf": [{"type": "number", "exclusiveMinimum": 0, "maximum": 5}, )"
                     R"({"$ref": "#/$defs/models[].volatility"}]})"),
           K("v0", Kind::number, "number >= 0")
               .req()
               .only({"heston"})
               .doc("The initial variance.")
               .ex("0.04"),
           K("kappa", Kind::number, "number > 0")
               .req()
               .only({"heston"})
               .unit("per year")
               .doc("The variance's speed of mean reversion.")
               .ex("1.5"),
           K("theta", Kind::number, "number > 0")
               .req()
               .only({"heston"})
               .doc("The long-run variance.")
               .ex("0.04"),
           K("xi", Kind::number, "number > 0")
               .req()
               .only({"heston"})
               .doc("The vol of variance.")
               .ex("0.5"),
           K("rho", Kind::number, "number in [-1, 1]")
               .req()
               .only({"heston"})
               .doc("The correlation of the spot's and the variance's draws.")
               .ex("-0.7"),
           K("scheme", Kind::choice, "choice")
               .def("qe")
               .only({"heston"})
               .values(of(spellings::kHestonSchemes))
               .doc("Andersen's quadratic-exponential scheme with martingale correction, or "
                    "full-truncation Euler.")
               .ex("full_truncation"),
           K("surface", Kind::custom, "implied, or {times, log_moneyness, vols}")
               .req()
               .only({"local_vol"})
               .of("models[].surface")
               .values({"implied"})
               .doc("Dupire local vol: a grid of sigma(t, k), k = ln(S / F(0, t)), or `implied`: "
                    "built from the underlying's `market.implied_vols`.")
               .ex("implied")
               .json(R"({"anyOf": [{"const": "implied"}, {"$ref": "#/$defs/models[].surface"}]})"),
           K("underlyings", Kind::texts, "list of 2-4 names")
               .req()
               .only({"multi_black_scholes"})
               .doc("The basket's underlyings, in the order of `volatilities` and `correlation`.")
               .ex("[A, B]"),
           K("volatilities", Kind::numbers, "list of numbers in (0, 5], one per underlying")
               .req()
               .only({"multi_black_scholes"})
               .unit("per sqrt(year)")
               .ex("[0.3, 0.25]"),
           K("correlation", Kind::number_rows, "symmetric, unit diagonal, positive definite")
               .req()
               .only({"multi_black_scholes"})
               .doc("The draws' correlation matrix.")
               .ex("[[1, 0.5], [0.5, 1]]")},
          ""};
}

Section models_volatility() {
  return {"models[].volatility",
          "models[].volatility (a Black vol term structure)",
          "",
          {K("tenors", Kind::numbers, "increasing list of numbers > 0")
               .req()
               .unit("years")
               .ex("[0.5, 1, 2]"),
           K("vols", Kind::numbers, "list of numbers in (0, 5], one per tenor")
               .req()
               .unit("per sqrt(year)")
               .doc("Black vols; total variance must not decrease.")
               .ex("[0.22, 0.2, 0.19]")},
          ""};
}

Section models_surface() {
  return {"models[].surface",
          "models[].surface (a local-vol grid)",
          "Bilinear in (time, log forward moneyness), flat outside the grid.",
          {K("times", Kind::numbers, "increasing list of numbers >= 0")
               .req()
               .unit("years")
               .ex("[0.25, 1, 2]"),
           K("log_moneyness", Kind::numbers, "increasing list, at most 32 values")
               .req()
               .doc("k = ln(S / F(0, t)).")
               .ex("[-0.5, 0, 0.5]"),
           K("vols", Kind::number_rows, "rows of numbers in (0, 5], a row per time")
               .req()
               .unit("per sqrt(year)")
               .ex("[[0.3, 0.22, 0.19], [0.28, 0.21, 0.19], [0.26, 0.21, 0.19]]")},
          ""};
}

/// An instrument's knock: a `knock` mapping in YAML, five `knock_*` columns in CSV.
std::vector<Key> knock_keys(const std::vector<std::string>& not_barrier) {
  return {K("knock", Kind::section, "mapping")
              .only(not_barrier)
              .yaml_only()
              .of("instruments[].knock")
              .doc("A barrier on the payoff: paid only if alive at maturity, else the rebate. On a "
                   "basket it watches the basket's level."),
          K("knock_type", Kind::choice, "choice")
              .only(not_barrier)
              .csv_only()
              .values(of(spellings::kBarrierTypes))
              .doc("CSV: the knock's `type`.")
              .ex("down_and_out"),
          K("knock_level", Kind::number, "number")
              .only(not_barrier)
              .csv_only()
              .doc("CSV: the knock's `level`.")
              .ex("90"),
          K("knock_monitoring", Kind::integer, "integer 1..100000")
              .only(not_barrier)
              .csv_only()
              .doc("CSV: the knock's `monitoring`.")
              .ex("252"),
          K("knock_monitoring_times", Kind::numbers, "increasing list in (0, maturity]")
              .only(not_barrier)
              .csv_only()
              .doc("CSV: the knock's `monitoring_times`.")
              .ex("0.5 1.0"),
          K("knock_rebate", Kind::number, "number >= 0")
              .def("0")
              .only(not_barrier)
              .csv_only()
              .doc("CSV: the knock's `rebate`.")
              .ex("0")};
}

Section instruments() {
  const std::vector<std::string> not_barrier = {"european", "digital", "asian", "basket"};
  Section section = {
      "instruments[]",
      "instruments[] (an instrument)",
      "An option on one model. Every fixing, monitoring date and maturity lies on the "
      "simulation grid. In a CSV trade list each key is a column (an empty cell: not given), "
      "a list a cell (`0.25 0.5 1` or `0.25;0.5;1`), and a knock is the `knock_*` columns.",
      {K("id", Kind::text, "name").req().doc("Unique; positions name it.").ex("atm_call"),
       K("type", Kind::choice, "choice")
           .req()
           .values(of(spellings::kInstrumentTypes))
           .doc("`barrier` is a European with a knock in its own keys; `basket` needs a "
                "`multi_black_scholes` model.")
           .ex("european"),
       K("option", Kind::choice, "choice").req().values(of(spellings::kOptionTypes)).ex("call"),
       K("strike", Kind::number, "number > 0").req().ex("100"),
       K("maturity", Kind::number, "number > 0").req().unit("years").ex("1.0"),
       K("model", Kind::text, "name").req().doc("A model's name.").ex("spx_bs"),
       K("cash", Kind::number, "number > 0")
           .def("1")
           .only({"digital"})
           .doc("What a cash-or-nothing digital pays in the money.")
           .ex("1.0"),
       K("average", Kind::choice, "choice")
           .req()
           .only({"asian"})
           .values(of(spellings::kAverageTypes))
           .ex("arithmetic"),
       K("fixings", Kind::integer, "integer 1..100000")
           .only({"asian"})
           .doc("N fixings at T·i/N, i = 1..N (or `fixing_times`).")
           .ex("12"),
       K("fixing_times", Kind::numbers, "increasing list in (0, maturity]")
           .only({"asian"})
           .unit("years")
           .doc("The fixings' times (or `fixings`).")
           .ex("[0.25, 0.5, 0.75, 1.0]"),
       K("barrier", Kind::number, "number > 0")
           .req()
           .only({"barrier"})
           .doc("The barrier level: below the spot for down barriers, above for up.")
           .ex("90"),
       K("barrier_type", Kind::choice, "choice")
           .req()
           .only({"barrier"})
           .values(of(spellings::kBarrierTypes))
           .ex("down_and_out"),
       K("rebate", Kind::number, "number >= 0")
           .def("0")
           .only({"barrier"})
           .doc("Paid at maturity to a knocked-out option, or to a knock-in never knocked in.")
           .ex("0.0"),
       K("monitoring", Kind::integer, "integer 1..100000")
           .only({"barrier"})
           .doc("N monitoring dates T·i/N (or `monitoring_times`); a level touched counts.")
           .ex("252"),
       K("monitoring_times", Kind::numbers, "increasing list in (0, maturity]")
           .only({"barrier"})
           .unit("years")
           .doc("The monitoring dates (or `monitoring`).")
           .ex("[0.5, 1.0]"),
       K("payoff", Kind::choice, "choice")
           .req()
           .only({"basket"})
           .values(of(spellings::kBasketPayoffs))
           .doc("The basket's level: sum, max or min of w_i·S_i.")
           .ex("weighted"),
       K("weights", Kind::numbers, "list, one per underlying of the model")
           .only({"basket"})
           .def("1/n (weighted), 1 (max, min)")
           .doc("Not all 0; > 0 for max and min.")
           .ex("[0.5, 0.5]"),
       K("exercise", Kind::choice, "choice")
           .def("european")
           .only({"european", "basket"})
           .values(of(spellings::kExerciseStyles))
           .doc("Early exercise by Longstaff-Schwartz: `american` at every step of the grid, "
                "`bermudan` at `exercise_dates` or `exercise_times` (the maturity among them). "
                "Not with a knock.")
           .ex("american"),
       K("exercise_dates", Kind::integer, "integer 1..100000")
           .only({"european", "basket"})
           .doc("Bermudan: N dates T·i/N.")
           .ex("12"),
       K("exercise_times", Kind::numbers, "increasing list in (0, maturity]")
           .only({"european", "basket"})
           .unit("years")
           .doc("Bermudan: the dates.")
           .ex("[0.5, 1.0]")},
      "the keys above as columns, the knock as knock_type, knock_level, knock_monitoring, "
      "knock_monitoring_times, knock_rebate"};
  for (Key& key : knock_keys(not_barrier))
    section.keys.push_back(std::move(key));
  return section;
}

Section instruments_knock() {
  return {"instruments[].knock",
          "instruments[].knock",
          "A knock on a European, digital, Asian or basket (give `monitoring` or "
          "`monitoring_times`).",
          {K("type", Kind::choice, "choice")
               .req()
               .values(of(spellings::kBarrierTypes))
               .ex("down_and_out"),
           K("level", Kind::number, "number (> 0 on one underlying)")
               .req()
               .doc("Below the start for down knocks, above for up.")
               .ex("90"),
           K("monitoring", Kind::integer, "integer 1..100000").doc("N dates T·i/N.").ex("365"),
           K("monitoring_times", Kind::numbers, "increasing list in (0, maturity]")
               .unit("years")
               .ex("[0.5, 1.0]"),
           K("rebate", Kind::number, "number >= 0").def("0").ex("0.0")},
          ""};
}

Section portfolio() {
  return {"portfolio[]",
          "portfolio[] (a position)",
          "Each instrument at most once.",
          {K("instrument", Kind::text, "name").req().doc("An instrument's id.").ex("atm_call"),
           K("quantity", Kind::number, "number, not 0").req().doc("Negative: short.").ex("10")},
          "instrument, quantity"};
}

Section simulation() {
  return {
      "simulation",
      "simulation",
      "How to simulate. Each key is also a flag of `pfmc price` (`--paths`, `--seed`, ...) and "
      "a keyword of Python's `pfmc.price`.",
      {K("paths", Kind::integer, "integer 1..1e12")
           .def("100000")
           .doc("Paths per simulation group (even with `antithetic`).")
           .ex("1000000"),
       K("steps_per_year", Kind::integer, "integer 0..100000")
           .def("252")
           .doc("The uniform grid's steps a year, plus every date an instrument needs; 0: only "
                "those dates (the event grid; black_scholes and multi_black_scholes only).")
           .ex("52"),
       K("seed", Kind::integer, "integer 0..2^64-1").def("42").ex("7"),
       K("rng", Kind::choice, "choice")
           .def("philox")
           .values(of(spellings::kRngs))
           .doc("Philox4x32-10 (counter-based) and MRG32k3a are pseudo-random; `sobol` and "
                "`scrambled_sobol` quasi-random (plain `sobol` reports no standard error).")
           .ex("scrambled_sobol"),
       K("precision", Kind::choice, "choice")
           .def("double")
           .values(of(spellings::kPrecisions))
           .ex("float"),
       K("math", Kind::choice, "choice")
           .def("accurate")
           .values(of(spellings::kMathProfiles))
           .doc("`fast`: Philox4x32-7 and approximate exp/log in float on the GPU (opt-in).")
           .ex("fast"),
       K("antithetic", Kind::boolean, "boolean")
           .def("false")
           .doc("Paths in pairs (z, -z); statistics over pair means.")
           .ex("true"),
       K("control_variate", Kind::boolean, "boolean")
           .def("false")
           .doc("Europeans controlled by the discounted terminal spot; arithmetic Asians under "
                "Black-Scholes by the geometric Asian.")
           .ex("true"),
       K("brownian_bridge", Kind::custom, "true, false or auto")
           .def("auto")
           .values({"true", "false", "auto"})
           .doc("Build paths by Brownian bridge; `auto`: for Sobol runs only.")
           .ex("true")
           .json(R"({"enum": [true, false, "auto"]})"),
       K("replicates", Kind::integer, "integer 1..1024")
           .def("16")
           .doc("Independent random shifts of the Sobol points (`scrambled_sobol` only).")
           .ex("32"),
       K("greeks", Kind::choices, "list of choices, each once")
           .values(of(kAllGreeks))
           .doc("Greeks with standard errors: delta and gamma per unit spot, vega per unit vol, "
                "rho per unit rate, theta per year; `cross_gamma` for baskets (pathwise only).")
           .ex("[delta, gamma, vega]"),
       K("greeks_method", Kind::choice, "choice")
           .def("auto")
           .values(of(spellings::kGreeksMethods))
           .doc("`pathwise`: tangents along each path; `bump`: bump-and-revalue on common "
                "random numbers; `auto`: pathwise where a model's group allows it.")
           .ex("pathwise"),
       K("regression_paths", Kind::integer, "integer 0..1e12")
           .def("0")
           .doc("Early exercise: the regression pass's paths; 0: as many as `paths`.")
           .ex("200000"),
       K("regression_degree", Kind::integer, "integer 1..3")
           .def("3")
           .doc("Early exercise: the regression basis's highest total degree.")
           .ex("2")},
      ""};
}

Section engine() {
  return {
      "engine",
      "engine",
      "Where and how to run; no key changes a price's bits but `device` (the CPU and GPU draw "
      "the same numbers; their sums may differ in the last bits) and `draw_batch_size` under "
      "MRG32k3a. Each key is also a flag of `pfmc price`.",
      {K("device", Kind::choice, "choice")
           .def("auto")
           .values(of(spellings::kDevices))
           .doc("`auto`: the GPU where there is one, else the CPU backend.")
           .ex("cpu"),
       K("devices", Kind::custom, "all, a count, or a list of ordinals")
           .def("device 0 (under MPI, the rank's)")
           .doc("The GPUs a run splits its paths over: `all`, the first N, or `[0, 2]`.")
           .ex("all")
           .json(R"({"anyOf": [{"const": "all"}, {"type": "integer", "minimum": 1, )"
                 R"("maximum": 64}, {"type": "string", "pattern": "^[0-9]+(,[0-9]+)*$"}, )"
                 R"({"type": "array", "minItems": 1, "maxItems": 64, "items": )"
                 R"({"type": "integer", "minimum": 0, "maximum": 63}}]})"),
       K("backend", Kind::text, "auto, or a name from `pfmc backends`")
           .def("auto")
           .doc("The prefetch backend; `auto`: the tuner's choice for this GPU.")
           .ex("smem_rolling_async"),
       K("prefetch_distance", Kind::integer, "integer, a distance `pfmc backends` lists")
           .def("4")
           .unit("steps")
           .doc("How far ahead a named backend prefetches.")
           .ex("8"),
       K("padding", Kind::custom, "auto, none, slot_major, or an integer 0..64")
           .def("auto")
           .values({"auto", "none", "slot_major"})
           .doc("Shared-memory ring padding of a named backend.")
           .ex("none")
           .json(R"({"anyOf": [{"enum": ["auto", "none", "slot_major"]}, )"
                 R"({"type": "integer", "minimum": 0, "maximum": 64}]})"),
       K("block_size", Kind::integer, "power of two in 32..1024")
           .def("128")
           .unit("threads")
           .ex("256"),
       K("max_device_memory", Kind::custom, "bytes, or a size with a unit (4GiB, 2GB)")
           .def("70% of free memory")
           .doc("The cap on draws' and partial sums' device memory; larger groups run in "
                "chunks with identical results.")
           .ex("8GiB")
           .json(kBytes),
       K("cpu_threads", Kind::integer, "integer 0..4096")
           .def("0")
           .doc("The CPU backend's threads; 0: every hardware thread.")
           .ex("8"),
       K("draw_batch_size", Kind::custom, "bytes, a size with a unit, or 0 (off); <= 64GiB")
           .def("256MiB")
           .doc("Consecutive groups whose draws fit share one generation and one kernel launch.")
           .ex("512MiB")
           .json(kBytes),
       K("terminal_kernels", Kind::boolean, "boolean")
           .def("true")
           .doc("Terminal-only kernels where a model has them (env. PFMC_TERMINAL_KERNELS).")
           .ex("false"),
       K("terminal_blocks_per_cta", Kind::custom, "auto or an integer 1..4096")
           .def("auto")
           .doc("Blocks of paths each thread block of a terminal launch works through (env. "
                "PFMC_TERMINAL_BLOCKS_PER_CTA).")
           .ex("4")
           .json(kPositiveIntegerOrAuto),
       K("compile_at_runtime", Kind::boolean, "boolean")
           .def("false")
           .doc("Compile every kernel by NVRTC, built-in ones too (env. "
                "PFMC_COMPILE_AT_RUNTIME).")
           .ex("true"),
       K("unit_groups", Kind::integer, "integer 0..1000000")
           .def("2048")
           .doc("Most simulation groups a unit of work holds; 0: no limit (env. "
                "PFMC_UNIT_GROUPS).")
           .ex("512")},
      ""};
}

Section risk() {
  return {"risk",
          "risk",
          "Scenarios priced by `pfmc risk` (and Python's `pfmc.risk`) on the base run's draws, "
          "each P&L with its own standard error. Needs `ladders`, `scenarios` or `historical`.",
          {K("ladders", Kind::section_list, "list")
               .of("risk.ladders[]")
               .doc("Ladders of one kind of move, each point a scenario."),
           K("grid", Kind::texts, "two ladder names")
               .doc("The product of two different ladders (a spot x vol grid).")
               .ex("[spot, vol]"),
           K("scenarios", Kind::section, "{csv: FILE}")
               .of("risk.scenarios")
               .doc("Named stress scenarios from a CSV file."),
           K("historical", Kind::section, "{csv: FILE, levels, horizon}")
               .of("risk.historical")
               .doc("Dated daily moves applied to today's market: VaR and expected shortfall."),
           K("per_instrument", Kind::boolean, "boolean")
               .def("false")
               .doc("Report each instrument's P&L too.")
               .ex("true")},
          ""};
}

Section risk_ladders() {
  return {"risk.ladders[]",
          "risk.ladders[] (a ladder)",
          "Give `points` or `range`.",
          {K("name", Kind::text, "name").req().doc("Unique; `grid` names it.").ex("spot"),
           K("shift", Kind::choice, "choice")
               .req()
               .values(of(spellings::kShiftKinds))
               .doc("spot (per underlying), vol (per model, as the Greeks' vega moves it), rate "
                    "(every zero rate, basis points), time (the valuation date forward, days).")
               .ex("spot"),
           K("on", Kind::custom, "all, or a list of names")
               .def("all")
               .doc("spot: underlyings; vol: models or underlyings (a basket holding one "
                    "included). Not for rate and time.")
               .ex("[SPX]")
               .json(R"({"anyOf": [{"const": "all"}, {"type": "array", "minItems": 1, )"
                     R"("items": {"type": "string"}}]})"),
           K("mode", Kind::choice, "choice")
               .def("relative (spot), absolute (vol)")
               .values(of(spellings::kLadderModes))
               .doc("Relative: S·(1 + x); absolute: S + x. Not for rate and time.")
               .ex("absolute"),
           K("points", Kind::numbers, "list of moves, at most 1001")
               .unit("spot/vol as `mode` says; rate: bp; time: days")
               .doc("Relative moves must be > -1; days >= 0.")
               .ex("[-0.1, -0.05, 0, 0.05, 0.1]"),
           K("range", Kind::section, "{from, to, step}")
               .of("risk.ladders[].range")
               .doc("from + i·step up to `to`.")},
          ""};
}

Section risk_ladders_range() {
  return {"risk.ladders[].range",
          "risk.ladders[].range",
          "",
          {K("from", Kind::number, "number").req().ex("-0.2"),
           K("to", Kind::number, "number >= from").req().ex("0.2"),
           K("step", Kind::number, "number > 0").req().doc("At most 1001 points.").ex("0.05")},
          ""};
}

/// A CSV file's two keys (`csv`, `delimiter`): the `{csv: FILE}` form of a list, and the risk
/// block's files. `example` names the file in the reference.
std::vector<Key> csv_file_keys(const std::string& example) {
  std::vector<std::string> delimiters;
  for (const char c : std::string_view(csv::Table::kDelimiters))
    delimiters.emplace_back(1, c);
  return {K("csv", Kind::text, "file").req().doc("Relative to the YAML file's folder.").ex(example),
          K("delimiter", Kind::choice, "choice")
              .def("the file's `sep=` line, else ,")
              .values(delimiters)
              .ex("\";\"")};
}

/// csv_file_keys, then `more`.
std::vector<Key> with_csv_file_keys(const std::string& example, std::vector<Key> more) {
  std::vector<Key> keys = csv_file_keys(example);
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}

Section risk_scenarios() {
  return {"risk.scenarios", "risk.scenarios",
          "A CSV file, a row a scenario: its id, then its moves (an empty cell: none).",
          csv_file_keys("stress.csv"),
          "scenario, then spot:NAME (relative), spot_abs:NAME, vol:NAME (absolute), vol_rel:NAME, "
          "rate_bp, days"};
}

Section risk_historical() {
  return {"risk.historical", "risk.historical",
          "A CSV file of dated daily moves (every column every day), applied to today's market.",
          with_csv_file_keys("history.csv",
                             {K("levels", Kind::numbers, "list of numbers in (0, 1), each once")
                                  .def("[0.99, 0.975]")
                                  .doc("VaR and expected-shortfall confidence levels.")
                                  .ex("[0.99]"),
                              K("horizon", Kind::integer, "integer 1..100000")
                                  .def("1")
                                  .unit("days")
                                  .doc("N-day moves by overlapping sums of daily ones.")
                                  .ex("10")}),
          "date (YYYY-MM-DD, increasing), then spot:NAME (log returns), vol:NAME, vol_rel:NAME, "
          "rate_bp"};
}

Section csv_file() {
  return {"csv_file", "{csv: FILE} (a list as a CSV file)",
          "Where `instruments`, `portfolio` or an `implied_vols` item is a CSV file: a header "
          "row, then a record a row (Excel's CSV: quotes, `sep=` line, a BOM).",
          csv_file_keys("trades.csv"), ""};
}

std::vector<Section> make_sections() {
  return {top_level(),
          market(),
          market_underlyings(),
          market_rates(),
          market_implied_vols(),
          models(),
          models_volatility(),
          models_surface(),
          instruments(),
          instruments_knock(),
          portfolio(),
          simulation(),
          engine(),
          risk(),
          risk_ladders(),
          risk_ladders_range(),
          risk_scenarios(),
          risk_historical(),
          csv_file()};
}

} // namespace

const std::vector<Section>& sections() {
  static const std::vector<Section> all = make_sections();
  return all;
}

const Section& section(std::string_view path) {
  for (const Section& s : sections()) {
    if (s.path == path)
      return s;
  }
  throw std::out_of_range("config reference: no section '" + std::string(path) + "'");
}

std::vector<std::string> key_names(std::string_view path, Source source, std::string_view type) {
  std::vector<std::string> names;
  for (const Key& key : section(path).keys) {
    if (key.source != Source::both && key.source != source)
      continue;
    if (!type.empty() && !key.only_for.empty() &&
        std::find(key.only_for.begin(), key.only_for.end(), type) == key.only_for.end())
      continue;
    names.push_back(key.name);
  }
  return names;
}

} // namespace pfmc::config::reference
