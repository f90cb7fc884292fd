#pragma once
// The generic half of the YAML loader, internal to config/: nodes with their key path and 1-based
// position, mappings that refuse unknown and repeated keys, typed scalar reads that refuse a value
// of the wrong kind or out of range at the value, and the error that names file, line, column and
// key path. The schema (schema_*.cpp) is written in these terms.
//
// yaml-cpp notes (0.7 and 0.8 alike):
// - Iterating a mapping yields every pair, duplicates included: duplicate keys are found here.
// - Node::operator= on a live node rewrites the node it refers to (it does not rebind), so
//   config/ only ever copy-constructs YAML::Node and never indexes with operator[] (which inserts
//   zombie nodes on misses).
// - Mark is 0-based; an empty value (`strike:`) is a null node whose mark is that of the next
//   token, possibly lines below, so such values are reported at their key instead.

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/parallel_ranges.hpp"
#include "config/run_config.hpp"
#include "config/setting_rules.hpp"
#include "config/value_checks.hpp"
#include "config/yaml_pieces.hpp"

namespace pfmc::config::yaml {

/// yaml-cpp's 0-based mark, 1-based; no position (0:0) when yaml-cpp has none.
SourceMark to_source_mark(const YAML::Mark& mark);
/// The shortest text that reads back as `value`, without exponent where that is readable:
/// `105`, `0.25`, `1e-07`.
std::string format_number(double value);
/// "a, b, c".
std::string join(const std::vector<std::string>& words);
/// "1 value", "3 values".
std::string count_of(std::size_t n, const char* noun);

/// A YAML node and where it is: key path and 1-based position (for errors about its value).
struct Located {
  YAML::Node node;
  std::string path;
  SourceMark mark;
};

/// One `key: value` pair of a mapping.
struct Entry {
  std::string key;
  SourceMark key_mark; ///< for errors about the key itself
  Located value;
  std::size_t order; ///< position in the mapping
};

/// A scalar written without quotes. A quoted one ("100") has the non-specific tag "!": it is a
/// string, never a number or a boolean.
bool is_plain_scalar(const YAML::Node& node);
/// A YAML 1.2 core schema boolean, unquoted; nullopt for anything else (`yes` and `on` are strings
/// there, and a quoted "true" is a string everywhere).
std::optional<bool> boolean_of(const YAML::Node& node);

/// How a setting shared with the command line may be written in YAML.
enum class Spelling {
  integer, ///< a plain (unquoted) number
  word,    ///< a string
  any,     ///< either (padding: 4 / auto, max_device_memory: 1073741824 / 4GiB)
};

class Mapping;

/// Reads the values of one file; every refusal is a ConfigError that names the file. The range
/// checks (positive, non_negative, at_most_one_in_magnitude, increasing, increasing_times) and
/// sized_list come from ValueChecks.
class Reader : public ValueChecks<Reader, Located> {
public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  /// A reader whose document() cuts long lists by `rules` (yaml_pieces.hpp).
  Reader(std::string file, const PieceRules& rules) : file_(std::move(file)), rules_(rules) {}

  [[nodiscard]] const std::string& file() const { return file_; }

  [[noreturn]] void fail(SourceMark mark, const std::string& path,
                         const std::string& message) const;
  [[noreturn]] void fail(const Located& where, const std::string& message) const {
    fail(where.mark, where.path, message);
  }

  /// The one document of `text`: refuses a syntax error, an empty file and a second document.
  /// A large one is parsed in pieces where it can be (yaml_pieces.hpp); its nodes live as long
  /// as this reader.
  [[nodiscard]] Located document(const std::string& text);
  /// How many lists and pieces document() cut (0 and 0: it parsed the text whole).
  [[nodiscard]] std::size_t split_lists() const { return pieces_ ? pieces_->split_lists() : 0; }
  [[nodiscard]] std::size_t pieces() const { return pieces_ ? pieces_->pieces() : 0; }

