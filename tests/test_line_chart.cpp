// The PNG line chart of `pfmc bench --plot`: a valid PNG read back by a decoder written here
// (CRC-32 bit by bit rather than by table, an inflater for stored and fixed-Huffman blocks),
// output small enough to keep, points where to_pixel says, and files that appear whole or not at
// all.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/line_chart.hpp"
#include "kernels/error.hpp"

namespace pfmc::apps {
// Found by argument-dependent lookup, so failures print colours rather than raw bytes.
void PrintTo(const Rgb& c, std::ostream* os) {
  *os << "rgb(" << int{c.r} << ", " << int{c.g} << ", " << int{c.b} << ")";
}
} // namespace pfmc::apps

namespace {

namespace fs = std::filesystem;
using pfmc::apps::ChartStyle;
using pfmc::apps::Panel;
using pfmc::apps::Point;
using pfmc::apps::Rgb;
using pfmc::apps::Series;
using Bytes = std::vector<unsigned char>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
const Bytes kSignature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

// --- A small PNG reader, independent of the writer ----------------------------------------------

std::uint32_t u32_be(const Bytes& b, std::size_t at) {
  return (std::uint32_t{b.at(at)} << 24) | (std::uint32_t{b.at(at + 1)} << 16) |
         (std::uint32_t{b.at(at + 2)} << 8) | std::uint32_t{b.at(at + 3)};
}

/// CRC-32 one bit at a time, so that it checks the writer's table rather than repeating it.
std::uint32_t bitwise_crc32(const unsigned char* data, std::size_t n) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < n; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::uint32_t plain_adler32(const Bytes& data) {
  std::uint64_t a = 1, b = 0;
  for (const unsigned char c : data) {
    a = (a + c) % 65521;
    b = (b + a) % 65521;
  }
  return static_cast<std::uint32_t>((b << 16) | a);
}

struct Chunk {
  std::string type;
  Bytes data;
  bool crc_ok;
};

/// The chunks after the signature; a truncated chunk fails the test.
std::vector<Chunk> chunks_of(const Bytes& png) {
  std::vector<Chunk> chunks;
  std::size_t at = kSignature.size();
  while (at < png.size()) {
    if (at + 12 > png.size()) {
      ADD_FAILURE() << "truncated chunk header at byte " << at;
      break;
    }
    const std::uint32_t length = u32_be(png, at);
    if (at + 12 + length > png.size()) {
      ADD_FAILURE() << "chunk at byte " << at << " runs past the end";
      break;
    }
    Chunk c;
    c.type.assign(png.begin() + at + 4, png.begin() + at + 8);
    c.data.assign(png.begin() + at + 8, png.begin() + at + 8 + length);
    c.crc_ok = bitwise_crc32(&png[at + 4], 4 + length) == u32_be(png, at + 8 + length);
    chunks.push_back(std::move(c));
    at += 12 + length;
  }
  return chunks;
}

/// Deflate's bit stream: fields come least significant bit first. Reading past the end yields
/// zero bits and sets `overrun`.
class BitReader {
public:
  BitReader(const Bytes& data, std::size_t at) : data_(data), byte_(at) {}

  unsigned bit() {
    if (byte_ >= data_.size()) {
      overrun = true;
      return 0;
    }
    const unsigned b = (data_[byte_] >> bit_) & 1u;
    if (++bit_ == 8) {
      bit_ = 0;
      ++byte_;
    }
    return b;
  }
  unsigned bits(int n) {
    unsigned v = 0;
    for (int i = 0; i < n; ++i)
      v |= bit() << i;
    return v;
  }
  void skip_to_byte() {
    if (bit_ != 0) {
      bit_ = 0;
      ++byte_;
    }
  }
  std::size_t byte_position() const { return byte_; }
  /// Continues at the start of byte `at`.
  void jump_to(std::size_t at) {
    byte_ = at;
    bit_ = 0;
  }

