#pragma once
// How the numbers of settings are written (config/setting_rules.hpp judges their values):
// integers, kept exact beyond long long; reals as YAML's core schema spells them; byte sizes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace pfmc::config::detail {

/// A number as YAML's core schema spells it: `12`, `-0.5`, `1e6`, `.5`, and `.inf`, `-.inf`,
/// `.nan` (returned as such: the caller decides whether non-finite values are allowed).
/// nullopt when the text is not a number (`1,5`, `0x10`, `inf`, `1_000`, "").
std::optional<double> parse_real(std::string_view text);

/// An integer as written, kept as sign and magnitude so that values beyond long long (a seed
/// near 2^64, a typo with 25 digits) are still judged exactly.
struct IntegerLiteral {
  bool negative = false; ///< never true for zero
  std::uint64_t magnitude = 0;
  bool overflow = false; ///< |value| >= 2^64 (magnitude is then meaningless)
};

/// Decimal digits with an optional sign, or a number that is exactly an integer (`1e6`, `3.0`).
std::optional<IntegerLiteral> parse_integer_literal(std::string_view text);
bool is_less(const IntegerLiteral& literal, long long bound);
bool is_greater(const IntegerLiteral& literal, long long bound);
/// The value of a literal known to lie in long long's range.
long long value_of(const IntegerLiteral& literal);
/// For messages: the integer as the user meant it (`1e1` -> `10`), or the text when it is huge.
std::string spell(const IntegerLiteral& literal, std::string_view text);

enum class SizeStatus { ok, zero, malformed };
/// Bytes as parse_memory_size (config/setting_rules.hpp) reads them; zero told apart from
/// malformed text.
std::pair<SizeStatus, std::uint64_t> parse_size(std::string_view text);

} // namespace pfmc::config::detail
