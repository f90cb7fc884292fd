#include "config/overrides.hpp"

#include <optional>
#include <string_view>
#include <utility>

#include "config/config_error.hpp"

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

} // namespace

void apply_environment(RunConfig& config, Environment environment) {
  config.engine = with_environment(config.engine, environment);
}

void apply_overrides(RunConfig& config, const Overrides& overrides, Environment environment) {
  // Judge every flag on a copy first, so that a bad flag leaves the config untouched; the
  // environment's overrides first, the flags' over them.
  EngineConfig engine = with_environment(config.engine, environment);
  SimulationConfig simulation = config.simulation;
  const auto text = [](long long value) { return std::to_string(value); };

  if (overrides.devices) {
    engine.devices = take(detail::check_devices(*overrides.devices), "--devices");
  }
  if (overrides.device) {
    engine.device = take(detail::check_device(*overrides.device), "--device");
  }
  if (overrides.backend) {
    engine.backend = take(detail::check_backend(*overrides.backend), "--backend");
    engine.backend_mark = SourceMark{};
  }
  if (overrides.padding) {
    engine.padding = take(detail::check_padding(*overrides.padding), "--padding");
  }
  if (overrides.precision) {
    simulation.precision = take(detail::check_precision(*overrides.precision), "--precision");
  }
  if (overrides.rng) {
    simulation.rng = take(detail::check_rng(*overrides.rng), "--rng");
  }
  if (overrides.math) {
    simulation.math = take(detail::check_math_profile(*overrides.math), "--math");
  }
  if (overrides.greeks_method) {
    simulation.greeks_method =
        take(detail::check_greeks_method(*overrides.greeks_method), "--greeks-method");
  }
  if (overrides.prefetch_distance) {
    engine.prefetch_distance = take(
        detail::check_prefetch_distance(text(*overrides.prefetch_distance)), "--prefetch-distance");
  }
  if (overrides.block_size) {
    engine.block_size = take(detail::check_block_size(text(*overrides.block_size)), "--block-size");
  }
  if (overrides.cpu_threads) {
    engine.cpu_threads =
        take(detail::check_cpu_threads(text(*overrides.cpu_threads)), "--cpu-threads");
  }
  if (overrides.paths) {
    simulation.paths = take(detail::check_paths(*overrides.paths), "--paths");
  }
  if (overrides.seed) {
    simulation.seed = take(detail::check_seed(*overrides.seed), "--seed");
  }
  if (overrides.draw_batch_size) {
    engine.draw_batch_size =
        take(detail::check_draw_batch_size(*overrides.draw_batch_size), "--draw-batch-size");
  }
  if (overrides.max_device_memory) {
    engine.max_device_memory =
        take(detail::check_max_device_memory(*overrides.max_device_memory), "--max-device-memory");
  }
  if (overrides.replicates) {
    simulation.replicates = take(detail::check_replicates(*overrides.replicates), "--replicates");
  }
  if (overrides.regression_paths) {
    simulation.regression_paths =
        take(detail::check_regression_paths(*overrides.regression_paths), "--regression-paths");
  }
  if (overrides.greeks) {
    simulation.greeks = take(detail::check_greeks(*overrides.greeks), "--greeks");
  }
  if (overrides.antithetic) {
    simulation.antithetic = *overrides.antithetic;
  }
  if (overrides.control_variate) {
    simulation.control_variate = *overrides.control_variate;
  }
  if (auto conflict = detail::check_simulation(simulation)) {
    // Blame a flag that was given; a conflict among YAML values alone (a config that did not come
    // from the loader) is reported at its key.
    const auto flag_of = [&](std::string_view key) -> const char* {
      if (key == "paths" && overrides.paths)
        return "--paths";
      if (key == "replicates" && overrides.replicates)
        return "--replicates";
      if (key == "rng" && overrides.rng)
        return "--rng";
      if (key == "antithetic" && overrides.antithetic)
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
