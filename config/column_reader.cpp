#include "config/column_reader.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/parallel_ranges.hpp"

namespace pfmc::config {

ColumnCells read_column(std::size_t n, const std::function<bool(std::size_t, ColumnCells&)>& plain,
                        const std::function<void(std::size_t, ColumnCells&)>& serial) {
  const unsigned threads = base::threads_for(n, kColumnRowsPerThread);
  const std::size_t ranges = base::range_count(n, threads);
  struct Piece {
    ColumnCells cells;
    std::vector<std::size_t> others; // the rows `plain` left (an empty cell here), for `serial`
  };
  std::vector<Piece> pieces(ranges);
  for (std::size_t r = 0; r < ranges; ++r)
    pieces[r].cells.ends.reserve(base::range_begin(n, ranges, r + 1) -
                                 base::range_begin(n, ranges, r));
  const base::FirstFailure failure =
      base::parallel_ranges(n, threads, [&](std::size_t row, std::size_t range) {
        Piece& piece = pieces[range];
        if (!plain(row, piece.cells)) {
          piece.others.push_back(row);
          piece.cells.add({});
        }
      });
  if (failure.error)
    std::rethrow_exception(failure.error);

  ColumnCells cells;
  std::size_t bytes = 0;
  for (const Piece& piece : pieces)
    bytes += piece.cells.text.size();
  cells.text.reserve(bytes);
  cells.ends.reserve(n);
  for (std::size_t r = 0; r < ranges; ++r) {
    const Piece& piece = pieces[r];
    if (piece.others.empty()) { // the piece's text whole, its ends moved by what came before
      const auto base = static_cast<std::uint32_t>(cells.text.size());
      cells.text += piece.cells.text;
      for (const std::uint32_t end : piece.cells.ends)
        cells.ends.push_back(base + end);
      continue;
    }
    const std::size_t first = base::range_begin(n, ranges, r);
    std::size_t other = 0, start = 0;
    for (std::size_t i = 0; i < piece.cells.ends.size(); ++i) {
      const std::size_t row = first + i;
      if (other < piece.others.size() && piece.others[other] == row) {
        serial(row, cells);
        ++other;
      } else {
        cells.add(std::string_view(piece.cells.text).substr(start, piece.cells.ends[i] - start));
      }
      start = piece.cells.ends[i];
    }
  }
  return cells;
}

} // namespace pfmc::config
