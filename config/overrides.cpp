#include "config/overrides.hpp"

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

} // namespace

void apply_overrides(RunConfig& config, const Overrides& overrides) {
  // Judge every flag on a copy first, so that a bad flag leaves the config untouched.
  EngineConfig engine = config.engine;
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
