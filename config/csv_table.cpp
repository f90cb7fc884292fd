#include "config/csv_table.hpp"

#include <csv.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>
#include <unordered_set>
#include <vector>

#include "base/parallel_ranges.hpp"
#include "config/config_error.hpp"
#include "config/load_config.hpp"

namespace pfmc::config::csv {

// What libcsv's callbacks build: cells written as they end (their bytes into the table's text
// from `text_at`, the row's spans here), rows closed by the row callback into the table's row
// `row_at` and on; after the header, the table's arrays are sized from `lines`.
struct Builder {
  explicit Builder(Table& t) : table(t) {}

  Table& table;
  int line = 0;                    // the line being fed to the parser
  std::size_t lines = 0;           // the text's lines: at most one row each
  std::vector<std::string> header; // while the header row is read
  std::vector<Table::Span> row;    // the row being read (after the header)
  int row_line = 0;                // the line its first cell ended on
  std::size_t text_at = 0;         // where the next cell's bytes go in table.text_
  std::size_t text_end = 0;        // ... up to here (its piece's end in the file)
  std::size_t row_at = 0;          // the next row's index in table.cells_ / row_lines_
  std::size_t row_end = 0;         // the rows this builder may write: [row_at, row_end)
  bool header_done = false;
  bool failed = false;
  std::string error;
  int error_line = 0;
  int error_column = 0;

  void fail(int at_line, int column, std::string message) {
    if (!failed) {
      failed = true;
      error = std::move(message);
      error_line = at_line;
      error_column = column;
    }
  }

  void cell(const char* data, std::size_t length) {
    if (!header_done) {
      if (header.empty()) {
        table.header_line_ = line;
      }
      header.emplace_back(data == nullptr ? "" : std::string(data, length));
      return;
    }
    if (row.empty()) {
      row_line = line;
    }
    if (length > text_end - text_at) { // a cell is never longer than the text it came from
      fail(line, static_cast<int>(row.size()) + 1, "a cell longer than its text (internal error)");
      return;
    }
    row.push_back(
        Table::Span{static_cast<std::uint32_t>(text_at), static_cast<std::uint32_t>(length)});
    if (length > 0)
      std::memcpy(table.text_.get() + text_at, data, length);
    text_at += length;
  }

  void end_row() {
    if (failed) {
      return;
    }
    if (!header_done) {
      header_done = true;
      close_header();
      if (!failed) {
        // One allocation each for the cells and the rows' lines: at most a row a line.
        table.cells_.reset(new Table::Span[lines * table.columns_.size()]);
        table.row_lines_.reset(new int[lines]);
        row_end = lines;
      }
      return;
    }
    const std::size_t expected = table.columns_.size();
    if (row.size() != expected) {
      fail(row_line, static_cast<int>(std::min(row.size(), expected)) + 1,
           "the row has " + std::to_string(row.size()) + " cells, the header " +
               std::to_string(expected));
      return;
    }
    if (row_at >= row_end) { // a row a line at most: not expected
      fail(row_line, 1, "more rows than lines (internal error)");
      return;
    }
    std::copy(row.begin(), row.end(), table.cells_.get() + row_at * expected);
    table.row_lines_[row_at++] = row_line;
    row.clear();
  }

  void close_header() {
    std::unordered_set<std::string> seen;
    for (std::size_t c = 0; c < header.size(); ++c) {
      const int column = static_cast<int>(c) + 1;
      if (header[c].empty()) {
        fail(table.header_line_, column, "column names must not be empty");
        return;
      }
      if (!seen.insert(header[c]).second) {
        fail(table.header_line_, column, "duplicate column '" + header[c] + "'");
        return;
      }
    }
    table.columns_ = std::move(header);
  }
};

namespace {

extern "C" void on_cell(void* data, std::size_t length, void* builder) {
  static_cast<Builder*>(builder)->cell(static_cast<const char*>(data), length);
}

extern "C" void on_row(int /*terminator*/, void* builder) {
  static_cast<Builder*>(builder)->end_row();
}

struct ParserDeleter {
  void operator()(csv_parser* p) const {
    csv_free(p);
    delete p;
  }
};

} // namespace

int Table::column(std::string_view name) const {
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c] == name) {
      return static_cast<int>(c);
    }
  }
  return -1;
}

