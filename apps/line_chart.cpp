#include "apps/line_chart.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string_view>

#include "kernels/error.hpp"

namespace pfmc::apps {

namespace {

// ---------------------------------------------------------------------------------------------
// Bitmap font

constexpr int kGlyphRows = 8; ///< rows 0-6 stand on the baseline, row 7 holds descenders
constexpr int kCapHeight = 7;
constexpr int kAdvance = 6; ///< 5 columns of ink and one of space

/// ASCII 32..126, drawn for this file: one byte per row, top row first, bit 4 the left column.
constexpr std::uint8_t kFont[95][kGlyphRows] = {
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, // space
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04, 0x00}, // !
    {0x0A, 0x0A, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00}, // "
    {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A, 0x00}, // #
    {0x04, 0x0F, 0x14, 0x0E, 0x05, 0x1E, 0x04, 0x00}, // $
    {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03, 0x00}, // %
    {0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D, 0x00}, // &
    {0x04, 0x04, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00}, // '
    {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02, 0x00}, // (
    {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08, 0x00}, // )
    {0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00, 0x00}, // *
    {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00, 0x00}, // +
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}, // ,
    {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00, 0x00}, // -
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C, 0x00}, // .
    {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00, 0x00}, // /
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E, 0x00}, // 0
    {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00}, // 1
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F, 0x00}, // 2
    {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E, 0x00}, // 3
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02, 0x00}, // 4
    {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E, 0x00}, // 5
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E, 0x00}, // 6
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08, 0x00}, // 7
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E, 0x00}, // 8
    {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C, 0x00}, // 9
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00, 0x00}, // :
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x04, 0x08, 0x00}, // ;
    {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02, 0x00}, // <
    {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00, 0x00}, // =
    {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08, 0x00}, // >
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04, 0x00}, // ?
    {0x0E, 0x11, 0x01, 0x0D, 0x15, 0x15, 0x0E, 0x00}, // @
    {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11, 0x00}, // A
    {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E, 0x00}, // B
    {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E, 0x00}, // C
    {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C, 0x00}, // D
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F, 0x00}, // E
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10, 0x00}, // F
    {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F, 0x00}, // G
    {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11, 0x00}, // H
    {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00}, // I
    {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C, 0x00}, // J
    {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11, 0x00}, // K
    {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F, 0x00}, // L
    {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11, 0x00}, // M
    {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x00}, // N
    {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E, 0x00}, // O
    {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10, 0x00}, // P
    {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D, 0x00}, // Q
    {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11, 0x00}, // R
    {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E, 0x00}, // S
    {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00}, // T
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E, 0x00}, // U
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04, 0x00}, // V
    {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A, 0x00}, // W
    {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11, 0x00}, // X
    {0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04, 0x00}, // Y
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F, 0x00}, // Z
    {0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E, 0x00}, // [
    {0x00, 0x10, 0x08, 0x04, 0x02, 0x01, 0x00, 0x00}, // backslash
    {0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E, 0x00}, // ]
    {0x04, 0x0A, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00}, // ^
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F, 0x00}, // _
    {0x08, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00}, // `
    {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F, 0x00}, // a
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E, 0x00}, // b
    {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E, 0x00}, // c
    {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F, 0x00}, // d
    {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E, 0x00}, // e
    {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08, 0x00}, // f
    {0x00, 0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x0E}, // g
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00}, // h
    {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E, 0x00}, // i
    {0x02, 0x00, 0x06, 0x02, 0x02, 0x02, 0x12, 0x0C}, // j
    {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12, 0x00}, // k
    {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00}, // l
    {0x00, 0x00, 0x1A, 0x15, 0x15, 0x15, 0x15, 0x00}, // m
    {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00}, // n
    {0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E, 0x00}, // o
    {0x00, 0x00, 0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10}, // p
    {0x00, 0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x01}, // q
    {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10, 0x00}, // r
    {0x00, 0x00, 0x0F, 0x10, 0x0E, 0x01, 0x1E, 0x00}, // s
    {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06, 0x00}, // t
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D, 0x00}, // u
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04, 0x00}, // v
    {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A, 0x00}, // w
    {0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x00}, // x
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x0E}, // y
    {0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F, 0x00}, // z
    {0x02, 0x04, 0x04, 0x08, 0x04, 0x04, 0x02, 0x00}, // {
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00}, // |
    {0x08, 0x04, 0x04, 0x02, 0x04, 0x04, 0x08, 0x00}, // }
    {0x00, 0x00, 0x08, 0x15, 0x02, 0x00, 0x00, 0x00}, // ~
};

/// What a character outside the font looks like.
constexpr std::uint8_t kBoxGlyph[kGlyphRows] = {0x1F, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F, 0x00};

const std::uint8_t* glyph(unsigned char c) {
  return (c >= 32 && c <= 126) ? kFont[c - 32] : kBoxGlyph;
}

/// The characters of `text` as drawn: a multi-byte UTF-8 sequence is one (boxed) character, so
/// a label like "µs" keeps its width.
std::vector<unsigned char> glyphs_of(std::string_view text) {
  std::vector<unsigned char> out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c & 0xC0) == 0x80)
      continue; // UTF-8 continuation byte
    out.push_back(c);
  }
  return out;
}

int text_width(std::string_view text, int scale = 1) {
  const auto n = static_cast<int>(glyphs_of(text).size());
  return n == 0 ? 0 : (n * kAdvance - 1) * scale;
}

/// `text`, cut and ended with ".." where it is wider than `max_width` pixels.
std::string fit_text(const std::string& text, int max_width, int scale = 1) {
  if (text_width(text, scale) <= max_width)
    return text;
  std::string out;
  for (const char ch : text) {
    if (text_width(out + ch + "..", scale) > max_width)
      break;
    out += ch;
  }
  while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0xC0)
    out.pop_back(); // do not end on a lone UTF-8 lead byte
  return out + "..";
}

