#pragma once
// Line charts as PNG files with no library behind them: `pfmc bench --plot` draws the speedup of
// each prefetch backend over the prefetch distance, one line per backend, one panel per workload.
// The PNG encoder, the bitmap font and the rasteriser all live in line_chart.cpp.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pfmc::apps {

/// One line of a chart. Points are joined in the order given. A point whose x or y is not finite
/// (or whose x is not positive on a log2 axis) is not drawn, and the line breaks there.
struct Series {
  std::string label;        ///< shown in the legend; empty means "series N"
  std::vector<double> x, y; ///< same length
};

struct Panel {
  std::string title, x_label, y_label;
  std::vector<Series> series;
  bool log2_x = false;               ///< x axis in log2 scale (prefetch distances 1..16)
  std::optional<double> reference_y; ///< a dashed horizontal line, e.g. y = 1 for the baseline
};

struct ChartStyle {
  int panel_width = 900, panel_height = 560; ///< at least 320 x 200 pixels
};

/// A pixel of the whole image: x to the right, y down, panel 0 at the top.
struct Point {
  int x, y;
};

struct Rgb {
  std::uint8_t r, g, b;
  friend bool operator==(Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }
  friend bool operator!=(Rgb a, Rgb b) { return !(a == b); }
};

/// Renders the panels stacked vertically into one RGB PNG, written through a temporary file and
/// a rename so that a failure never leaves a half-written file. Throws pfmc::RuntimeError (a
/// std::runtime_error) naming the file when it cannot be written, and pfmc::LogicError for
/// no panels, a series whose x and y differ in length, or a style outside 320x200..8192x8192.
void write_line_chart_png(const std::string& path, const std::vector<Panel>& panels,
                          const ChartStyle& style = {});

/// The same image as PNG bytes.
std::vector<unsigned char> render_line_chart_png(const std::vector<Panel>& panels,
                                                 const ChartStyle& style = {});

/// Where the data point (x, y) of `panel`, drawn as panel number `panel_index` of the stacked
/// image, lands in the image: the centre of its marker. x and y must be plottable (finite, and
/// x > 0 on a log2 axis); throws pfmc::LogicError otherwise.
Point to_pixel(const Panel& panel, const ChartStyle& style, double x, double y,
               int panel_index = 0);

/// The colour of the series at `series_index` in its panel. The 16 colours repeat; after each
/// round the line gets a different dash pattern, so up to 80 series stay apart.
Rgb series_color(std::size_t series_index);

namespace detail {

/// The zlib stream (RFC 1950) that the PNG writer puts in IDAT, exposed for the tests: deflate
/// with the fixed Huffman codes and LZ77 matches, each segment of up to 65535 bytes falling back
/// to a stored block where that is smaller. `row_length` is the distance from a byte to the one
/// above it in the image (1 + 3 * width for RGB scanlines), tried as a match distance; 0 tries
/// none. Throws pfmc::LogicError for 4 GiB of input or more.
std::vector<unsigned char> zlib_compress(const std::vector<unsigned char>& raw,
                                         std::size_t row_length = 0);

} // namespace detail

} // namespace pfmc::apps