  [[nodiscard]] Mapping mapping(const Located& where) const;
  [[nodiscard]] std::vector<Located> list(const Located& where) const;
  [[nodiscard]] std::vector<Located> non_empty_list(const Located& where) const;
  [[nodiscard]] std::string name(const Located& where) const; ///< a non-empty string
  [[nodiscard]] double number(const Located& where) const;    ///< finite
  [[nodiscard]] bool boolean(const Located& where) const;
  [[nodiscard]] long long integer(const Located& where, long long lo, long long hi) const;
  /// One of `values`, spelled as to_string spells it.
  template <class Enum, std::size_t N>
  [[nodiscard]] Enum choice(const Located& where, const std::array<Enum, N>& values) const;
  /// A setting shared with the command line, judged by the same `rule`.
  template <class T>
  [[nodiscard]] T setting(const Located& where, detail::Checked<T> (*rule)(std::string_view),
                          Spelling spelling) const;
  /// `field = setting(...)` when `key` is given; the entry (for its mark) or nullptr.
  template <class T, class Field>
  const Entry* setting_if_given(const Mapping& m, std::string_view key, Field& field,
                                detail::Checked<T> (*rule)(std::string_view),
                                Spelling spelling) const;

private:
  std::string file_;
  std::optional<PieceRules> rules_; ///< none: never in pieces
  std::shared_ptr<const PiecedDocument> pieces_;
};

/// Everything the schema can see of `where`, as text: each node's kind, position, tag and
/// scalar, a mapping's keys in order and a list's items, read through Reader::mapping() and
/// Reader::list() — so that a document parsed whole and in pieces can be compared (tests,
/// fuzzing). Refuses what those refuse (a repeated key).
std::string outline(const Reader& reader, const Located& where);

/// A YAML mapping's entries in document order, duplicate keys refused.
class Mapping {
public:
  Mapping(const Reader& reader, const Located& where);

  /// Refuses the first key not in `keys`, listing `keys`.
  void allow_only(const std::vector<std::string>& keys) const;
  [[nodiscard]] const Entry* find(std::string_view key) const;
  /// Refuses a missing key at the mapping itself: `instruments[2]: missing required key 'x'`.
  [[nodiscard]] const Entry& require(std::string_view key) const;
  /// Refuses `first` and `second` given together, at the key written later; nothing when either
  /// is missing.
  void refuse_both(const Entry* first, const Entry* second, const std::string& message) const;
  [[nodiscard]] const Located& where() const { return where_; }
  [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; } ///< in order

private:
  const Reader& reader_;
  Located where_;
  std::vector<Entry> entries_;
};

/// Names an error about an unknown one lists: the first of a long list, enough to show the
/// spelling (a book of 100,000 ids would make a message of megabytes).
inline constexpr std::size_t kListedNames = 20;

/// Names that must be unique (underlyings, models, instrument ids, portfolio positions), in
/// order, with where each was first given; also resolves references to them.
class NameTable {
public:
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;
  NameTable(NameTable&&) = default;
  NameTable(const Reader& reader, const char* what) : reader_(&reader), what_(what) {}

  /// Errors from here on name `reader`'s file: a table of instrument ids filled from a CSV
  /// file resolves the positions of another.
  void report_with(const Reader& reader) { reader_ = &reader; }

  /// Adds `name`, refusing a repeat at `mark` and `path`: `duplicate id 'c1' (first at line
  /// 12)`.
  int add(const std::string& name, SourceMark mark, const std::string& path);
  int add(const std::string& name, const Located& where) {
    return add(name, where.mark, where.path);
  }
  /// Adds `name` unless it is there already (then false, and nothing is added or refused):
  /// for a pass that finds the first repeat itself and reports it later through add().
  bool try_add(std::string_view name, SourceMark mark);
  /// Adds a name read (and judged unique) before, e.g. a model's, to resolve references to it.
  int add_known(const std::string& name, SourceMark mark) { return add(name, mark, ""); }
  /// The index of `name`, refusing an unknown one: `unknown model 'x' (known: a, b)` (the first
  /// 20 of a long list).
  int resolve(const std::string& name, SourceMark mark, const std::string& path,
              const char* kind) const;
  int resolve(const std::string& name, const Located& where, const char* kind) const {
    return resolve(name, where.mark, where.path, kind);
  }

  /// Makes room for `n` names (a CSV book knows its count).
  void reserve(std::size_t n) { index_.reserve(n); }

private:
  struct Known {
    int index;
    SourceMark mark;
  };
  /// A copy of `name` that stays where it is for the table's life (the map's keys view it).
  std::string_view keep(std::string_view name);

