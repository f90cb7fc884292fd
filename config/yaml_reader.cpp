#include "config/yaml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include <yaml-cpp/eventhandler.h>

#include "config/config_error.hpp"

namespace pfmc::config::yaml {

namespace {

std::string child_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

} // namespace

SourceMark to_source_mark(const YAML::Mark& mark) {
  if (mark.line < 0 || mark.column < 0) {
    return {};
  }
  return {mark.line + 1, mark.column + 1};
}

std::string format_number(double value) {
  char text[64];
  const double magnitude = std::fabs(value);
  const bool plain = magnitude == 0.0 || (magnitude >= 1e-4 && magnitude < 1e15);
  for (int precision = plain ? 0 : 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, plain ? "%.*f" : "%.*g", precision, value);
    if (std::strtod(text, nullptr) == value) {
      break;
    }
  }
  return text;
}

std::string join(const std::vector<std::string>& words) {
  std::string list;
  for (const auto& w : words) {
    list += (list.empty() ? "" : ", ") + w;
  }
  return list;
}

std::string count_of(std::size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

bool is_plain_scalar(const YAML::Node& node) {
  return node.IsScalar() && node.Tag() != "!";
}

std::optional<bool> boolean_of(const YAML::Node& node) {
  if (is_plain_scalar(node)) {
    const std::string& text = node.Scalar();
    if (text == "true" || text == "True" || text == "TRUE") {
      return true;
    }
    if (text == "false" || text == "False" || text == "FALSE") {
      return false;
    }
  }
  return std::nullopt;
}

// --- Mapping, NameTable -------------------------------------------------------------------------

Mapping::Mapping(const Reader& reader, const Located& where) : reader_(reader), where_(where) {
  for (auto it = where.node.begin(); it != where.node.end(); ++it) {
    const YAML::Node key(it->first);
    const YAML::Node value(it->second);
    const SourceMark key_mark = to_source_mark(key.Mark());
    if (!key.IsScalar()) {
      reader_.fail(key_mark, where.path, "keys must be strings");
    }
    const std::string& name = key.Scalar();
    if (find(name) != nullptr) {
      reader_.fail(key_mark, where.path, "duplicate key '" + name + "'");
    }
    SourceMark value_mark = to_source_mark(value.Mark());
    if (value.IsNull() && value_mark.line != key_mark.line) {
      value_mark = key_mark; // `key:` with nothing after it: the null's mark is the next token's
    }
    entries_.push_back(Entry{
        name, key_mark, Located{value, child_path(where.path, name), value_mark}, entries_.size()});
  }
}

void Mapping::allow_only(const std::vector<std::string>& keys) const {
  for (const auto& entry : entries_) {
    bool known = false;
    for (const auto& k : keys) {
      known = known || entry.key == k;
    }
    if (!known) {
      reader_.fail(entry.key_mark, where_.path,
                   "unknown key '" + entry.key + "' (expected one of: " + join(keys) + ")");
    }
  }
}

const Entry* Mapping::find(std::string_view key) const {
  for (const auto& entry : entries_) {
    if (entry.key == key) {
      return &entry;
    }
  }
  return nullptr;
}

const Entry& Mapping::require(std::string_view key) const {
  const Entry* entry = find(key);
  if (entry == nullptr) {
    reader_.fail(where_, "missing required key '" + std::string(key) + "'");
  }
  return *entry;
}

void Mapping::refuse_both(const Entry* first, const Entry* second,
                          const std::string& message) const {
  if (first != nullptr && second != nullptr) {
    const Entry& later = first->order > second->order ? *first : *second;
    reader_.fail(later.key_mark, where_.path, message);
  }
}

namespace {
constexpr std::size_t kNameBlock = 1 << 16;
} // namespace

std::string_view NameTable::keep(std::string_view name) {
  if (name.size() > block_left_) {
    const std::size_t size = std::max(kNameBlock, name.size());
    blocks_.push_back(std::make_unique<char[]>(size));
    next_ = blocks_.back().get();
    block_left_ = size;
  }
  char* at = next_;
  std::copy(name.begin(), name.end(), at);
  next_ += name.size();
  block_left_ -= name.size();
  return {at, name.size()};
}

int NameTable::add(const std::string& name, SourceMark mark, const std::string& path) {
  const auto index = static_cast<int>(index_.size());
  if (!try_add(name, mark)) {
    reader_->fail(mark, path,
                  "duplicate " + std::string(what_) + " '" + name + "' (first at line " +
                      std::to_string(index_.find(name)->second.mark.line) + ")");
  }
  return index;
}

bool NameTable::try_add(std::string_view name, SourceMark mark) {
  // Kept first and hashed once: a repeat (an error) wastes its copy.
  const std::string_view kept = keep(name);
  if (!index_.try_emplace(kept, Known{static_cast<int>(index_.size()), mark}).second)
    return false;
  if (first_.size() < kListedNames) {
    first_.push_back(kept);
  }
  return true;
}

int NameTable::resolve(const std::string& name, SourceMark mark, const std::string& path,
                       const char* kind) const {
  if (const auto it = index_.find(name); it != index_.end())
    return it->second.index;
  // A book of 100,000 ids would make a message of megabytes: the first few tell the spelling.
  std::string known;
  for (const auto& n : first_) {
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  if (index_.size() > first_.size()) {
    known += ", and " + std::to_string(index_.size() - first_.size()) + " more";
  }
  reader_->fail(mark, path,
                "unknown " + std::string(kind) + " '" + name + "' (known: " + known + ")");
}

// --- Reader -------------------------------------------------------------------------------------

void Reader::fail(SourceMark mark, const std::string& path, const std::string& message) const {
  throw ConfigError(file_, mark, path, message);
}

namespace {

/// Whether a line starting with a document marker (`---` or `...`) follows a line of content: a
/// YAML stream has a second document only after one (a leading `---` starts the first).
bool marker_after_content(const std::string& text) {
  bool content = false;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const bool marker = text.compare(at, 3, "---") == 0 || text.compare(at, 3, "...") == 0;
    if (marker && content)
      return true;
    const std::size_t first = text.find_first_not_of(" \t\r", at);
    content = content || (!marker && first < end && text[first] != '#');
    at = end + 1;
  }
  return false;
}

/// Whether a line holds something besides blanks, comments and document markers.
bool has_content(const std::string& text) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::size_t first = text.find_first_not_of(" \t\r", at);
    if (first < end && text[first] != '#' && text.compare(first, 3, "---") != 0 &&
        text.compare(first, 3, "...") != 0)
      return true;
    at = end + 1;
  }
  return false;
}

