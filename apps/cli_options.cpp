// The options that override a config, shared by `price`, `validate`, `bench` and `tune`: one
// option per entry of config::override_keys().
#include "apps/cli.hpp"
#include "config/overrides.hpp"

namespace pfmc::apps {

void add_override_options(CLI::App* app, RunOptions& o) {
  for (const config::OverrideKey& k : config::override_keys()) {
    if (k.is_switch)
      app->add_flag(k.flag(), o.switches[k.name], k.help);
    else
      app->add_option(k.flag(), o.values[k.name], k.help);
  }
}

config::Overrides overrides_from(CLI::App* app, const RunOptions& o) {
  config::Overrides ov;
  for (const config::OverrideKey& k : config::override_keys()) {
    if (app->get_option(k.flag())->count() > 0)
      ov.values[k.name] = k.is_switch ? "true" : o.value(k.name);
  }
  return ov;
}

} // namespace pfmc::apps
