#include "config/yaml_pieces.hpp"

#include <algorithm>
#include <string_view>

#include "base/parallel_ranges.hpp"

namespace pfmc::config::yaml {

namespace {

/// One line of the text: [begin, end) without its '\n'.
struct Line {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t indent = 0; ///< leading spaces
  bool content = false;   ///< something besides blanks and a comment
};

/// Characters that start constructs whose extent the line scan below cannot follow (quoted and
/// block scalars, anchors, aliases, tags, directives, complex keys) or that YAML reserves.
constexpr std::string_view kRefused = "&*!|>%\"'?@`\t";

/// The content of a line ends where a comment starts: a '#' first on the line or after a blank
/// (no quoted scalar can hold one: quotes are refused).
std::size_t content_end(std::string_view text, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) {
    if (text[i] == '#' && (i == begin || text[i - 1] == ' '))
      return i;
  }
  return end;
}

/// The text's lines, or nullopt when it is not of the plain form the cut needs.
std::optional<std::vector<Line>> plain_lines(std::string_view text) {
  // Line breaks other than '\n' ("\r", and NEL, LS, PS in UTF-8) would number lines otherwise.
  if (text.find('\r') != std::string_view::npos ||
      text.find("\xC2\x85") != std::string_view::npos ||
      text.find("\xE2\x80\xA8") != std::string_view::npos ||
      text.find("\xE2\x80\xA9") != std::string_view::npos)
    return std::nullopt;
  std::vector<Line> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t newline = text.find('\n', at);
    Line line;
    line.begin = at;
    line.end = newline == std::string_view::npos ? text.size() : newline;
    if (text.compare(at, 3, "---") == 0 || text.compare(at, 3, "...") == 0)
      return std::nullopt; // a document marker
    const std::size_t stop = content_end(text, line.begin, line.end);
    for (std::size_t i = line.begin; i < stop; ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c < 0x20 || c > 0x7E || kRefused.find(static_cast<char>(c)) != std::string_view::npos)
        return std::nullopt;
    }
    std::size_t first = line.begin;
    while (first < stop && text[first] == ' ')
      ++first;
    line.indent = first - line.begin;
    line.content = first < stop;
    lines.push_back(line);
    at = line.end + 1;
  }
  return lines;
}

/// `- ` or a lone `-` at exactly `indent`: an item of a block list.
bool is_item(std::string_view text, const Line& line, std::size_t indent) {
  const std::size_t dash = line.begin + indent;
  if (!line.content || line.indent != indent || text[dash] != '-')
    return false;
  const std::size_t stop = content_end(text, line.begin, line.end);
  return dash + 1 == stop || text[dash + 1] == ' ';
}

/// Whether [begin, stop) holds a mapping's `:` (followed by a blank or the end).
bool holds_key(std::string_view text, std::size_t begin, std::size_t stop) {
  for (std::size_t i = begin; i < stop; ++i) {
    if (text[i] == ':' && (i + 1 == stop || text[i + 1] == ' '))
      return true;
  }
  return false;
}

/// The key of a line that is `key:` alone (a word of letters, digits and '_'; blanks and a
/// comment may follow), else empty.
std::string_view simple_key(std::string_view text, const Line& line) {
  if (!line.content)
    return {};
  std::size_t stop = content_end(text, line.begin, line.end);
  while (stop > line.begin && text[stop - 1] == ' ')
    --stop;
  const std::size_t first = line.begin + line.indent;
  if (stop < first + 2 || text[stop - 1] != ':')
    return {};
  for (std::size_t i = first; i + 1 < stop; ++i) {
    const char c = text[i];
    const bool word =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word)
      return {};
  }
  return text.substr(first, stop - 1 - first);
}

/// A long list found by the line scan.
struct ListCut {
  struct Key {
    std::string_view name;
    std::size_t line;
  };
  std::vector<Key> path;          ///< the keys above the list, outermost first; the last holds it
  std::size_t indent = 0;         ///< of its dashes
  std::vector<std::size_t> items; ///< first line of each item
  std::size_t end = 0;            ///< first line after the list
};

