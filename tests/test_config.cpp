// YAML -> RunConfig: the shipped example, defaults, schedules, command-line overrides, and one
// test per kind of bad input, each asserting the whole message (file, line, column, key path,
// text). Line and column numbers below were counted by hand from the YAML in each case.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "config/overrides.hpp"
#include "fuzz_corpus.hpp"
#include "kernels/catalog.hpp"

namespace pfmc::config {
namespace {

/// The YAML loader, the config also kept as a fuzzing seed (tests/fuzz_corpus.hpp).
RunConfig parse_kept(const std::string& yaml, const std::string& name) {
  testing::keep_for_fuzzing(yaml);
  return parse_run_config(yaml, name);
}

// Lines 1-9 of every test document; instruments follow from line 10.
const std::string kHeader =
    "market:\n"                                                                      // 1
    "  underlyings:\n"                                                               // 2
    "    - {name: SPX, spot: 100}\n"                                                 // 3
    "    - {name: SX5E, spot: 50}\n"                                                 // 4
    "  rates: {zero_rate: 0.05}\n"                                                   // 5
    "models:\n"                                                                      // 6
    "  - {name: spx_bs, type: black_scholes, underlying: SPX, volatility: 0.2}\n"    // 7
    "  - {name: sx5e_bs, type: black_scholes, underlying: SX5E, volatility: 0.25}\n" // 8
    "instruments:\n";                                                                // 9

const std::string kCall =
    "  - {id: c1, type: european, option: call, strike: 100, maturity: 1.0, model: spx_bs}\n";
const std::string kPut =
    "  - {id: p1, type: european, option: put, strike: 90, maturity: 0.5, model: spx_bs}\n";

/// kHeader plus one European call on line 10: a valid document.
std::string valid_doc() {
  return kHeader + kCall;
}

/// `doc` with its 1-based line `line` replaced by `text`.
std::string replace_line(const std::string& doc, int line, const std::string& text) {
  std::istringstream in(doc);
  std::string result;
  std::string current;
  for (int n = 1; std::getline(in, current); ++n) {
    result += (n == line ? text : current) + "\n";
  }
  return result;
}

/// The ConfigError message for `yaml` read as "t.yaml", or "no error". Any other exception
/// escapes and fails the test: bad input must only ever raise ConfigError.
std::string error_of(const std::string& yaml) {
  try {
    (void)parse_kept(yaml, "t.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

std::string override_error(const Overrides& overrides) {
  RunConfig config = parse_kept(valid_doc(), "t.yaml");
  try {
    apply_overrides(config, overrides);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "");
    EXPECT_EQ(e.mark().line, 0);
    return e.what();
  }
  return "no error";
}

// --- ConfigError
// ----------------------------------------------------------------------------------

TEST(ConfigError, FormatsEveryPartThatIsPresent) {
  EXPECT_STREQ(ConfigError("p.yaml", {14, 5}, "instruments[2].strike", "must be > 0").what(),
               "p.yaml:14:5: instruments[2].strike: must be > 0");
  EXPECT_STREQ(ConfigError("p.yaml", {}, "", "cannot open file: x").what(),
               "p.yaml: cannot open file: x");
  EXPECT_STREQ(ConfigError("", {}, "--paths", "must be >= 1").what(), "--paths: must be >= 1");
  EXPECT_STREQ(ConfigError("p.yaml", {3, 1}, "", "unknown key 'x'").what(),
               "p.yaml:3:1: unknown key 'x'");
  const ConfigError e("f", {2, 7}, "a.b", "msg");
  EXPECT_EQ(e.file(), "f");
  EXPECT_EQ(e.mark().line, 2);
  EXPECT_EQ(e.mark().column, 7);
  EXPECT_EQ(e.key_path(), "a.b");
  EXPECT_EQ(e.message(), "msg");
}

// --- the shipped example -------------------------------------------------------------------------

TEST(ExampleConfig, BookYamlLoads) {
  const RunConfig c = load_run_config(PFMC_SOURCE_DIR "/config/examples/book.yaml");
  EXPECT_EQ(c.file, PFMC_SOURCE_DIR "/config/examples/book.yaml");
  ASSERT_EQ(c.market.underlyings.size(), 3u);
  EXPECT_EQ(c.market.underlyings[1].name, "SX5E");
  EXPECT_DOUBLE_EQ(c.market.underlyings[2].spot, 250.0);
  EXPECT_EQ(c.market.zero_rates.tenors.size(), 4u);
  ASSERT_EQ(c.models.size(), 3u);
  EXPECT_EQ(c.models[0].volatility.tenors, (std::vector<double>{0.25, 0.5, 1.0, 2.0}));
  EXPECT_TRUE(c.models[1].volatility.is_flat());
  EXPECT_EQ(c.models[2].underlying_index, 2);
  ASSERT_EQ(c.instruments.size(), 18u);
  ASSERT_EQ(c.portfolio.size(), 11u);

  int counts[4] = {};
  int barrier_kinds[4] = {};
  bool short_position = false;
  bool long_position = false;
  for (const auto& inst : c.instruments) {
    ++counts[static_cast<int>(inst.type)];
    if (inst.type == InstrumentType::barrier) {
      ++barrier_kinds[static_cast<int>(inst.barrier_type)];
      ASSERT_FALSE(inst.monitoring_times.empty()) << inst.id;
      EXPECT_EQ(inst.monitoring_times.back(), inst.maturity) << inst.id;
    }
    if (inst.type == InstrumentType::asian) {
      ASSERT_FALSE(inst.fixing_times.empty()) << inst.id;
      EXPECT_EQ(inst.fixing_times.back(), inst.maturity) << inst.id;
    }
    ASSERT_GE(inst.model_index, 0);
    EXPECT_EQ(c.models[inst.model_index].name, inst.model);
    EXPECT_GT(inst.mark.line, 0);
  }
  EXPECT_EQ(counts[static_cast<int>(InstrumentType::european)], 7);
  EXPECT_EQ(counts[static_cast<int>(InstrumentType::digital)], 2);
  EXPECT_EQ(counts[static_cast<int>(InstrumentType::asian)], 3);
  EXPECT_EQ(counts[static_cast<int>(InstrumentType::barrier)], 6);
  for (int kind : barrier_kinds) {
    EXPECT_GE(kind, 1); // all four barrier types
  }
  for (const auto& p : c.portfolio) {
    EXPECT_EQ(c.instruments[p.instrument_index].id, p.instrument);
    short_position = short_position || p.quantity < 0;
    long_position = long_position || p.quantity > 0;
  }
  EXPECT_TRUE(short_position);
  EXPECT_TRUE(long_position);

  EXPECT_EQ(c.simulation.paths, 500000u);
  EXPECT_EQ(c.simulation.steps_per_year, 252);
  EXPECT_EQ(c.simulation.seed, 42u);
  EXPECT_EQ(c.simulation.rng, RngType::philox);
  EXPECT_EQ(c.simulation.precision, Precision::float64);
  EXPECT_EQ(c.simulation.math, MathProfile::accurate); // the default: the book does not say
  EXPECT_EQ(c.simulation.greeks_method, GreeksMethod::automatic); // the default too
  EXPECT_EQ(c.engine.device, DeviceChoice::automatic);
  EXPECT_EQ(c.engine.backend, "auto");
  EXPECT_GT(c.engine.backend_mark.line, 0);
  EXPECT_EQ(c.engine.block_size, 128);
}

TEST(ExampleConfig, EveryShippedExampleLoads) {
  int loaded = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(PFMC_SOURCE_DIR "/config/examples")) {
    if (entry.path().extension() != ".yaml") {
      continue;
    }
    SCOPED_TRACE(entry.path().string());
    try {
      const RunConfig c = load_run_config(entry.path().string());
      EXPECT_FALSE(c.instruments.empty());
      ++loaded;
    } catch (const ConfigError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GE(loaded, 7); // book, portfolio, the two reference workloads, heston, local_vol, basket
}

TEST(ExampleConfig, HestonYamlIsTheIssuesCase) {
  const RunConfig c = load_run_config(PFMC_SOURCE_DIR "/config/examples/heston.yaml");
  ASSERT_EQ(c.models.size(), 1u);
  const HestonParameters& h = c.models[0].heston;
  EXPECT_EQ(c.models[0].type, ModelType::heston);
  EXPECT_EQ(c.market.underlyings[0].spot, 100.0);
  EXPECT_EQ(c.market.underlyings[0].dividend_yield, 0.02);
  EXPECT_EQ(c.market.zero_rates.values, std::vector<double>{0.01});
  EXPECT_EQ(h.v0, 0.04);
  EXPECT_EQ(h.kappa, 4.0);
  EXPECT_EQ(h.theta, 0.25);
  EXPECT_EQ(h.xi, 1.0);
  EXPECT_EQ(h.rho, -0.5);
  EXPECT_EQ(c.instruments[0].strike, 100.0);
  EXPECT_EQ(c.instruments[0].maturity, 1.0);
  EXPECT_EQ(c.simulation.paths, 1000000u);
  EXPECT_EQ(c.simulation.steps_per_year, 252);
  EXPECT_EQ(c.simulation.precision, Precision::float64);
}

TEST(ExampleConfig, BasketYamlHasTheTwoAssetCase) {
  const RunConfig c = load_run_config(PFMC_SOURCE_DIR "/config/examples/basket.yaml");
  ASSERT_EQ(c.models.size(), 2u);
  EXPECT_EQ(c.models[0].assets(), 4);
  const ModelConfig& pair = c.models[1];
  EXPECT_EQ(pair.volatilities, (std::vector<double>{0.3, 0.3}));
  EXPECT_NEAR(pair.cholesky[1][1], std::sqrt(1 - 0.81), 1e-15);
  for (int index : pair.underlying_indices) {
    EXPECT_EQ(c.market.underlyings[index].spot, 100.0);
  }
  int max_min = 0;
  for (const auto& inst : c.instruments) {
    EXPECT_EQ(inst.type, InstrumentType::basket);
    max_min += inst.basket != BasketPayoff::weighted;
  }
  EXPECT_EQ(max_min, 2);
  EXPECT_FALSE(c.simulation.control_variate);
  EXPECT_TRUE(c.simulation.greeks.empty()); // Greeks are for single-asset models
}

// --- good input ----------------------------------------------------------------------------------

TEST(LoadConfig, DefaultsAreApplied) {
  const RunConfig c = parse_kept(valid_doc(), "t.yaml");
  EXPECT_EQ(c.file, "t.yaml");
  EXPECT_EQ(c.market.underlyings[0].dividend_yield, 0.0);
  EXPECT_TRUE(c.market.zero_rates.is_flat());
  EXPECT_EQ(c.market.zero_rates.values, std::vector<double>{0.05});
  EXPECT_TRUE(c.portfolio.empty());
  EXPECT_EQ(c.simulation.paths, 100000u);
  EXPECT_EQ(c.simulation.steps_per_year, 252);
  EXPECT_EQ(c.simulation.seed, 42u);
  EXPECT_EQ(c.simulation.rng, RngType::philox);
  EXPECT_EQ(c.simulation.precision, Precision::float64);
  EXPECT_EQ(c.engine.device, DeviceChoice::automatic);
  EXPECT_EQ(c.engine.backend, "auto");
  EXPECT_EQ(c.engine.backend_mark.line, 0);
  EXPECT_EQ(c.engine.prefetch_distance, 4);
  EXPECT_EQ(c.engine.padding.mode, Padding::Mode::automatic);
  EXPECT_EQ(c.engine.block_size, 128);
  EXPECT_EQ(c.engine.max_device_memory, 0u);
  EXPECT_EQ(c.engine.cpu_threads, 0);

  const auto doc = kHeader +
                   "  - {id: d1, type: digital, option: put, strike: 100, maturity: 1.0, "
                   "model: spx_bs}\n"
                   "  - {id: b1, type: barrier, option: call, strike: 100, barrier: 120, "
                   "barrier_type: up_and_out, monitoring: 2, maturity: 1.0, model: spx_bs}\n";
  const RunConfig d = parse_kept(doc, "t.yaml");
  EXPECT_EQ(d.instruments[0].cash, 1.0);
  EXPECT_EQ(d.instruments[1].rebate, 0.0);
}

TEST(LoadConfig, MarksAndIndicesAreFilled) {
  const RunConfig c = parse_kept(kHeader + kCall +
                                     "  - {id: x, type: european, option: put, strike: 50, "
                                     "maturity: 2, model: sx5e_bs}\n"
                                     "portfolio:\n"
                                     "  - {instrument: x, quantity: -2.5}\n",
                                 "t.yaml");
  EXPECT_EQ(c.market.underlyings[1].mark.line, 4);
  EXPECT_EQ(c.market.underlyings[1].mark.column, 7);
  EXPECT_EQ(c.models[1].mark.line, 8);
  EXPECT_EQ(c.models[1].mark.column, 5);
  EXPECT_EQ(c.models[1].underlying_index, 1);
  EXPECT_EQ(c.instruments[1].mark.line, 11);
  EXPECT_EQ(c.instruments[1].model_index, 1);
  EXPECT_EQ(c.portfolio[0].mark.line, 13);
  EXPECT_EQ(c.portfolio[0].instrument_index, 1);
  EXPECT_EQ(c.portfolio[0].quantity, -2.5);
}

TEST(LoadConfig, FixingsResolveToEquallySpacedTimes) {
  const auto doc = kHeader +
                   "  - {id: a1, type: asian, average: arithmetic, option: call, strike: 100, "
                   "maturity: 1, fixings: 4, model: spx_bs}\n"
                   "  - {id: a2, type: asian, average: geometric, option: put, strike: 100, "
                   "maturity: 0.1, fixings: 3, model: spx_bs}\n"
                   "  - {id: a3, type: asian, average: geometric, option: put, strike: 100, "
                   "maturity: 2, fixing_times: [0.5, 1.25, 2], model: spx_bs}\n";
  const RunConfig c = parse_kept(doc, "t.yaml");
  EXPECT_EQ(c.instruments[0].fixing_times, (std::vector<double>{0.25, 0.5, 0.75, 1.0}));
  EXPECT_EQ(c.instruments[0].average, AverageType::arithmetic);
  // 0.1 * 3 / 3 is not 0.1 in binary: the last fixing must still be the maturity exactly.
  ASSERT_EQ(c.instruments[1].fixing_times.size(), 3u);
  EXPECT_EQ(c.instruments[1].fixing_times.back(), 0.1);
  EXPECT_LT(c.instruments[1].fixing_times[0], c.instruments[1].fixing_times[1]);
  EXPECT_EQ(c.instruments[2].fixing_times, (std::vector<double>{0.5, 1.25, 2.0}));
  EXPECT_EQ(c.instruments[2].average, AverageType::geometric);
}

TEST(LoadConfig, BarrierAndTermStructuresAreRead) {
  std::string doc = replace_line(valid_doc(), 5,
                                 "  rates: {tenors: [0.5, 1, 2], zero_rates: [0.04, -0.01, 0.05]}");
  doc = replace_line(doc, 8,
                     "  - {name: sx5e_bs, type: black_scholes, underlying: SX5E, "
                     "volatility: {tenors: [1, 2], vols: [0.3, 0.3]}}");
  doc += "  - {id: b1, type: barrier, option: put, strike: 50, barrier: 40, barrier_type: "
         "down_and_in, rebate: 1.5, monitoring_times: [0.5, 1], maturity: 1, model: sx5e_bs}\n";
  const RunConfig c = parse_kept(doc, "t.yaml");
  EXPECT_EQ(c.market.zero_rates.tenors, (std::vector<double>{0.5, 1.0, 2.0}));
  EXPECT_EQ(c.market.zero_rates.values, (std::vector<double>{0.04, -0.01, 0.05}));
  EXPECT_EQ(c.models[1].volatility.values, (std::vector<double>{0.3, 0.3}));
  const auto& b = c.instruments[1];
  EXPECT_EQ(b.type, InstrumentType::barrier);
  EXPECT_EQ(b.option, OptionType::put);
  EXPECT_EQ(b.barrier, 40.0);
  EXPECT_EQ(b.barrier_type, BarrierType::down_and_in);
  EXPECT_EQ(b.rebate, 1.5);
  EXPECT_EQ(b.monitoring_times, (std::vector<double>{0.5, 1.0}));
}

TEST(LoadConfig, SchedulesGivenByCountAreSharedByCountAndMaturity) {
  std::string doc = valid_doc();
  const auto barrier = [](const std::string& id, const std::string& schedule, double maturity) {
    return "  - {id: " + id + ", type: barrier, option: put, strike: 100, barrier: 80, " +
           "barrier_type: down_and_out, " + schedule + ", maturity: " + std::to_string(maturity) +
           ", model: spx_bs}\n";
  };
  doc += barrier("a", "monitoring: 252", 1.0) + barrier("b", "monitoring: 252", 1.0) +
         barrier("c", "monitoring: 252", 0.5) + barrier("d", "monitoring: 12", 1.0) +
         barrier("e", "monitoring_times: [0.5, 1]", 1.0) +
         barrier("f", "monitoring_times: [0.5, 1]", 1.0);
  doc += "  - {id: g, type: asian, option: call, strike: 100, average: arithmetic, fixings: 12, "
         "maturity: 1, model: spx_bs}\n";
  const RunConfig c = parse_kept(doc, "t.yaml");
  const auto& in = c.instruments;
  const auto at = [&](const char* id) -> const InstrumentConfig& {
    return *std::find_if(in.begin(), in.end(), [&](const auto& i) { return i.id == id; });
  };
  EXPECT_EQ(at("a").monitoring_times.identity(), at("b").monitoring_times.identity());
  EXPECT_NE(at("a").monitoring_times.identity(), at("c").monitoring_times.identity());
  EXPECT_NE(at("a").monitoring_times.identity(), at("d").monitoring_times.identity());
  // A count of fixings is the same schedule as a count of monitoring dates.
  EXPECT_EQ(at("d").monitoring_times.identity(), at("g").fixing_times.identity());
  // Listed times are each instrument's own; equal all the same.
  EXPECT_NE(at("e").monitoring_times.identity(), at("f").monitoring_times.identity());
  EXPECT_EQ(at("e").monitoring_times, at("f").monitoring_times);
  ASSERT_EQ(at("a").monitoring_times.size(), 252u);
  EXPECT_EQ(at("a").monitoring_times.back(), 1.0);
  EXPECT_EQ(at("c").monitoring_times.back(), 0.5);
  EXPECT_EQ(at("e").monitoring_times, (std::vector<double>{0.5, 1.0}));
}

TEST(LoadConfig, SimulationAndEngineSettingsAreRead) {
  const auto doc = valid_doc() +
                   "simulation: {paths: 1e6, steps_per_year: 365, seed: 18446744073709551615, "
                   "rng: scrambled_sobol, precision: float, math: fast, greeks_method: pathwise}\n"
                   "engine: {device: gpu, backend: none, prefetch_distance: 8, padding: "
                   "slot_major, block_size: 256, max_device_memory: 4GiB, cpu_threads: 8}\n";
  const RunConfig c = parse_kept(doc, "t.yaml");
  EXPECT_EQ(c.simulation.paths, 1000000u); // a float spelling of an exact integer
  EXPECT_EQ(c.simulation.steps_per_year, 365);
  EXPECT_EQ(c.simulation.seed, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(c.simulation.rng, RngType::scrambled_sobol);
  EXPECT_EQ(c.simulation.precision, Precision::float32);
  EXPECT_EQ(c.simulation.math, MathProfile::fast);
  EXPECT_EQ(c.simulation.greeks_method, GreeksMethod::pathwise);
  EXPECT_EQ(c.engine.device, DeviceChoice::gpu);
  EXPECT_EQ(c.engine.backend, "none");
  EXPECT_EQ(c.engine.backend_mark.line, 12);
  EXPECT_EQ(c.engine.backend_mark.column, 32);
  EXPECT_EQ(c.engine.prefetch_distance, 8);
  EXPECT_EQ(c.engine.padding.mode, Padding::Mode::slot_major);
  EXPECT_EQ(c.engine.block_size, 256);
  EXPECT_EQ(c.engine.max_device_memory, 4ull << 30);
  EXPECT_EQ(c.engine.cpu_threads, 8);

  const RunConfig d =
      parse_kept(valid_doc() + "engine: {padding: 3, max_device_memory: 1000}\n", "t.yaml");
  EXPECT_EQ(d.engine.padding.mode, Padding::Mode::fixed);
  EXPECT_EQ(d.engine.padding.amount, 3);
  EXPECT_EQ(d.engine.max_device_memory, 1000u);
}

TEST(LoadConfig, ZeroStepsPerYearIsTheEventGridAndItsPositionIsKept) {
  // 0 is valid at loading for every model: whether the event grid is exact for a group's model
  // is for planning to judge (engine/plan/step_data.cpp), which needs this position to name the
  // line.
  const RunConfig c =
      parse_kept(valid_doc() + "simulation: {paths: 1000, steps_per_year: 0}\n", "t.yaml");
  EXPECT_EQ(c.simulation.steps_per_year, 0);
  EXPECT_EQ(c.simulation.steps_per_year_mark.line, 11);
  EXPECT_EQ(c.simulation.steps_per_year_mark.column, 43);
  // Not written: the default, and no position.
  const RunConfig d = parse_kept(valid_doc(), "t.yaml");
  EXPECT_EQ(d.simulation.steps_per_year_mark.line, 0);
}

TEST(LoadConfig, EmptyOptionalSectionsMeanDefaults) {
  const RunConfig c = parse_kept(valid_doc() + "portfolio:\nsimulation:\nengine:\n", "t.yaml");
  EXPECT_TRUE(c.portfolio.empty());
  EXPECT_EQ(c.simulation.paths, 100000u);
  EXPECT_EQ(c.engine.block_size, 128);
}

TEST(LoadConfig, MissingFileNamesTheFileAndTheReason) {
  try {
    (void)load_run_config("/nonexistent/pfmc/run.yaml");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "/nonexistent/pfmc/run.yaml: cannot open file: No such file or directory");
    EXPECT_EQ(e.mark().line, 0);
  }
}

TEST(LoadConfig, DocumentMarkersAroundOneDocumentAreFine) {
  // A leading `---` starts the first document and a closing `...` ends it: one document.
  EXPECT_EQ(parse_run_config("# header\n---\n" + valid_doc() + "...\n", "t.yaml").simulation.paths,
            100000u);
}

TEST(LoadConfig, ADeviceIsRefusedNotReadForever) {
  try {
    (void)load_run_config("/dev/zero");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(
        e.what(),
        "/dev/zero: cannot read file: it is a device, not a file (- reads standard input)");
  }
}

// --- bad input: one case per kind of mistake ----------------------------------------------------

struct BadConfig {
  std::string name;
  std::string yaml;
  std::string expected;
};

std::ostream& operator<<(std::ostream& os, const BadConfig& c) {
  return os << c.name;
}

std::vector<BadConfig> bad_configs() {
  const std::string doc = valid_doc();
  const auto with_line_10 = [&](const std::string& text) { return replace_line(doc, 10, text); };
  const auto with_tail = [&](const std::string& tail) { return doc + tail; };
  const std::string backends = kernels::backend_name_list();
  const std::string distances = kernels::prefetch_distance_list();
  return {
      // The document as a whole.
      {"empty_file", "", "t.yaml:1:1: file is empty"},
      {"only_comments", "# nothing yet\n\n   # really\n", "t.yaml:1:1: file is empty"},
      {"only_a_marker", "# a header\n---\n", "t.yaml:1:1: file is empty"},
      {"top_level_null", "~\n", "t.yaml:1:1: top level must be a mapping"},
      // yaml-cpp 0.7's LoadAll loops for ever on these (tests/fuzz/known/): refused at once.
      {"leading_comma", ",\n", "t.yaml:1:1: top level must be a mapping"},
      {"comma_after_a_flow_list", "[1, 2]\n,\n", "t.yaml:1:1: top level must be a mapping"},
      {"comma_then_a_document", ",\n---\nmarket: {}\n", "t.yaml:1:1: top level must be a mapping"},
      {"syntax_error", "market: spot: 1\n", "t.yaml:1:13: syntax error: illegal map value"},
      {"top_level_list", "- market\n- models\n", "t.yaml:1:1: top level must be a mapping"},
      {"top_level_scalar", "hello\n", "t.yaml:1:1: top level must be a mapping"},
      {"two_documents", doc + "---\nmarket: {}\n",
       "t.yaml:11:1: only one YAML document is allowed (found a second one)"},
      {"unknown_top_level_key", with_tail("engines: {block_size: 128}\n"),
       "t.yaml:11:1: unknown key 'engines' (expected one of: market, models, instruments, "
       "portfolio, simulation, engine, risk)"},
      {"duplicate_top_level_key", with_tail("instruments: []\n"),
       "t.yaml:11:1: duplicate key 'instruments'"},
      {"missing_models",
       "market:\n  underlyings: [{name: SPX, spot: 100}]\n  rates: "
       "{zero_rate: 0}\ninstruments: []\n",
       "t.yaml:1:1: missing required key 'models'"},
      {"key_not_a_string", doc + "? [a, b]\n: 1\n", "t.yaml:11:3: keys must be strings"},
      {"market_not_mapping", "market: [1]\nmodels: []\ninstruments: []\n",
       "t.yaml:1:9: market: must be a mapping"},

      // market
      {"no_underlyings",
       "market:\n  underlyings: []\n  rates: {zero_rate: 0.05}\n" + doc.substr(doc.find("models:")),
       "t.yaml:2:16: market.underlyings: must not be empty"},
      {"spot_zero", replace_line(doc, 3, "    - {name: SPX, spot: 0}"),
       "t.yaml:3:25: market.underlyings[0].spot: must be > 0"},
      {"dividend_yield_too_large",
       replace_line(doc, 3, "    - {name: SPX, spot: 100, dividend_yield: 1.5}"),
       "t.yaml:3:46: market.underlyings[0].dividend_yield: must be between -1 and 1"},
      {"duplicate_underlying", replace_line(doc, 4, "    - {name: SPX, spot: 50}"),
       "t.yaml:4:14: market.underlyings[1].name: duplicate name 'SPX' (first at line 3)"},
      {"rates_both_forms",
       replace_line(doc, 5, "  rates: {zero_rate: 0.05, tenors: [1, 2], zero_rates: [0.04, 0.05]}"),
       "t.yaml:5:28: market.rates: give either zero_rate or tenors with zero_rates, not both"},
      {"rates_neither_form", replace_line(doc, 5, "  rates: {}"),
       "t.yaml:5:10: market.rates: missing required key 'zero_rate' (or 'tenors' and "
       "'zero_rates')"},
      {"rate_out_of_range",
       replace_line(doc, 5, "  rates: {tenors: [1, 2], zero_rates: [0.04, 2.0]}"),
       "t.yaml:5:46: market.rates.zero_rates[1]: must be between -1 and 1"},
      {"rate_tenors_not_increasing",
       replace_line(doc, 5, "  rates: {tenors: [1, 1], zero_rates: [0.04, 0.05]}"),
       "t.yaml:5:23: market.rates.tenors[1]: must be > the previous tenor 1"},

      // models
      {"unknown_underlying",
       replace_line(doc, 8,
                    "  - {name: sx5e_bs, type: black_scholes, underlying: SX5F, volatility: 0.25}"),
       "t.yaml:8:54: models[1].underlying: unknown underlying 'SX5F' (known: SPX, SX5E)"},
      {"unknown_model_type",
       replace_line(doc, 7, "  - {name: spx_bs, type: sabr, underlying: SPX, volatility: 0.2}"),
       "t.yaml:7:26: models[0].type: must be one of: black_scholes, heston, local_vol, "
       "multi_black_scholes"},
      {"volatility_zero",
       replace_line(doc, 7,
                    "  - {name: spx_bs, type: black_scholes, underlying: SPX, volatility: 0}"),
       "t.yaml:7:70: models[0].volatility: must be > 0"},
      {"volatility_too_large",
       replace_line(doc, 7,
                    "  - {name: spx_bs, type: black_scholes, underlying: SPX, volatility: 6}"),
       "t.yaml:7:70: models[0].volatility: must be <= 5"},
      {"volatility_list",
       replace_line(doc, 7,
                    "  - {name: spx_bs, type: black_scholes, underlying: SPX, volatility: [0.2]}"),
       "t.yaml:7:70: models[0].volatility: must be a number or a mapping {tenors: [...], vols: "
       "[...]}"},
      {"negative_forward_variance",
       replace_line(doc, 8,
                    "  - {name: sx5e_bs, type: black_scholes, underlying: SX5E, volatility: "
                    "{tenors: [0.5, 1, 2], vols: [0.3, 0.25, 0.15]}}"),
       "t.yaml:8:112: models[1].volatility.vols[2]: total variance decreases between tenors 1 "
       "and 2 (negative forward variance)"},
      {"vols_length_mismatch",
       replace_line(doc, 8,
                    "  - {name: sx5e_bs, type: black_scholes, underlying: SX5E, volatility: "
                    "{tenors: [0.5, 1, 2], vols: [0.3, 0.25]}}"),
       "t.yaml:8:100: models[1].volatility.vols: must have 3 values, one per tenor (got 2)"},
      {"duplicate_model",
       replace_line(doc, 8,
                    "  - {name: spx_bs, type: black_scholes, underlying: SX5E, volatility: 0.25}"),
       "t.yaml:8:12: models[1].name: duplicate name 'spx_bs' (first at line 7)"},

      // instruments: the brief's own example shape, third instrument
      {"strike_zero",
       kHeader + kCall + kPut +
           "  - {id: c3, type: european, option: call, strike: 0, maturity: 1.0, model: spx_bs}\n",
       "t.yaml:12:52: instruments[2].strike: must be > 0"},
      {"unknown_instrument_key",
       with_line_10("  - {id: c1, type: european, option: call, strikes: 100, maturity: 1.0, "
                    "model: spx_bs}"),
       "t.yaml:10:44: instruments[0]: unknown key 'strikes' (expected one of: id, type, option, "
       "strike, maturity, model, exercise, exercise_dates, exercise_times, knock)"},
      {"key_of_another_instrument_type",
       with_line_10("  - {id: c1, type: european, option: call, strike: 100, maturity: 1.0, "
                    "model: spx_bs, cash: 2}"),
       "t.yaml:10:87: instruments[0]: unknown key 'cash' (expected one of: id, type, option, "
       "strike, maturity, model, exercise, exercise_dates, exercise_times, knock)"},
      {"misspelt_type_key",
       with_line_10("  - {id: c1, tpye: european, option: call, strike: 100, maturity: 1.0, "
                    "model: spx_bs}"),
       "t.yaml:10:14: instruments[0]: unknown key 'tpye' (expected one of: id, type, option, "
       "strike, maturity, model, cash, average, fixings, fixing_times, barrier, barrier_type, "
       "rebate, monitoring, monitoring_times, payoff, weights, exercise, exercise_dates, "
       "exercise_times, knock)"},
      {"duplicate_key",
       with_line_10("  - {id: c1, type: european, option: call, strike: 100, maturity: 1.0, "
                    "strike: 90, model: spx_bs}"),
       "t.yaml:10:72: instruments[0]: duplicate key 'strike'"},
      {"missing_strike",
       with_line_10("  - {id: c1, type: european, option: call, maturity: 1.0, model: spx_bs}"),
       "t.yaml:10:5: instruments[0]: missing required key 'strike'"},
      {"unknown_model",
       with_line_10("  - {id: c1, type: european, option: call, strike: 100, maturity: 1.0, "
                    "model: spx_lv}"),
       "t.yaml:10:79: instruments[0].model: unknown model 'spx_lv' (known: spx_bs, sx5e_bs)"},
      {"duplicate_id",
       kHeader + kCall + kPut +
           "  - {id: c1, type: digital, option: put, strike: 90, maturity: 0.5, model: spx_bs}\n",
       "t.yaml:12:10: instruments[2].id: duplicate id 'c1' (first at line 10)"},
      {"unknown_type",
       with_line_10("  - {id: c1, type: swap, option: call, strike: 100, maturity: 1.0, model: "
                    "spx_bs}"),
       "t.yaml:10:20: instruments[0].type: must be one of: european, digital, asian, barrier, "
       "basket"},
      {"unknown_option",
       with_line_10("  - {id: c1, type: european, option: cal, strike: 100, maturity: 1.0, "
                    "model: spx_bs}"),
       "t.yaml:10:38: instruments[0].option: must be one of: call, put"},
      {"strike_not_a_number",
       with_line_10("  - {id: c1, type: european, option: call, strike: abc, maturity: 1.0, "
                    "model: spx_bs}"),
       "t.yaml:10:52: instruments[0].strike: must be a number"},
      {"strike_quoted",
       with_line_10("  - {id: c1, type: european, option: call, strike: \"100\", maturity: 1.0, "
                    "model: spx_bs}"),
       "t.yaml:10:52: instruments[0].strike: must be a number"},
      {"strike_a_list",
       with_line_10("  - {id: c1, type: european, option: call, strike: [100], maturity: 1.0, "
                    "model: spx_bs}"),
       "t.yaml:10:52: instruments[0].strike: must be a number"},
      {"strike_infinite",
       with_line_10("  - {id: c1, type: european, option: call, strike: .inf, maturity: 1.0, "
                    "model: spx_bs}"),
       "t.yaml:10:52: instruments[0].strike: must be finite"},
      {"maturity_too_long",
       with_line_10("  - {id: c1, type: european, option: call, strike: 100, maturity: 101, "
                    "model: spx_bs}"),
       "t.yaml:10:67: instruments[0].maturity: must be <= 100"},
      {"id_not_a_string",
       with_line_10("  - {id: [a], type: european, option: call, strike: 100, maturity: 1.0, "
                    "model: spx_bs}"),
       "t.yaml:10:10: instruments[0].id: must be a string"},
      {"instruments_not_a_list", replace_line(kHeader, 9, "instruments: {c1: 1}"),
       "t.yaml:9:14: instruments: must be a list, or {csv: FILE}"},
      {"empty_value_points_at_its_key",
       kHeader + "  - id: c1\n    type: european\n    option: call\n    strike:\n    maturity: "
                 "1.0\n    model: spx_bs\n",
       "t.yaml:13:5: instruments[0].strike: must be a number"},
      {"missing_key_in_block_mapping",
       kHeader + "  - id: c1\n    type: european\n    option: call\n    maturity: 1.0\n    "
                 "model: spx_bs\n",
       "t.yaml:10:5: instruments[0]: missing required key 'strike'"},

      // asians
      {"unknown_average",
       with_line_10("  - {id: a1, type: asian, average: harmonic, option: call, strike: 100, "
                    "maturity: 1.0, fixings: 4, model: spx_bs}"),
       "t.yaml:10:36: instruments[0].average: must be one of: arithmetic, geometric"},
      {"fixings_and_fixing_times",
       with_line_10("  - {id: a1, type: asian, average: arithmetic, option: call, strike: 100, "
                    "maturity: 1.0, fixings: 4, fixing_times: [0.5, 1.0], model: spx_bs}"),
       "t.yaml:10:102: instruments[0]: give either fixings or fixing_times, not both"},
      {"no_fixings",
       with_line_10("  - {id: a1, type: asian, average: arithmetic, option: call, strike: 100, "
                    "maturity: 1.0, model: spx_bs}"),
       "t.yaml:10:5: instruments[0]: missing required key 'fixings' (or 'fixing_times')"},
      {"zero_fixings",
       with_line_10("  - {id: a1, type: asian, average: arithmetic, option: call, strike: 100, "
                    "maturity: 1.0, fixings: 0, model: spx_bs}"),
       "t.yaml:10:99: instruments[0].fixings: must be >= 1"},
      {"fractional_fixings",
       with_line_10("  - {id: a1, type: asian, average: arithmetic, option: call, strike: 100, "
                    "maturity: 1.0, fixings: 2.5, model: spx_bs}"),
       "t.yaml:10:99: instruments[0].fixings: must be an integer"},
      {"too_many_fixings",
       with_line_10("  - {id: a1, type: asian, average: arithmetic, option: call, strike: 100, "
                    "maturity: 1.0, fixings: 100001, model: spx_bs}"),
       "t.yaml:10:99: instruments[0].fixings: must be <= 100000"},
      {"fixing_times_not_increasing",
       with_line_10("  - {id: a1, type: asian, average: geometric, option: put, strike: 100, "
                    "maturity: 1.0, fixing_times: [0.5, 0.25, 1.0], model: spx_bs}"),
       "t.yaml:10:108: instruments[0].fixing_times[1]: must be > the previous time 0.5"},
      {"fixing_after_maturity",
       with_line_10("  - {id: a1, type: asian, average: geometric, option: put, strike: 100, "
                    "maturity: 1.0, fixing_times: [0.5, 1.5], model: spx_bs}"),
       "t.yaml:10:108: instruments[0].fixing_times[1]: must be <= the maturity 1"},
      {"fixing_at_zero",
       with_line_10("  - {id: a1, type: asian, average: geometric, option: put, strike: 100, "
                    "maturity: 1.0, fixing_times: [0, 1], model: spx_bs}"),
       "t.yaml:10:103: instruments[0].fixing_times[0]: must be > 0"},

      // barriers
      {"down_barrier_above_spot",
       with_line_10("  - {id: b1, type: barrier, option: call, strike: 100, barrier: 105, "
                    "barrier_type: down_and_out, monitoring: 252, maturity: 1.0, model: spx_bs}"),
       "t.yaml:10:65: instruments[0].barrier: down barrier 105 must be below the spot 100 of SPX"},
      {"up_barrier_below_spot",
       with_line_10("  - {id: b1, type: barrier, option: call, strike: 100, barrier: 95, "
                    "barrier_type: up_and_in, monitoring: 252, maturity: 1.0, model: spx_bs}"),
       "t.yaml:10:65: instruments[0].barrier: up barrier 95 must be above the spot 100 of SPX"},
      {"down_barrier_above_other_spot",
       with_line_10("  - {id: b2, type: barrier, option: put, strike: 50, barrier: 55, "
                    "barrier_type: down_and_in, monitoring: 12, maturity: 1.0, model: sx5e_bs}"),
       "t.yaml:10:63: instruments[0].barrier: down barrier 55 must be below the spot 50 of SX5E"},
      {"unknown_barrier_type",
       with_line_10("  - {id: b1, type: barrier, option: put, strike: 100, barrier: 90, "
                    "barrier_type: down_out, monitoring: 12, maturity: 1.0, model: spx_bs}"),
       "t.yaml:10:82: instruments[0].barrier_type: must be one of: up_and_in, up_and_out, "
       "down_and_in, down_and_out"},
      {"negative_rebate",
       with_line_10("  - {id: b1, type: barrier, option: put, strike: 100, barrier: 90, "
                    "barrier_type: down_and_in, rebate: -1, monitoring: 12, maturity: 1.0, "
                    "model: spx_bs}"),
       "t.yaml:10:103: instruments[0].rebate: must be >= 0"},
      {"monitoring_times_not_increasing",
       with_line_10("  - {id: b1, type: barrier, option: put, strike: 100, barrier: 90, "
                    "barrier_type: down_and_in, monitoring_times: [0.5, 0.5], maturity: 1.0, "
                    "model: spx_bs}"),
       "t.yaml:10:119: instruments[0].monitoring_times[1]: must be > the previous time 0.5"},

      // knocks on other payoffs
      {"knock_on_a_barrier",
       with_line_10("  - {id: b1, type: barrier, option: put, strike: 100, barrier: 90, "
                    "barrier_type: down_and_in, monitoring: 12, maturity: 1.0, model: spx_bs, "
                    "knock: {type: up_and_out, level: 120, monitoring: 12}}"),
       "t.yaml:10:141: instruments[0]: unknown key 'knock' (expected one of: id, type, option, "
       "strike, maturity, model, barrier, barrier_type, rebate, monitoring, monitoring_times)"},
      {"knock_level_on_the_wrong_side",
       with_line_10("  - {id: a1, type: asian, average: arithmetic, option: call, strike: 100, "
                    "maturity: 1.0, fixings: 12, model: spx_bs, knock: {type: down_and_out, "
                    "level: 105, monitoring: 12}}"),
       "t.yaml:10:153: instruments[0].knock.level: down barrier 105 must be below the spot 100 "
       "of SPX"},
      {"knock_unknown_key",
       with_line_10("  - {id: d1, type: digital, option: call, strike: 100, maturity: 1.0, "
                    "model: spx_bs, knock: {type: up_and_in, level: 120, monitoring: 12, at: 1}}"),
       "t.yaml:10:139: instruments[0].knock: unknown key 'at' (expected one of: type, level, "
       "monitoring, monitoring_times, rebate)"},
      {"knock_without_monitoring",
       with_line_10("  - {id: c2, type: european, option: call, strike: 100, maturity: 1.0, "
                    "model: spx_bs, knock: {type: up_and_in, level: 120}}"),
       "t.yaml:10:94: instruments[0].knock: missing required key 'monitoring' (or "
       "'monitoring_times')"},
      {"knock_not_a_mapping",
       with_line_10("  - {id: c2, type: european, option: call, strike: 100, maturity: 1.0, "
                    "model: spx_bs, knock: down_and_out}"),
       "t.yaml:10:94: instruments[0].knock: must be a mapping"},
      {"flat_knock_keys_in_yaml",
       with_line_10("  - {id: c2, type: european, option: call, strike: 100, maturity: 1.0, "
                    "model: spx_bs, knock_level: 90}"),
       "t.yaml:10:87: instruments[0]: unknown key 'knock_level' (expected one of: id, type, "
       "option, strike, maturity, model, exercise, exercise_dates, exercise_times, knock)"},

      // portfolio
      {"unknown_position", with_tail("portfolio:\n  - {instrument: c9, quantity: 1}\n"),
       "t.yaml:12:18: portfolio[0].instrument: unknown instrument 'c9' (known: c1)"},
      {"duplicate_position",
       with_tail("portfolio:\n  - {instrument: c1, quantity: 10}\n  - {instrument: c1, "
                 "quantity: -5}\n"),
       "t.yaml:13:18: portfolio[1].instrument: duplicate instrument 'c1' (first at line 12)"},
      {"zero_quantity", with_tail("portfolio:\n  - {instrument: c1, quantity: 0}\n"),
       "t.yaml:12:32: portfolio[0].quantity: must not be 0"},
      {"portfolio_not_a_list", with_tail("portfolio: {c1: 1}\n"),
       "t.yaml:11:12: portfolio: must be a list, or {csv: FILE}"},

      // simulation
      {"zero_paths", with_tail("simulation: {paths: 0}\n"),
       "t.yaml:11:21: simulation.paths: must be >= 1"},
      {"fractional_paths", with_tail("simulation: {paths: 1.5}\n"),
       "t.yaml:11:21: simulation.paths: must be an integer"},
      {"quoted_paths", with_tail("simulation: {paths: \"1000\"}\n"),
       "t.yaml:11:21: simulation.paths: must be an integer"},
      {"negative_steps_per_year", with_tail("simulation: {steps_per_year: -1}\n"),
       "t.yaml:11:30: simulation.steps_per_year: must be >= 0"},
      {"too_many_steps_per_year", with_tail("simulation: {steps_per_year: 100001}\n"),
       "t.yaml:11:30: simulation.steps_per_year: must be <= 100000"},
      {"negative_seed", with_tail("simulation: {seed: -1, rng: xorwow}\n"),
       "t.yaml:11:20: simulation.seed: must be >= 0"},
      {"unknown_rng", with_tail("simulation: {rng: xorwow}\n"),
       "t.yaml:11:19: simulation.rng: must be one of: philox, mrg32k3a, sobol, scrambled_sobol"},
      {"unknown_precision", with_tail("simulation: {precision: half}\n"),
       "t.yaml:11:25: simulation.precision: must be one of: float, double"},
      {"unknown_math", with_tail("simulation: {math: quick}\n"),
       "t.yaml:11:20: simulation.math: must be one of: accurate, fast"},
      {"fast_math_with_greeks", with_tail("simulation: {math: fast, greeks: [delta]}\n"),
       "t.yaml:11:20: simulation.math: the fast math profile prices without Greeks: the Greeks' "
       "kernels have the accurate profile only (leave out greeks, or use math: accurate)"},
      {"unknown_greeks_method", with_tail("simulation: {greeks_method: adjoint}\n"),
       "t.yaml:11:29: simulation.greeks_method: must be one of: auto, bump, pathwise"},
      {"greeks_method_spelled_as_the_enum", with_tail("simulation: {greeks_method: automatic}\n"),
       "t.yaml:11:29: simulation.greeks_method: must be one of: auto, bump, pathwise"},
      {"unknown_simulation_key", with_tail("simulation: {path: 10}\n"),
       "t.yaml:11:14: simulation: unknown key 'path' (expected one of: paths, steps_per_year, "
       "seed, rng, precision, math, antithetic, control_variate, brownian_bridge, replicates, "
       "greeks, greeks_method, regression_paths, regression_degree)"},

      // engine
      {"unknown_backend", with_tail("engine: {backend: nope}\n"),
       "t.yaml:11:19: engine.backend: unknown backend 'nope' (known: auto, " + backends + ")"},
      {"bench_only_backend", with_tail("engine: {backend: ideal}\n"),
       "t.yaml:11:19: engine.backend: 'ideal' is a diagnostic of `pfmc bench` (free draws, prices "
       "that mean nothing), not a backend to price with (known: auto, " +
           backends + ")"},
      {"prefetch_distance_not_instantiated", with_tail("engine: {prefetch_distance: 5}\n"),
       "t.yaml:11:29: engine.prefetch_distance: 5 is not an instantiated distance (valid: " +
           distances + ")"},
      {"block_size_not_a_power_of_two", with_tail("engine: {device: gpu, block_size: 100}\n"),
       "t.yaml:11:35: engine.block_size: must be a power of two in 32..1024 (32, 64, 128, 256, "
       "512, 1024)"},
      {"padding_too_large", with_tail("engine: {padding: 65}\n"),
       "t.yaml:11:19: engine.padding: must be one of: auto, none, slot_major, or an integer 0..64"},
      {"zero_device_memory", with_tail("engine: {max_device_memory: 0GiB}\n"),
       "t.yaml:11:29: engine.max_device_memory: must be > 0"},
      {"too_many_cpu_threads", with_tail("engine: {cpu_threads: 5000}\n"),
       "t.yaml:11:23: engine.cpu_threads: must be <= 4096"},
      {"device_in_capitals", with_tail("engine: {device: GPU}\n"),
       "t.yaml:11:18: engine.device: must be one of: auto, gpu, cpu"},
  };
}

class BadConfigTest : public ::testing::TestWithParam<BadConfig> {};

TEST_P(BadConfigTest, ReportsFileLineColumnKeyPathAndReason) {
  EXPECT_EQ(error_of(GetParam().yaml), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(LoadConfig, BadConfigTest, ::testing::ValuesIn(bad_configs()),
                         [](const ::testing::TestParamInfo<BadConfig>& info) {
                           return info.param.name;
                         });

TEST(LoadConfig, EveryBadCaseStartsFromAValidDocument) {
  // Guards the table above: its errors come from the edit, not from a broken base.
  EXPECT_EQ(error_of(valid_doc()), "no error");
  EXPECT_EQ(error_of(kHeader + kCall + kPut), "no error");
}

// --- Heston, local vol, correlated baskets, simulation options -----------------------------------

// Lines 1-12 of every multi-model test document; instruments follow from line 13.
// models[1] is Heston, models[2] local vol, models[3] a three-asset multi_black_scholes.
const std::string kModelsHeader =
    "market:\n"                                                                   // 1
    "  underlyings:\n"                                                            // 2
    "    - {name: SPX, spot: 100}\n"                                              // 3
    "    - {name: SX5E, spot: 50}\n"                                              // 4
    "    - {name: NKY, spot: 200}\n"                                              // 5
    "  rates: {zero_rate: 0.05}\n"                                                // 6
    "models:\n"                                                                   // 7
    "  - {name: spx_bs, type: black_scholes, underlying: SPX, volatility: 0.2}\n" // 8
    "  - {name: spx_h, type: heston, underlying: SPX, v0: 0.04, kappa: 4, theta: 0.25, "
    "xi: 1, rho: -0.5}\n" // 9
    "  - {name: spx_lv, type: local_vol, underlying: SPX, surface: {times: [0.5, 1], "
    "log_moneyness: [-0.5, 0, 0.5], vols: [[0.3, 0.2, 0.25], [0.28, 0.2, 0.22]]}}\n" // 10
    "  - {name: bask, type: multi_black_scholes, underlyings: [SPX, SX5E, NKY], "
    "volatilities: [0.2, 0.25, 0.3], correlation: [[1, 0.5, 0.3], [0.5, 1, 0.2], "
    "[0.3, 0.2, 1]]}\n" // 11
    "instruments:\n";   // 12

const std::string kHestonCall =
    "  - {id: h1, type: european, option: call, strike: 100, maturity: 1.0, model: spx_h}\n";
const std::string kBasketCall = "  - {id: bk, type: basket, payoff: weighted, option: call, "
                                "strike: 100, maturity: 1.0, model: bask}\n";

/// kModelsHeader, a Heston call on line 13 and a basket call on line 14: a valid document.
std::string models_doc() {
  return kModelsHeader + kHestonCall + kBasketCall;
}

TEST(LoadConfig, HestonModelIsRead) {
  const RunConfig c = parse_kept(models_doc(), "t.yaml");
  const ModelConfig& h = c.models[1];
  EXPECT_EQ(h.type, ModelType::heston);
  EXPECT_EQ(h.underlying, "SPX");
  EXPECT_EQ(h.underlying_index, 0);
  EXPECT_EQ(h.heston.v0, 0.04);
  EXPECT_EQ(h.heston.kappa, 4.0);
  EXPECT_EQ(h.heston.theta, 0.25);
  EXPECT_EQ(h.heston.xi, 1.0);
  EXPECT_EQ(h.heston.rho, -0.5);
  EXPECT_EQ(h.heston.scheme, HestonScheme::qe); // the default
  EXPECT_EQ(h.assets(), 1);
  EXPECT_EQ(c.instruments[0].model_index, 1);

  const RunConfig d = parse_kept(
      replace_line(models_doc(), 9,
                   "  - {name: spx_h, type: heston, underlying: SPX, v0: 0, kappa: 1, theta: 0.04, "
                   "xi: 0.5, rho: 1, scheme: full_truncation}"),
      "t.yaml");
  EXPECT_EQ(d.models[1].heston.scheme, HestonScheme::full_truncation);
  EXPECT_EQ(d.models[1].heston.v0, 0.0);
  EXPECT_EQ(d.models[1].heston.rho, 1.0);
}

TEST(LoadConfig, LocalVolSurfaceIsRead) {
  const RunConfig c = parse_kept(models_doc(), "t.yaml");
  const ModelConfig& lv = c.models[2];
  EXPECT_EQ(lv.type, ModelType::local_vol);
  EXPECT_EQ(lv.underlying_index, 0);
  EXPECT_EQ(lv.surface.times, (std::vector<double>{0.5, 1.0}));
  EXPECT_EQ(lv.surface.log_moneyness, (std::vector<double>{-0.5, 0.0, 0.5}));
  ASSERT_EQ(lv.surface.vols.size(), 2u);
  EXPECT_EQ(lv.surface.vols[0], (std::vector<double>{0.3, 0.2, 0.25}));
  EXPECT_EQ(lv.surface.vols[1], (std::vector<double>{0.28, 0.2, 0.22}));

  // One time (at 0) and one knot: a flat surface.
  const RunConfig d = parse_kept(
      replace_line(models_doc(), 10,
                   "  - {name: spx_lv, type: local_vol, underlying: SPX, surface: {times: [0], "
                   "log_moneyness: [0], vols: [[0.2]]}}"),
      "t.yaml");
  EXPECT_EQ(d.models[2].surface.times, std::vector<double>{0.0});
  EXPECT_EQ(d.models[2].surface.vols, std::vector<std::vector<double>>{{0.2}});
}

TEST(LoadConfig, CorrelatedModelAndItsCholeskyFactorAreRead) {
  const RunConfig c = parse_kept(models_doc(), "t.yaml");
  const ModelConfig& m = c.models[3];
  EXPECT_EQ(m.type, ModelType::multi_black_scholes);
  EXPECT_EQ(m.assets(), 3);
  EXPECT_EQ(m.underlying, "");
  EXPECT_EQ(m.underlying_index, -1);
  EXPECT_EQ(m.underlyings, (std::vector<std::string>{"SPX", "SX5E", "NKY"}));
  EXPECT_EQ(m.underlying_indices, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(m.volatilities, (std::vector<double>{0.2, 0.25, 0.3}));
  ASSERT_EQ(m.correlation.size(), 3u);
  EXPECT_EQ(m.correlation[2], (std::vector<double>{0.3, 0.2, 1.0}));

  // C = [[1, .5, .3], [.5, 1, .2], [.3, .2, 1]] by hand: L = [[1], [.5, sqrt(.75)],
  // [.3, .05 / sqrt(.75), sqrt(1 - .09 - .0025 / .75)]], zero above the diagonal.
  const double expected[3][3] = {{1.0, 0.0, 0.0},
                                 {0.5, std::sqrt(0.75), 0.0},
                                 {0.3, 0.05 / std::sqrt(0.75), std::sqrt(0.91 - 0.0025 / 0.75)}};
  ASSERT_EQ(m.cholesky.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(m.cholesky[i].size(), 3u);
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(m.cholesky[i][j], expected[i][j], 1e-12) << i << "," << j;
      double product = 0.0; // (L L^T)_ij
      for (int k = 0; k < 3; ++k) {
        product += m.cholesky[i][k] * m.cholesky[j][k];
      }
      EXPECT_NEAR(product, m.correlation[i][j], 1e-12) << i << "," << j;
    }
  }
}

TEST(LoadConfig, BasketInstrumentsAreRead) {
  const std::string doc =
      models_doc() +
      "  - {id: bmax, type: basket, payoff: max, option: put, strike: 90, maturity: 2, "
      "model: bask}\n"
      "  - {id: bmin, type: basket, payoff: min, option: call, strike: 50, maturity: 1, "
      "weights: [1, 2, 0.25], model: bask}\n"
      "  - {id: spread, type: basket, payoff: weighted, option: call, strike: 1, maturity: 1, "
      "weights: [1, -2, 0], model: bask}\n";
  const RunConfig c = parse_kept(doc, "t.yaml");
  const auto& weighted = c.instruments[1];
  EXPECT_EQ(weighted.type, InstrumentType::basket);
  EXPECT_EQ(weighted.basket, BasketPayoff::weighted);
  EXPECT_EQ(weighted.model_index, 3);
  EXPECT_EQ(weighted.weights, (std::vector<double>{1.0 / 3, 1.0 / 3, 1.0 / 3})); // default 1/n
  EXPECT_EQ(c.instruments[2].basket, BasketPayoff::max);
  EXPECT_EQ(c.instruments[2].option, OptionType::put);
  EXPECT_EQ(c.instruments[2].weights, (std::vector<double>{1.0, 1.0, 1.0})); // default 1
  EXPECT_EQ(c.instruments[3].basket, BasketPayoff::min);
  EXPECT_EQ(c.instruments[3].weights, (std::vector<double>{1.0, 2.0, 0.25}));
  EXPECT_EQ(c.instruments[4].weights, (std::vector<double>{1.0, -2.0, 0.0}));
}

TEST(LoadConfig, SimulationOptionsAreRead) {
  const RunConfig c =
      parse_kept(valid_doc() + "simulation: {paths: 4096, rng: scrambled_sobol, antithetic: true, "
                               "control_variate: True, brownian_bridge: false, replicates: 8, "
                               "greeks: [vega, theta, delta]}\n",
                 "t.yaml");
  EXPECT_TRUE(c.simulation.antithetic);
  EXPECT_TRUE(c.simulation.control_variate);
  EXPECT_EQ(c.simulation.brownian_bridge, 0);
  EXPECT_EQ(c.simulation.replicates, 8);
  EXPECT_EQ(c.simulation.greeks, (std::vector<Greek>{Greek::delta, Greek::vega, Greek::theta}));

  const RunConfig d = parse_kept(valid_doc(), "t.yaml"); // the defaults
  EXPECT_FALSE(d.simulation.antithetic);
  EXPECT_FALSE(d.simulation.control_variate);
  EXPECT_EQ(d.simulation.brownian_bridge, -1);
  EXPECT_EQ(d.simulation.replicates, 0);
  EXPECT_TRUE(d.simulation.greeks.empty());

  const RunConfig e =
      parse_kept(valid_doc() + "simulation: {rng: sobol, replicates: 1, brownian_bridge: true, "
                               "greeks: []}\n",
                 "t.yaml");
  EXPECT_EQ(e.simulation.replicates, 1);
  EXPECT_EQ(e.simulation.brownian_bridge, 1);
  EXPECT_EQ(parse_kept(valid_doc() + "simulation: {brownian_bridge: auto}\n", "t.yaml")
                .simulation.brownian_bridge,
            -1);
}

std::vector<BadConfig> new_model_bad_configs() {
  const std::string doc = models_doc();
  const auto with_line = [&](int line, const std::string& text) {
    return replace_line(doc, line, text);
  };
  const auto heston = [&](const std::string& params) {
    return with_line(9, "  - {name: spx_h, type: heston, underlying: SPX, " + params + "}");
  };
  const auto surface = [&](const std::string& body) {
    return with_line(10,
                     "  - {name: spx_lv, type: local_vol, underlying: SPX, surface: " + body + "}");
  };
  const auto multi = [&](const std::string& body) {
    return with_line(11, "  - {name: bask, type: multi_black_scholes, " + body + "}");
  };
  const std::string good_vols = "volatilities: [0.2, 0.25, 0.3]";
  const auto instrument = [&](const std::string& text) { return with_line(14, text); };
  const auto with_tail = [&](const std::string& tail) { return valid_doc() + tail; };
  return {
      // model types and their keys
      {"misspelt_model_type_key",
       with_line(8, "  - {name: spx_bs, tpye: black_scholes, underlying: SPX, volatility: 0.2}"),
       "t.yaml:8:20: models[0]: unknown key 'tpye' (expected one of: name, type, underlying, "
       "volatility, v0, kappa, theta, xi, rho, scheme, surface, underlyings, volatilities, "
       "correlation)"},
      {"heston_with_volatility",
       heston("v0: 0.04, kappa: 4, theta: 0.25, xi: 1, rho: -0.5, "
              "volatility: 0.2"),
       "t.yaml:9:101: models[1]: unknown key 'volatility' (expected one of: name, type, "
       "underlying, v0, kappa, theta, xi, rho, scheme)"},
      {"heston_missing_kappa", heston("v0: 0.04, theta: 0.25, xi: 1, rho: -0.5"),
       "t.yaml:9:5: models[1]: missing required key 'kappa'"},
      {"heston_negative_v0", heston("v0: -0.01, kappa: 4, theta: 0.25, xi: 1, rho: -0.5"),
       "t.yaml:9:54: models[1].v0: must be >= 0"},
      {"heston_zero_kappa", heston("v0: 0.04, kappa: 0, theta: 0.25, xi: 1, rho: -0.5"),
       "t.yaml:9:67: models[1].kappa: must be > 0"},
      {"heston_zero_theta", heston("v0: 0.04, kappa: 4, theta: 0, xi: 1, rho: -0.5"),
       "t.yaml:9:77: models[1].theta: must be > 0"},
      {"heston_negative_xi", heston("v0: 0.04, kappa: 4, theta: 0.25, xi: -1, rho: -0.5"),
       "t.yaml:9:87: models[1].xi: must be > 0"},
      {"heston_rho_out_of_range", heston("v0: 0.04, kappa: 4, theta: 0.25, xi: 1, rho: -1.5"),
       "t.yaml:9:95: models[1].rho: must be between -1 and 1"},
      {"heston_unknown_scheme",
       heston("v0: 0.04, kappa: 4, theta: 0.25, xi: 1, rho: -0.5, scheme: euler"),
       "t.yaml:9:109: models[1].scheme: must be one of: qe, full_truncation"},

      // local vol surface
      {"surface_not_a_mapping", surface("[0.2]"),
       "t.yaml:10:63: models[2].surface: must be a mapping"},
      {"surface_unknown_key",
       surface("{times: [1], strikes: [100], log_moneyness: [0], vols: [[0.2]]}"),
       "t.yaml:10:76: models[2].surface: unknown key 'strikes' (expected one of: times, "
       "log_moneyness, vols)"},
      {"surface_no_times", surface("{times: [], log_moneyness: [0], vols: []}"),
       "t.yaml:10:71: models[2].surface.times: must not be empty"},
      {"surface_negative_time",
       surface("{times: [-0.5, 1], log_moneyness: [0], vols: [[0.2], "
               "[0.2]]}"),
       "t.yaml:10:72: models[2].surface.times[0]: must be >= 0"},
      {"surface_times_not_increasing",
       surface("{times: [0, 1, 1], log_moneyness: [0], vols: [[0.2], [0.2], [0.2]]}"),
       "t.yaml:10:78: models[2].surface.times[2]: must be > the previous time 1"},
      {"surface_log_moneyness_not_increasing",
       surface("{times: [1], log_moneyness: [0, -0.5], vols: [[0.2, 0.2]]}"),
       "t.yaml:10:95: models[2].surface.log_moneyness[1]: must be > the previous log_moneyness "
       "0"},
      {"surface_too_many_knots",
       surface("{times: [1], log_moneyness: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, "
               "16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33], vols: "
               "[[0.2]]}"),
       "t.yaml:10:91: models[2].surface.log_moneyness: must have at most 32 values (got 33)"},
      {"surface_too_few_rows",
       surface("{times: [0.5, 1], log_moneyness: [-0.5, 0, 0.5], vols: [[0.3, 0.2, 0.25]]}"),
       "t.yaml:10:118: models[2].surface.vols: has 1 row; times has 2 values (one row per "
       "time)"},
      {"surface_row_too_short",
       surface("{times: [0, 0.5, 1], log_moneyness: [-0.5, -0.25, 0, 0.25, 0.5], vols: [[0.3, "
               "0.25, 0.2, 0.2, 0.22], [0.3, 0.25, 0.2, 0.2], [0.3, 0.25, 0.2, 0.2, 0.22]]}"),
       "t.yaml:10:164: models[2].surface.vols[1]: has 4 values; log_moneyness has 5"},
      {"surface_vol_zero",
       surface("{times: [0.5, 1], log_moneyness: [-0.5, 0, 0.5, 1], vols: [[0.3, 0.2, 0.25, "
               "0.2], [0.28, 0.2, 0.22, 0]]}"),
       "t.yaml:10:163: models[2].surface.vols[1][3]: must be > 0"},
      {"surface_row_not_a_list",
       surface("{times: [0.5, 1], log_moneyness: [0], vols: [[0.3], 0.2]}"),
       "t.yaml:10:115: models[2].surface.vols[1]: must be a list"},

      // correlated GBMs
      {"multi_with_underlying_key",
       multi("underlying: SPX, underlyings: [SPX, SX5E], volatilities: [0.2, 0.2], "
             "correlation: [[1, 0], [0, 1]]"),
       "t.yaml:11:45: models[3]: unknown key 'underlying' (expected one of: name, type, "
       "underlyings, volatilities, correlation)"},
      {"multi_one_underlying", multi("underlyings: [SPX], volatilities: [0.2], correlation: [[1]]"),
       "t.yaml:11:58: models[3].underlyings: must have 2 to 4 underlyings (got 1)"},
      {"multi_five_underlyings",
       multi("underlyings: [SPX, SX5E, NKY, A, B], volatilities: [0.2], correlation: [[1]]"),
       "t.yaml:11:58: models[3].underlyings: must have 2 to 4 underlyings (got 5)"},
      {"multi_unknown_underlying",
       multi("underlyings: [SPX, SX5F, NKY], " + good_vols +
             ", correlation: [[1, 0.5, 0.3], [0.5, 1, 0.2], [0.3, 0.2, 1]]"),
       "t.yaml:11:64: models[3].underlyings[1]: unknown underlying 'SX5F' (known: SPX, SX5E, "
       "NKY)"},
      {"multi_duplicate_underlying",
       multi("underlyings: [SPX, SX5E, SPX], " + good_vols +
             ", correlation: [[1, 0.5, 0.3], [0.5, 1, 0.2], [0.3, 0.2, 1]]"),
       "t.yaml:11:70: models[3].underlyings[2]: duplicate underlying 'SPX' (first at line 11)"},
      {"multi_volatility_count",
       multi("underlyings: [SPX, SX5E, NKY], volatilities: [0.2, 0.25], "
             "correlation: [[1, 0.5, 0.3], [0.5, 1, 0.2], [0.3, 0.2, 1]]"),
       "t.yaml:11:90: models[3].volatilities: must have 3 values, one per underlying (got 2)"},
      {"multi_volatility_zero",
       multi("underlyings: [SPX, SX5E, NKY], volatilities: [0.2, 0, 0.3], "
             "correlation: [[1, 0.5, 0.3], [0.5, 1, 0.2], [0.3, 0.2, 1]]"),
       "t.yaml:11:96: models[3].volatilities[1]: must be > 0"},
      {"correlation_row_count",
       multi("underlyings: [SPX, SX5E, NKY], " + good_vols +
             ", correlation: [[1, 0.5, 0.3], [0.5, 1, 0.2]]"),
       "t.yaml:11:121: models[3].correlation: must have 3 rows, one per underlying (got 2)"},
      {"correlation_row_length",
       multi("underlyings: [SPX, SX5E, NKY], " + good_vols +
             ", correlation: [[1, 0.5, 0.3], [0.5, 1], [0.3, 0.2, 1]]"),
       "t.yaml:11:137: models[3].correlation[1]: must have 3 values, one per underlying (got "
       "2)"},
      {"correlation_diagonal_not_one",
       multi("underlyings: [SPX, SX5E, NKY], " + good_vols +
             ", correlation: [[1, 0.5, 0.3], [0.5, 0.9, 0.2], [0.3, 0.2, 1]]"),
       "t.yaml:11:143: models[3].correlation[1][1]: must be 1 (the diagonal of a correlation "
       "matrix)"},
      {"correlation_out_of_range",
       multi("underlyings: [SPX, SX5E, NKY], " + good_vols +
             ", correlation: [[1, 1.5, 0.3], [1.5, 1, 0.2], [0.3, 0.2, 1]]"),
       "t.yaml:11:126: models[3].correlation[0][1]: must be between -1 and 1"},
      {"correlation_not_symmetric",
       multi("underlyings: [SPX, SX5E, NKY], " + good_vols +
             ", correlation: [[1, 0.5, 0.3], [0.5, 1, 0.2], [0.3, 0.25, 1]]"),
       "t.yaml:11:158: models[3].correlation[2][1]: must equal correlation[1][2] = 0.2 (the "
       "matrix must be symmetric)"},
      {"correlation_not_positive_definite",
       multi("underlyings: [SPX, SX5E, NKY], " + good_vols +
             ", correlation: [[1, 0.6, 0.6], [0.6, 1, -0.6], [0.6, -0.6, 1]]"),
       "t.yaml:11:121: models[3].correlation: is not positive definite (Cholesky pivot 3 is "
       "-0.8)"},
      {"correlation_singular",
       multi("underlyings: [SPX, SX5E], volatilities: [0.2, 0.2], correlation: [[1, 1], [1, "
             "1]]"),
       "t.yaml:11:110: models[3].correlation: is not positive definite (Cholesky pivot 2 is 0)"},

      // basket instruments and the models they price on
      {"basket_on_single_asset_model",
       instrument("  - {id: bk, type: basket, payoff: weighted, option: call, strike: 100, "
                  "maturity: 1.0, model: spx_h}"),
       "t.yaml:14:95: instruments[1].model: 'spx_h' is a heston model; basket instruments need "
       "a multi_black_scholes model"},
      {"european_on_multi_asset_model",
       instrument("  - {id: e1, type: european, option: call, strike: 100, maturity: 1.0, "
                  "model: bask}"),
       "t.yaml:14:79: instruments[1].model: 'bask' is a multi_black_scholes model; only basket "
       "instruments price on it"},
      {"barrier_on_multi_asset_model",
       instrument("  - {id: b1, type: barrier, option: put, strike: 100, barrier: 90, "
                  "barrier_type: down_and_in, monitoring: 12, maturity: 1.0, model: bask}"),
       "t.yaml:14:133: instruments[1].model: 'bask' is a multi_black_scholes model; only basket "
       "instruments price on it"},
      {"basket_missing_payoff",
       instrument("  - {id: bk, type: basket, option: call, strike: 100, maturity: 1.0, "
                  "model: bask}"),
       "t.yaml:14:5: instruments[1]: missing required key 'payoff'"},
      {"basket_unknown_payoff",
       instrument("  - {id: bk, type: basket, payoff: average, option: call, strike: 100, "
                  "maturity: 1.0, model: bask}"),
       "t.yaml:14:36: instruments[1].payoff: must be one of: weighted, max, min"},
      {"basket_with_barrier_key",
       instrument("  - {id: bk, type: basket, payoff: max, option: call, strike: 100, "
                  "maturity: 1.0, barrier: 90, model: bask}"),
       "t.yaml:14:83: instruments[1]: unknown key 'barrier' (expected one of: id, type, option, "
       "strike, maturity, model, payoff, weights, exercise, exercise_dates, exercise_times, "
       "knock)"},
      {"basket_weight_count",
       instrument("  - {id: bk, type: basket, payoff: weighted, option: call, strike: 100, "
                  "maturity: 1.0, weights: [0.5, 0.5], model: bask}"),
       "t.yaml:14:97: instruments[1].weights: must have 3 values, one per underlying of 'bask' "
       "(got 2)"},
      {"basket_weights_all_zero",
       instrument("  - {id: bk, type: basket, payoff: weighted, option: put, strike: 100, "
                  "maturity: 1.0, weights: [0, 0, -0.0], model: bask}"),
       "t.yaml:14:96: instruments[1].weights: must not all be 0"},
      {"basket_weight_infinite",
       instrument("  - {id: bk, type: basket, payoff: weighted, option: call, strike: 100, "
                  "maturity: 1.0, weights: [1, .inf, 1], model: bask}"),
       "t.yaml:14:101: instruments[1].weights[1]: must be finite"},
      {"basket_knock_above_its_level",
       instrument("  - {id: bk, type: basket, payoff: weighted, option: call, strike: 100, "
                  "maturity: 1.0, model: bask, knock: {type: down_and_in, level: 120, "
                  "monitoring: 4}}"),
       "t.yaml:14:135: instruments[1].knock.level: down barrier 120 must be below the basket's "
       "starting level 116.667 (the weighted sum of the spots)"},
      {"max_basket_knock_below_its_level",
       instrument("  - {id: bk, type: basket, payoff: max, option: call, strike: 100, "
                  "maturity: 1.0, weights: [1, 1, 0.5], model: bask, knock: {type: up_and_out, "
                  "level: 99, monitoring: 4}}"),
       "t.yaml:14:151: instruments[1].knock.level: up barrier 99 must be above the basket's "
       "starting level 100 (the largest weighted spot)"},
      {"max_basket_negative_weight",
       instrument("  - {id: bk, type: basket, payoff: max, option: call, strike: 100, "
                  "maturity: 1.0, weights: [1, -1, 1], model: bask}"),
       "t.yaml:14:96: instruments[1].weights[1]: must be > 0"},

      // simulation options
      {"antithetic_odd_paths", with_tail("simulation: {paths: 1001, antithetic: true}\n"),
       "t.yaml:11:21: simulation.paths: antithetic pairs need an even number of paths"},
      {"antithetic_not_a_boolean", with_tail("simulation: {antithetic: yes}\n"),
       "t.yaml:11:26: simulation.antithetic: must be true or false"},
      {"control_variate_quoted", with_tail("simulation: {control_variate: \"true\"}\n"),
       "t.yaml:11:31: simulation.control_variate: must be true or false"},
      {"brownian_bridge_number", with_tail("simulation: {brownian_bridge: 1}\n"),
       "t.yaml:11:31: simulation.brownian_bridge: must be true, false or auto"},
      {"replicates_zero", with_tail("simulation: {rng: scrambled_sobol, replicates: 0}\n"),
       "t.yaml:11:48: simulation.replicates: must be >= 1"},
      {"replicates_too_many", with_tail("simulation: {rng: scrambled_sobol, replicates: 1025}\n"),
       "t.yaml:11:48: simulation.replicates: must be <= 1024"},
      {"replicates_with_philox", with_tail("simulation: {replicates: 8}\n"),
       "t.yaml:11:26: simulation.replicates: replicates apply to scrambled_sobol only (rng is "
       "philox)"},
      {"replicates_with_mrg32k3a", with_tail("simulation: {rng: mrg32k3a, replicates: 1}\n"),
       "t.yaml:11:41: simulation.replicates: replicates apply to scrambled_sobol only (rng is "
       "mrg32k3a)"},
      {"replicates_with_plain_sobol", with_tail("simulation: {rng: sobol, replicates: 4}\n"),
       "t.yaml:11:38: simulation.replicates: replicates apply to scrambled_sobol only: plain "
       "sobol has no randomisation to repeat, so it runs one replicate (use rng: "
       "scrambled_sobol, or replicates: 1)"},
      {"paths_not_split_by_replicates",
       with_tail("simulation: {paths: 1000, rng: scrambled_sobol, replicates: 16}\n"),
       "t.yaml:11:21: simulation.paths: 1000 paths do not split evenly into 16 replicates"},
      {"default_paths_not_split_by_replicates",
       with_tail("simulation: {rng: scrambled_sobol, replicates: 3}\n"),
       "t.yaml:11:48: simulation.replicates: 100000 paths do not split evenly into 3 "
       "replicates"},
      {"one_path_per_replicate",
       with_tail("simulation: {paths: 16, rng: scrambled_sobol, replicates: 16}\n"),
       "t.yaml:11:21: simulation.paths: each of the 16 replicates needs at least 2 paths (paths "
       "is 16)"},
      {"antithetic_odd_paths_per_replicate",
       with_tail("simulation: {paths: 24, rng: scrambled_sobol, replicates: 8, antithetic: "
                 "true}\n"),
       "t.yaml:11:21: simulation.paths: antithetic pairs need an even number of paths in each "
       "replicate (24 paths / 8 replicates = 3)"},
      {"unknown_greek", with_tail("simulation: {greeks: [delta, vanna]}\n"),
       "t.yaml:11:30: simulation.greeks[1]: must be one of: delta, gamma, vega, rho, theta, "
       "cross_gamma"},
      {"duplicate_greek", with_tail("simulation: {greeks: [delta, vega, delta]}\n"),
       "t.yaml:11:36: simulation.greeks[2]: duplicate greek 'delta'"},
      {"greeks_not_a_list", with_tail("simulation: {greeks: delta}\n"),
       "t.yaml:11:22: simulation.greeks: must be a list"},
  };
}

class NewModelBadConfigTest : public ::testing::TestWithParam<BadConfig> {};

TEST_P(NewModelBadConfigTest, ReportsFileLineColumnKeyPathAndReason) {
  EXPECT_EQ(error_of(GetParam().yaml), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(LoadConfig, NewModelBadConfigTest,
                         ::testing::ValuesIn(new_model_bad_configs()),
                         [](const ::testing::TestParamInfo<BadConfig>& info) {
                           return info.param.name;
                         });

TEST(LoadConfig, EveryNewModelBadCaseStartsFromAValidDocument) {
  EXPECT_EQ(error_of(models_doc()), "no error");
}

// --- command-line overrides ---------------------------------------------------------------------

TEST(Overrides, GoodValuesAreApplied) {
  RunConfig c = parse_kept(valid_doc() + "engine: {backend: none}\n", "t.yaml");
  ASSERT_GT(c.engine.backend_mark.line, 0);
  Overrides o;
  o.values["device"] = "cpu";
  o.values["backend"] = "none";
  o.values["padding"] = "8";
  o.values["precision"] = "float";
  o.values["rng"] = "sobol";
  o.values["math"] = "fast";
  o.values["greeks_method"] = "bump";
  o.values["prefetch_distance"] = "12";
  o.values["block_size"] = "256";
  o.values["cpu_threads"] = "4";
  o.values["paths"] = "1e6";
  o.values["seed"] = "7";
  o.values["max_device_memory"] = "512MiB";
  apply_overrides(c, o);
  EXPECT_EQ(c.engine.device, DeviceChoice::cpu);
  EXPECT_EQ(c.engine.backend, "none");
  EXPECT_EQ(c.engine.backend_mark.line, 0); // no longer from the file
  EXPECT_EQ(c.engine.padding.mode, Padding::Mode::fixed);
  EXPECT_EQ(c.engine.padding.amount, 8);
  EXPECT_EQ(c.simulation.precision, Precision::float32);
  EXPECT_EQ(c.simulation.rng, RngType::sobol);
  EXPECT_EQ(c.simulation.math, MathProfile::fast);
  EXPECT_EQ(c.simulation.greeks_method, GreeksMethod::bump);
  EXPECT_EQ(c.engine.prefetch_distance, 12);
  EXPECT_EQ(c.engine.block_size, 256);
  EXPECT_EQ(c.engine.cpu_threads, 4);
  EXPECT_EQ(c.simulation.paths, 1000000u);
  EXPECT_EQ(c.simulation.seed, 7u);
  EXPECT_EQ(c.engine.max_device_memory, 512ull << 20);
}

TEST(EnvironmentOverrides, TheKernelSwitchesAreSettingsTheEnvironmentOverridesOnce) {
  // engine.terminal_kernels, terminal_blocks_per_cta, compile_at_runtime and unit_groups: YAML
  // keys with their defaults, which the front ends' environment variables override (unset or
  // empty: the config's value), refused by name with nothing applied.
  RunConfig c = parse_kept(valid_doc(), "t.yaml");
  EXPECT_TRUE(c.engine.terminal_kernels);
  EXPECT_EQ(c.engine.terminal_blocks_per_cta, 0);
  EXPECT_FALSE(c.engine.compile_at_runtime);
  EXPECT_EQ(c.engine.unit_groups, kDefaultUnitGroups);
  RunConfig y = parse_kept(valid_doc() + "engine: {terminal_kernels: false, "
                                         "terminal_blocks_per_cta: 8, compile_at_runtime: true, "
                                         "unit_groups: 0}\n",
                           "t.yaml");
  EXPECT_FALSE(y.engine.terminal_kernels);
  EXPECT_EQ(y.engine.terminal_blocks_per_cta, 8);
  EXPECT_TRUE(y.engine.compile_at_runtime);
  EXPECT_EQ(y.engine.unit_groups, 0);
  static std::map<std::string, std::string> env;
  const Environment fake = [](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  env = {{"PFMC_TERMINAL_KERNELS", "0"},
         {"PFMC_TERMINAL_BLOCKS_PER_CTA", "auto"},
         {"PFMC_COMPILE_AT_RUNTIME", "1"},
         {"PFMC_UNIT_GROUPS", ""}};
  RunConfig e = y;
  e.engine.terminal_kernels = true;
  apply_environment(e, fake);
  EXPECT_FALSE(e.engine.terminal_kernels);
  EXPECT_EQ(e.engine.terminal_blocks_per_cta, 0);
  EXPECT_TRUE(e.engine.compile_at_runtime);
  EXPECT_EQ(e.engine.unit_groups, 0); // empty: the config's
  const auto refused = [&](const char* name, const char* value) {
    env = {{name, value}};
    RunConfig r = c;
    try {
      apply_environment(r, fake);
    } catch (const ConfigError& error) {
      EXPECT_EQ(r.engine.unit_groups, c.engine.unit_groups); // nothing applied
      return std::string(error.what());
    }
    return std::string("taken");
  };
  EXPECT_EQ(refused("PFMC_UNIT_GROUPS", "1000001"), "PFMC_UNIT_GROUPS: must be <= 1000000");
  EXPECT_EQ(refused("PFMC_UNIT_GROUPS", "-1"), "PFMC_UNIT_GROUPS: must be >= 0");
  EXPECT_EQ(refused("PFMC_TERMINAL_KERNELS", "yes"), "PFMC_TERMINAL_KERNELS: must be 0 or 1");
  EXPECT_EQ(refused("PFMC_TERMINAL_BLOCKS_PER_CTA", "0"),
            "PFMC_TERMINAL_BLOCKS_PER_CTA: must be >= 1");
  EXPECT_EQ(refused("PFMC_COMPILE_AT_RUNTIME", "2"), "PFMC_COMPILE_AT_RUNTIME: must be 0 or 1");
}

TEST(Overrides, NothingGivenChangesNothing) {
  RunConfig c = parse_kept(valid_doc(), "t.yaml");
  apply_overrides(c, Overrides{});
  EXPECT_EQ(c.simulation.paths, 100000u);
  EXPECT_EQ(c.engine.backend, "auto");
}

TEST(Overrides, BadValuesUseTheYamlRulesAndTheFlagName) {
  const auto with = [](auto setter) {
    Overrides o;
    setter(o);
    return override_error(o);
  };
  EXPECT_EQ(with([](Overrides& o) { o.values["paths"] = "0"; }), "--paths: must be >= 1");
  EXPECT_EQ(with([](Overrides& o) { o.values["paths"] = "-5"; }), "--paths: must be >= 1");
  EXPECT_EQ(with([](Overrides& o) { o.values["paths"] = "lots"; }), "--paths: must be an integer");
  EXPECT_EQ(with([](Overrides& o) { o.values["paths"] = "2e12"; }),
            "--paths: must be <= 1000000000000");
  EXPECT_EQ(with([](Overrides& o) { o.values["paths"] = "99999999999999999999999"; }),
            "--paths: must be <= 1000000000000");
  EXPECT_EQ(with([](Overrides& o) { o.values["seed"] = "-1"; }), "--seed: must be >= 0");
  EXPECT_EQ(with([](Overrides& o) { o.values["seed"] = "18446744073709551616"; }),
            "--seed: must be <= 18446744073709551615");
  EXPECT_EQ(with([](Overrides& o) { o.values["backend"] = "nope"; }),
            "--backend: unknown backend 'nope' (known: auto, " + kernels::backend_name_list() +
                ")");
  EXPECT_EQ(with([](Overrides& o) { o.values["backend"] = "ideal"; }),
            "--backend: 'ideal' is a diagnostic of `pfmc bench` (free draws, prices that mean "
            "nothing), not a backend to price with (known: auto, " +
                kernels::backend_name_list() + ")");
  EXPECT_EQ(kernels::backend_name_list().find("ideal"), std::string::npos) << "not offered to runs";
  EXPECT_EQ(with([](Overrides& o) { o.values["prefetch_distance"] = "5"; }),
            "--prefetch-distance: 5 is not an instantiated distance (valid: " +
                kernels::prefetch_distance_list() + ")");
  EXPECT_EQ(with([](Overrides& o) { o.values["prefetch_distance"] = "-4"; }),
            "--prefetch-distance: -4 is not an instantiated distance (valid: " +
                kernels::prefetch_distance_list() + ")");
  EXPECT_EQ(with([](Overrides& o) { o.values["block_size"] = "100"; }),
            "--block-size: must be a power of two in 32..1024 (32, 64, 128, 256, 512, 1024)");
  EXPECT_EQ(with([](Overrides& o) { o.values["block_size"] = "2048"; }),
            "--block-size: must be a power of two in 32..1024 (32, 64, 128, 256, 512, 1024)");
  EXPECT_EQ(with([](Overrides& o) { o.values["cpu_threads"] = "-1"; }),
            "--cpu-threads: must be >= 0");
  EXPECT_EQ(with([](Overrides& o) { o.values["padding"] = "65"; }),
            "--padding: must be one of: auto, none, slot_major, or an integer 0..64");
  EXPECT_EQ(with([](Overrides& o) { o.values["device"] = "GPU"; }),
            "--device: must be one of: auto, gpu, cpu");
  EXPECT_EQ(with([](Overrides& o) { o.values["precision"] = "half"; }),
            "--precision: must be one of: float, double");
  EXPECT_EQ(with([](Overrides& o) { o.values["rng"] = "xorwow"; }),
            "--rng: must be one of: philox, mrg32k3a, sobol, scrambled_sobol");
  EXPECT_EQ(with([](Overrides& o) { o.values["math"] = "Fast"; }),
            "--math: must be one of: accurate, fast");
  EXPECT_EQ(with([](Overrides& o) { o.values["greeks_method"] = "adjoint"; }),
            "--greeks-method: must be one of: auto, bump, pathwise");
  EXPECT_EQ(with([](Overrides& o) { o.values["max_device_memory"] = "0"; }),
            "--max-device-memory: must be > 0");
  EXPECT_EQ(with([](Overrides& o) { o.values["max_device_memory"] = "4 GB"; }),
            "--max-device-memory: must be a number of bytes or a size such as 512MiB, 4GiB or 2GB");
}

TEST(Overrides, ABadFlagLeavesTheConfigUntouched) {
  RunConfig c = parse_kept(valid_doc(), "t.yaml");
  Overrides o;
  o.values["device"] = "cpu"; // valid, but must not be applied alone
  o.values["paths"] = "0";
  EXPECT_THROW(apply_overrides(c, o), ConfigError);
  EXPECT_EQ(c.engine.device, DeviceChoice::automatic);
  EXPECT_EQ(c.simulation.paths, 100000u);
}

TEST(Overrides, SimulationOptionFlagsAreApplied) {
  RunConfig c = parse_kept(valid_doc() + "simulation: {rng: scrambled_sobol, paths: 4096, "
                                         "greeks: [delta]}\n",
                           "t.yaml");
  Overrides o;
  o.values["greeks"] = "vega,delta,rho";
  o.values["antithetic"] = "true";
  o.values["control_variate"] = "true";
  o.values["replicates"] = "32";
  apply_overrides(c, o);
  EXPECT_EQ(c.simulation.greeks, (std::vector<Greek>{Greek::delta, Greek::vega, Greek::rho}));
  EXPECT_TRUE(c.simulation.antithetic);
  EXPECT_TRUE(c.simulation.control_variate);
  EXPECT_EQ(c.simulation.replicates, 32);

  Overrides none;
  none.values["greeks"] = "none";
  apply_overrides(c, none);
  EXPECT_TRUE(c.simulation.greeks.empty());
  EXPECT_TRUE(c.simulation.antithetic); // not given: left alone

  // A flag may also mend what the file got wrong together with it: the result is judged.
  RunConfig d = parse_kept(valid_doc() + "simulation: {paths: 1000}\n", "t.yaml");
  Overrides mend;
  mend.values["antithetic"] = "true";
  mend.values["paths"] = "1e6";
  apply_overrides(d, mend);
  EXPECT_EQ(d.simulation.paths, 1000000u);
  EXPECT_TRUE(d.simulation.antithetic);
}

TEST(Overrides, SimulationOptionFlagsUseTheYamlRules) {
  const auto with = [](auto setter) {
    Overrides o;
    setter(o);
    return override_error(o);
  };
  EXPECT_EQ(with([](Overrides& o) { o.values["greeks"] = "delt"; }),
            "--greeks: unknown greek 'delt' (expected none, or a comma-separated list of: delta, "
            "gamma, vega, rho, theta, cross_gamma)");
  EXPECT_EQ(with([](Overrides& o) { o.values["greeks"] = "delta,,vega"; }),
            "--greeks: empty name (expected none, or a comma-separated list of: delta, gamma, "
            "vega, rho, theta, cross_gamma)");
  EXPECT_EQ(with([](Overrides& o) { o.values["greeks"] = ""; }),
            "--greeks: empty name (expected none, or a comma-separated list of: delta, gamma, "
            "vega, rho, theta, cross_gamma)");
  EXPECT_EQ(with([](Overrides& o) { o.values["greeks"] = "delta, vega"; }),
            "--greeks: unknown greek ' vega' (expected none, or a comma-separated list of: delta, "
            "gamma, vega, rho, theta, cross_gamma)");
  EXPECT_EQ(with([](Overrides& o) { o.values["greeks"] = "vega,delta,vega"; }),
            "--greeks: duplicate greek 'vega'");
  EXPECT_EQ(with([](Overrides& o) { o.values["replicates"] = "0"; }), "--replicates: must be >= 1");
  EXPECT_EQ(with([](Overrides& o) { o.values["replicates"] = "2000"; }),
            "--replicates: must be <= 1024");
  EXPECT_EQ(with([](Overrides& o) { o.values["replicates"] = "many"; }),
            "--replicates: must be an integer");
  // valid_doc() runs philox with 100000 paths.
  EXPECT_EQ(with([](Overrides& o) { o.values["replicates"] = "4"; }),
            "--replicates: replicates apply to scrambled_sobol only (rng is philox)");
  EXPECT_EQ(with([](Overrides& o) {
              o.values["rng"] = "scrambled_sobol";
              o.values["replicates"] = "3";
            }),
            "--replicates: 100000 paths do not split evenly into 3 replicates");
  EXPECT_EQ(with([](Overrides& o) {
              o.values["antithetic"] = "true";
              o.values["paths"] = "1001";
            }),
            "--paths: antithetic pairs need an even number of paths");
}

/// The error of applying `overrides` to the config read from `doc`, which must load.
std::string override_error_on(const std::string& doc, const Overrides& overrides) {
  RunConfig config = parse_kept(doc, "t.yaml");
  const RunConfig before = config;
  try {
    apply_overrides(config, overrides);
  } catch (const ConfigError& e) {
    EXPECT_EQ(config.simulation.paths, before.simulation.paths); // left untouched
    EXPECT_EQ(config.simulation.rng, before.simulation.rng);
    EXPECT_EQ(config.simulation.antithetic, before.simulation.antithetic);
    EXPECT_EQ(config.simulation.replicates, before.simulation.replicates);
    return e.what();
  }
  return "no error";
}

TEST(Overrides, CrossKeyRulesHoldAfterOverridesAndNameTheFlag) {
  const std::string antithetic = valid_doc() + "simulation: {paths: 1000, antithetic: true}\n";
  Overrides odd_paths;
  odd_paths.values["paths"] = "1001";
  EXPECT_EQ(override_error_on(antithetic, odd_paths),
            "--paths: antithetic pairs need an even number of paths");

  const std::string odd = valid_doc() + "simulation: {paths: 1001}\n";
  Overrides pairs;
  pairs.values["antithetic"] = "true";
  EXPECT_EQ(override_error_on(odd, pairs),
            "--antithetic: antithetic pairs need an even number of paths (paths is 1001)");

  const std::string replicated =
      valid_doc() + "simulation: {paths: 4096, rng: scrambled_sobol, replicates: 16}\n";
  Overrides philox;
  philox.values["rng"] = "philox";
  EXPECT_EQ(override_error_on(replicated, philox),
            "--rng: replicates apply to scrambled_sobol only (rng is philox)");
  Overrides sobol;
  sobol.values["rng"] = "sobol";
  EXPECT_EQ(override_error_on(replicated, sobol),
            "--rng: replicates apply to scrambled_sobol only: plain sobol has no randomisation to "
            "repeat, so it runs one replicate (use rng: scrambled_sobol, or replicates: 1)");
  Overrides uneven;
  uneven.values["paths"] = "4004";
  EXPECT_EQ(override_error_on(replicated, uneven),
            "--paths: 4004 paths do not split evenly into 16 replicates");
  Overrides too_few;
  too_few.values["paths"] = "16";
  EXPECT_EQ(override_error_on(replicated, too_few),
            "--paths: each of the 16 replicates needs at least 2 paths (paths is 16)");
  Overrides fine;
  fine.values["rng"] = "sobol";
  fine.values["replicates"] = "1";
  EXPECT_EQ(override_error_on(replicated, fine), "no error");
}

// --- shared parsers
// -------------------------------------------------------------------------------

TEST(ParseMemorySize, AcceptsBytesAndUnits) {
  EXPECT_EQ(parse_memory_size("1073741824"), 1073741824u);
  EXPECT_EQ(parse_memory_size("100B"), 100u);
  EXPECT_EQ(parse_memory_size("1KiB"), 1024u);
  EXPECT_EQ(parse_memory_size("512MiB"), 512ull << 20);
  EXPECT_EQ(parse_memory_size("4GiB"), 4ull << 30);
  EXPECT_EQ(parse_memory_size("1TiB"), 1ull << 40);
  EXPECT_EQ(parse_memory_size("1KB"), 1000u);
  EXPECT_EQ(parse_memory_size("250MB"), 250000000u);
  EXPECT_EQ(parse_memory_size("2GB"), 2000000000u);
  EXPECT_EQ(parse_memory_size("3TB"), 3000000000000u);
  EXPECT_EQ(parse_memory_size("1.5GiB"), 1610612736u);
  EXPECT_EQ(parse_memory_size("0.5KB"), 500u);
  EXPECT_EQ(parse_memory_size("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
}

TEST(ParseMemorySize, RefusesMalformedZeroAndOverflow) {
  for (const char* text : {"",
                           "0",
                           "0GiB",
                           "0.0MB",
                           "GiB",
                           "4 GiB",
                           "4gib",
                           "4G",
                           "-1",
                           "+4GiB",
                           "1.5",
                           "1e9",
                           "4GiBs",
                           ".5GiB",
                           "4.GiB",
                           "1,5GiB",
                           "0x10",
                           "18446744073709551616",
                           "16777216TiB",
                           "99999999999999999999TB"}) {
    EXPECT_EQ(parse_memory_size(text), std::nullopt) << '"' << text << '"';
  }
}

TEST(SharedParsers, PaddingSpellings) {
  EXPECT_EQ(parse_padding("auto")->mode, Padding::Mode::automatic);
  EXPECT_EQ(parse_padding("none")->mode, Padding::Mode::none);
  EXPECT_EQ(parse_padding("slot_major")->mode, Padding::Mode::slot_major);
  EXPECT_EQ(parse_padding("0")->mode, Padding::Mode::fixed);
  EXPECT_EQ(parse_padding("64")->amount, 64);
  for (const char* text : {"65", "-1", "Auto", "", "slot-major", "2.5"}) {
    EXPECT_EQ(parse_padding(text), std::nullopt) << text;
  }
}

TEST(SharedParsers, EnumsAreCaseSensitiveAndExact) {
  EXPECT_EQ(parse_precision("float"), Precision::float32);
  EXPECT_EQ(parse_precision("double"), Precision::float64);
  EXPECT_EQ(parse_precision("Double"), std::nullopt);
  EXPECT_EQ(parse_precision("float64"), std::nullopt);
  EXPECT_EQ(parse_rng("mrg32k3a"), RngType::mrg32k3a);
  EXPECT_EQ(parse_rng("scrambled-sobol"), std::nullopt);
  EXPECT_EQ(parse_math_profile("fast"), MathProfile::fast);
  EXPECT_EQ(parse_math_profile("approximate"), std::nullopt);
  EXPECT_EQ(parse_greeks_method("auto"), GreeksMethod::automatic);
  EXPECT_EQ(parse_greeks_method("pathwise"), GreeksMethod::pathwise);
  EXPECT_EQ(parse_greeks_method("automatic"), std::nullopt); // the enum's name, not its spelling
  EXPECT_EQ(parse_greeks_method("Bump"), std::nullopt);
  EXPECT_EQ(parse_device("auto"), DeviceChoice::automatic);
  EXPECT_EQ(parse_device(" gpu"), std::nullopt);
}

TEST(SharedParsers, RealNumbersFollowYamlSpelling) {
  EXPECT_EQ(detail::parse_real("12"), 12.0);
  EXPECT_EQ(detail::parse_real("-0.5"), -0.5);
  EXPECT_EQ(detail::parse_real(".5"), 0.5);
  EXPECT_EQ(detail::parse_real("1e6"), 1e6);
  EXPECT_EQ(detail::parse_real("+2.5E-1"), 0.25);
  EXPECT_TRUE(std::isinf(*detail::parse_real("-.inf")));
  EXPECT_TRUE(std::isnan(*detail::parse_real(".nan")));
  for (const char* text : {"", ".", "1e", "inf", "nan", "0x10", "1,5", "1_000", "1.2.3", " 1"}) {
    EXPECT_EQ(detail::parse_real(text), std::nullopt) << text;
  }
}

// --- to_string
// ------------------------------------------------------------------------------------

TEST(ToString, SpellingsMatchTheYaml) {
  EXPECT_STREQ(to_string(ModelType::black_scholes), "black_scholes");
  EXPECT_STREQ(to_string(InstrumentType::european), "european");
  EXPECT_STREQ(to_string(InstrumentType::digital), "digital");
  EXPECT_STREQ(to_string(InstrumentType::asian), "asian");
  EXPECT_STREQ(to_string(InstrumentType::barrier), "barrier");
  EXPECT_STREQ(to_string(OptionType::call), "call");
  EXPECT_STREQ(to_string(OptionType::put), "put");
  EXPECT_STREQ(to_string(AverageType::arithmetic), "arithmetic");
  EXPECT_STREQ(to_string(AverageType::geometric), "geometric");
  EXPECT_STREQ(to_string(BarrierType::up_and_in), "up_and_in");
  EXPECT_STREQ(to_string(BarrierType::up_and_out), "up_and_out");
  EXPECT_STREQ(to_string(BarrierType::down_and_in), "down_and_in");
  EXPECT_STREQ(to_string(BarrierType::down_and_out), "down_and_out");
  EXPECT_STREQ(to_string(Precision::float32), "float");
  EXPECT_STREQ(to_string(Precision::float64), "double");
  EXPECT_STREQ(to_string(MathProfile::accurate), "accurate");
  EXPECT_STREQ(to_string(MathProfile::fast), "fast");
  EXPECT_STREQ(to_string(GreeksMethod::automatic), "auto");
  EXPECT_STREQ(to_string(GreeksMethod::bump), "bump");
  EXPECT_STREQ(to_string(GreeksMethod::pathwise), "pathwise");
  EXPECT_STREQ(to_string(DeviceChoice::automatic), "auto");
  EXPECT_EQ(to_string(Padding{Padding::Mode::fixed, 12}), "12");
}

TEST(ToString, RoundTripsThroughTheParsers) {
  for (auto rng : {RngType::philox, RngType::mrg32k3a, RngType::sobol, RngType::scrambled_sobol}) {
    EXPECT_EQ(parse_rng(to_string(rng)), rng);
  }
  for (auto precision : {Precision::float32, Precision::float64}) {
    EXPECT_EQ(parse_precision(to_string(precision)), precision);
  }
  for (auto math : {MathProfile::accurate, MathProfile::fast}) {
    EXPECT_EQ(parse_math_profile(to_string(math)), math);
  }
  for (auto method : {GreeksMethod::automatic, GreeksMethod::bump, GreeksMethod::pathwise}) {
    EXPECT_EQ(parse_greeks_method(to_string(method)), method);
  }
  for (auto device : {DeviceChoice::automatic, DeviceChoice::gpu, DeviceChoice::cpu}) {
    EXPECT_EQ(parse_device(to_string(device)), device);
  }
  for (Padding padding : {Padding{Padding::Mode::automatic, 0}, Padding{Padding::Mode::none, 0},
                          Padding{Padding::Mode::slot_major, 0}, Padding{Padding::Mode::fixed, 0},
                          Padding{Padding::Mode::fixed, 64}}) {
    const auto parsed = parse_padding(to_string(padding));
    ASSERT_TRUE(parsed.has_value()) << to_string(padding);
    EXPECT_EQ(parsed->mode, padding.mode);
    EXPECT_EQ(parsed->amount, padding.amount);
  }
}

TEST(ToString, InstrumentSpellingsRoundTripThroughTheLoader) {
  // What to_string writes is what the loader reads back, for every enum the YAML spells.
  for (auto barrier_type : {BarrierType::up_and_in, BarrierType::up_and_out,
                            BarrierType::down_and_in, BarrierType::down_and_out}) {
    for (auto option : {OptionType::call, OptionType::put}) {
      const bool down =
          barrier_type == BarrierType::down_and_in || barrier_type == BarrierType::down_and_out;
      const std::string doc = kHeader + "  - {id: b, type: " + to_string(InstrumentType::barrier) +
                              ", option: " + to_string(option) +
                              ", strike: 100, barrier: " + (down ? "80" : "120") +
                              ", barrier_type: " + to_string(barrier_type) +
                              ", monitoring: 4, maturity: 1, model: spx_bs}\n";
      const RunConfig c = parse_kept(doc, "t.yaml");
      EXPECT_EQ(c.instruments[0].barrier_type, barrier_type);
      EXPECT_EQ(c.instruments[0].option, option);
    }
  }
  for (auto average : {AverageType::arithmetic, AverageType::geometric}) {
    const std::string doc =
        kHeader + "  - {id: a, type: asian, average: " + to_string(average) +
        ", option: call, strike: 100, maturity: 1, fixings: 2, model: spx_bs}\n";
    EXPECT_EQ(parse_kept(doc, "t.yaml").instruments[0].average, average);
  }
}

} // namespace
} // namespace pfmc::config
