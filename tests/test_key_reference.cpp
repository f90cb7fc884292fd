// The config reference (config/key_reference.hpp) against the loader: what docs/config.md says
// of a setting's default and example is what the loader does. Its key names need no test of
// their own: the loader takes each mapping's allowed keys from the table.

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "config/config_error.hpp"
#include "config/key_reference.hpp"
#include "config/load_config.hpp"

namespace pfmc::config {
namespace {

const std::string kDocument = "market:\n"
                              "  underlyings: [{name: SPX, spot: 100}]\n"
                              "  rates: {zero_rate: 0.05}\n"
                              "models: [{name: m, type: black_scholes, underlying: SPX, "
                              "volatility: 0.2}]\n"
                              "instruments: [{id: c, type: european, option: call, strike: 100, "
                              "maturity: 1, model: m}]\n";

/// Every field of the simulation and engine settings, as text: two loads that differ here
/// differ in what the run does.
std::string settings(const RunConfig& c) {
  const SimulationConfig& s = c.simulation;
  const EngineConfig& e = c.engine;
  std::ostringstream out;
  out << s.paths << ' ' << s.steps_per_year << ' ' << s.seed << ' ' << to_string(s.rng) << ' '
      << to_string(s.precision) << ' ' << to_string(s.math) << ' ' << to_string(s.greeks_method)
      << ' ' << s.antithetic << ' ' << s.control_variate << ' ' << s.brownian_bridge << ' '
      << s.replicates << ' ' << s.greeks.size() << ' ' << s.regression_paths << ' '
      << s.regression_degree << " | " << to_string(e.device) << ' ' << to_string(e.devices) << ' '
      << e.backend << ' ' << e.prefetch_distance << ' ' << to_string(e.padding) << ' '
      << e.block_size << ' ' << e.max_device_memory << ' ' << e.cpu_threads << ' '
      << e.draw_batch_size << ' ' << e.terminal_kernels << ' ' << e.terminal_blocks_per_cta << ' '
      << e.compile_at_runtime << ' ' << e.unit_groups;
  return out.str();
}

/// kDocument with `section: {key: value}` (and `extra`, more keys of that section).
RunConfig with_setting(const std::string& section, const std::string& key, const std::string& value,
                       const std::string& extra = "") {
  return parse_run_config(kDocument + section + ": {" + key + ": " + value + extra + "}\n",
                          "t.yaml");
}

// Defaults the table states in words, not as a value a config could hold, each with why.
const std::set<std::string> kDefaultsInWords = {
    "devices",           // device 0, or under MPI the rank's GPU: not a value of the key
    "max_device_memory", // a fraction of the free memory, found at run time
    "replicates",        // 16, but the key is refused without rng: scrambled_sobol
};

TEST(KeyReference, EachSettingsDefaultIsWhatTheLoaderTakesWithoutIt) {
  const std::string without = settings(parse_run_config(kDocument, "t.yaml"));
  int checked = 0;
  for (const char* path : {"simulation", "engine"}) {
    for (const reference::Key& key : reference::section(path).keys) {
      if (key.default_value.empty() || kDefaultsInWords.count(key.name) > 0)
        continue;
      SCOPED_TRACE(std::string(path) + "." + key.name + ": " + key.default_value);
      EXPECT_EQ(settings(with_setting(path, key.name, key.default_value)), without);
      ++checked;
    }
  }
  EXPECT_GE(checked, 20);
}

TEST(KeyReference, EachSettingsExampleLoadsAndChangesTheSetting) {
  const std::string without = settings(parse_run_config(kDocument, "t.yaml"));
  for (const char* path : {"simulation", "engine"}) {
    for (const reference::Key& key : reference::section(path).keys) {
      SCOPED_TRACE(std::string(path) + "." + key.name + ": " + key.example);
      ASSERT_FALSE(key.example.empty());
      // replicates belongs to scrambled Sobol; an example of another key stands alone.
      const std::string extra = key.name == "replicates" ? ", rng: scrambled_sobol" : "";
      try {
        const RunConfig loaded = with_setting(path, key.name, key.example, extra);
        EXPECT_NE(settings(loaded), without) << "the example is the default";
      } catch (const ConfigError& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }
}

TEST(KeyReference, ChoicesListTheLoadersValues) {
  // A value outside a choice key's list is refused with the loader's list, which must be the
  // table's (both come from config/spellings.hpp; the settings' rules print theirs).
  for (const char* path : {"simulation", "engine"}) {
    for (const reference::Key& key : reference::section(path).keys) {
      if (key.kind != reference::Kind::choice)
        continue;
      SCOPED_TRACE(std::string(path) + "." + key.name);
      std::string listed;
      for (const auto& value : key.allowed)
        listed += (listed.empty() ? "" : ", ") + value;
      try {
        (void)with_setting(path, key.name, "no_such_value");
        ADD_FAILURE() << "accepted";
      } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("must be one of: " + listed), std::string::npos)
            << e.what();
      }
    }
  }
}

TEST(KeyReference, EveryNestedSectionIsInTheTable) {
  for (const reference::Section& s : reference::sections()) {
    for (const reference::Key& key : s.keys) {
      if (key.section.empty())
        continue;
      SCOPED_TRACE(s.path + "." + key.name);
      EXPECT_NO_THROW((void)reference::section(key.section));
    }
  }
}

} // namespace
} // namespace pfmc::config