struct Ancestor {
  std::size_t indent;
  std::string_view key; ///< empty: not a `key:` line
  std::size_t line;
};

/// The first line at or after `i` that holds content (lines.size() if none).
std::size_t next_content(const std::vector<Line>& lines, std::size_t i) {
  while (i < lines.size() && !lines[i].content)
    ++i;
  return i;
}

/// The items of the block list whose first dash is on line `first` at `indent`, and its end.
void list_extent(std::string_view text, const std::vector<Line>& lines, std::size_t first,
                 ListCut& cut) {
  cut.indent = lines[first].indent;
  std::size_t i = first;
  for (; i < lines.size(); ++i) {
    const Line& line = lines[i];
    if (!line.content || line.indent > cut.indent)
      continue; // blank, a comment, or the current item's own lines
    if (!is_item(text, line, cut.indent))
      break;
    cut.items.push_back(i);
  }
  cut.end = i;
  // An item whose flow collections ({...}, [...]) are not closed within its own lines reaches
  // into the next item (the config fuzzer's find: a `- {` left open, which the whole text
  // refuses as an illegal block entry and a piece read as a mapping): such a list is read whole.
  // (No quoted scalar can hold a bracket: quotes are refused.) So is a list with an opening
  // bracket inside a plain scalar (after anything but a blank, a bracket or a comma: `a:[b`),
  // which yaml-cpp reads one way in a piece and another in the whole text (the fuzzer's find:
  // `correlat n:[io[1.0, 0.9], [0.9, 1.0]]`, a null-valued key in a piece, a syntax error on the
  // next line of the whole).
  // So is a list with a line in block context that neither holds a key nor starts an item (`t`
  // under `- x:`, or a plain scalar's next line): yaml-cpp takes such a line for a key with no
  // value or refuses it by what comes after, which differs between a piece and the whole (the
  // fuzzer's find: `- x:` then `t` at the key's indent, and `t` after the list).
  for (std::size_t k = 0; k < cut.items.size(); ++k) {
    const std::size_t last = k + 1 < cut.items.size() ? cut.items[k + 1] : cut.end;
    long open = 0;
    bool inside_scalar = false;
    for (std::size_t l = cut.items[k]; l < last; ++l) {
      const std::size_t stop = content_end(text, lines[l].begin, lines[l].end);
      if (l > cut.items[k] && open == 0 && lines[l].content &&
          !is_item(text, lines[l], lines[l].indent) && !holds_key(text, lines[l].begin, stop)) {
        cut.items.clear();
        return;
      }
      for (std::size_t c = lines[l].begin; c < stop; ++c) {
        const bool opens = text[c] == '{' || text[c] == '[';
        open += opens;
        open -= text[c] == '}' || text[c] == ']';
        if (opens && c > lines[l].begin) {
          const char before = text[c - 1];
          inside_scalar =
              inside_scalar || !(before == ' ' || before == '[' || before == '{' || before == ',');
        }
      }
    }
    if (open != 0 || inside_scalar) {
      cut.items.clear();
      return;
    }
  }
  // An item that is a dash alone with nothing under it is null, and yaml-cpp marks a null at the
  // next token, which a piece ends before (the fuzzer's find): such a list is read whole.
  for (const std::size_t item : cut.items) {
    const Line& line = lines[item];
    std::size_t stop = content_end(text, line.begin, line.end);
    while (stop > line.begin && text[stop - 1] == ' ')
      --stop;
    const bool bare = stop == line.begin + cut.indent + 1; // the dash, then blanks or a comment
    const std::size_t next = next_content(lines, item + 1);
    if (bare && (next >= cut.end || lines[next].indent <= cut.indent)) {
      cut.items.clear();
      return;
    }
  }
}

/// Bytes from the start of line `a` to the start of line `b`.
std::size_t span_bytes(std::string_view text, const std::vector<Line>& lines, std::size_t a,
                       std::size_t b) {
  const std::size_t to = b < lines.size() ? lines[b].begin : text.size();
  return to - lines[a].begin;
}