// ---------------------------------------------------------------------------------------------
// Canvas and rasterising

/// Inclusive pixel bounds.
struct Rect {
  int left, top, right, bottom;
  bool contains(int x, int y) const { return x >= left && x <= right && y >= top && y <= bottom; }
};

class Canvas {
public:
  Canvas(int width, int height)
      : width_(width), height_(height),
        rgb_(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3, 255),
        clip_{0, 0, width - 1, height - 1} {}

  int width() const { return width_; }
  int height() const { return height_; }
  const std::vector<unsigned char>& rgb() const { return rgb_; }

  /// Later drawing stays inside `r` (and the image).
  void set_clip(Rect r) {
    clip_ = {std::max(r.left, 0), std::max(r.top, 0), std::min(r.right, width_ - 1),
             std::min(r.bottom, height_ - 1)};
  }

  void plot(int x, int y, Rgb c) {
    if (!clip_.contains(x, y))
      return;
    unsigned char* p = &rgb_[(static_cast<std::size_t>(y) * width_ + x) * 3];
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }

  void fill(Rect r, Rgb c) {
    for (int y = r.top; y <= r.bottom; ++y)
      for (int x = r.left; x <= r.right; ++x)
        plot(x, y, c);
  }

  void frame(Rect r, Rgb c) {
    for (int x = r.left; x <= r.right; ++x) {
      plot(x, r.top, c);
      plot(x, r.bottom, c);
    }
    for (int y = r.top; y <= r.bottom; ++y) {
      plot(r.left, y, c);
      plot(r.right, y, c);
    }
  }

  /// Text with its top-left corner at (x, y); `scale` blows each font pixel up to a square.
  void text(int x, int y, std::string_view s, Rgb c, int scale = 1) {
    for (const unsigned char ch : glyphs_of(s)) {
      const std::uint8_t* rows = glyph(ch);
      for (int row = 0; row < kGlyphRows; ++row)
        for (int col = 0; col < 5; ++col)
          if ((rows[row] >> (4 - col)) & 1)
            fill({x + col * scale, y + row * scale, x + (col + 1) * scale - 1,
                  y + (row + 1) * scale - 1},
                 c);
      x += kAdvance * scale;
    }
  }

  /// Text turned a quarter left (read from bottom to top), starting at the bottom-left (x, y).
  void vertical_text(int x, int y, std::string_view s, Rgb c) {
    for (const unsigned char ch : glyphs_of(s)) {
      const std::uint8_t* rows = glyph(ch);
      for (int row = 0; row < kGlyphRows; ++row)
        for (int col = 0; col < 5; ++col)
          if ((rows[row] >> (4 - col)) & 1)
            plot(x + row, y - col, c);
      y -= kAdvance;
    }
  }

private:
  int width_, height_;
  std::vector<unsigned char> rgb_;
  Rect clip_;
};

/// Lengths in pixels of alternating on and off stretches; empty means solid.
struct DashPattern {
  std::array<double, 4> lengths;
  int count;
};

constexpr DashPattern kSolid{{0, 0, 0, 0}, 0};
constexpr DashPattern kDashes[] = {
    kSolid,
    {{9, 5, 0, 0}, 2},  // dashed
    {{2, 3, 0, 0}, 2},  // dotted
    {{10, 3, 2, 3}, 4}, // dash-dot
    {{18, 6, 0, 0}, 2}, // long dashes
};

constexpr DashPattern kReferenceDash{{6, 4, 0, 0}, 2};

/// A line style, and how far along the pattern the next pixel lies.
struct Pen {
  Rgb color;
  int thickness; ///< 1 or 2 pixels
  DashPattern dash = kSolid;
  double travelled = 0;

  bool ink() const {
    if (dash.count == 0)
      return true;
    double period = 0;
    for (int i = 0; i < dash.count; ++i)
      period += dash.lengths[i];
    double at = std::fmod(travelled, period);
    for (int i = 0; i < dash.count; ++i) {
      if (at < dash.lengths[i])
        return i % 2 == 0;
      at -= dash.lengths[i];
    }
    return false;
  }
};

/// Bresenham from a to b. A 2-pixel pen doubles each pixel across the line's major direction,
/// which keeps the stroke 2 pixels wide at any slope without the blobs of a square brush.
void draw_line(Canvas& canvas, Point a, Point b, Pen& pen) {
  const int dx = std::abs(b.x - a.x), dy = -std::abs(b.y - a.y);
  const int sx = a.x < b.x ? 1 : -1, sy = a.y < b.y ? 1 : -1;
  const bool mostly_horizontal = dx >= -dy;
  const int steps = std::max(dx, -dy);
  const double step_length = steps == 0 ? 0 : std::hypot(dx, dy) / steps;
  int err = dx + dy;
  int x = a.x, y = a.y;
  while (true) {
    if (pen.ink()) {
      canvas.plot(x, y, pen.color);
      if (pen.thickness > 1)
        canvas.plot(x + (mostly_horizontal ? 0 : 1), y + (mostly_horizontal ? 1 : 0), pen.color);
    }
    if (x == b.x && y == b.y)
      break;
    const int e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y += sy;
    }
    pen.travelled += step_length;
  }
}

void draw_marker(Canvas& canvas, Point p, Rgb c) {
  canvas.fill({p.x - 2, p.y - 2, p.x + 2, p.y + 2}, c);
}

// ---------------------------------------------------------------------------------------------
// Colours

// Hues apart from their neighbours, none light enough to vanish on white.
constexpr Rgb kPalette[16] = {
    {31, 119, 180},  // blue
    {255, 127, 14},  // orange
    {44, 160, 44},   // green
    {214, 39, 40},   // red
    {148, 103, 189}, // purple
    {140, 86, 75},   // brown
    {227, 119, 194}, // pink
    {127, 127, 127}, // grey
    {188, 189, 34},  // olive
    {23, 190, 207},  // cyan
    {0, 0, 128},     // navy
    {128, 0, 0},     // maroon
    {0, 128, 128},   // teal
    {204, 153, 0},   // dark gold
    {0, 0, 0},       // black
    {190, 0, 190},   // magenta
};

constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kInk{0, 0, 0};
constexpr Rgb kGrid{228, 228, 228};
constexpr Rgb kFrame{160, 160, 160};
constexpr Rgb kReference{90, 90, 90};
constexpr Rgb kNote{110, 110, 110};

const DashPattern& series_dash(std::size_t i) {
  return kDashes[(i / std::size(kPalette)) % std::size(kDashes)];
}

// ---------------------------------------------------------------------------------------------
// Axes: ranges, ticks, layout

// Beyond this a value is treated as not plottable: spans of such values overflow, and no speedup
// or distance gets near it.
constexpr double kLargestPlottable = 1e100;

bool plottable(double v) {
  return std::isfinite(v) && std::abs(v) <= kLargestPlottable;
}

struct Range {
  double lo, hi;
};

/// [lo, hi] widened by 5% on each side; a single value gets room around it first.
Range with_margins(double lo, double hi) {
  if (!(hi > lo)) {
    const double half = lo != 0 ? std::abs(lo) * 0.5 : 1.0;
    lo -= half;
    hi += half;
  }
  const double margin = 0.05 * (hi - lo);
  return {lo - margin, hi + margin};
}

/// The step of 1, 2, 2.5 or 5 times a power of ten that gives nearest `target` ticks over `span`.
double nice_step(double span, int target) {
  const double raw = span / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / magnitude;
  const double mantissa = r < 1.5 ? 1 : r < 2.25 ? 2 : r < 3.5 ? 2.5 : r < 7.5 ? 5 : 10;
  return mantissa * magnitude;
}

struct Ticks {
  std::vector<double> values;
  int decimals; ///< enough to tell neighbouring ticks apart
};

Ticks nice_ticks(Range r, int target) {
  Ticks t;
  const double step = nice_step(r.hi - r.lo, target);
  const double first = std::ceil(r.lo / step - 1e-9);
  for (int i = 0; i < 100; ++i) {
    double v = (first + i) * step;
    if (v > r.hi + step * 1e-9)
      break;
    if (std::abs(v) < step * 1e-9)
      v = 0; // no "-0.0"
    t.values.push_back(v);
  }
  const double exponent = std::floor(std::log10(step) + 1e-9);
  const bool needs_one_more = std::abs(step / std::pow(10.0, exponent) - 2.5) < 1e-9;
  t.decimals = std::clamp(static_cast<int>(-exponent) + (needs_one_more ? 1 : 0), 0, 12);
  return t;
}

