// The `simulation` and `engine` sections: settings that the command line can override, judged by
// the same rules (config/setting_rules.hpp).

#include <array>
#include <string>

#include "config/key_reference.hpp"
#include "config/schema.hpp"

namespace pfmc::config::schema {

using yaml::Entry;
using yaml::Located;
using yaml::Mapping;
using yaml::Reader;
using yaml::Spelling;

namespace {

/// `true`, `false` or `auto`: 1, 0 or -1.
int brownian_bridge(const Reader& reader, const Located& where) {
  if (const auto on = yaml::boolean_of(where.node)) {
    return *on ? 1 : 0;
  }
  if (yaml::is_plain_scalar(where.node) && where.node.Scalar() == "auto") {
    return -1;
  }
  reader.fail(where, "must be true, false or auto");
}

/// Distinct Greeks, returned in Greek order.
std::vector<Greek> greeks(const Reader& reader, const Located& where) {
  std::array<bool, kGreekCount> wanted{};
  for (const auto& item : reader.list(where)) {
    const Greek greek = reader.choice(item, kAllGreeks);
    if (wanted[static_cast<std::size_t>(greek)]) {
      reader.fail(item, "duplicate greek '" + std::string(to_string(greek)) + "'");
    }
    wanted[static_cast<std::size_t>(greek)] = true;
  }
  std::vector<Greek> result;
  for (Greek greek : kAllGreeks) {
    if (wanted[static_cast<std::size_t>(greek)]) {
      result.push_back(greek);
    }
  }
  return result;
}

} // namespace

SimulationConfig simulation(const Reader& reader, const Located& where) {
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("simulation"));
  SimulationConfig sim;
  reader.setting_if_given(m, "paths", sim.paths, detail::check_paths, Spelling::integer);
  if (const Entry* e = reader.setting_if_given(m, "steps_per_year", sim.steps_per_year,
                                               detail::check_steps_per_year, Spelling::integer)) {
    sim.steps_per_year_mark = e->value.mark;
  }
  reader.setting_if_given(m, "seed", sim.seed, detail::check_seed, Spelling::integer);
  reader.setting_if_given(m, "rng", sim.rng, detail::check_rng, Spelling::word);
  reader.setting_if_given(m, "precision", sim.precision, detail::check_precision, Spelling::word);
  reader.setting_if_given(m, "math", sim.math, detail::check_math_profile, Spelling::word);
  reader.setting_if_given(m, "greeks_method", sim.greeks_method, detail::check_greeks_method,
                          Spelling::word);
  if (const Entry* e = m.find("antithetic")) {
    sim.antithetic = reader.boolean(e->value);
  }
  if (const Entry* e = m.find("control_variate")) {
    sim.control_variate = reader.boolean(e->value);
  }
  if (const Entry* e = m.find("brownian_bridge")) {
    sim.brownian_bridge = brownian_bridge(reader, e->value);
  }
  reader.setting_if_given(m, "replicates", sim.replicates, detail::check_replicates,
                          Spelling::integer);
  if (const Entry* e = m.find("greeks")) {
    sim.greeks = greeks(reader, e->value);
    sim.greeks_mark = e->value.mark;
  }
  reader.setting_if_given(m, "regression_paths", sim.regression_paths,
                          detail::check_regression_paths, Spelling::integer);
  reader.setting_if_given(m, "regression_degree", sim.regression_degree,
                          detail::check_regression_degree, Spelling::integer);
  if (const auto conflict = detail::check_simulation(sim)) {
    // Blame the first key of the rule written in the file (the others took their defaults).
    for (std::size_t k = 0; k < conflict->keys.size(); ++k) {
      if (const Entry* e = m.find(conflict->keys[k])) {
        reader.fail(e->value, conflict->message_blaming(k));
      }
    }
    reader.fail(where, conflict->message);
  }
  return sim;
}

EngineConfig engine(const Reader& reader, const Located& where) {
  const Mapping m = reader.mapping(where);
  m.allow_only(reference::key_names("engine"));
  EngineConfig engine;
  reader.setting_if_given(m, "device", engine.device, detail::check_device, Spelling::word);
  if (const Entry* e = m.find("devices")) {
    if (e->value.node.IsSequence()) {
      // engine.devices: [0, 2]
      const std::vector<Located> items = reader.non_empty_list(e->value);
      if (items.size() > static_cast<std::size_t>(kMaxDevices))
        reader.fail(e->value, "at most " + std::to_string(kMaxDevices) + " devices");
      engine.devices.kind = DeviceList::Kind::list;
      for (const Located& item : items)
        engine.devices.ordinals.push_back(
            static_cast<int>(reader.integer(item, 0, kMaxDevices - 1)));
    } else {
      engine.devices = reader.setting(e->value, detail::check_devices, Spelling::any);
    }
  }
  if (const Entry* e = reader.setting_if_given(m, "backend", engine.backend, detail::check_backend,
                                               Spelling::word)) {
    engine.backend_mark = e->value.mark;
  }
  reader.setting_if_given(m, "prefetch_distance", engine.prefetch_distance,
                          detail::check_prefetch_distance, Spelling::integer);
  reader.setting_if_given(m, "padding", engine.padding, detail::check_padding, Spelling::any);
  reader.setting_if_given(m, "block_size", engine.block_size, detail::check_block_size,
                          Spelling::integer);
  reader.setting_if_given(m, "max_device_memory", engine.max_device_memory,
                          detail::check_max_device_memory, Spelling::any);
  reader.setting_if_given(m, "cpu_threads", engine.cpu_threads, detail::check_cpu_threads,
                          Spelling::integer);
  reader.setting_if_given(m, "draw_batch_size", engine.draw_batch_size,
                          detail::check_draw_batch_size, Spelling::any);
  if (const Entry* e = m.find("terminal_kernels"))
    engine.terminal_kernels = reader.boolean(e->value);
  reader.setting_if_given(m, "terminal_blocks_per_cta", engine.terminal_blocks_per_cta,
                          detail::check_terminal_blocks_per_cta, Spelling::any);
  if (const Entry* e = m.find("compile_at_runtime"))
    engine.compile_at_runtime = reader.boolean(e->value);
  reader.setting_if_given(m, "unit_groups", engine.unit_groups, detail::check_unit_groups,
                          Spelling::integer);
  return engine;
}

} // namespace pfmc::config::schema