/// The long lists under chains of `key:` lines.
std::vector<ListCut> find_lists(std::string_view text, const std::vector<Line>& lines,
                                const PieceRules& rules) {
  std::vector<ListCut> cuts;
  std::vector<Ancestor> stack;
  std::size_t i = next_content(lines, 0);
  while (i < lines.size()) {
    const Line& line = lines[i];
    while (!stack.empty() && stack.back().indent >= line.indent)
      stack.pop_back();
    const std::string_view key = simple_key(text, line);
    stack.push_back(Ancestor{line.indent, key, i});
    const std::size_t next = next_content(lines, i + 1);
    const bool keys_above =
        std::all_of(stack.begin(), stack.end(), [](const Ancestor& a) { return !a.key.empty(); });
    if (!key.empty() && keys_above && next < lines.size() && lines[next].indent >= line.indent &&
        is_item(text, lines[next], lines[next].indent)) {
      ListCut cut;
      for (const Ancestor& a : stack)
        cut.path.push_back(ListCut::Key{a.key, a.line});
      list_extent(text, lines, next, cut);
      if (cut.items.size() >= 2 && span_bytes(text, lines, next, cut.end) >= rules.min_list_bytes)
        cuts.push_back(std::move(cut));
      i = next_content(lines, cut.end);
      continue;
    }
    i = next;
  }
  return cuts;
}

/// A piece: lines [first_line, end_line) holding `items` items of list `list`.
struct PieceCut {
  std::size_t list;
  std::size_t first_line;
  std::size_t end_line;
  std::size_t items;
};

/// Each list's items after its first, in consecutive pieces of about equal bytes.
std::vector<PieceCut> cut_pieces(std::string_view text, const std::vector<Line>& lines,
                                 const std::vector<ListCut>& cuts, const PieceRules& rules,
                                 unsigned threads) {
  std::size_t total = 0;
  for (const ListCut& c : cuts)
    total += span_bytes(text, lines, c.items[1], c.end);
  // Four pieces a thread: threads that take the next piece as they finish end together.
  const std::size_t pieces = rules.max_pieces > 0 ? rules.max_pieces : 4 * std::size_t{threads};
  const std::size_t target =
      std::max(rules.min_piece_bytes, total / std::max<std::size_t>(1, pieces));
  std::vector<PieceCut> result;
  for (std::size_t l = 0; l < cuts.size(); ++l) {
    const ListCut& c = cuts[l];
    std::size_t k = 1;
    while (k < c.items.size()) {
      PieceCut p{l, c.items[k], 0, 0};
      do {
        ++k;
        ++p.items;
      } while (k < c.items.size() && span_bytes(text, lines, p.first_line, c.items[k]) < target);
      p.end_line = k < c.items.size() ? c.items[k] : c.end;
      result.push_back(p);
    }
  }
  return result;
}

/// The text with every list's items after the first blanked to empty lines (line numbers kept).
std::string skeleton_text(std::string_view text, const std::vector<Line>& lines,
                          const std::vector<ListCut>& cuts) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0; // next byte of `text` to copy
  for (const ListCut& c : cuts) {
    const std::size_t from = lines[c.items[1]].begin;
    out.append(text.substr(at, from - at));
    out.append(c.end - c.items[1], '\n');
    at = c.end < lines.size() ? lines[c.end].begin : text.size();
  }
  out.append(text.substr(at));
  return out;
}

/// A piece's text: its lines, after as many empty lines as come before them.
std::string piece_text(std::string_view text, const std::vector<Line>& lines, const PieceCut& p) {
  std::string out(p.first_line, '\n');
  out.append(
      text.substr(lines[p.first_line].begin, span_bytes(text, lines, p.first_line, p.end_line)));
  return out;
}