std::string format_number(double v, int decimals) {
  char buffer[64];
  if (v != 0 && (std::abs(v) >= 1e7 || std::abs(v) < 1e-6))
    std::snprintf(buffer, sizeof buffer, "%.3g", v);
  else
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string format_data_x(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

// Spacing in pixels.
constexpr int kOuterPad = 10;
constexpr int kTickLength = 5;
constexpr int kTickGap = 4;    ///< between a tick and its label
constexpr int kTitleScale = 2; ///< titles are drawn with doubled font pixels
constexpr int kLegendSwatch = 22;
constexpr int kLegendPad = 6;
constexpr int kLegendRow = 14;   ///< legend line pitch when the series fit
constexpr int kLegendMinRow = 9; ///< pitch when they do not: the text is 7 pixels high

struct LegendEntry {
  std::string text;
  std::size_t series;
};

/// Everything about a panel's geometry, worked out once for drawing and for to_pixel.
struct Layout {
  Rect panel, plot, legend{0, 0, -1, -1};
  bool log2_x = false;
  Range x{0, 1}, y{0, 1}; ///< x is in log2 units on a log2 axis
  Ticks y_ticks;
  std::vector<double> data_x; ///< distinct x values with a point, for log2 axis labels
  std::vector<LegendEntry> legend_entries;
  int legend_row = kLegendRow;
  std::size_t legend_hidden = 0; ///< series left out of a legend too short for them all

  bool plottable_x(double v) const { return plottable(v) && (!log2_x || v > 0); }
  double axis_x(double v) const { return log2_x ? std::log2(v) : v; }

  /// Pixel column of a value in axis units (log2 units on a log2 axis).
  int map_axis_x(double axis_value) const {
    return to_int(plot.left + (axis_value - x.lo) / (x.hi - x.lo) * (plot.right - plot.left));
  }
  int map_y(double v) const {
    return to_int(plot.bottom - (v - y.lo) / (y.hi - y.lo) * (plot.bottom - plot.top));
  }
  Point map(double data_x_value, double data_y) const {
    return {map_axis_x(axis_x(data_x_value)), map_y(data_y)};
  }

private:
  // Values lie inside the ranges, so this clamp only matters for rounding at the edges; it keeps
  // the conversion defined whatever happens.
  static int to_int(double pixel) {
    return static_cast<int>(std::lround(std::clamp(pixel, -1e6, 1e6)));
  }
};

void check_style(const ChartStyle& style) {
  if (style.panel_width < 320 || style.panel_width > 8192 || style.panel_height < 200 ||
      style.panel_height > 8192)
    throw LogicError("chart panel size " + std::to_string(style.panel_width) + "x" +
                     std::to_string(style.panel_height) + " is outside 320x200..8192x8192 pixels");
}

void check_panel(const Panel& panel) {
  for (const Series& s : panel.series)
    if (s.x.size() != s.y.size())
      throw LogicError("chart series '" + s.label + "' has " + std::to_string(s.x.size()) +
                       " x values but " + std::to_string(s.y.size()) + " y values");
}

Layout make_layout(const Panel& panel, const ChartStyle& style, int panel_index) {
  check_style(style);
  check_panel(panel);
  Layout l;
  const int top = panel_index * style.panel_height;
  l.panel = {0, top, style.panel_width - 1, top + style.panel_height - 1};
  l.log2_x = panel.log2_x;

  // Ranges from the plottable points.
  double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
  for (const Series& s : panel.series) {
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!l.plottable_x(s.x[i]) || !plottable(s.y[i]))
        continue;
      const double ax = l.axis_x(s.x[i]);
      x_lo = std::min(x_lo, ax);
      x_hi = std::max(x_hi, ax);
      y_lo = std::min(y_lo, s.y[i]);
      y_hi = std::max(y_hi, s.y[i]);
      l.data_x.push_back(s.x[i]);
    }
  }
  if (panel.reference_y && plottable(*panel.reference_y)) {
    y_lo = std::min(y_lo, *panel.reference_y);
    y_hi = std::max(y_hi, *panel.reference_y);
  }
  std::sort(l.data_x.begin(), l.data_x.end());
  l.data_x.erase(std::unique(l.data_x.begin(), l.data_x.end()), l.data_x.end());
  if (x_lo > x_hi) { // nothing to plot: distances 1..16 on a log2 axis, else the unit interval
    x_lo = 0;
    x_hi = panel.log2_x ? 4 : 1;
  }
  if (y_lo > y_hi) {
    y_lo = 0;
    y_hi = 1;
  }
  l.x = with_margins(x_lo, x_hi);
  l.y = with_margins(y_lo, y_hi);

  // Vertical extent: title above, tick labels and the x label below.
  l.plot.top = top + kOuterPad + kCapHeight / 2 + 1 +
               (panel.title.empty() ? 0 : kGlyphRows * kTitleScale + kOuterPad);
  l.plot.bottom = l.panel.bottom - kOuterPad - (kTickLength + kTickGap + kGlyphRows) -
                  (panel.x_label.empty() ? 0 : kGlyphRows + kOuterPad);
  const int y_target = std::clamp((l.plot.bottom - l.plot.top) / 80, 4, 10);
  l.y_ticks = nice_ticks(l.y, y_target);

  // Horizontal extent: y label and tick labels on the left, the legend on the right.
  int y_label_width = 0;
  for (const double v : l.y_ticks.values)
    y_label_width = std::max(y_label_width, text_width(format_number(v, l.y_ticks.decimals)));
  l.plot.left = kOuterPad + (panel.y_label.empty() ? 0 : kGlyphRows + kOuterPad) + y_label_width +
                kTickGap + kTickLength;

  if (panel.series.empty()) {
    l.plot.right = l.panel.right - 2 * kOuterPad; // room for half the last x tick label
  } else {
    // The legend may take up to 30% of the panel; longer labels are cut.
    const int max_text_width = style.panel_width * 3 / 10 - 3 * kLegendPad - kLegendSwatch;
    int text_w = 0;
    for (std::size_t i = 0; i < panel.series.size(); ++i) {
      const std::string& label = panel.series[i].label;
      LegendEntry e{
          fit_text(label.empty() ? "series " + std::to_string(i + 1) : label, max_text_width), i};
      text_w = std::max(text_w, text_width(e.text));
      l.legend_entries.push_back(std::move(e));
    }
    const int legend_width = 3 * kLegendPad + kLegendSwatch + std::max(text_w, 6 * kAdvance);
    l.legend.right = l.panel.right - kOuterPad;
    l.legend.left = l.legend.right - legend_width + 1;
    l.legend.top = l.plot.top;
    l.plot.right = l.legend.left - 2 * kOuterPad;

    // Many series: pack the rows closer, and past that list only those that fit.
    const int room = l.plot.bottom - l.plot.top - kLegendPad;
    const auto wanted = static_cast<int>(l.legend_entries.size());
    if (wanted * l.legend_row > room)
      l.legend_row = std::max(kLegendMinRow, room / wanted);
    if (wanted * l.legend_row > room) {
      const int shown = std::max(room / l.legend_row - 1, 0);
      l.legend_hidden = l.legend_entries.size() - shown;
      l.legend_entries.resize(shown);
    }
    const int rows = static_cast<int>(l.legend_entries.size()) + (l.legend_hidden > 0 ? 1 : 0);
    l.legend.bottom = l.legend.top + rows * l.legend_row + kLegendPad;
  }
  return l;
}

// ---------------------------------------------------------------------------------------------
// Drawing a panel

void draw_x_axis(Canvas& canvas, const Panel& panel, const Layout& l) {
  const int label_top = l.plot.bottom + kTickLength + kTickGap;
  auto tick = [&](int px) {
    for (int y = l.plot.bottom + 1; y <= l.plot.bottom + kTickLength; ++y)
      canvas.plot(px, y, kInk);
  };
  int last_label_right = -1000000;
  auto label = [&](int px, const std::string& text) {
    const int left = px - text_width(text) / 2;
    if (left < last_label_right + kAdvance)
      return; // would touch its left neighbour: skip it
    canvas.text(left, label_top, text, kInk);
    last_label_right = left + text_width(text);
  };

  if (l.log2_x) {
    // Grid and ticks at the powers of two; labels at the distances actually measured.
    const int first = static_cast<int>(std::ceil(l.x.lo - 1e-9));
    const int last = static_cast<int>(std::floor(l.x.hi + 1e-9));
    const int stride = std::max(1, (last - first + 1) / 12);
    std::vector<double> powers;
    for (int k = first; k <= last; k += stride) {
      const int px = l.map_axis_x(k);
      for (int y = l.plot.top; y < l.plot.bottom; ++y)
        canvas.plot(px, y, kGrid);
      tick(px);
      powers.push_back(std::exp2(k));
    }
    const std::vector<double>& labelled = l.data_x.empty() ? powers : l.data_x;
    for (const double v : labelled) {
      const int px = l.map_axis_x(std::log2(v));
      tick(px);
      label(px, format_data_x(v));
    }
  } else {
    const int target = std::clamp((l.plot.right - l.plot.left) / 80, 4, 10);
    const Ticks ticks = nice_ticks(l.x, target);
    for (const double v : ticks.values) {
      const int px = l.map_axis_x(v);
      for (int y = l.plot.top; y < l.plot.bottom; ++y)
        canvas.plot(px, y, kGrid);
      tick(px);
      label(px, format_number(v, ticks.decimals));
    }
  }

  if (!panel.x_label.empty()) {
    const std::string text = fit_text(panel.x_label, l.plot.right - l.plot.left);
    canvas.text((l.plot.left + l.plot.right - text_width(text)) / 2,
                label_top + kGlyphRows + kOuterPad, text, kInk);
  }
}

