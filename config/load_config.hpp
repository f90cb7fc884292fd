#pragma once
// YAML -> validated RunConfig (the schema is DESIGN.md's config contract).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_error.hpp"
#include "config/run_config.hpp"

namespace pfmc::config {

/// What errors (and RunConfig::file) call a config read from standard input.
inline constexpr const char* kStandardInputName = "<stdin>";

/// One column's cells: as text, cell r being text[ends[r - 1], ends[r]) (from 0 for the first),
/// as a CSV file would hold them (empty: not given); or, for a column of floating-point numbers
/// (`numeric`), cell r being numbers[r] (NaN: not given), read as the number its shortest text
/// would be read as, without that text being written and parsed.
struct ColumnCells {
  std::string text;
  std::vector<std::uint32_t> ends;
  std::vector<double> numbers;
  bool numeric = false;
  void add(std::string_view cell) {
    text.append(cell);
    ends.push_back(static_cast<std::uint32_t>(text.size()));
  }
  [[nodiscard]] std::size_t size() const { return numeric ? numbers.size() : ends.size(); }
};

/// A trade list or positions given as columns in memory (Python's pandas DataFrame or mapping of
/// arrays). They are read with the CSV book's columns and rules, and named in errors `name`
/// with the row at position r (0-based) as line r + 2, the header being line 1.
struct ColumnTable {
  std::string name;
  std::vector<std::string> columns;
  std::vector<ColumnCells> cells; ///< per column
};

/// A config's instruments and positions given apart from its YAML; a section given here must
/// not be in the YAML too.
struct TradeColumns {
  std::optional<ColumnTable> instruments;
  std::optional<ColumnTable> positions;
};

/// Reads and validates the run described by the YAML file at `path`, or by standard input when
/// `path` is `-` (named kStandardInputName). The paths a config names (`instruments: {csv: F}`,
/// `portfolio: {csv: F}`) are relative to the YAML file's folder, or to the current directory
/// for standard input. Throws ConfigError, and only ConfigError, for anything wrong with
/// the file: it cannot be read, it is not YAML, a key is unknown, missing or repeated, a value is
/// out of range or refers to something that does not exist. The error names the file, the
/// 1-based line and column, and the key path.
RunConfig load_run_config(const std::string& path);
/// The same with instruments and/or positions from columns (TradeColumns).
RunConfig load_run_config(const std::string& path, const TradeColumns& trades);

/// How a large YAML text is parsed: its long lists in pieces on every core where it can be
/// (config/yaml_pieces.hpp), whole, or cut into pieces of one item wherever the form allows
/// (tests and the fuzzer: the result and any error must be the same whichever is used).
enum class YamlPieces { by_size, never, every_item };

/// The same, from text already in memory; `file_name` is what errors (and RunConfig::file) call
/// it, and its folder is where the paths it names are found.
RunConfig parse_run_config(const std::string& yaml_text, const std::string& file_name,
                           YamlPieces pieces = YamlPieces::by_size,
                           const TradeColumns& trades = {});

/// engine.devices of the YAML file at `path`, read from its top-level `engine:` block alone and
/// without the checks of load_run_config: a hint for what the run's devices will be before the
/// config is loaded (the command line narrows the GPUs CUDA starts: engine/core/visible_devices).
/// Absent key: the default (the first device). Nullopt when it cannot tell (standard input, no
/// such file, a block it does not understand): the caller assumes nothing.
std::optional<DeviceList> peek_engine_devices(const std::string& path);

/// Whether the YAML file at `path` puts its run on the CPU (`engine.device: cpu`), read as
/// peek_engine_devices reads engine.devices; false when it cannot tell.
bool peek_engine_on_cpu(const std::string& path);

/// The bytes of the file at `path` (standard input for `-`); ConfigError naming `name` when it
/// cannot be opened or read (a directory opens on Linux and fails on the first read).
std::string read_source_file(const std::string& path, const std::string& name);

} // namespace pfmc::config