/// The node under `path` in the skeleton: each key matched by name and line.
std::optional<YAML::Node> find_under(const YAML::Node& root,
                                     const std::vector<ListCut::Key>& path) {
  YAML::Node at(root);
  for (const ListCut::Key& key : path) {
    if (!at.IsMap())
      return std::nullopt;
    std::optional<YAML::Node> found;
    for (auto it = at.begin(); it != at.end(); ++it) {
      const YAML::Node k(it->first);
      if (k.IsScalar() && k.Scalar() == key.name && k.Mark().line == static_cast<int>(key.line)) {
        found = YAML::Node(it->second);
        break;
      }
    }
    if (!found)
      return std::nullopt;
    at.reset(*found); // rebinds (operator= would rewrite the node `at` refers to)
  }
  return at;
}

} // namespace

PiecedDocument::~PiecedDocument() {
  lists_.clear(); // the pieces' own nodes hold the last references
  std::vector<std::unique_ptr<YAML::Node>> parts = std::move(pieces_);
  parts.push_back(std::move(skeleton_));
  if (parts.size() < 3)
    return; // freed here, in order
  try {
    (void)base::parallel_items(parts.size(), base::threads_for(parts.size(), 1),
                               [&](std::size_t k) { parts[k].reset(); });
  } catch (...) {
    // Nothing throws in a node's destructor; what is left is freed here, with `parts`.
  }
}

const std::vector<YAML::Node>* PiecedDocument::rest_of(const YAML::Mark& mark) const {
  for (const SplitList& list : lists_) {
    if (list.first_dash.line == mark.line && list.first_dash.column == mark.column)
      return &list.rest;
  }
  return nullptr;
}

std::optional<PiecedDocument> parse_in_pieces(const std::string& text, const PieceRules& rules) {
  const auto lines = plain_lines(text);
  if (!lines)
    return std::nullopt;
  const std::vector<ListCut> cuts = find_lists(text, *lines, rules);
  if (cuts.empty())
    return std::nullopt;
  const unsigned threads = rules.threads > 0 ? rules.threads : base::hardware_threads();
  const std::vector<PieceCut> cut = cut_pieces(text, *lines, cuts, rules, threads);

  // Task 0 parses the skeleton, task k the piece k - 1; the largest are taken first.
  PiecedDocument doc;
  doc.pieces_.resize(cut.size());
  const std::string skeleton = skeleton_text(text, *lines, cuts);
  std::vector<std::pair<std::size_t, std::size_t>> tasks{{skeleton.size(), 0}}; // (bytes, task)
  for (std::size_t k = 0; k < cut.size(); ++k)
    tasks.emplace_back(span_bytes(text, *lines, cut[k].first_line, cut[k].end_line), k + 1);
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  const std::exception_ptr failed = base::parallel_items(
      tasks.size(), std::min<std::size_t>(threads, tasks.size()), [&](std::size_t i) {
        const std::size_t task = tasks[i].second;
        auto node = std::make_unique<YAML::Node>(
            YAML::Load(task == 0 ? skeleton : piece_text(text, *lines, cut[task - 1])));
        (task == 0 ? doc.skeleton_ : doc.pieces_[task - 1]) = std::move(node);
      });
  if (failed)
    return std::nullopt; // the whole text's parse tells what is wrong

  for (const ListCut& c : cuts) {
    const auto list = find_under(*doc.skeleton_, c.path);
    if (!list || !list->IsSequence() || list->size() != 1 ||
        list->Mark().line != static_cast<int>(c.items[0]) ||
        list->Mark().column != static_cast<int>(c.indent))
      return std::nullopt;
    doc.lists_.push_back(PiecedDocument::SplitList{list->Mark(), {}});
    doc.lists_.back().rest.reserve(c.items.size() - 1);
  }
  for (std::size_t k = 0; k < cut.size(); ++k) {
    const YAML::Node& piece = *doc.pieces_[k];
    if (!piece.IsSequence() || piece.size() != cut[k].items)
      return std::nullopt;
    auto& rest = doc.lists_[cut[k].list].rest;
    for (auto it = piece.begin(); it != piece.end(); ++it)
      rest.push_back(YAML::Node(*it));
  }
  return doc;
}

} // namespace pfmc::config::yaml