  bool overrun = false;

private:
  const Bytes& data_;
  std::size_t byte_;
  int bit_ = 0;
};

/// A prefix code given by the code length of each symbol, with codes assigned as RFC 1951
/// section 3.2.2 prescribes (shorter codes first, then by symbol), decoded one bit at a time
/// with the code's most significant bit first.
class PrefixCode {
public:
  explicit PrefixCode(const std::vector<int>& lengths) {
    int longest = 0;
    for (const int len : lengths)
      longest = std::max(longest, len);
    std::vector<int> count(longest + 1, 0);
    for (const int len : lengths)
      if (len > 0)
        ++count[len];
    std::vector<int> next(longest + 1, 0);
    for (int len = 1, code = 0; len <= longest; ++len) {
      code = (code + count[len - 1]) << 1;
      next[len] = code;
    }
    by_length_.resize(longest + 1);
    for (int len = 1; len <= longest; ++len)
      by_length_[len].assign(std::size_t{1} << len, -1);
    for (std::size_t symbol = 0; symbol < lengths.size(); ++symbol)
      if (const int len = lengths[symbol]; len > 0)
        by_length_[len][next[len]++] = static_cast<int>(symbol);
  }

  /// The next symbol, or -1 where the bits spell no code.
  int decode(BitReader& in) const {
    unsigned code = 0;
    for (std::size_t len = 1; len < by_length_.size(); ++len) {
      code = (code << 1) | in.bit();
      if (by_length_[len][code] >= 0)
        return by_length_[len][code];
    }
    return -1;
  }

private:
  std::vector<std::vector<int>> by_length_; ///< [length][code] -> symbol, or -1
};

/// The fixed codes of RFC 1951 section 3.2.6.
const PrefixCode& fixed_literal_code() {
  static const PrefixCode code = [] {
    std::vector<int> lengths(288);
    for (int s = 0; s < 288; ++s)
      lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    return PrefixCode(lengths);
  }();
  return code;
}

const PrefixCode& fixed_distance_code() {
  static const PrefixCode code(std::vector<int>(32, 5)); // 30 and 31 never occur
  return code;
}

/// Base and extra bits of the length symbols 257..285 and distance symbols 0..29, worked out
/// from the rules of RFC 1951 section 3.2.5 rather than copied from its table.
struct ExtraBitsCode {
  std::vector<unsigned> base;
  std::vector<int> extra;
};

const ExtraBitsCode& length_symbols() {
  static const ExtraBitsCode code = [] {
    ExtraBitsCode c;
    unsigned length = 3;
    for (int symbol = 257; symbol <= 284; ++symbol) {
      const int extra = symbol < 265 ? 0 : (symbol - 261) / 4; // four symbols per extra bit
      c.base.push_back(length);
      c.extra.push_back(extra);
      length += 1u << extra;
    }
    c.base.push_back(258); // symbol 285: 258 with no extra bits
    c.extra.push_back(0);
    return c;
  }();
  return code;
}

const ExtraBitsCode& distance_symbols() {
  static const ExtraBitsCode code = [] {
    ExtraBitsCode c;
    unsigned distance = 1;
    for (int symbol = 0; symbol < 30; ++symbol) {
      const int extra = symbol < 4 ? 0 : symbol / 2 - 1; // two symbols per extra bit
      c.base.push_back(distance);
      c.extra.push_back(extra);
      distance += 1u << extra;
    }
    return c;
  }();
  return code;
}

struct Inflated {
  Bytes data;
  int stored_blocks = 0, fixed_blocks = 0;
};

/// Inflates a zlib stream of stored and fixed-Huffman deflate blocks, checking the header, each
/// stored block's LEN/NLEN, every length and distance, and the Adler-32 trailer. Dynamic-Huffman
/// and reserved blocks fail the test, as does anything that runs past the end.
Inflated inflate(const Bytes& z) {
  Inflated result;
  Bytes& out = result.data;
  if (z.size() < 6) {
    ADD_FAILURE() << "zlib stream of " << z.size() << " bytes";
    return result;
  }
  EXPECT_EQ(z[0] & 0x0F, 8) << "compression method is not deflate";
  EXPECT_LE(z[0] >> 4, 7) << "window larger than 32 KiB";
  EXPECT_EQ((z[0] * 256 + z[1]) % 31, 0) << "zlib header check bits";
  EXPECT_EQ(z[1] & 0x20, 0) << "preset dictionary";
  BitReader in(z, 2);
  bool final_block = false;
  while (!final_block) {
    const std::size_t block_at = in.byte_position();
    final_block = in.bits(1) != 0;
    const unsigned type = in.bits(2);
    if (in.overrun) {
      ADD_FAILURE() << "deflate stream ends without a final block";
      return result;
    }
    if (type == 0) {
      ++result.stored_blocks;
      in.skip_to_byte();
      const std::size_t at = in.byte_position();
      if (at + 4 > z.size()) {
        ADD_FAILURE() << "stored block header runs past the end";
        return result;
      }
      const unsigned len = z[at] | (z[at + 1] << 8);
      const unsigned nlen = z[at + 2] | (z[at + 3] << 8);
      EXPECT_EQ(len ^ 0xFFFFu, nlen) << "NLEN of block at byte " << block_at;
      if (at + 4 + len > z.size()) {
        ADD_FAILURE() << "stored block runs past the end";
        return result;
      }
      out.insert(out.end(), z.begin() + at + 4, z.begin() + at + 4 + len);
      in.jump_to(at + 4 + len);
      continue;
    }
    if (type != 1) {
      ADD_FAILURE() << "block at byte " << block_at << " has type " << type
                    << " (only stored and fixed Huffman are expected)";
      return result;
    }
    ++result.fixed_blocks;
    while (true) {
      const int symbol = fixed_literal_code().decode(in);
      if (in.overrun || symbol < 0 || symbol > 285) {
        ADD_FAILURE() << "bad literal/length symbol " << symbol << " in block at byte " << block_at
                      << (in.overrun ? " (past the end)" : "");
        return result;
      }
      if (symbol < 256) {
        out.push_back(static_cast<unsigned char>(symbol));
        continue;
      }
      if (symbol == 256)
        break; // end of block
      const ExtraBitsCode& lengths = length_symbols();
      const std::size_t length = lengths.base[symbol - 257] + in.bits(lengths.extra[symbol - 257]);
      const int d = fixed_distance_code().decode(in);
      if (d < 0 || d >= 30) {
        ADD_FAILURE() << "bad distance symbol " << d << " in block at byte " << block_at;
        return result;
      }
      const std::size_t distance =
          distance_symbols().base[d] + in.bits(distance_symbols().extra[d]);
      if (in.overrun || distance > out.size() || distance > 32768) {
        ADD_FAILURE() << "distance " << distance << " with " << out.size()
                      << " bytes out, in block at byte " << block_at;
        return result;
      }
      for (std::size_t i = 0; i < length; ++i) { // byte by byte: the copy may overlap itself
        const unsigned char copied = out[out.size() - distance];
        out.push_back(copied);
      }
    }
  }
  in.skip_to_byte();
  const std::size_t at = in.byte_position();
  EXPECT_EQ(at + 4, z.size()) << "bytes after the Adler-32 trailer";
  if (at + 4 <= z.size()) {
    EXPECT_EQ(u32_be(z, at), plain_adler32(out)) << "Adler-32";
  }
  return result;
}

struct Image {
  std::uint32_t width = 0, height = 0;
  Bytes raw; ///< scanlines, each a filter byte and 3 * width bytes
  Rgb at(int x, int y) const {
    const std::size_t i = static_cast<std::size_t>(y) * (1 + 3 * width) + 1 + 3 * x;
    return {raw.at(i), raw.at(i + 1), raw.at(i + 2)};
  }
};

Image decode(const Bytes& png) {
  Image image;
  const std::vector<Chunk> chunks = chunks_of(png);
  Bytes idat;
  for (const Chunk& c : chunks) {
    if (c.type == "IHDR" && c.data.size() == 13) {
      image.width = u32_be(c.data, 0);
      image.height = u32_be(c.data, 4);
    } else if (c.type == "IDAT") {
      idat.insert(idat.end(), c.data.begin(), c.data.end());
    }
  }
  image.raw = inflate(idat).data;
  EXPECT_EQ(image.raw.size(), std::size_t{image.height} * (1 + 3 * std::size_t{image.width}));
  return image;
}

// --- Charts used below --------------------------------------------------------------------------

const std::vector<double> kDistances = {1, 2, 3, 4, 6, 8, 12, 16};

Panel speedup_panel(const std::string& workload, int backends) {
  Panel p;
  p.title = workload;
  p.x_label = "prefetch distance";
  p.y_label = "speedup over baseline";
  p.log2_x = true;
  p.reference_y = 1.0;
  for (int b = 0; b < backends; ++b) {
    Series s{"backend_" + std::to_string(b), kDistances, {}};
    for (const double d : kDistances)
      s.y.push_back(0.6 + 0.1 * b + 2.0 * d / (d + 4.0));
    p.series.push_back(std::move(s));
  }
  return p;
}

// --- PNG structure ------------------------------------------------------------------------------

TEST(LineChartPng, StartsWithTheSignature) {
  const Bytes png = pfmc::apps::render_line_chart_png({speedup_panel("latency_bound", 3)});
  ASSERT_GE(png.size(), kSignature.size());
  EXPECT_EQ(Bytes(png.begin(), png.begin() + 8), kSignature);
}

TEST(LineChartPng, HeaderSizeFollowsStyleAndPanelCount) {
  {
    const std::vector<Chunk> chunks =
        chunks_of(pfmc::apps::render_line_chart_png({speedup_panel("a", 2)}));
    ASSERT_FALSE(chunks.empty());
    ASSERT_EQ(chunks.front().type, "IHDR");
    ASSERT_EQ(chunks.front().data.size(), 13u);
    EXPECT_EQ(u32_be(chunks.front().data, 0), 900u);
    EXPECT_EQ(u32_be(chunks.front().data, 4), 560u);
  }
  const ChartStyle style{640, 300};
  const std::vector<Chunk> chunks = chunks_of(pfmc::apps::render_line_chart_png(
      {speedup_panel("a", 2), speedup_panel("b", 2), speedup_panel("c", 0)}, style));
  ASSERT_FALSE(chunks.empty());
  const Bytes& ihdr = chunks.front().data;
  ASSERT_EQ(ihdr.size(), 13u);
  EXPECT_EQ(u32_be(ihdr, 0), 640u);
  EXPECT_EQ(u32_be(ihdr, 4), 3u * 300u); // panels stacked vertically
  EXPECT_EQ(ihdr[8], 8);                 // bit depth
  EXPECT_EQ(ihdr[9], 2);                 // truecolour RGB
  EXPECT_EQ(ihdr[10], 0);                // deflate
  EXPECT_EQ(ihdr[11], 0);                // adaptive filtering
  EXPECT_EQ(ihdr[12], 0);                // no interlace
}

TEST(LineChartPng, EveryChunkCrcVerifies) {
  const Bytes png = pfmc::apps::render_line_chart_png(
      {speedup_panel("latency_bound", 15), speedup_panel("bandwidth_bound", 15)});
  const std::vector<Chunk> chunks = chunks_of(png);
  ASSERT_GE(chunks.size(), 3u);
  EXPECT_EQ(chunks.front().type, "IHDR");
  EXPECT_EQ(chunks.back().type, "IEND");
  EXPECT_TRUE(chunks.back().data.empty());
  for (const Chunk& c : chunks)
    EXPECT_TRUE(c.crc_ok) << c.type;
}

TEST(LineChartPng, ZlibStreamInflatesToFilteredScanlines) {
  const ChartStyle style{700, 400};
  const Image image = decode(pfmc::apps::render_line_chart_png(
      {speedup_panel("latency_bound", 4), speedup_panel("bandwidth_bound", 4)}, style));
  ASSERT_EQ(image.raw.size(), 800u * (1 + 3 * 700u)); // more than one 65535-byte segment
  for (std::uint32_t y = 0; y < image.height; ++y)
    ASSERT_EQ(image.raw[y * (1 + 3 * 700u)], 0) << "filter byte of row " << y;
}

TEST(LineChartPng, OnePanelOfFifteenSeriesIsSmall) {
  const Bytes png = pfmc::apps::render_line_chart_png({speedup_panel("latency_bound", 15)});
  EXPECT_LT(png.size(), 150u * 1000u) << "stored blocks alone would take 1.5 MB";
  Bytes idat;
  for (const Chunk& c : chunks_of(png))
    if (c.type == "IDAT")
      idat.insert(idat.end(), c.data.begin(), c.data.end());
  const Inflated inflated = inflate(idat);
  EXPECT_GT(inflated.fixed_blocks, 0);
  EXPECT_EQ(inflated.stored_blocks, 0); // flat colour always compresses
  ASSERT_EQ(inflated.data.size(), 560u * (1 + 3 * 900u));
  for (std::size_t y = 0; y < 560; ++y)
    ASSERT_EQ(inflated.data[y * (1 + 3 * 900u)], 0) << "filter byte of row " << y;
}

/// Pseudo-random numbers from a fixed seed, the same on every platform.
class Lcg {
public:
  explicit Lcg(std::uint32_t seed) : state_(seed) {}
  std::uint32_t next() {
    state_ = state_ * 1664525u + 1013904223u;
    return state_ >> 8;
  }

private:
  std::uint32_t state_;
};

TEST(LineChartPng, ManyDashedNoisySeriesRoundTrip) {
  // 80 series of 60 jittery points: every colour in every dash pattern, lines crossing all over.
  Panel panel;
  panel.title = "noise";
  panel.reference_y = 1.0;
  Lcg random(2024);
  for (int s = 0; s < 80; ++s) {
    Series series{"noisy_" + std::to_string(s), {}, {}};
    for (int k = 0; k < 60; ++k) {
      series.x.push_back(k);
      series.y.push_back(0.5 + (random.next() % 1000) / 400.0);
    }
    panel.series.push_back(std::move(series));
  }
  const ChartStyle style;
  const Image image = decode(pfmc::apps::render_line_chart_png({panel}, style));
  ASSERT_EQ(image.raw.size(), 560u * (1 + 3 * 900u));
  for (std::uint32_t y = 0; y < image.height; ++y)
    ASSERT_EQ(image.raw[y * (1 + 3 * 900u)], 0) << "filter byte of row " << y;
  // Markers are drawn last, series by series: the last series' markers are all on top.
  const Series& last = panel.series.back();
  for (std::size_t k = 0; k < last.x.size(); ++k) {
    const Point p = pfmc::apps::to_pixel(panel, style, last.x[k], last.y[k]);
    EXPECT_EQ(image.at(p.x, p.y), pfmc::apps::series_color(79)) << "point " << k;
  }
}

// --- The deflate encoder on its own -------------------------------------------------------------

Bytes random_bytes(std::size_t n, std::uint32_t seed) {
  Lcg random(seed);
  Bytes b(n);
  for (unsigned char& c : b)
    c = static_cast<unsigned char>(random.next());
  return b;
}

TEST(Deflate, SmallAndUniformInputsRoundTrip) {
  for (const Bytes& raw : {Bytes{}, Bytes{7}, Bytes{1, 2}, Bytes{1, 2, 3}, Bytes(1000, 0),
                           Bytes(200000, 255), random_bytes(5, 1)}) {
    const Bytes z = pfmc::apps::detail::zlib_compress(raw);
    const Inflated inflated = inflate(z);
    EXPECT_EQ(inflated.data, raw) << raw.size() << " bytes";
    if (raw.size() >= 1000) {
      EXPECT_LT(z.size(), raw.size() / 50) << raw.size() << " equal bytes";
    }
  }
}

TEST(Deflate, RandomBytesFallBackToStoredBlocks) {
  const Bytes raw = random_bytes(300000, 99);
  const Bytes z = pfmc::apps::detail::zlib_compress(raw, 2701);
  const Inflated inflated = inflate(z);
  EXPECT_EQ(inflated.data, raw);
  EXPECT_GT(inflated.stored_blocks, 0);
  // At most the zlib header and trailer and 5 bytes of block header per 65535-byte segment.
  EXPECT_LE(z.size(), raw.size() + 6 + 5 * (raw.size() / 65535 + 1));
}

TEST(Deflate, EveryLengthAndDistanceCodeRoundTrips) {
  // Random bytes with copies of every length 3..258 at distances across all 30 distance codes,
  // each with a random byte after it so the copy cannot run on.
  Lcg random(7);
  Bytes raw = random_bytes(33000, 3);
  std::vector<std::size_t> distances;
  for (std::size_t d = 1; d <= 32768; d = d < 16 ? d + 1 : d * 2 - 1 - (d % 3))
    distances.push_back(d);
  distances.push_back(32768);
  std::size_t pairs = 0;
  for (std::size_t length = 3; length <= 258; ++length) {
    for (std::size_t i = 0; i < distances.size(); i += 1 + length % 3) {
      const std::size_t distance = distances[(i + length) % distances.size()];
      for (std::size_t k = 0; k < length; ++k) {
        const unsigned char copied = raw[raw.size() - distance];
        raw.push_back(copied);
      }
      raw.push_back(static_cast<unsigned char>(random.next()));
      ++pairs;
    }
  }
  ASSERT_GT(pairs, 1000u);
  const Bytes z = pfmc::apps::detail::zlib_compress(raw, 1000);
  const Inflated inflated = inflate(z);
  EXPECT_EQ(inflated.data.size(), raw.size());
  EXPECT_EQ(inflated.data, raw);
  EXPECT_GT(inflated.fixed_blocks, 0);
  EXPECT_LT(z.size(), raw.size() / 2);
}

// --- What is drawn ------------------------------------------------------------------------------

TEST(LineChart, EachPointIsDrawnInItsSeriesColour) {
  Panel panel;
  panel.title = "latency_bound";
  panel.series.push_back({"cp_async", {1, 2, 4, 8, 16}, {1.0, 1.4, 2.1, 2.6, 2.4}});
  panel.log2_x = true;
  const ChartStyle style;
  const Image image = decode(pfmc::apps::render_line_chart_png({panel}, style));
  ASSERT_FALSE(image.raw.empty());
  for (std::size_t i = 0; i < panel.series[0].x.size(); ++i) {
    const Point p = pfmc::apps::to_pixel(panel, style, panel.series[0].x[i], panel.series[0].y[i]);
    ASSERT_GE(p.x, 0);
    ASSERT_LT(p.x, style.panel_width);
    ASSERT_GE(p.y, 0);
    ASSERT_LT(p.y, style.panel_height);
    EXPECT_EQ(image.at(p.x, p.y), pfmc::apps::series_color(0)) << "point " << i;
  }
}

TEST(LineChart, PointsOfTheSecondPanelLandInTheLowerHalf) {
  const ChartStyle style{800, 450};
  const Panel top = speedup_panel("latency_bound", 1);
  Panel bottom = speedup_panel("bandwidth_bound", 2);
  bottom.series[1].y = {0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 1.7, 1.9};
  const Image image = decode(pfmc::apps::render_line_chart_png({top, bottom}, style));
  ASSERT_FALSE(image.raw.empty());
  for (std::size_t i = 0; i < kDistances.size(); ++i) {
    const Point p = pfmc::apps::to_pixel(bottom, style, kDistances[i], bottom.series[1].y[i], 1);
    EXPECT_GE(p.y, style.panel_height);
    EXPECT_EQ(image.at(p.x, p.y), pfmc::apps::series_color(1)) << "point " << i;
  }
}

TEST(LineChart, Log2AxisSpacesDistancesByPowersOfTwo) {
  const Panel panel = speedup_panel("latency_bound", 1);
  const ChartStyle style;
  const Point at1 = pfmc::apps::to_pixel(panel, style, 1, 2.0);
  const Point at4 = pfmc::apps::to_pixel(panel, style, 4, 2.0);
  const Point at16 = pfmc::apps::to_pixel(panel, style, 16, 2.0);
  EXPECT_LT(at1.x, at4.x);
  EXPECT_LT(at4.x, at16.x);
  EXPECT_NEAR(at4.x, (at1.x + at16.x) / 2.0, 1.0); // log2(4) is halfway between log2(1), log2(16)
  EXPECT_EQ(at1.y, at16.y);
  EXPECT_THROW(pfmc::apps::to_pixel(panel, style, 0.0, 1.0), pfmc::LogicError);
}

TEST(LineChart, ReferenceLineIsInsideTheYRange) {
  Panel panel;
  panel.series.push_back({"tma", {1, 2, 3}, {2.0, 2.5, 3.0}});
  panel.reference_y = 1.0;
  const ChartStyle style;
  const Point reference = pfmc::apps::to_pixel(panel, style, 2, 1.0);
  const Point lowest = pfmc::apps::to_pixel(panel, style, 2, 2.0);
  EXPECT_GT(reference.y, lowest.y); // below the data, on the image
  EXPECT_LT(reference.y, style.panel_height);
  // The dashed line leaves grey pixels along its row.
  const Image image = decode(pfmc::apps::render_line_chart_png({panel}, style));
  int grey = 0;
  for (int x = 0; x < style.panel_width; ++x) {
    const Rgb c = image.at(x, reference.y);
    grey += c.r == c.g && c.g == c.b && c.r < 128 ? 1 : 0;
  }
  EXPECT_GT(grey, 50);
}

TEST(LineChart, NonFinitePointsAreSkippedAndBreakTheLine) {
  Panel panel;
  panel.series.push_back({"gap", {1, 2, 3, 4, 5}, {1.0, kNaN, 1.0, kInf, 2.0}});
  panel.series.push_back({"bad x", {kNaN, 2, -kInf}, {1.5, 1.5, 1.5}});
  panel.series.push_back({"all missing", {1, 2}, {kNaN, kNaN}});
  panel.series.push_back({"empty", {}, {}});
  const ChartStyle style;
  const Image image = decode(pfmc::apps::render_line_chart_png({panel}, style));
  ASSERT_FALSE(image.raw.empty());
  EXPECT_EQ(image.at(pfmc::apps::to_pixel(panel, style, 1, 1.0).x,
                     pfmc::apps::to_pixel(panel, style, 1, 1.0).y),
            pfmc::apps::series_color(0));
  // No segment joins (1, 1) to (3, 1) across the missing point at x = 2.
  const Point gap = pfmc::apps::to_pixel(panel, style, 2, 1.0);
  for (int dy = -1; dy <= 1; ++dy)
    EXPECT_NE(image.at(gap.x, gap.y + dy), pfmc::apps::series_color(0));
  EXPECT_EQ(image.at(pfmc::apps::to_pixel(panel, style, 2, 1.5).x,
                     pfmc::apps::to_pixel(panel, style, 2, 1.5).y),
            pfmc::apps::series_color(1));
  EXPECT_THROW(pfmc::apps::to_pixel(panel, style, 2, kNaN), pfmc::LogicError);
}

TEST(LineChart, EmptyPanelStillDrawsAxes) {
  Panel panel;
  panel.title = "no data";
  panel.x_label = "prefetch distance";
  panel.y_label = "speedup";
  panel.log2_x = true;
  const Image image = decode(pfmc::apps::render_line_chart_png({panel, Panel{}}));
  ASSERT_EQ(image.height, 2u * 560u);
  // Axis lines are black and at least a plot's height long in each panel.
  for (int panel_top : {0, 560}) {
    int black = 0;
    for (int y = panel_top; y < panel_top + 560; ++y)
      for (int x = 0; x < 900; ++x)
        black += image.at(x, y) == Rgb{0, 0, 0} ? 1 : 0;
    EXPECT_GT(black, 700) << "panel at row " << panel_top;
  }
}

TEST(LineChart, PaletteHasSixteenDistinctColoursThatRepeat) {
  std::set<std::uint32_t> colours;
  for (std::size_t i = 0; i < 16; ++i) {
    const Rgb c = pfmc::apps::series_color(i);
    EXPECT_NE(c, (Rgb{255, 255, 255}));
    colours.insert(std::uint32_t{c.r} << 16 | std::uint32_t{c.g} << 8 | c.b);
  }
  EXPECT_EQ(colours.size(), 16u);
  EXPECT_EQ(pfmc::apps::series_color(16), pfmc::apps::series_color(0));
}

TEST(LineChart, ManySeriesAndAwkwardLabelsRender) {
  Panel panel = speedup_panel("latency_bound, with a title far too long to fit in the panel "
                              "at any reasonable width whatever the font",
                              40);
  panel.series[0].label = "µs per step \x01\x7f";
  panel.series[1].label = std::string(300, 'x');
  panel.series[2].label.clear();
  const ChartStyle style{320, 200}; // the smallest panel: the legend cannot list 40 series
  const Image image = decode(pfmc::apps::render_line_chart_png({panel}, style));
  EXPECT_EQ(image.width, 320u);
  EXPECT_EQ(image.height, 200u);
  EXPECT_EQ(image.raw.size(), 200u * (1 + 3 * 320u));
}

TEST(LineChart, RenderingIsDeterministic) {
  const std::vector<Panel> panels = {speedup_panel("a", 5), speedup_panel("b", 5)};
  EXPECT_EQ(pfmc::apps::render_line_chart_png(panels), pfmc::apps::render_line_chart_png(panels));
}

TEST(LineChart, RejectsWhatCannotBeDrawn) {
  EXPECT_THROW(pfmc::apps::render_line_chart_png({}), pfmc::LogicError);
  Panel mismatched;
  mismatched.series.push_back({"short y", {1, 2, 3}, {1, 2}});
  EXPECT_THROW(pfmc::apps::render_line_chart_png({mismatched}), pfmc::LogicError);
  EXPECT_THROW(pfmc::apps::render_line_chart_png({Panel{}}, ChartStyle{100, 100}),
               pfmc::LogicError);
}

// --- Files --------------------------------------------------------------------------------------

class LineChartFile : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pfmc_line_chart_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_))
      names.push_back(e.path().filename().string());
    return names;
  }

  fs::path dir_;
};

TEST_F(LineChartFile, WritesExactlyTheRenderedBytes) {
  const std::vector<Panel> panels = {speedup_panel("latency_bound", 3)};
  const std::string path = (dir_ / "chart.png").string();
  pfmc::apps::write_line_chart_png(path, panels);
  std::ifstream in(path, std::ios::binary);
  const Bytes written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, pfmc::apps::render_line_chart_png(panels));
  EXPECT_EQ(entries(), std::vector<std::string>{"chart.png"}); // no temporary left behind
}

TEST_F(LineChartFile, MissingDirectoryThrowsNamingThePathAndLeavesNoFile) {
  const std::string path = (dir_ / "no_such_dir" / "chart.png").string();
  try {
    pfmc::apps::write_line_chart_png(path, {speedup_panel("a", 1)});
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(entries().empty());
}

TEST_F(LineChartFile, FailedRenameThrowsAndRemovesTheTemporary) {
  // The target is a directory: the temporary file is written, then the rename fails.
  const fs::path target = dir_ / "chart.png";
  fs::create_directory(target);
  try {
    pfmc::apps::write_line_chart_png(target.string(), {speedup_panel("a", 1)});
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"chart.png"});
  EXPECT_TRUE(fs::is_directory(target));
}

} // namespace
