#pragma once
// A large YAML document read on every core: its long block lists (a book's underlyings, models,
// instruments, positions) are cut at their items into pieces that yaml-cpp parses on threads of
// their own, beside a skeleton — the document with each such list down to its first item. The
// reader (yaml_reader.hpp) hands the schema the skeleton's nodes, and a split list's items from
// the pieces, with the positions of one parse of the whole text.
//
// yaml-cpp reads ~2 MB/s (the 1.8 MB MonteCarloMultiGPU book: 0.45 s to parse and 0.16 s to free
// its nodes on the 2-core development machine); it is kept, and given less text per thread.
//
// Only text of a plain form is cut, where no construct can reach from one item into the next:
// ASCII content without tabs, quotes, anchors, aliases, tags, directives, block scalars,
// complex keys or document markers (anything is allowed in comments but line separators other
// than '\n'), and lists under keys written `key:` alone on their line, under such keys only.
// Every piece keeps its lines and is preceded by as many empty lines as precede it in the text,
// so yaml-cpp's marks are the whole text's. Anything else — the form not met, or any part that
// does not parse to what the cut expects — gives no pieces: the caller parses the whole text,
// whose result or error is the one to report (tests/fuzz/fuzz_config.cpp checks that the two
// agree).

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pfmc::config::yaml {

/// When and how finely a document's lists are cut.
struct PieceRules {
  /// A list of fewer bytes is parsed with the skeleton. yaml-cpp takes ~0.25 ms a KB on the
  /// 2-core development machine, a thread ~0.05 ms to start; the skeleton is one thread's work,
  /// so the lists that stay in it should be small (the portfolio example's positions: 15.6 KB).
  std::size_t min_list_bytes = 8 * 1024;
  /// Pieces of at least this many bytes (the last piece of a list may be shorter).
  std::size_t min_piece_bytes = 4 * 1024;
  /// Threads that parse; 0: the host's hardware threads.
  unsigned threads = 0;
  /// The lists' items after their first are cut into about this many pieces; 0: one a thread.
  std::size_t max_pieces = 0;
};

/// Every list of two or more items under `key:` lines cut into pieces of one item, on two
/// threads: the most boundaries a text can have (tests, fuzzing).
inline constexpr PieceRules kPiecesOfOneItem{0, 0, 2, static_cast<std::size_t>(-1)};

/// A document parsed in pieces; moves only. Its nodes are freed on several threads.
class PiecedDocument {
public:
  /// The items after the first of one split list, in order.
  struct SplitList {
    YAML::Mark first_dash; ///< where the list (and its first item) starts
    std::vector<YAML::Node> rest;
  };

  PiecedDocument() = default;
  PiecedDocument(PiecedDocument&&) = default;
  PiecedDocument& operator=(PiecedDocument&&) = default;
  PiecedDocument(const PiecedDocument&) = delete;
  PiecedDocument& operator=(const PiecedDocument&) = delete;
  ~PiecedDocument();

  /// The document with every split list down to its first item.
  [[nodiscard]] const YAML::Node& skeleton() const { return *skeleton_; }
  /// The rest of the split list starting at `mark`, or nullptr if no list was split there.
  [[nodiscard]] const std::vector<YAML::Node>* rest_of(const YAML::Mark& mark) const;
  [[nodiscard]] std::size_t split_lists() const { return lists_.size(); }
  [[nodiscard]] std::size_t pieces() const { return pieces_.size(); }

private:
  friend std::optional<PiecedDocument> parse_in_pieces(const std::string&, const PieceRules&);

  std::unique_ptr<YAML::Node> skeleton_;
  std::vector<SplitList> lists_;
  std::vector<std::unique_ptr<YAML::Node>> pieces_; ///< each a sequence of some lists' items
};

/// `text` parsed as a skeleton and pieces, or nullopt: no list long enough, text not of the
/// plain form, or a part that fails to parse or parses to something the cut did not expect.
std::optional<PiecedDocument> parse_in_pieces(const std::string& text, const PieceRules& rules);

} // namespace pfmc::config::yaml
