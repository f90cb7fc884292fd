// libFuzzer target: everything before the engine runs, on arbitrary bytes. The input is a YAML
// config, optionally followed by a NUL byte and command-line overrides, one `flag=value` a line
// (the flags of `pfmc price`: paths=1e6, greeks=delta, antithetic=1, ...). The contract under
// test: the loader, the overrides and the planner either accept the run or refuse it with a
// config::ConfigError; any other exception, a crash, or an AddressSanitizer or
// UndefinedBehaviorSanitizer report is a bug (libFuzzer stops and keeps the input). So is a text
// that reads otherwise cut into pieces of one item (config/yaml_pieces.hpp) than whole.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

#include "config/config_error.hpp"
#include "config/load_config.hpp"
#include "config/overrides.hpp"
#include "config/yaml_reader.hpp"
#include "engine/plan/plan.hpp"

namespace {

using namespace pfmc;

/// Overrides from `name=value` lines (config::override_keys()'s names; a switch's value 1 is
/// "true", anything else "false"); unknown names are ignored (the front ends refuse them).
config::Overrides parse_overrides(const std::string& text) {
  config::Overrides o;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto equals = line.find('=');
    if (equals == std::string::npos)
      continue;
    const std::string name = line.substr(0, equals);
    const std::string value = line.substr(equals + 1);
    if (const config::OverrideKey* key = config::find_override(name))
      o.values[name] = key->is_switch ? (value == "1" ? "true" : "false") : value;
  }
  return o;
}

/// What the schema would see of `yaml` read by `rules` (none: whole), or the refusal; `pieces`
/// gets how many pieces were parsed.
std::string reading(const std::string& yaml, const std::optional<config::yaml::PieceRules>& rules,
                    std::size_t& pieces) {
  config::yaml::Reader reader =
      rules ? config::yaml::Reader("<fuzz>", *rules) : config::yaml::Reader("<fuzz>");
  std::string seen;
  try {
    seen = config::yaml::outline(reader, reader.document(yaml));
  } catch (const config::ConfigError& e) {
    seen = std::string("refused: ") + e.what();
  }
  pieces = reader.pieces();
  return seen;
}

/// A text cut into pieces (config/yaml_pieces.hpp) must read as the whole text: the same nodes
/// at the same places, or the same refusal. A difference is a bug: abort, keeping the input.
void check_pieces(const std::string& yaml) {
  std::size_t pieces = 0;
  const std::string cut = reading(yaml, config::yaml::kPiecesOfOneItem, pieces);
  if (pieces == 0)
    return; // read whole
  std::size_t none = 0;
  const std::string whole = reading(yaml, std::nullopt, none);
  if (cut != whole) {
    std::fprintf(stderr, "read in %zu pieces:\n%s\nread whole:\n%s\n", pieces, cut.c_str(),
                 whole.c_str());
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto nul = input.find('\0');
  const std::string yaml = input.substr(0, nul);
  check_pieces(yaml);
  config::RunConfig run;
  try {
    run = config::parse_run_config(yaml, "<fuzz>");
    if (nul != std::string::npos)
      config::apply_overrides(run, parse_overrides(input.substr(nul + 1)));
    (void)engine::make_plan(run);
  } catch (const config::ConfigError&) {
    // Refused with a located line: what a bad config must get.
  }
  return 0;
}