namespace {

/// Text larger than this, with no quote in it, is read in pieces on every core.
constexpr std::size_t kPieceBytes = std::size_t(1) << 20;

/// A space around an unquoted cell; a tab only where it does not separate cells.
extern "C" int is_space(unsigned char c) {
  return c == CSV_SPACE || c == CSV_TAB;
}
extern "C" int is_space_not_tab(unsigned char c) {
  return c == CSV_SPACE;
}

std::unique_ptr<csv_parser, ParserDeleter> start_parser(const std::string& file, char delimiter) {
  std::unique_ptr<csv_parser, ParserDeleter> parser(new csv_parser);
  if (csv_init(parser.get(), CSV_STRICT | CSV_STRICT_FINI) != 0) {
    throw ConfigError(file, {}, "", "cannot start the CSV reader (out of memory)");
  }
  csv_set_delim(parser.get(), static_cast<unsigned char>(delimiter));
  csv_set_space_func(parser.get(), delimiter == '\t' ? is_space_not_tab : is_space);
  return parser;
}

std::string delimiter_name(char delimiter) {
  return delimiter == '\t' ? std::string("a tab") : "'" + std::string(1, delimiter) + "'";
}

/// Excel's marks before the header: a UTF-8 byte-order mark (skipped; a UTF-16 one refused) and
/// a first line `sep=X` naming the delimiter. Returns where the header starts and sets the
/// delimiter; `lines` counts the lines skipped.
std::size_t skip_excel_marks(std::string_view text, const std::string& file, char given,
                             char& delimiter, int& lines) {
  std::size_t at = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    at = 3;
  if (text.substr(0, 2) == "\xFF\xFE" || text.substr(0, 2) == "\xFE\xFF") {
    throw ConfigError(file, SourceMark{1, 1}, "",
                      "the file is UTF-16 (Excel's \"Unicode text\"): save it as \"CSV UTF-8\"");
  }
  delimiter = given != 0 ? given : ',';
  const std::string_view rest = text.substr(at);
  if (rest.substr(0, 4) != "sep=" || rest.size() < 5)
    return at;
  const std::size_t end = rest.find('\n');
  std::string_view line = rest.substr(0, end);
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  if (line.size() != 5)
    return at; // not Excel's hint: a header whose first column starts with "sep="
  const char hinted = line[4];
  if (std::string_view(Table::kDelimiters).find(hinted) == std::string_view::npos) {
    throw ConfigError(file, SourceMark{1, 1}, "",
                      "the first line says sep=" + std::string(1, hinted) +
                          ": cells may be separated by ',', ';' or a tab");
  }
  if (given != 0 && hinted != given) {
    throw ConfigError(file, SourceMark{1, 1}, "",
                      "the first line says sep=" + std::string(1, hinted) +
                          " but the config's delimiter is " + delimiter_name(given) + ": drop one");
  }
  delimiter = hinted;
  lines = 1;
  return end == std::string_view::npos ? text.size() : at + end + 1;
}

/// Feeds `text` from `at` to libcsv a line at a time (so that each cell knows the line it ends
/// on: libcsv keeps no count), until its end or, with `header_only`, the header row's end;
/// returns where it stopped.
std::size_t feed(csv_parser* parser, std::string_view text, std::size_t at, Builder& builder,
                 bool header_only) {
  while (at < text.size() && !builder.failed && !(header_only && builder.header_done)) {
    const std::size_t newline = text.find('\n', at);
    const std::size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    ++builder.line;
    const std::size_t length = end - at;
    if (csv_parse(parser, text.data() + at, length, on_cell, on_row, &builder) != length) {
      builder.fail(builder.line, 0,
                   std::string("malformed CSV: ") + csv_strerror(csv_error(parser)) +
                       " (a quote inside a cell must be doubled, and a quoted cell closed)");
    }
    at = end;
  }
  return at;
}

void finish(csv_parser* parser, Builder& builder) {
  if (!builder.failed && csv_fini(parser, on_cell, on_row, &builder) != 0) {
    builder.fail(builder.line, 0,
                 "malformed CSV: a quoted cell is not closed at the end of the file");
  }
}

} // namespace

