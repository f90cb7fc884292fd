#pragma once
// A CSV file read whole (RFC 4180, through libcsv in strict mode), internal to config/: a header
// row of column names and rows of cells, each cell with the file line it ends on and its 1-based
// column, for errors written `FILE:LINE:COLUMN: column: what is wrong` as the YAML loader writes
// them. Blank lines are skipped; spaces around an unquoted cell are not part of it. What Excel
// writes is read as it means it: a UTF-8 byte-order mark is skipped, CRLF ends lines, cells may
// be separated by `;` or a tab (the config's `delimiter:`, or Excel's own first line `sep=;`).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/load_config.hpp"
#include "config/run_config.hpp"

namespace pfmc::config::csv {

struct Builder; // csv_table.cpp: what libcsv's callbacks fill

class Table {
public:
  /// Reads `path`; `file` names it in errors (as the YAML file wrote it, or resolved).
  /// `delimiter`: what separates cells (one of kDelimiters); 0: the file's `sep=X` first line
  /// if it has one, else a comma. Refuses, as ConfigError: a file that cannot be read, a
  /// UTF-16 file, a malformed quote, an empty file, an empty or repeated column name, a row
  /// whose number of cells is not the header's, and a `sep=` line that names another delimiter
  /// than `delimiter` or one not in kDelimiters.
  static Table read(const std::string& path, const std::string& file, char delimiter = 0);
  /// The same, from text in memory (tests, fuzzing).
  static Table parse(std::string_view text, const std::string& file, char delimiter = 0);

  /// A table of cells given in memory (a trade list given as columns: Python's DataFrame), as if
  /// read from a CSV file named `file` with its header on line 1 and row r on line r + 2; a
  /// numeric column keeps its numbers (numbers()). Refuses, as ConfigError, an empty or
  /// repeated column name, columns of unequal lengths and no columns.
  static Table from_columns(const std::string& file, std::vector<std::string> names,
                            std::vector<ColumnCells> columns);

  /// The delimiters a table may have: comma, semicolon (Excel where the decimal separator is a
  /// comma), tab.
  static constexpr const char* kDelimiters = ",;\t";
  /// What separated this table's cells.
  [[nodiscard]] char delimiter() const { return delimiter_; }

  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::vector<std::string>& columns() const { return columns_; }
  /// The column named `name`, or -1.
  [[nodiscard]] int column(std::string_view name) const;
  [[nodiscard]] std::size_t rows() const { return rows_; }
  /// A cell's text; empty for a cell of a numeric column (numbers(), text()).
  [[nodiscard]] std::string_view cell(std::size_t row, int column) const {
    const Span& s = cells_[row * columns_.size() + static_cast<std::size_t>(column)];
    return {text_.get() + s.offset, s.length};
  }
  /// A column given as numbers (from_columns): its values, NaN where a cell is empty; else null.
  [[nodiscard]] const double* numbers(int column) const {
    return numbers_.empty() || numbers_[static_cast<std::size_t>(column)].empty()
               ? nullptr
               : numbers_[static_cast<std::size_t>(column)].data();
  }
  /// Whether a cell is empty (not given).
  [[nodiscard]] bool empty(std::size_t row, int column) const;
  /// A cell's text: read, or a number's shortest form (std::to_chars) written into `buffer`.
  [[nodiscard]] std::string_view text(std::size_t row, int column, std::string& buffer) const;
  /// A number's text as a cell of a numeric column holds it: its shortest round-trip form.
  [[nodiscard]] static std::string number_text(double value);
  /// Where a cell is: the line its row ends on (rows with quoted line breaks span lines) and its
  /// column, both 1-based. The header is row -1.
  [[nodiscard]] SourceMark mark(std::ptrdiff_t row, int column) const {
    return {row < 0 ? header_line_ : row_lines_[static_cast<std::size_t>(row)], column + 1};
  }

private:
  struct Span {
    std::uint32_t offset;
    std::uint32_t length;
  };
  friend struct Builder;
  /// The rows after the header, [at, end of text), in one piece per thread, each cut at a
  /// line's end and read by its own parser straight into the table's arrays: a piece's cells'
  /// bytes into the text at its own offsets in the file (a cell is never longer than the text
  /// it was read from), its rows from the rows of the lines before it; the rows then closed up
  /// where blank lines left room. Only for text without quotes: there every line break ends a
  /// row. Fails `builder` with the first piece's failure.
  static void read_rows_in_pieces(std::string_view text, std::size_t at, unsigned threads,
                                  Table& table, Builder& builder);

  std::string file_;
  char delimiter_ = ',';
  std::vector<std::string> columns_;
  int header_line_ = 1;
  // Sized once from the text (its bytes, its lines) and left uninitialised until written: each
  // piece's part is first touched by the thread that reads it.
  std::unique_ptr<char[]> text_;  // the cells' bytes: a cell's at most at its offset in the file
  std::unique_ptr<Span[]> cells_; // row-major, columns_.size() per row
  std::unique_ptr<int[]> row_lines_;
  std::size_t rows_ = 0;
  std::vector<std::vector<double>> numbers_; // per column: a numeric column's values, else empty
};

} // namespace pfmc::config::csv
