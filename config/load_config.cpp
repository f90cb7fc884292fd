#include "config/load_config.hpp"
#include "config/key_reference.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>

#include <fstream>
#include <yaml-cpp/yaml.h>

#include "config/csv_table.hpp"
#include "config/schema.hpp"
#include "config/setting_rules.hpp"
#include "config/yaml_reader.hpp"

namespace pfmc::config {

namespace {

/// Reads the sections in order; optional sections may be present but empty (`engine:` with
/// everything commented out).
/// A section given as columns (TradeColumns) and not in the YAML as well.
std::optional<csv::Table> given_table(const yaml::Reader& reader, const yaml::Mapping& top,
                                      const char* key, const std::optional<ColumnTable>& columns) {
  if (!columns)
    return std::nullopt;
  if (const yaml::Entry* e = top.find(key); e != nullptr && !e->value.node.IsNull()) {
    reader.fail(e->value,
                std::string("given to price() as columns (") + key + "=) and here: remove one");
  }
  return csv::Table::from_columns(columns->name, columns->columns, columns->cells);
}

RunConfig load(yaml::Reader& reader, const std::string& text, const TradeColumns& trades) {
  try {
    const yaml::Located root = reader.document(text);
    if (!root.node.IsMap()) {
      reader.fail(root, "top level must be a mapping");
    }
    const yaml::Mapping top(reader, root);
    top.allow_only(reference::key_names(""));

    RunConfig config;
    config.file = reader.file();
    config.market = schema::market(reader, top.require("market").value);
    config.models = schema::models(reader, top.require("models").value, config.market);
    yaml::NameTable ids(reader, "id");
    if (const auto table = given_table(reader, top, "instruments", trades.instruments)) {
      config.instruments = schema::instruments_from_table(*table, reader, config, ids);
    } else {
      config.instruments =
          schema::instruments(reader, top.require("instruments").value, config, ids);
    }
    const auto given = [&top](const char* key) {
      const yaml::Entry* entry = top.find(key);
      return entry != nullptr && !entry->value.node.IsNull() ? entry : nullptr;
    };
    if (const auto table = given_table(reader, top, "portfolio", trades.positions)) {
      config.portfolio =
          schema::portfolio_from_table(*table, reader, ids, config.instruments.size());
    } else if (const yaml::Entry* e = given("portfolio")) {
      config.portfolio = schema::portfolio(reader, e->value, ids, config.instruments.size());
    }
    if (const yaml::Entry* e = given("simulation")) {
      config.simulation = schema::simulation(reader, e->value);
    }
    if (const yaml::Entry* e = given("engine")) {
      config.engine = schema::engine(reader, e->value);
    }
    if (const yaml::Entry* e = top.find("risk")) { // `risk:` with nothing in it is refused
      config.risk = schema::risk(reader, e->value, config);
    }
    return config;
  } catch (const YAML::Exception& e) {
    // Not expected once the text has parsed; kept so that nothing but ConfigError escapes.
    reader.fail(yaml::to_source_mark(e.mark), "", "cannot read YAML: " + e.msg);
  }
}

yaml::Reader reader_for(const std::string& file_name, YamlPieces pieces) {
  switch (pieces) {
  case YamlPieces::never:
    return yaml::Reader(file_name);
  case YamlPieces::every_item:
    return yaml::Reader(file_name, yaml::kPiecesOfOneItem);
  case YamlPieces::by_size:
    break;
  }
  return yaml::Reader(file_name, yaml::PieceRules{});
}

} // namespace

RunConfig parse_run_config(const std::string& yaml_text, const std::string& file_name,
                           YamlPieces pieces, const TradeColumns& trades) {
  yaml::Reader reader = reader_for(file_name, pieces);
  return load(reader, yaml_text, trades);
}

std::string read_source_file(const std::string& path, const std::string& name) {
  const bool standard_input = path == "-";
  std::FILE* stream = standard_input ? stdin : std::fopen(path.c_str(), "rb");
  if (stream == nullptr) {
    throw ConfigError(name, SourceMark{}, "",
                      std::string("cannot open file: ") + std::strerror(errno));
  }
  // A device never ends (a config or CSV naming /dev/zero would be read until memory ran out);
  // standard input is `-`, and a pipe or FIFO is read to its end.
  struct stat status {};
  if (!standard_input && ::fstat(::fileno(stream), &status) == 0 &&
      (S_ISCHR(status.st_mode) || S_ISBLK(status.st_mode))) {
    std::fclose(stream);
    throw ConfigError(name, SourceMark{}, "",
                      "cannot read file: it is a device, not a file (- reads standard input)");
  }
  // A regular file is read straight into a string of its size (a 6 MB trade list took 11 ms in
  // 64 KB appends, copied as the string grew); then on to the end, should it have grown.
  std::string text;
  if (!standard_input && S_ISREG(status.st_mode) && status.st_size > 0) {
    text.resize(static_cast<std::size_t>(status.st_size));
    text.resize(std::fread(text.data(), 1, text.size(), stream));
  }
  char buffer[65536];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, stream)) > 0) {
    text.append(buffer, got);
  }
  const bool failed = std::ferror(stream) != 0;
  const int read_errno = errno;
  if (!standard_input)
    std::fclose(stream);
  if (failed) {
    throw ConfigError(name, SourceMark{}, "",
                      std::string("cannot read file: ") + std::strerror(read_errno));
  }
  return text;
}