// One piece per thread (csv_table.hpp).
void Table::read_rows_in_pieces(std::string_view text, std::size_t at, unsigned threads,
                                Table& table, Builder& builder) {
  std::vector<std::size_t> cuts{at};
  for (unsigned k = 1; k < threads; ++k) {
    const std::size_t target = at + (text.size() - at) * k / threads;
    const std::size_t newline = text.find('\n', std::max(target, cuts.back()));
    if (newline == std::string_view::npos)
      break;
    cuts.push_back(newline + 1);
  }
  cuts.push_back(text.size());
  const std::size_t pieces = cuts.size() - 1;
  std::vector<std::unique_ptr<Builder>> builders;
  int line = builder.line;
  std::size_t first_row = builder.row_at;
  for (std::size_t k = 0; k < pieces; ++k) {
    auto& b = *builders.emplace_back(std::make_unique<Builder>(table));
    b.header_done = true;
    b.line = line;
    b.lines = static_cast<std::size_t>(
        std::count(text.begin() + static_cast<std::ptrdiff_t>(cuts[k]),
                   text.begin() + static_cast<std::ptrdiff_t>(cuts[k + 1]), '\n'));
    // Its rows: one a line (the last piece's last line may have no line break).
    b.text_at = cuts[k];
    b.text_end = cuts[k + 1];
    b.row_at = first_row;
    b.row_end = std::min(builder.row_end, first_row + b.lines + (k + 1 == pieces ? 1 : 0));
    first_row = b.row_end;
    line += static_cast<int>(b.lines);
  }
  // A piece per thread; a piece's failure is its builder's (the parser's start alone throws).
  std::vector<std::size_t> row_starts;
  for (const auto& b : builders)
    row_starts.push_back(b->row_at);
  const base::FirstFailure failed =
      base::parallel_ranges(pieces, static_cast<unsigned>(pieces), [&](std::size_t k, std::size_t) {
        const auto parser = start_parser(table.file_, table.delimiter_);
        feed(parser.get(), text.substr(0, cuts[k + 1]), cuts[k], *builders[k], false);
        finish(parser.get(), *builders[k]);
      });
  if (failed.error)
    std::rethrow_exception(failed.error);
  // The rows closed up in order (blank lines leave a piece short of its lines).
  const std::size_t columns = table.columns_.size();
  std::size_t rows = builder.row_at;
  for (std::size_t k = 0; k < pieces; ++k) {
    const Builder& b = *builders[k];
    if (b.failed) {
      builder.fail(b.error_line, b.error_column, b.error);
      return;
    }
    const std::size_t count = b.row_at - row_starts[k];
    if (row_starts[k] != rows) {
      std::memmove(table.cells_.get() + rows * columns,
                   table.cells_.get() + row_starts[k] * columns, count * columns * sizeof(Span));
      std::memmove(table.row_lines_.get() + rows, table.row_lines_.get() + row_starts[k],
                   count * sizeof(int));
    }
    rows += count;
  }
  builder.row_at = rows;
}

Table Table::parse(std::string_view text, const std::string& file, char delimiter) {
  Table table;
  table.file_ = file;
  if (text.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw ConfigError(file, SourceMark{}, "", "the file is too large (over 4 GiB)");
  }
  int skipped_lines = 0;
  text = text.substr(skip_excel_marks(text, file, delimiter, table.delimiter_, skipped_lines));
  table.text_.reset(new char[std::max<std::size_t>(text.size(), 1)]);
  Builder builder(table);
  builder.line = skipped_lines;
  builder.text_end = text.size();
  builder.lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  const auto parser = start_parser(file, table.delimiter_);
  // A large file without quotes (a generated trade list) is read on every core after its
  // header: its rows are its lines. Otherwise, one pass.
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const bool pieces =
      text.size() >= 2 * kPieceBytes && threads > 1 && text.find('"') == std::string_view::npos;
  const std::size_t at = feed(parser.get(), text, 0, builder, pieces);
  if (pieces && builder.header_done && !builder.failed) {
    read_rows_in_pieces(
        text, at, static_cast<unsigned>(std::min<std::size_t>(threads, text.size() / kPieceBytes)),
        table, builder);
  } else {
    finish(parser.get(), builder);
  }
  if (!builder.failed && !builder.header_done) {
    builder.fail(skipped_lines + 1, 0, "file is empty (expected a header row of column names)");
  }
  if (builder.failed) {
    throw ConfigError(file, SourceMark{builder.error_line, builder.error_column}, "",
                      builder.error);
  }
  table.rows_ = builder.row_at;
  return table;
}

