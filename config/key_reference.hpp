#pragma once
// The config reference: every section of a run's YAML, every key each may hold, its type,
// default, allowed values, unit, meaning and an example. The loader takes each mapping's allowed
// keys from here (key_names), so the keys a config may hold have one home; `pfmc schema` prints
// it as Markdown (docs/config.md) and as a JSON Schema for editors (key_reference_format.hpp).
// Choice values come from config/spellings.hpp, as the loader's do.

#include <string>
#include <string_view>
#include <vector>

namespace pfmc::config::reference {

/// What a key's value is: how the JSON Schema types it.
enum class Kind {
  integer,      ///< an integer, or a number written as one (1e6)
  number,       ///< a finite number
  boolean,      ///< true or false
  text,         ///< a string (a name, a file)
  choice,       ///< one of `allowed`
  choices,      ///< a list of `allowed` values, each at most once
  numbers,      ///< a list of numbers
  texts,        ///< a list of strings (names)
  number_rows,  ///< a list of lists of numbers (a matrix, a grid's rows)
  section,      ///< a mapping: the section `section`
  section_list, ///< a list of the section `section`'s mappings
  list_or_csv,  ///< a list of `section`'s mappings, or {csv: FILE} (the section `csv_file`)
  custom,       ///< the JSON Schema `json` (values of several shapes)
};

/// Where a key may be written: in YAML, as a CSV book's column, or both.
enum class Source { both, yaml, csv };

struct Key {
  std::string name;
  Kind kind = Kind::text;
  std::string type;          ///< for people: "number > 0", "integer 1..1e12"
  std::string default_value; ///< as written in YAML; empty: none (required, or absent means off)
  bool required = false;     ///< needed whenever the key applies (see only_for)
  std::string unit;
  std::vector<std::string> only_for; ///< the section's `type`s that have the key; empty: all
  Source source = Source::both;
  std::string description;
  std::string example;              ///< a YAML value
  std::vector<std::string> allowed; ///< Kind::choice (and custom keys' named values)
  std::string section;              ///< the nested section (Kind::section, *_list, list_or_csv)
  std::string json;                 ///< Kind::custom: the value's JSON Schema
};

struct Section {
  std::string path; ///< "engine", "models[]" (an item of a list), "instruments[].knock"
  std::string title;
  std::string description;
  std::vector<Key> keys;
  std::string csv_columns; ///< where rows of a CSV file may stand for the list: what they hold
};

/// Every section, top level first, in the order docs/config.md lists them.
const std::vector<Section>& sections();

/// The section `path`; throws std::out_of_range for an unknown one (a programming error).
const Section& section(std::string_view path);

/// The keys of `path` that may be written in `source` (Source::yaml or Source::csv), in the
/// table's order; for a `type`d section only those its `type` has (`type` empty: every type's).
std::vector<std::string> key_names(std::string_view path, Source source = Source::yaml,
                                   std::string_view type = {});

} // namespace pfmc::config::reference