RunConfig load_run_config(const std::string& path) {
  return load_run_config(path, TradeColumns{});
}

RunConfig load_run_config(const std::string& path, const TradeColumns& trades) {
  const std::string name = path == "-" ? std::string(kStandardInputName) : path;
  return parse_run_config(read_source_file(path, name), name, YamlPieces::by_size, trades);
}

namespace {

/// The YAML file's top-level `engine:` block alone (the line `engine:` at column 0 and the lines
/// after it up to the next top-level key: a flow mapping on the one line, or an indented block);
/// an empty text when the file has none; nullopt when the file cannot be read.
std::optional<std::string> engine_block(const std::string& path) {
  if (path == "-")
    return std::nullopt;
  std::ifstream in(path);
  if (!in)
    return std::nullopt;
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    const bool top_level = !line.empty() && line[0] != ' ' && line[0] != '\t' && line[0] != '#';
    if (inside && top_level && line.rfind("- ", 0) != 0)
      break;
    if (!inside && line.rfind("engine:", 0) == 0)
      inside = true;
    if (inside)
      block += line + "\n";
  }
  return block;
}

} // namespace

std::optional<DeviceList> peek_engine_devices(const std::string& path) {
  const std::optional<std::string> block = engine_block(path);
  if (!block)
    return std::nullopt;
  DeviceList devices; // no engine block, or no devices key: the first device
  if (block->empty())
    return devices;
  try {
    const YAML::Node engine = YAML::Load(*block)["engine"];
    if (!engine || !engine.IsMap() || !engine["devices"])
      return devices;
    const YAML::Node value = engine["devices"];
    if (value.IsSequence()) {
      devices.kind = DeviceList::Kind::list;
      for (const auto& item : value)
        devices.ordinals.push_back(item.as<int>());
      return devices.ordinals.empty() ? std::nullopt : std::optional<DeviceList>(devices);
    }
    const detail::Checked<DeviceList> checked = detail::check_devices(value.as<std::string>());
    return checked.value;
  } catch (const std::exception&) {
    return std::nullopt; // the real load says what is wrong
  }
}

bool peek_engine_on_cpu(const std::string& path) {
  const std::optional<std::string> block = engine_block(path);
  if (!block || block->empty())
    return false;
  try {
    const YAML::Node engine = YAML::Load(*block)["engine"];
    return engine && engine.IsMap() && engine["device"] && engine["device"].IsScalar() &&
           engine["device"].as<std::string>() == "cpu";
  } catch (const std::exception&) {
    return false; // the real load says what is wrong
  }
}

} // namespace pfmc::config