void draw_y_axis(Canvas& canvas, const Panel& panel, const Layout& l) {
  for (const double v : l.y_ticks.values) {
    const int py = l.map_y(v);
    for (int x = l.plot.left + 1; x <= l.plot.right; ++x)
      canvas.plot(x, py, kGrid);
    for (int x = l.plot.left - kTickLength; x < l.plot.left; ++x)
      canvas.plot(x, py, kInk);
    const std::string text = format_number(v, l.y_ticks.decimals);
    canvas.text(l.plot.left - kTickLength - kTickGap - text_width(text), py - kCapHeight / 2, text,
                kInk);
  }
  if (!panel.y_label.empty()) {
    const std::string text = fit_text(panel.y_label, l.plot.bottom - l.plot.top);
    canvas.vertical_text(kOuterPad, (l.plot.top + l.plot.bottom + text_width(text)) / 2, text,
                         kInk);
  }
}

void draw_series(Canvas& canvas, const Panel& panel, const Layout& l) {
  canvas.set_clip(l.plot);
  if (panel.reference_y && plottable(*panel.reference_y)) {
    const int py = l.map_y(*panel.reference_y);
    Pen pen{kReference, 1, kReferenceDash};
    draw_line(canvas, {l.plot.left, py}, {l.plot.right, py}, pen);
  }
  for (std::size_t i = 0; i < panel.series.size(); ++i) {
    const Series& s = panel.series[i];
    Pen pen{series_color(i), 2, series_dash(i)};
    std::optional<Point> previous;
    for (std::size_t k = 0; k < s.x.size(); ++k) {
      if (!l.plottable_x(s.x[k]) || !plottable(s.y[k])) {
        previous.reset(); // the line breaks at a missing point
        continue;
      }
      const Point p = l.map(s.x[k], s.y[k]);
      if (previous)
        draw_line(canvas, *previous, p, pen);
      previous = p;
    }
  }
  // Markers last, so that no later line covers a point.
  for (std::size_t i = 0; i < panel.series.size(); ++i) {
    const Series& s = panel.series[i];
    for (std::size_t k = 0; k < s.x.size(); ++k)
      if (l.plottable_x(s.x[k]) && plottable(s.y[k]))
        draw_marker(canvas, l.map(s.x[k], s.y[k]), series_color(i));
  }
  canvas.set_clip(l.panel);
}

void draw_legend(Canvas& canvas, const Layout& l) {
  if (l.legend.right < l.legend.left)
    return;
  canvas.fill(l.legend, kWhite);
  canvas.frame(l.legend, kFrame);
  int row_top = l.legend.top + kLegendPad / 2;
  for (const LegendEntry& e : l.legend_entries) {
    const int mid = row_top + l.legend_row / 2;
    const int swatch_left = l.legend.left + kLegendPad;
    Pen pen{series_color(e.series), 2, series_dash(e.series)};
    draw_line(canvas, {swatch_left, mid}, {swatch_left + kLegendSwatch - 1, mid}, pen);
    draw_marker(canvas, {swatch_left + kLegendSwatch / 2, mid}, pen.color);
    canvas.text(swatch_left + kLegendSwatch + kLegendPad, mid - kCapHeight / 2, e.text, kInk);
    row_top += l.legend_row;
  }
  if (l.legend_hidden > 0)
    canvas.text(l.legend.left + kLegendPad, row_top + l.legend_row / 2 - kCapHeight / 2,
                "+" + std::to_string(l.legend_hidden) + " more", kNote);
}

void draw_panel(Canvas& canvas, const Panel& panel, const Layout& l) {
  canvas.set_clip(l.panel);
  draw_x_axis(canvas, panel, l);
  draw_y_axis(canvas, panel, l);
  draw_series(canvas, panel, l);
  // Axes on top of the grid; a light frame closes the plot area.
  canvas.frame(l.plot, kFrame);
  for (int x = l.plot.left; x <= l.plot.right; ++x)
    canvas.plot(x, l.plot.bottom, kInk);
  for (int y = l.plot.top; y <= l.plot.bottom; ++y)
    canvas.plot(l.plot.left, y, kInk);
  draw_legend(canvas, l);
  if (!panel.title.empty()) {
    const std::string text =
        fit_text(panel.title, l.panel.right - l.panel.left - 2 * kOuterPad, kTitleScale);
    const int centred = (l.plot.left + l.plot.right - text_width(text, kTitleScale)) / 2;
    const int left =
        std::clamp(centred, kOuterPad, l.panel.right - kOuterPad - text_width(text, kTitleScale));
    canvas.text(left, l.panel.top + kOuterPad, text, kInk, kTitleScale);
  }
}

// ---------------------------------------------------------------------------------------------
// PNG encoding

constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1; // reflected polynomial of PNG's CRC-32
    table[n] = c;
  }
  return table;
}

constexpr std::array<std::uint32_t, 256> kCrcTable = make_crc_table();

