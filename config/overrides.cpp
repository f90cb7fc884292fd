#include "config/overrides.hpp"

#include <optional>
#include <string_view>
#include <utility>

#include "base/error.hpp"
#include "config/config_error.hpp"
#include "kernels/catalog.hpp"

namespace pfmc::config {

namespace {

template <class T>
T take(detail::Checked<T> checked, const char* flag) {
  if (!checked.value) {
    throw ConfigError("", SourceMark{}, flag, checked.error);
  }
  return std::move(*checked.value);
}

/// 0 or 1, as the variable says it.
detail::Checked<bool> check_zero_or_one(std::string_view text) {
  if (text == "0" || text == "1")
    return detail::Checked<bool>::ok(text == "1");
  return detail::Checked<bool>::fail("must be 0 or 1");
}

/// `engine` with the environment's overrides applied (apply_environment's rules).
EngineConfig with_environment(EngineConfig engine, Environment environment) {
  const auto given = [&](const char* name) -> std::optional<std::string_view> {
    const char* value = environment(name);
    if (value == nullptr || *value == '\0')
      return std::nullopt;
    return std::string_view(value);
  };
  if (const auto v = given("PFMC_TERMINAL_KERNELS"))
    engine.terminal_kernels = take(check_zero_or_one(*v), "PFMC_TERMINAL_KERNELS");
  if (const auto v = given("PFMC_TERMINAL_BLOCKS_PER_CTA")) {
    engine.terminal_blocks_per_cta =
        take(detail::check_terminal_blocks_per_cta(*v), "PFMC_TERMINAL_BLOCKS_PER_CTA");
  }
  if (const auto v = given("PFMC_COMPILE_AT_RUNTIME"))
    engine.compile_at_runtime = take(check_zero_or_one(*v), "PFMC_COMPILE_AT_RUNTIME");
  if (const auto v = given("PFMC_UNIT_GROUPS"))
    engine.unit_groups = take(detail::check_unit_groups(*v), "PFMC_UNIT_GROUPS");
  return engine;
}

/// What an override sets: a copy of the config's engine and simulation sections.
struct Target {
  EngineConfig& engine;
  SimulationConfig& simulation;
};
using Apply = void (*)(Target& t, const std::string& value, const char* flag);

struct Rule {
  OverrideKey key;
  Apply apply;
};

/// "true" or "false" (a switch's value as the front ends give it).
bool switch_value(const std::string& value, const char* flag) {
  if (value != "true" && value != "false")
    throw ConfigError("", SourceMark{}, flag, "must be true or false");
  return value == "true";
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> list = [] {
    std::vector<Rule> r;
    const auto add = [&](const char* name, const char* setting, std::string help, Apply apply,
                         bool is_switch = false) {
      r.push_back({{name, setting, is_switch, std::move(help)}, apply});
    };
    add("device", "engine.device", "auto | gpu | cpu (overrides engine.device)",
        [](Target& t, const std::string& v, const char* f) {
          t.engine.device = take(detail::check_device(v), f);
        });
    add("devices", "engine.devices",
        "GPUs to split the paths over: all | N (the first N) | 0,2 (ordinals; 2, is device 2 "
        "alone; overrides engine.devices)",
        [](Target& t, const std::string& v, const char* f) {
          t.engine.devices = take(detail::check_devices(v), f);
        });
    add("backend", "engine.backend", "prefetch backend (see `pfmc backends`)",
        [](Target& t, const std::string& v, const char* f) {
          t.engine.backend = take(detail::check_backend(v), f);
          t.engine.backend_mark = SourceMark{}; // no longer from the file
        });
    add("prefetch_distance", "engine.prefetch_distance",
        "steps ahead for prefetching backends: " + kernels::prefetch_distance_list(),
        [](Target& t, const std::string& v, const char* f) {
          t.engine.prefetch_distance = take(detail::check_prefetch_distance(v), f);
        });
    add("padding", "engine.padding", "shared-memory ring padding: auto | none | slot_major | N",
        [](Target& t, const std::string& v, const char* f) {
          t.engine.padding = take(detail::check_padding(v), f);
        });
    add("paths", "simulation.paths", "number of Monte Carlo paths",
        [](Target& t, const std::string& v, const char* f) {
          t.simulation.paths = take(detail::check_paths(v), f);
        });
    add("seed", "simulation.seed", "random seed",
        [](Target& t, const std::string& v, const char* f) {
          t.simulation.seed = take(detail::check_seed(v), f);
        });
    add("precision", "simulation.precision", "double | float",
        [](Target& t, const std::string& v, const char* f) {
          t.simulation.precision = take(detail::check_precision(v), f);
        });
    add("rng", "simulation.rng", "philox | mrg32k3a | sobol | scrambled_sobol",
        [](Target& t, const std::string& v, const char* f) {
          t.simulation.rng = take(detail::check_rng(v), f);
        });
    add("math", "simulation.math",
        "math profile: accurate (default; Philox4x32-10, accurate transcendentals) or fast "
        "(opt-in: Philox4x32-7 and the hardware's approximate exp/log in float; see docs/guide.md, "
        "'Math profiles')",
        [](Target& t, const std::string& v, const char* f) {
          t.simulation.math = take(detail::check_math_profile(v), f);
        });
    add("greeks_method", "simulation.greeks_method",
        "how Greeks are estimated: auto (default: pathwise where every instrument of a model's "
        "group allows it, else bump; bump for a full-truncation Heston model's vega and theta), "
        "bump (bump-and-revalue on common random numbers), pathwise (forward tangents on every "
        "model, a digital's or a knock's jump smoothed, early exercise's rule held fixed; refused "
        "where an instrument that exercises early is asked for gamma)",
        [](Target& t, const std::string& v, const char* f) {
          t.simulation.greeks_method = take(detail::check_greeks_method(v), f);
        });
    add("block_size", "engine.block_size", "threads per block: a power of two in 32..1024",
        [](Target& t, const std::string& v, const char* f) {
          t.engine.block_size = take(detail::check_block_size(v), f);
        });
    add("max_device_memory", "engine.max_device_memory",
        "cap on device memory for draws and partial sums, e.g. 4GiB",
        [](Target& t, const std::string& v, const char* f) {
          t.engine.max_device_memory = take(detail::check_max_device_memory(v), f);
        });
    add("cpu_threads", "engine.cpu_threads", "CPU backend threads (0 = all)",
        [](Target& t, const std::string& v, const char* f) {
          t.engine.cpu_threads = take(detail::check_cpu_threads(v), f);
        });
    add("draw_batch_size", "engine.draw_batch_size",
        "groups whose draws fit share a generation call and a launch up to this size (e.g. "
        "256MiB; 0: none)",
        [](Target& t, const std::string& v, const char* f) {
          t.engine.draw_batch_size = take(detail::check_draw_batch_size(v), f);
        });
    add("greeks", "simulation.greeks",
        "Greeks to report, comma-separated (" + greek_spellings() +
            "), or none (overrides simulation.greeks)",
        [](Target& t, const std::string& v, const char* f) {
          t.simulation.greeks = take(detail::check_greeks(v), f);
        });
    add(
        "antithetic", "simulation.antithetic", "antithetic pairs (z, -z); paths must be even",
        [](Target& t, const std::string& v, const char* f) {
          t.simulation.antithetic = switch_value(v, f);
        },
        true);
    add(
        "control_variate", "simulation.control_variate",
        "control variates: geometric Asian for arithmetic Asians, discounted terminal spot for "
        "Europeans",
        [](Target& t, const std::string& v, const char* f) {
          t.simulation.control_variate = switch_value(v, f);
        },
        true);
    add("replicates", "simulation.replicates",
        "randomisations of a scrambled_sobol run, 1..1024 (paths must split evenly)",
        [](Target& t, const std::string& v, const char* f) {
          t.simulation.replicates = take(detail::check_replicates(v), f);
        });
    add("regression_paths", "simulation.regression_paths",
        "early exercise: paths of the Longstaff-Schwartz regression (0: as many as --paths)",
        [](Target& t, const std::string& v, const char* f) {
          t.simulation.regression_paths = take(detail::check_regression_paths(v), f);
        });
    return r;
  }();
  return list;
}

} // namespace

std::string OverrideKey::flag() const {
  std::string f = std::string("--") + name;
  for (char& c : f) {
    if (c == '_')
      c = '-';
  }
  return f;
}

const std::vector<OverrideKey>& override_keys() {
  static const std::vector<OverrideKey> keys = [] {
    std::vector<OverrideKey> out;
    for (const Rule& r : rules())
      out.push_back(r.key);
    return out;
  }();
  return keys;
}

const OverrideKey* find_override(std::string_view name) {
  for (const OverrideKey& k : override_keys()) {
    if (name == k.name)
      return &k;
  }
  return nullptr;
}

void apply_environment(RunConfig& config, Environment environment) {
  config.engine = with_environment(config.engine, environment);
}

void apply_overrides(RunConfig& config, const Overrides& overrides, Environment environment) {
  // Judge every override on a copy first, so that a bad one leaves the config untouched; the
  // environment's overrides first, the flags' over them, in override_keys()'s order.
  EngineConfig engine = with_environment(config.engine, environment);
  SimulationConfig simulation = config.simulation;
  Target target{engine, simulation};
  for (const auto& [name, value] : overrides.values)
    PFMC_EXPECTS(find_override(name) != nullptr, "an override this front end does not know");
  for (const Rule& r : rules()) {
    const auto given = overrides.values.find(r.key.name);
    if (given != overrides.values.end())
      r.apply(target, given->second, r.key.flag().c_str());
  }
  if (auto conflict = detail::check_simulation(simulation)) {
    // Blame a flag that was given; a conflict among YAML values alone (a config that did not come
    // from the loader) is reported at its key.
    const auto flag_of = [&](std::string_view key) -> const char* {
      if (key == "paths" && overrides.values.count("paths"))
        return "--paths";
      if (key == "replicates" && overrides.values.count("replicates"))
        return "--replicates";
      if (key == "rng" && overrides.values.count("rng"))
        return "--rng";
      if (key == "antithetic" && overrides.values.count("antithetic"))
        return "--antithetic";
      return nullptr;
    };
    for (std::size_t k = 0; k < conflict->keys.size(); ++k) {
      if (const char* flag = flag_of(conflict->keys[k])) {
        throw ConfigError("", SourceMark{}, flag, conflict->message_blaming(k));
      }
    }
    throw ConfigError("", SourceMark{}, std::string("simulation.") + conflict->keys.front(),
                      conflict->message);
  }

  config.engine = std::move(engine);
  config.simulation = simulation;
}

} // namespace pfmc::config