Table Table::read(const std::string& path, const std::string& file, char delimiter) {
  // read_source_file takes `-` for standard input; a CSV file so named is a file.
  return parse(read_source_file(path == "-" ? "./-" : path, file), file, delimiter);
}

bool Table::empty(std::size_t row, int column) const {
  const double* values = numbers(column);
  return values ? std::isnan(values[row]) : cell(row, column).empty();
}

std::string Table::number_text(double value) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

std::string_view Table::text(std::size_t row, int column, std::string& buffer) const {
  const double* values = numbers(column);
  if (values == nullptr)
    return cell(row, column);
  buffer = std::isnan(values[row]) ? std::string() : number_text(values[row]);
  return buffer;
}

Table Table::from_columns(const std::string& file, std::vector<std::string> names,
                          std::vector<ColumnCells> columns) {
  Table table;
  table.file_ = file;
  if (names.empty() || names.size() != columns.size())
    throw ConfigError(file, SourceMark{1, 0}, "", "no columns");
  std::unordered_set<std::string> seen;
  std::size_t bytes = 0;
  for (std::size_t c = 0; c < names.size(); ++c) {
    const int column = static_cast<int>(c) + 1;
    if (names[c].empty())
      throw ConfigError(file, SourceMark{1, column}, "", "column names must not be empty");
    if (!seen.insert(names[c]).second)
      throw ConfigError(file, SourceMark{1, column}, "", "duplicate column '" + names[c] + "'");
    if (columns[c].size() != columns.front().size()) {
      throw ConfigError(file, SourceMark{1, column}, "",
                        "the column has " + std::to_string(columns[c].size()) + " cells, '" +
                            names.front() + "' " + std::to_string(columns.front().size()));
    }
    bytes += columns[c].text.size();
  }
  if (bytes > std::numeric_limits<std::uint32_t>::max())
    throw ConfigError(file, SourceMark{}, "", "the cells are too large (over 4 GiB of text)");
  const std::size_t rows = columns.front().size();
  const std::size_t width = columns.size();
  table.columns_ = std::move(names);
  table.text_.reset(new char[std::max<std::size_t>(bytes, 1)]);
  table.cells_.reset(new Span[std::max<std::size_t>(rows, 1) * width]);
  table.row_lines_.reset(new int[std::max<std::size_t>(rows, 1)]);
  table.numbers_.resize(width);
  std::size_t base = 0;
  for (std::size_t c = 0; c < width; ++c) { // a column's text in one piece, its cells' spans
    ColumnCells& column = columns[c];
    if (column.numeric) { // its numbers kept; its cells' text empty
      table.numbers_[c] = std::move(column.numbers);
      for (std::size_t r = 0; r < rows; ++r)
        table.cells_[r * width + c] = Span{0, 0};
      continue;
    }
    std::memcpy(table.text_.get() + base, column.text.data(), column.text.size());
    std::uint32_t start = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      table.cells_[r * width + c] =
          Span{static_cast<std::uint32_t>(base + start), column.ends[r] - start};
      start = column.ends[r];
    }
    base += column.text.size();
  }
  for (std::size_t r = 0; r < rows; ++r)
    table.row_lines_[r] = static_cast<int>(r) + 2;
  table.rows_ = rows;
  return table;
}

} // namespace pfmc::config::csv