/// Counts the stream's document starts, at most two, and keeps the second one's mark: the
/// parser's events and nothing else.
class DocumentCounter : public YAML::EventHandler {
public:
  int documents = 0;
  YAML::Mark second;
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents == 2)
      second = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

} // namespace

Located Reader::document(const std::string& text) {
  if (rules_ && text.size() >= rules_->min_list_bytes) {
    if (auto pieced = parse_in_pieces(text, *rules_)) {
      pieces_ = std::make_shared<const PiecedDocument>(std::move(*pieced));
      const YAML::Node& root = pieces_->skeleton();
      // The plain form has no document markers: one document, not null (it holds the lists' keys).
      return Located{root, "", to_source_mark(root.Mark())};
    }
  }
  // Not YAML::LoadAll: in yaml-cpp 0.7 it loops for ever, taking memory, on a stream whose next
  // token starts no node (a lone `,`: tests/fuzz/known/README.md). The first document is loaded
  // alone; a second one can only follow a `---` or `...` line after content, and only then are
  // the documents counted, two at the most (one more parse of the first: rare).
  YAML::Node root;
  int documents = 1;
  YAML::Mark second;
  try {
    root = YAML::Load(text);
    if (marker_after_content(text)) {
      std::istringstream stream(text);
      YAML::Parser parser(stream);
      DocumentCounter counter;
      while (counter.documents < 2 && parser.HandleNextDocument(counter)) {
      }
      documents = counter.documents;
      second = counter.second;
    }
  } catch (const YAML::ParserException& e) {
    fail(to_source_mark(e.mark), "", "syntax error: " + e.msg);
  }
  // An empty file, or one with only comments, has no document; `---` alone has a null one.
  // Either way there is nothing to point at but the start. A null root with something else in
  // the file (`~`, or a token that starts no value) is not the mapping the top level must be.
  if (root.IsNull()) {
    fail(SourceMark{1, 1}, "", has_content(text) ? "top level must be a mapping" : "file is empty");
  }
  if (documents > 1) {
    fail(to_source_mark(second), "", "only one YAML document is allowed (found a second one)");
  }
  return Located{root, "", to_source_mark(root.Mark())};
}

