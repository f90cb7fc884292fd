// `pfmc schema`: the config reference (config/key_reference.hpp) as Markdown (docs/config.md) or
// as a JSON Schema (docs/pfmc.schema.json) that editors' YAML language servers read. Both are
// committed, and a test fails when either differs from what this prints.

#include <cctype>
#include <map>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "apps/cli.hpp"
#include "base/atomic_file.hpp"
#include "config/key_reference.hpp"

namespace pfmc::apps {

namespace {

using config::reference::Key;
using config::reference::Kind;
using config::reference::Section;
using config::reference::Source;
using nlohmann::json;

/// A JSON Schema `$defs` name for a section ("" is the top level, never referred to).
std::string ref_to(const std::string& path) {
  return "#/$defs/" + path;
}

/// Integers may be written as numbers (1e6), which a YAML 1.1 reader may take for strings.
json integer_schema() {
  return json{
      {"anyOf",
       json::array({json{{"type", "integer"}}, json{{"type", "number"}},
                    json{{"type", "string"},
                         {"pattern", "^[-+]?[0-9][0-9_]*(\\.[0-9]*)?([eE][-+]?[0-9]+)?$"}}})}};
}

json value_schema(const Key& key) {
  switch (key.kind) {
  case Kind::integer:
    return integer_schema();
  case Kind::number:
    return json{{"type", "number"}};
  case Kind::boolean:
    return json{{"type", "boolean"}};
  case Kind::text:
    return json{{"type", "string"}};
  case Kind::choice:
    return json{{"enum", key.allowed}};
  case Kind::choices:
    return json{{"type", "array"}, {"uniqueItems", true}, {"items", json{{"enum", key.allowed}}}};
  case Kind::numbers:
    return json{{"type", "array"}, {"items", json{{"type", "number"}}}};
  case Kind::texts:
    return json{{"type", "array"}, {"items", json{{"type", "string"}}}};
  case Kind::number_rows:
    return json{{"type", "array"},
                {"items", json{{"type", "array"}, {"items", json{{"type", "number"}}}}}};
  case Kind::section:
    return json{{"$ref", ref_to(key.section)}};
  case Kind::section_list:
    return json{{"type", "array"}, {"minItems", 1}, {"items", json{{"$ref", ref_to(key.section)}}}};
  case Kind::list_or_csv:
    return json{{"anyOf", json::array({json{{"type", "array"},
                                            {"items", json{{"$ref", ref_to(key.section)}}}},
                                       json{{"$ref", ref_to("csv_file")}}})}};
  case Kind::custom:
    return json::parse(key.json);
  }
  return json::object();
}

std::string key_help(const Key& key) {
  std::string text = key.description;
  if (!key.unit.empty())
    text += (text.empty() ? "" : " ") + std::string("Unit: ") + key.unit + ".";
  if (!key.default_value.empty())
    text += (text.empty() ? "" : " ") + std::string("Default: ") + key.default_value + ".";
  if (!key.only_for.empty()) {
    std::string types;
    for (const auto& t : key.only_for)
      types += (types.empty() ? "" : ", ") + t;
    text += (text.empty() ? "" : " ") + std::string("Only for type: ") + types + ".";
  }
  return text;
}

/// A section's mapping: its YAML keys, `additionalProperties: false`, the keys always required,
/// and per `type` the keys that type requires.
json section_schema(const Section& section) {
  json properties = json::object();
  json required = json::array();
  std::map<std::string, json> required_by_type;
  for (const Key& key : section.keys) {
    if (key.source == Source::csv)
      continue;
    json property = value_schema(key);
    property["description"] = key_help(key);
    properties[key.name] = std::move(property);
    if (!key.required)
      continue;
    if (key.only_for.empty())
      required.push_back(key.name);
    for (const auto& type : key.only_for)
      required_by_type[type].push_back(key.name);
  }
  json schema = {{"type", "object"}, {"additionalProperties", false}, {"properties", properties}};
  if (!section.description.empty())
    schema["description"] = section.description;
  if (!required.empty())
    schema["required"] = required;
  if (!required_by_type.empty()) {
    json all_of = json::array();
    for (const auto& [type, keys] : required_by_type) {
      all_of.push_back(
          {{"if", {{"properties", {{"type", {{"const", type}}}}}, {"required", {"type"}}}},
           {"then", {{"required", keys}}}});
    }
    schema["allOf"] = all_of;
  }
  return schema;
}

std::string json_schema() {
  json defs = json::object();
  for (const Section& section : config::reference::sections()) {
    if (!section.path.empty())
      defs[section.path] = section_schema(section);
  }
  json schema = section_schema(config::reference::section(""));
  schema["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  schema["$id"] = "https://github.com/pfmc/pfmc/docs/pfmc.schema.json";
  schema["title"] = "pfmc run configuration";
  schema["$defs"] = defs;
  return schema.dump(2) + "\n";
}

/// A table cell: `|` escaped, no line breaks.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string code(const std::string& text) {
  if (text.empty())
    return "";
  if (text == "\t")
    return "a tab (`\"\\t\"`)";
  return "`" + cell(text) + "`";
}

/// A section's path as a Markdown anchor GitHub makes of its heading.
std::string anchor(const std::string& title) {
  std::string a;
  for (char c : title) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')
      a += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (c == ' ')
      a += '-';
  }
  return a;
}

std::string markdown() {
  std::ostringstream out;
  out << "# Config reference\n\n"
      << "<!-- Generated by `pfmc schema --format markdown` from config/key_reference.cpp; a test "
         "fails when this file differs from what the binary prints. Do not edit. -->\n\n"
      << "Every key a run's YAML may hold, by section. A key marked *required* must be given "
         "wherever it applies (its type's `type`); an unknown key is refused with its file, "
         "line and column. Editors can check configs as they are typed with the JSON Schema "
         "`docs/pfmc.schema.json` (`pfmc schema --format json-schema`): with the YAML language "
         "server, start a config with\n`# yaml-language-server: $schema=<path to "
         "docs/pfmc.schema.json>`.\n\n";
  for (const Section& s : config::reference::sections())
    out << "- [" << s.title << "](#" << anchor(s.title) << ")\n";
  for (const Section& s : config::reference::sections()) {
    out << "\n## " << s.title << "\n\n";
    if (!s.description.empty())
      out << s.description << "\n\n";
    if (!s.csv_columns.empty())
      out << "As a CSV file: " << s.csv_columns << ".\n\n";
    out << "| key | type | default | allowed | unit | meaning | example |\n"
        << "|---|---|---|---|---|---|---|\n";
    for (const Key& key : s.keys) {
      std::string name = "`" + key.name + "`";
      if (key.required)
        name += " *required*";
      if (key.source == Source::csv)
        name += " (CSV)";
      else if (key.source == Source::yaml && !s.csv_columns.empty())
        name += " (YAML)";
      std::string allowed;
      for (const auto& value : key.allowed)
        allowed += (allowed.empty() ? "" : ", ") + code(value);
      std::string meaning = key.description;
      if (!key.only_for.empty()) {
        std::string types;
        for (const auto& t : key.only_for)
          types += (types.empty() ? "" : ", ") + t;
        meaning += (meaning.empty() ? "" : " ") + std::string("(type: ") + types + ")";
      }
      if (!key.section.empty()) {
        const Section& nested = config::reference::section(key.section);
        meaning += (meaning.empty() ? "" : " ") + std::string("See [") + nested.title + "](#" +
                   anchor(nested.title) + ").";
      }
      out << "| " << name << " | " << cell(key.type) << " | " << code(key.default_value) << " | "
          << allowed << " | " << cell(key.unit) << " | " << cell(meaning) << " | "
          << code(key.example) << " |\n";
    }
  }
  return out.str();
}

} // namespace

CLI::App* add_schema_command(CLI::App& app, SchemaOptions& options, const char* version) {
  auto* schema = app.add_subcommand(
      "schema", "print the config reference: Markdown (docs/config.md) or a JSON Schema");
  schema->set_version_flag("--version", version);
  schema->add_option("--format", options.format, "markdown | json-schema")
      ->check(CLI::IsMember({"markdown", "json-schema"}));
  schema->add_option("-o,--output", options.output, "write to this file instead of stdout");
  return schema;
}

int command_schema(const SchemaOptions& options) {
  const std::string text = options.format == "json-schema" ? json_schema() : markdown();
  base::write_file_atomically(options.output.empty() ? "-" : options.output, text);
  return 0;
}

} // namespace pfmc::apps