  const Reader* reader_;
  const char* what_;
  // Name -> index: books of thousands of models and instruments must not cost a quadratic scan
  // (measured: 4,096 single-option groups took 76 s to load with linear lookups). Names are
  // copied into blocks rather than into a string each: a book of 100,000 ids cost 0.12 s of
  // allocation and freeing with std::string keys (perf, pfmc validate on the 2-core machine).
  std::unordered_map<std::string_view, Known> index_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  std::size_t block_left_ = 0;
  std::vector<std::string_view> first_; // the first few names, in order, for "known: ..."
};

/// Where an item of a list gives its unique name as it is read: see read_items.
class NameSink {
public:
  virtual ~NameSink() = default;
  virtual void add(const std::string& name, const Located& where) = 0;
};

/// A list's items are read on several threads from twice this many: an item takes 3 us (the
/// MonteCarloMultiGPU book's: 80 ms for its 24,576 underlyings, models and instruments) to 13 us
/// (the portfolio example's Asians and barriers) on the 2-core development machine, a thread
/// ~0.05 ms to start.
inline constexpr std::size_t kItemsPerThread = 250;

/// The items of a list, `read(item, name_sink, range)` each, on `threads` threads (contiguous
/// ranges of items; `range` tells which, for a cache of its own), with the error of one loop over
/// them that adds each item's name to `table` where read() gives it to its sink: the first item
/// that fails, or whose name repeats an earlier one, whichever that loop would meet first.
template <class T>
std::vector<T> read_items(const std::vector<Located>& items, NameTable& table, unsigned threads,
                          const std::function<T(const Located&, NameSink&, std::size_t)>& read);

// --- templates ----------------------------------------------------------------------------------

template <class T>
std::vector<T> read_items(const std::vector<Located>& items, NameTable& table, unsigned threads,
                          const std::function<T(const Located&, NameSink&, std::size_t)>& read) {
  struct Kept final : NameSink {
    std::optional<std::pair<std::string, Located>> name;
    void add(const std::string& n, const Located& where) override { name.emplace(n, where); }
  };
  std::vector<T> result(items.size());
  std::vector<Kept> names(items.size());
  const base::FirstFailure failed =
      base::parallel_ranges(items.size(), threads, [&](std::size_t i, std::size_t range) {
        result[i] = read(items[i], names[i], range);
      });
  // Every item below the failure was read and gave its name; the failing one may have given it
  // before it failed, and then its repeat comes first.
  const std::size_t read_to = failed.error ? failed.index + 1 : items.size();
  for (std::size_t i = 0; i < read_to; ++i) {
    if (names[i].name)
      table.add(names[i].name->first, names[i].name->second);
  }
  if (failed.error)
    std::rethrow_exception(failed.error);
  return result;
}

template <class Enum, std::size_t N>
Enum Reader::choice(const Located& where, const std::array<Enum, N>& values) const {
  if (where.node.IsScalar()) {
    for (Enum v : values) {
      if (where.node.Scalar() == to_string(v)) {
        return v;
      }
    }
  }
  std::vector<std::string> spellings;
  for (Enum v : values) {
    spellings.emplace_back(to_string(v));
  }
  fail(where, "must be one of: " + join(spellings));
}

template <class T>
T Reader::setting(const Located& where, detail::Checked<T> (*rule)(std::string_view),
                  Spelling spelling) const {
  const YAML::Node& node = where.node;
  if (spelling == Spelling::integer && !is_plain_scalar(node)) {
    fail(where, "must be an integer");
  }
  if (spelling == Spelling::word && !node.IsScalar()) {
    fail(where, "must be a string");
  }
  // Spelling::any: a list or mapping is judged as an empty text, which every rule refuses
  // with its own "must be ..." message.
  auto checked = rule(node.IsScalar() ? node.Scalar() : std::string());
  if (!checked.value) {
    fail(where, checked.error);
  }
  return std::move(*checked.value);
}

template <class T, class Field>
const Entry* Reader::setting_if_given(const Mapping& m, std::string_view key, Field& field,
                                      detail::Checked<T> (*rule)(std::string_view),
                                      Spelling spelling) const {
  const Entry* entry = m.find(key);
  if (entry != nullptr) {
    field = setting(entry->value, rule, spelling);
  }
  return entry;
}

} // namespace pfmc::config::yaml