std::uint32_t crc32(const unsigned char* data, std::size_t n, std::uint32_t crc = 0) {
  crc = ~crc;
  for (std::size_t i = 0; i < n; ++i)
    crc = kCrcTable[(crc ^ data[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

std::uint32_t adler32(const unsigned char* data, std::size_t n) {
  constexpr std::uint32_t kModulus = 65521;
  // 5552 bytes is the most that can be summed before b may overflow 32 bits (zlib's NMAX).
  constexpr std::size_t kBlock = 5552;
  std::uint32_t a = 1, b = 0;
  while (n > 0) {
    const std::size_t block = std::min(n, kBlock);
    for (std::size_t i = 0; i < block; ++i) {
      a += data[i];
      b += a;
    }
    a %= kModulus;
    b %= kModulus;
    data += block;
    n -= block;
  }
  return (b << 16) | a;
}

void put_u32_be(std::vector<unsigned char>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<unsigned char>(v >> shift));
}

void put_chunk(std::vector<unsigned char>& out, const char type[4],
               const std::vector<unsigned char>& data) {
  put_u32_be(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t type_at = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  put_u32_be(out, crc32(&out[type_at], 4 + data.size()));
}

// ---------------------------------------------------------------------------------------------
// Deflate (RFC 1951) with the fixed Huffman codes of its section 3.2.6
//
// A chart is mostly runs of one colour, so an LZ77 match finder that tries the previous pixel
// (3 bytes back), the pixel above (one scanline back) and a hash chain of a few dozen probes finds
// most of what there is to find. Fixed codes keep the encoder short; per-image Huffman tables
// would save more (zlib -9 makes the sample charts about 40% smaller than this), but a 900x560
// panel already drops from 1.5 MB stored to about 25 KB. The input is cut into segments of at
// most 65535 bytes; each becomes a fixed-code block, or a stored block where that is smaller
// (noise), so the stream is never more than a few bytes per segment larger than the raw data.

constexpr std::size_t kWindow = 32768; ///< farthest distance deflate can express
constexpr std::size_t kMinMatch = 3, kMaxMatch = 258;
constexpr std::size_t kMaxStored = 65535; ///< LEN of a stored block is 16 bits

constexpr std::array<std::uint16_t, 29> kLengthBase = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                                       15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                                       67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<std::uint8_t, 29> kLengthExtra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::array<std::uint16_t, 30> kDistanceBase = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::array<std::uint8_t, 30> kDistanceExtra = {0, 0, 0,  0,  1,  1,  2,  2,  3,  3,
                                                         4, 4, 5,  5,  6,  6,  7,  7,  8,  8,
                                                         9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/// Length code index (symbol - 257) of each match length 3..258.
constexpr std::array<std::uint8_t, kMaxMatch + 1> make_length_codes() {
  std::array<std::uint8_t, kMaxMatch + 1> codes{};
  for (std::size_t c = 0; c < kLengthBase.size(); ++c)
    for (std::size_t len = kLengthBase[c];
         len < kLengthBase[c] + (std::size_t{1} << kLengthExtra[c]) && len <= kMaxMatch; ++len)
      codes[len] = static_cast<std::uint8_t>(c); // 258 ends up with code 28 (symbol 285)
  return codes;
}

constexpr std::array<std::uint8_t, kMaxMatch + 1> kLengthCode = make_length_codes();

std::size_t distance_code(std::size_t distance) {
  return static_cast<std::size_t>(
      std::upper_bound(kDistanceBase.begin(), kDistanceBase.end(), distance) -
      kDistanceBase.begin() - 1);
}

/// A Huffman code as deflate sends it: bit-reversed, so that it can go out least significant bit
/// first like every other field.
struct Code {
  std::uint16_t bits;
  std::uint8_t length;
};

constexpr std::uint16_t reverse_bits(std::uint16_t v, int length) {
  std::uint16_t r = 0;
  for (int i = 0; i < length; ++i)
    r = static_cast<std::uint16_t>((r << 1) | ((v >> i) & 1));
  return r;
}

/// The fixed literal/length code: 0-143 in 8 bits from 0x30, 144-255 in 9 bits from 0x190,
/// 256-279 in 7 bits from 0, 280-287 in 8 bits from 0xC0.
constexpr std::array<Code, 288> make_fixed_literal_codes() {
  std::array<Code, 288> codes{};
  for (int s = 0; s < 288; ++s) {
    int code = 0, length = 0;
    if (s < 144) {
      code = 0x30 + s;
      length = 8;
    } else if (s < 256) {
      code = 0x190 + (s - 144);
      length = 9;
    } else if (s < 280) {
      code = s - 256;
      length = 7;
    } else {
      code = 0xC0 + (s - 280);
      length = 8;
    }
    codes[s] = {reverse_bits(static_cast<std::uint16_t>(code), length),
                static_cast<std::uint8_t>(length)};
  }
  return codes;
}

constexpr std::array<Code, 288> kFixedLiteral = make_fixed_literal_codes();
constexpr int kFixedDistanceBits = 5; ///< distance codes 0-29 are plain 5-bit numbers
constexpr int kEndOfBlock = 256;

std::size_t literal_cost(unsigned char byte) {
  return kFixedLiteral[byte].length;
}

std::size_t match_cost(std::size_t length, std::size_t distance) {
  const std::size_t lc = kLengthCode[length], dc = distance_code(distance);
  return kFixedLiteral[257 + lc].length + kLengthExtra[lc] + kFixedDistanceBits +
         kDistanceExtra[dc];
}

/// Bits packed into bytes least significant first, as deflate wants them.
class BitWriter {
public:
  explicit BitWriter(std::vector<unsigned char>& out) : out_(out) {}

  /// The low `count` (at most 32) bits of `bits`.
  void put(std::uint32_t bits, int count) {
    buffer_ |= static_cast<std::uint64_t>(bits) << filled_;
    filled_ += count;
    while (filled_ >= 8) {
      out_.push_back(static_cast<unsigned char>(buffer_ & 0xFFu));
      buffer_ >>= 8;
      filled_ -= 8;
    }
  }
  void put(Code c) { put(c.bits, c.length); }

  /// Zero bits up to the next byte boundary.
  void align() {
    if (filled_ > 0)
      put(0, 8 - filled_);
  }
  /// Whole bytes; the writer must be on a byte boundary.
  void put_bytes(const unsigned char* data, std::size_t n) {
    out_.insert(out_.end(), data, data + n);
  }
  int pending_bits() const { return filled_; }

private:
  std::vector<unsigned char>& out_;
  std::uint64_t buffer_ = 0;
  int filled_ = 0;
};

/// A literal byte (distance 0) or a back-reference.
struct Token {
  std::uint16_t length_or_byte;
  std::uint16_t distance;
};

struct Match {
  std::size_t length = 0, distance = 0;
};

/// LZ77 over the whole input: candidates at fixed distances, then a short hash chain.
class MatchFinder {
public:
  MatchFinder(const unsigned char* data, std::size_t size, std::size_t row_distance)
      : data_(data), size_(size), row_distance_(row_distance), head_(kHashSize, kNone),
        previous_(kWindow, kNone) {}

  /// Hashes every position before `end` not yet hashed, so later matches can find them.
  void insert_up_to(std::size_t end) {
    end = std::min(end, size_ >= kMinMatch ? size_ - kMinMatch + 1 : 0);
    for (; inserted_ < end; ++inserted_) {
      const std::uint32_t h = hash(inserted_);
      previous_[inserted_ % kWindow] = head_[h];
      head_[h] = static_cast<std::uint32_t>(inserted_);
    }
  }

  /// The longest match at `at` no longer than `max_length`; of equal lengths the cheaper one.
  /// Positions before `at` must have been inserted.
  Match longest(std::size_t at, std::size_t max_length) const {
    Match best;
    if (max_length < kMinMatch)
      return best;
    auto consider = [&](std::size_t distance) {
      if (distance == 0 || distance > at || distance > kWindow)
        return;
      const unsigned char* here = data_ + at;
      const unsigned char* there = here - distance;
      if (best.length >= max_length || (best.length > 0 && here[best.length] != there[best.length]))
        return; // cannot be longer
      std::size_t n = 0;
      while (n < max_length && here[n] == there[n])
        ++n;
      if (n < kMinMatch)
        return;
      if (n > best.length ||
          (n == best.length && match_cost(n, distance) < match_cost(n, best.distance)))
        best = {n, distance};
    };
    consider(3);
    if (row_distance_ != 3)
      consider(row_distance_);
    if (at + kMinMatch > size_)
      return best;
    std::uint32_t candidate = head_[hash(at)];
    for (int probe = 0; probe < kChainProbes && candidate != kNone && best.length < max_length;
         ++probe) {
      if (candidate >= at || at - candidate > kWindow)
        break; // the chain has run past the window (entries there are reused)
      const std::size_t distance = at - candidate;
      if (distance != 3 && distance != row_distance_)
        consider(distance);
      candidate = previous_[candidate % kWindow];
    }
    return best;
  }

private:
  static constexpr int kHashBits = 15;
  static constexpr std::size_t kHashSize = std::size_t{1} << kHashBits;
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  static constexpr int kChainProbes = 32;

  std::uint32_t hash(std::size_t at) const {
    const std::uint32_t v = (std::uint32_t{data_[at]} << 16) | (std::uint32_t{data_[at + 1]} << 8) |
                            std::uint32_t{data_[at + 2]};
    return (v * 2654435761u) >> (32 - kHashBits);
  }

  const unsigned char* data_;
  std::size_t size_, row_distance_;
  // head_[h] is the newest position whose 3 bytes hash to h; previous_[p % kWindow], the
  // position before p with the same hash.
  std::vector<std::uint32_t> head_, previous_;
  std::size_t inserted_ = 0;
};

/// Tokens for data[begin, end) (matches may reach back before `begin`, never past `end`), and
/// their cost in bits under the fixed codes.
std::size_t tokenize(MatchFinder& finder, const unsigned char* data, std::size_t begin,
                     std::size_t end, std::vector<Token>& tokens) {
  tokens.clear();
  std::size_t bits = 0, at = begin;
  while (at < end) {
    finder.insert_up_to(at);
    const Match m = finder.longest(at, std::min(kMaxMatch, end - at));
    bool use_match = m.length >= kMinMatch;
    if (use_match && m.length < 6) { // a short far match can cost more than its literals
      std::size_t literals = 0;
      for (std::size_t i = 0; i < m.length; ++i)
        literals += literal_cost(data[at + i]);
      use_match = match_cost(m.length, m.distance) < literals;
    }
    if (use_match) {
      tokens.push_back(
          {static_cast<std::uint16_t>(m.length), static_cast<std::uint16_t>(m.distance)});
      bits += match_cost(m.length, m.distance);
      at += m.length;
    } else {
      tokens.push_back({data[at], 0});
      bits += literal_cost(data[at]);
      ++at;
    }
  }
  return bits;
}

void put_fixed_block(BitWriter& out, const std::vector<Token>& tokens, bool final_block) {
  out.put(final_block ? 1 : 0, 1);
  out.put(1, 2); // BTYPE = 01, fixed Huffman codes
  for (const Token& t : tokens) {
    if (t.distance == 0) {
      out.put(kFixedLiteral[t.length_or_byte]);
      continue;
    }
    const std::size_t lc = kLengthCode[t.length_or_byte];
    out.put(kFixedLiteral[257 + lc]);
    out.put(t.length_or_byte - kLengthBase[lc], kLengthExtra[lc]);
    const std::size_t dc = distance_code(t.distance);
    out.put(reverse_bits(static_cast<std::uint16_t>(dc), kFixedDistanceBits), kFixedDistanceBits);
    out.put(t.distance - kDistanceBase[dc], kDistanceExtra[dc]);
  }
  out.put(kFixedLiteral[kEndOfBlock]);
}

void put_stored_block(BitWriter& out, const unsigned char* data, std::size_t n, bool final_block) {
  out.put(final_block ? 1 : 0, 1);
  out.put(0, 2); // BTYPE = 00, stored
  out.align();
  out.put(static_cast<std::uint32_t>(n), 16);
  out.put(static_cast<std::uint32_t>(~n & 0xFFFFu), 16);
  out.put_bytes(data, n);
}

std::vector<unsigned char> encode_png(const Canvas& canvas) {
  const auto width = static_cast<std::size_t>(canvas.width());
  const auto height = static_cast<std::size_t>(canvas.height());
  const std::size_t row_bytes = 3 * width;

  std::vector<unsigned char> raw;
  raw.reserve(height * (1 + row_bytes));
  for (std::size_t y = 0; y < height; ++y) {
    // Filter type None on every row. Choosing per row among None, Sub and Up by the smallest sum
    // of |byte| (measured with this encoder) moved the sample charts by -9% to +2% and made a
    // chart of 80 dashed, noisy series 19% larger: flat colour already repeats 3 bytes and one
    // row back, where the match finder looks, so filtering buys little.
    raw.push_back(0);
    const auto row = canvas.rgb().begin() + y * row_bytes;
    raw.insert(raw.end(), row, row + row_bytes);
  }

  std::vector<unsigned char> header;
  put_u32_be(header, static_cast<std::uint32_t>(width));
  put_u32_be(header, static_cast<std::uint32_t>(height));
  header.insert(header.end(), {8, 2, 0, 0, 0}); // 8-bit RGB, deflate, no filter set, no interlace

  static constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<unsigned char> png(std::begin(kSignature), std::end(kSignature));
  put_chunk(png, "IHDR", header);
  put_chunk(png, "IDAT", detail::zlib_compress(raw, 1 + row_bytes));
  put_chunk(png, "IEND", {});
  return png;
}

} // namespace

// ---------------------------------------------------------------------------------------------

namespace detail {

std::vector<unsigned char> zlib_compress(const std::vector<unsigned char>& raw,
                                         std::size_t row_length) {
  if (raw.size() >= 0xFFFFFFFFu) // positions are kept in 32 bits; an image is far smaller
    throw LogicError("zlib_compress: " + std::to_string(raw.size()) + " bytes is too much");
  std::vector<unsigned char> z;
  z.reserve(raw.size() / 8 + 64);
  z.push_back(0x78); // deflate, 32 KiB window
  z.push_back(0x01); // no dictionary; (0x78 << 8 | 0x01) is a multiple of 31 as zlib requires
  BitWriter out(z);
  MatchFinder finder(raw.data(), raw.size(), row_length <= kWindow ? row_length : 0);
  std::vector<Token> tokens;
  std::size_t begin = 0;
  do {
    const std::size_t end = begin + std::min(kMaxStored, raw.size() - begin);
    const bool final_block = end == raw.size();
    const std::size_t fixed_bits =
        3 + tokenize(finder, raw.data(), begin, end, tokens) + kFixedLiteral[kEndOfBlock].length;
    const std::size_t padding = (8 - (out.pending_bits() + 3) % 8) % 8;
    const std::size_t stored_bits = 3 + padding + 32 + 8 * (end - begin);
    if (fixed_bits <= stored_bits)
      put_fixed_block(out, tokens, final_block);
    else
      put_stored_block(out, raw.data() + begin, end - begin, final_block);
    begin = end;
  } while (begin < raw.size());
  out.align();
  put_u32_be(z, adler32(raw.data(), raw.size()));
  return z;
}

} // namespace detail

// ---------------------------------------------------------------------------------------------

Rgb series_color(std::size_t series_index) {
  return kPalette[series_index % std::size(kPalette)];
}

Point to_pixel(const Panel& panel, const ChartStyle& style, double x, double y, int panel_index) {
  const Layout l = make_layout(panel, style, panel_index);
  if (!l.plottable_x(x) || !plottable(y))
    throw LogicError("to_pixel: (" + format_data_x(x) + ", " + format_data_x(y) +
                     ") cannot be plotted" + (panel.log2_x ? " on a log2 x axis" : ""));
  return l.map(x, y);
}

std::vector<unsigned char> render_line_chart_png(const std::vector<Panel>& panels,
                                                 const ChartStyle& style) {
  if (panels.empty())
    throw LogicError("a line chart needs at least one panel");
  check_style(style);
  constexpr std::size_t kTallestImage = 32768; // pixels; keeps the canvas under 1 GB
  if (panels.size() * static_cast<std::size_t>(style.panel_height) > kTallestImage)
    throw LogicError("a line chart of " + std::to_string(panels.size()) + " panels " +
                     std::to_string(style.panel_height) + " pixels high is taller than " +
                     std::to_string(kTallestImage) + " pixels");
  Canvas canvas(style.panel_width, style.panel_height * static_cast<int>(panels.size()));
  for (std::size_t i = 0; i < panels.size(); ++i)
    draw_panel(canvas, panels[i], make_layout(panels[i], style, static_cast<int>(i)));
  return encode_png(canvas);
}

void write_line_chart_png(const std::string& path, const std::vector<Panel>& panels,
                          const ChartStyle& style) {
  const std::vector<unsigned char> png = render_line_chart_png(panels, style);
  // Same directory as the target, so the rename stays on one file system and is atomic.
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out)
      throw RuntimeError("cannot write chart " + path + ": cannot create " + temporary + ": " +
                         std::strerror(errno));
    out.write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
    out.close();
    if (!out) {
      std::remove(temporary.c_str());
      throw RuntimeError("cannot write chart " + path + ": writing " + temporary + " failed");
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    throw RuntimeError("cannot write chart " + path + ": " + std::strerror(error));
  }
}

} // namespace pfmc::apps
