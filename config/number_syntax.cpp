#include "config/number_syntax.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <system_error>

namespace pfmc::config::detail {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/// The decimal digits at the start of `text`: how many, and their value (nullopt when it is
/// 2^64 or more).
struct Digits {
  std::size_t count = 0;
  std::optional<std::uint64_t> value;
};

Digits leading_digits(std::string_view text) {
  std::uint64_t value = 0;
  // from_chars takes no sign for an unsigned type: "+1" and "-1" have no leading digits.
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  Digits digits;
  digits.count = static_cast<std::size_t>(end - text.data());
  if (error == std::errc()) {
    digits.value = value;
  }
  return digits;
}

/// `text` without its sign, and whether the sign was a minus.
std::pair<std::string_view, bool> unsigned_part(std::string_view text) {
  const bool signed_text = !text.empty() && (text[0] == '-' || text[0] == '+');
  return {text.substr(signed_text ? 1 : 0), signed_text && text[0] == '-'};
}

constexpr double two_to_the_64 = 18446744073709551616.0;

std::uint64_t magnitude_of(long long value) {
  // -(value + 1) + 1 avoids negating LLONG_MIN.
  return value < 0 ? static_cast<std::uint64_t>(-(value + 1)) + 1
                   : static_cast<std::uint64_t>(value);
}

struct SizeUnit {
  std::string_view suffix;
  std::uint64_t bytes;
};

constexpr std::uint64_t kib = 1024;
constexpr std::uint64_t kb = 1000;
constexpr SizeUnit size_units[] = {
    {"", 1},
    {"B", 1},
    {"KiB", kib},
    {"MiB", kib* kib},
    {"GiB", kib* kib* kib},
    {"TiB", kib* kib* kib* kib},
    {"KB", kb},
    {"MB", kb* kb},
    {"GB", kb* kb* kb},
    {"TB", kb* kb* kb* kb},
};

} // namespace

std::optional<double> parse_real(std::string_view text) {
  const auto [body, negative] = unsigned_part(text);
  if (body == ".inf" || body == ".Inf" || body == ".INF") {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (body.size() == text.size() && (body == ".nan" || body == ".NaN" || body == ".NAN")) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  // YAML's [0-9]+ ( . [0-9]* )? | . [0-9]+, then ( [eE] [-+]? [0-9]+ )? is what from_chars reads,
  // once a sign, inf and nan are kept from it; it does not depend on the locale.
  if (body.empty() || !(is_digit(body.front()) || body.front() == '.')) {
    return std::nullopt;
  }
  double value = 0.0;
  const auto [end, error] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (end != body.data() + body.size()) {
    return std::nullopt;
  }
  if (error == std::errc::result_out_of_range) {
    // from_chars leaves `value` alone out of range; strtod (given text that from_chars read
    // whole) says to which side: +inf above, 0 below.
    value = std::strtod(std::string(body).c_str(), nullptr);
  }
  return negative ? -value : value;
}

std::optional<IntegerLiteral> parse_integer_literal(std::string_view text) {
  const auto [body, negative] = unsigned_part(text);
  if (const Digits digits = leading_digits(body); digits.count > 0 && digits.count == body.size()) {
    IntegerLiteral literal;
    literal.overflow = !digits.value;
    literal.magnitude = digits.value.value_or(0);
    literal.negative = negative && (literal.overflow || literal.magnitude != 0);
    return literal;
  }
  // A float literal is accepted when it is exactly an integer: `paths: 1e6` reads naturally.
  const auto real = detail::parse_real(text);
  if (!real || !std::isfinite(*real) || std::floor(*real) != *real) {
    return std::nullopt;
  }
  IntegerLiteral literal;
  const double magnitude = std::fabs(*real);
  if (magnitude >= two_to_the_64) {
    literal.overflow = true;
  } else {
    literal.magnitude = static_cast<std::uint64_t>(magnitude);
  }
  literal.negative = *real < 0 && (literal.overflow || literal.magnitude != 0);
  return literal;
}

bool is_less(const IntegerLiteral& literal, long long bound) {
  if (literal.overflow) {
    return literal.negative;
  }
  if (literal.negative) {
    return bound >= 0 || literal.magnitude > magnitude_of(bound);
  }
  return bound > 0 && literal.magnitude < magnitude_of(bound);
}

bool is_greater(const IntegerLiteral& literal, long long bound) {
  if (literal.overflow) {
    return !literal.negative;
  }
  if (literal.negative) {
    return bound < 0 && literal.magnitude < magnitude_of(bound);
  }
  return bound < 0 || literal.magnitude > magnitude_of(bound);
}

long long value_of(const IntegerLiteral& literal) {
  if (literal.negative) {
    return literal.magnitude == magnitude_of(std::numeric_limits<long long>::min())
               ? std::numeric_limits<long long>::min()
               : -static_cast<long long>(literal.magnitude);
  }
  return static_cast<long long>(literal.magnitude);
}

std::string spell(const IntegerLiteral& literal, std::string_view text) {
  if (literal.overflow) {
    return std::string(text);
  }
  return (literal.negative ? "-" : "") + std::to_string(literal.magnitude);
}

std::pair<SizeStatus, std::uint64_t> parse_size(std::string_view text) {
  const Digits whole = leading_digits(text);
  if (whole.count == 0) {
    return {SizeStatus::malformed, 0};
  }
  std::size_t end = whole.count;
  std::size_t frac_digits = 0;
  if (end < text.size() && text[end] == '.') {
    frac_digits = leading_digits(text.substr(end + 1)).count;
    if (frac_digits == 0) {
      return {SizeStatus::malformed, 0};
    }
    end += 1 + frac_digits;
  }
  const std::string_view suffix = text.substr(end);
  const SizeUnit* unit = nullptr;
  for (const auto& u : size_units) {
    if (suffix == u.suffix) {
      unit = &u;
    }
  }
  if (unit == nullptr || (frac_digits > 0 && suffix.empty())) {
    return {SizeStatus::malformed, 0}; // a fraction of a byte only makes sense with a unit
  }

  std::uint64_t bytes = 0;
  if (frac_digits == 0) {
    // Exact integer arithmetic: "18446744073709551615" must not go through a double.
    if (!whole.value || *whole.value > std::numeric_limits<std::uint64_t>::max() / unit->bytes) {
      return {SizeStatus::malformed, 0};
    }
    bytes = *whole.value * unit->bytes;
  } else {
    long double number = 0.0L;
    if (std::from_chars(text.data(), text.data() + end, number).ec != std::errc()) {
      // Out of long double's range (from_chars then leaves `number` alone): above it when the
      // whole part is not 0, below it (0 bytes) when it is.
      if (whole.value != std::uint64_t(0)) {
        return {SizeStatus::malformed, 0};
      }
      number = 0.0L;
    }
    const long double scaled = number * unit->bytes;
    const long double rounded = std::floor(scaled + 0.5L);
    if (!(rounded < static_cast<long double>(two_to_the_64))) {
      return {SizeStatus::malformed, 0};
    }
    bytes = static_cast<std::uint64_t>(rounded);
  }
  return {bytes == 0 ? SizeStatus::zero : SizeStatus::ok, bytes};
}

} // namespace pfmc::config::detail