Mapping Reader::mapping(const Located& where) const {
  if (!where.node.IsMap()) {
    fail(where, "must be a mapping");
  }
  return Mapping(*this, where);
}

std::vector<Located> Reader::list(const Located& where) const {
  if (!where.node.IsSequence()) {
    fail(where, "must be a list");
  }
  std::vector<Located> items;
  std::size_t i = 0;
  const auto add = [&](const YAML::Node& item) {
    items.push_back(
        Located{item, where.path + "[" + std::to_string(i++) + "]", to_source_mark(item.Mark())});
  };
  for (auto it = where.node.begin(); it != where.node.end(); ++it)
    add(YAML::Node(*it));
  // A list cut into pieces holds its first item here, the others in the pieces.
  if (const auto* rest = pieces_ ? pieces_->rest_of(where.node.Mark()) : nullptr) {
    items.reserve(1 + rest->size());
    for (const YAML::Node& item : *rest)
      add(item);
  }
  return items;
}

std::vector<Located> Reader::non_empty_list(const Located& where) const {
  auto items = list(where);
  if (items.empty()) {
    fail(where, "must not be empty");
  }
  return items;
}

std::string Reader::name(const Located& where) const {
  if (!where.node.IsScalar()) {
    fail(where, "must be a string");
  }
  if (where.node.Scalar().empty()) {
    fail(where, "must not be empty");
  }
  return where.node.Scalar();
}

double Reader::number(const Located& where) const {
  if (!is_plain_scalar(where.node)) {
    fail(where, "must be a number");
  }
  const auto value = detail::parse_real(where.node.Scalar());
  if (!value) {
    fail(where, "must be a number");
  }
  if (!std::isfinite(*value)) {
    fail(where, "must be finite");
  }
  return *value;
}

bool Reader::boolean(const Located& where) const {
  const auto value = boolean_of(where.node);
  if (!value) {
    fail(where, "must be true or false");
  }
  return *value;
}

long long Reader::integer(const Located& where, long long lo, long long hi) const {
  if (!is_plain_scalar(where.node)) {
    fail(where, "must be an integer");
  }
  const auto checked = detail::check_integer(where.node.Scalar(), lo, hi);
  if (!checked.value) {
    fail(where, checked.error);
  }
  return *checked.value;
}

namespace {

void outline_into(const Reader& reader, const Located& where, int depth, std::string& out) {
  out.append(static_cast<std::size_t>(depth) * 2, ' ');
  out += std::to_string(where.mark.line) + ":" + std::to_string(where.mark.column) + " ";
  const YAML::Node& node = where.node;
  if (node.IsMap()) {
    const Mapping m = reader.mapping(where);
    out += "map\n";
    for (const Entry& e : m.entries()) {
      out.append(static_cast<std::size_t>(depth) * 2 + 1, ' ');
      out += "key " + e.key + " at " + std::to_string(e.key_mark.line) + ":" +
             std::to_string(e.key_mark.column) + "\n";
      outline_into(reader, e.value, depth + 1, out);
    }
  } else if (node.IsSequence()) {
    out += "list\n";
    for (const Located& item : reader.list(where))
      outline_into(reader, item, depth + 1, out);
  } else if (node.IsScalar()) {
    out += "scalar '" + node.Scalar() + "' tag '" + node.Tag() + "'\n";
  } else {
    out += node.IsNull() ? "null\n" : "undefined\n";
  }
}

} // namespace

std::string outline(const Reader& reader, const Located& where) {
  std::string out;
  outline_into(reader, where, 0, out);
  return out;
}

} // namespace pfmc::config::yaml
