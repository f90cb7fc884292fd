#include "config/overrides.hpp"

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include "config/config_error.hpp"
#include "kernels/catalog.hpp"

namespace pfmc::config {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::size_t count_digits(std::string_view text, std::size_t from) {
  std::size_t n = 0;
  while (from + n < text.size() && is_digit(text[from + n])) {
    ++n;
  }
  return n;
}

/// An integer as written, kept as sign and magnitude so that values beyond long long (a seed
/// near 2^64, a typo with 25 digits) are still judged exactly.
struct IntegerLiteral {
  bool negative = false; ///< never true for zero
  std::uint64_t magnitude = 0;
  bool overflow = false; ///< |value| >= 2^64 (magnitude is then meaningless)
};

constexpr double two_to_the_64 = 18446744073709551616.0;

std::optional<IntegerLiteral> parse_integer_literal(std::string_view text) {
  std::size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    i = 1;
  }
  if (i < text.size() && count_digits(text, i) == text.size() - i) {
    IntegerLiteral literal;
    for (; i < text.size(); ++i) {
      const auto digit = static_cast<std::uint64_t>(text[i] - '0');
      if (literal.magnitude > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
        literal.overflow = true;
      } else {
        literal.magnitude = literal.magnitude * 10 + digit;
      }
    }
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

std::uint64_t magnitude_of(long long value) {
  // -(value + 1) + 1 avoids negating LLONG_MIN.
  return value < 0 ? static_cast<std::uint64_t>(-(value + 1)) + 1
                   : static_cast<std::uint64_t>(value);
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

/// The value of a literal known to lie in long long's range.
long long value_of(const IntegerLiteral& literal) {
  if (literal.negative) {
    return literal.magnitude == magnitude_of(std::numeric_limits<long long>::min())
               ? std::numeric_limits<long long>::min()
               : -static_cast<long long>(literal.magnitude);
  }
  return static_cast<long long>(literal.magnitude);
}

/// For messages: the integer as the user meant it (`1e1` -> `10`), or the text when it is huge.
std::string spell(const IntegerLiteral& literal, std::string_view text) {
  if (literal.overflow) {
    return std::string(text);
  }
  return (literal.negative ? "-" : "") + std::to_string(literal.magnitude);
}

enum class SizeStatus { ok, zero, malformed };

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

std::pair<SizeStatus, std::uint64_t> parse_size(std::string_view text) {
  const std::size_t int_digits = count_digits(text, 0);
  if (int_digits == 0) {
    return {SizeStatus::malformed, 0};
  }
  std::size_t end = int_digits;
  std::size_t frac_digits = 0;
  if (end < text.size() && text[end] == '.') {
    frac_digits = count_digits(text, end + 1);
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
    const auto literal = parse_integer_literal(text.substr(0, int_digits));
    if (!literal || literal->overflow ||
        literal->magnitude > std::numeric_limits<std::uint64_t>::max() / unit->bytes) {
      return {SizeStatus::malformed, 0};
    }
    bytes = literal->magnitude * unit->bytes;
  } else {
    const long double scaled =
        std::strtold(std::string(text.substr(0, end)).c_str(), nullptr) * unit->bytes;
    const long double rounded = std::floor(scaled + 0.5L);
    if (!(rounded < static_cast<long double>(two_to_the_64))) {
      return {SizeStatus::malformed, 0};
    }
    bytes = static_cast<std::uint64_t>(rounded);
  }
  return {bytes == 0 ? SizeStatus::zero : SizeStatus::ok, bytes};
}

template <class Range>
std::string join_spellings(const Range& values) {
  std::string list;
  for (const auto& v : values) {
    list += (list.empty() ? "" : ", ") + std::string(to_string(v));
  }
  return list;
}

template <class Enum, std::size_t N>
std::optional<Enum> parse_enum(std::string_view text, const std::array<Enum, N>& values) {
  for (Enum v : values) {
    if (text == to_string(v)) {
      return v;
    }
  }
  return std::nullopt;
}

constexpr std::array<RngType, 4> all_rngs = {RngType::philox, RngType::mrg32k3a, RngType::sobol,
                                             RngType::scrambled_sobol};
constexpr std::array<Precision, 2> all_precisions = {Precision::float32, Precision::float64};
constexpr std::array<DeviceChoice, 3> all_devices = {DeviceChoice::automatic, DeviceChoice::gpu,
                                                     DeviceChoice::cpu};
constexpr std::array<Greek, kGreekCount> all_greeks = {Greek::delta, Greek::gamma, Greek::vega,
                                                       Greek::rho, Greek::theta};

template <class T>
T take(detail::Checked<T> checked, const char* flag) {
  if (!checked.value) {
    throw ConfigError("", SourceMark{}, flag, checked.error);
  }
  return std::move(*checked.value);
}

} // namespace

std::optional<Precision> parse_precision(std::string_view text) {
  return parse_enum(text, all_precisions);
}

std::optional<RngType> parse_rng(std::string_view text) {
  return parse_enum(text, all_rngs);
}

std::optional<DeviceChoice> parse_device(std::string_view text) {
  return parse_enum(text, all_devices);
}

std::optional<Padding> parse_padding(std::string_view text) {
  for (auto mode : {Padding::Mode::automatic, Padding::Mode::none, Padding::Mode::slot_major}) {
    Padding padding{mode, 0};
    if (text == to_string(padding)) {
      return padding;
    }
  }
  const auto literal = parse_integer_literal(text);
  if (!literal || is_less(*literal, 0) || is_greater(*literal, 64)) {
    return std::nullopt;
  }
  return Padding{Padding::Mode::fixed, static_cast<int>(literal->magnitude)};
}

std::optional<Greek> parse_greek(std::string_view text) {
  return parse_enum(text, all_greeks);
}

std::optional<std::uint64_t> parse_memory_size(std::string_view text) {
  const auto [status, bytes] = parse_size(text);
  if (status != SizeStatus::ok) {
    return std::nullopt;
  }
  return bytes;
}

namespace detail {

std::optional<double> parse_real(std::string_view text) {
  std::size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    i = 1;
  }
  const std::string_view body = text.substr(i);
  if (body == ".inf" || body == ".Inf" || body == ".INF") {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (i == 0 && (body == ".nan" || body == ".NaN" || body == ".NAN")) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  // [0-9]+ ( . [0-9]* )? | . [0-9]+, then ( [eE] [-+]? [0-9]+ )?
  const std::size_t int_digits = count_digits(text, i);
  i += int_digits;
  std::size_t frac_digits = 0;
  if (i < text.size() && text[i] == '.') {
    frac_digits = count_digits(text, i + 1);
    i += 1 + frac_digits;
  }
  if (int_digits + frac_digits == 0) {
    return std::nullopt;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
      ++i;
    }
    const std::size_t exp_digits = count_digits(text, i);
    if (exp_digits == 0) {
      return std::nullopt;
    }
    i += exp_digits;
  }
  if (i != text.size()) {
    return std::nullopt;
  }
  // The grammar above leaves strtod nothing locale- or base-dependent to interpret except the
  // decimal point, and pfmc never changes LC_NUMERIC. Out-of-range values come back as +-inf.
  return std::strtod(std::string(text).c_str(), nullptr);
}

Checked<long long> check_integer(std::string_view text, long long lo, long long hi) {
  const auto literal = parse_integer_literal(text);
  if (!literal) {
    return Checked<long long>::fail("must be an integer");
  }
  if (is_less(*literal, lo)) {
    return Checked<long long>::fail("must be >= " + std::to_string(lo));
  }
  if (is_greater(*literal, hi)) {
    return Checked<long long>::fail("must be <= " + std::to_string(hi));
  }
  return Checked<long long>::ok(value_of(*literal));
}

namespace {
template <class T>
Checked<T> narrow(Checked<long long> checked) {
  if (!checked.value) {
    return Checked<T>::fail(std::move(checked.error));
  }
  return Checked<T>::ok(static_cast<T>(*checked.value));
}
} // namespace

Checked<std::uint64_t> check_paths(std::string_view text) {
  return narrow<std::uint64_t>(check_integer(text, 1, 1'000'000'000'000LL));
}

Checked<int> check_steps_per_year(std::string_view text) {
  return narrow<int>(check_integer(text, 0, 100'000));
}

Checked<std::uint64_t> check_seed(std::string_view text) {
  const auto literal = parse_integer_literal(text);
  if (!literal) {
    return Checked<std::uint64_t>::fail("must be an integer");
  }
  if (literal->negative) {
    return Checked<std::uint64_t>::fail("must be >= 0");
  }
  if (literal->overflow) {
    return Checked<std::uint64_t>::fail("must be <= " +
                                        std::to_string(std::numeric_limits<std::uint64_t>::max()));
  }
  return Checked<std::uint64_t>::ok(literal->magnitude);
}

Checked<RngType> check_rng(std::string_view text) {
  if (const auto rng = parse_rng(text)) {
    return Checked<RngType>::ok(*rng);
  }
  return Checked<RngType>::fail("must be one of: " + join_spellings(all_rngs));
}

Checked<Precision> check_precision(std::string_view text) {
  if (const auto precision = parse_precision(text)) {
    return Checked<Precision>::ok(*precision);
  }
  return Checked<Precision>::fail("must be one of: " + join_spellings(all_precisions));
}

Checked<DeviceChoice> check_device(std::string_view text) {
  if (const auto device = parse_device(text)) {
    return Checked<DeviceChoice>::ok(*device);
  }
  return Checked<DeviceChoice>::fail("must be one of: " + join_spellings(all_devices));
}

Checked<std::string> check_backend(std::string_view text) {
  // `auto`: the tuner's cached choice for this GPU and workload (engine/tune/tuning.hpp).
  if (text == "auto")
    return Checked<std::string>::ok("auto");
  if (kernels::find_backend(text) == nullptr) {
    return Checked<std::string>::fail("unknown backend '" + std::string(text) + "' (known: auto, " +
                                      kernels::backend_name_list() + ")");
  }
  return Checked<std::string>::ok(std::string(text));
}

Checked<int> check_prefetch_distance(std::string_view text) {
  const auto literal = parse_integer_literal(text);
  if (!literal) {
    return Checked<int>::fail("must be an integer");
  }
  const bool fits_int = !literal->overflow && literal->magnitude <= 1'000'000;
  if (!fits_int || !kernels::is_prefetch_distance(static_cast<int>(value_of(*literal)))) {
    return Checked<int>::fail(spell(*literal, text) + " is not an instantiated distance (valid: " +
                              kernels::prefetch_distance_list() + ")");
  }
  return Checked<int>::ok(static_cast<int>(value_of(*literal)));
}

Checked<Padding> check_padding(std::string_view text) {
  if (const auto padding = parse_padding(text)) {
    return Checked<Padding>::ok(*padding);
  }
  return Checked<Padding>::fail("must be one of: auto, none, slot_major, or an integer 0..64");
}

Checked<int> check_block_size(std::string_view text) {
  const auto literal = parse_integer_literal(text);
  if (!literal) {
    return Checked<int>::fail("must be an integer");
  }
  // A power of two: a block then never straddles a draw tile (kernels/draw_layout.hpp).
  const auto size = literal->magnitude;
  if (is_less(*literal, 32) || is_greater(*literal, 1024) || (size & (size - 1)) != 0) {
    return Checked<int>::fail("must be a power of two in 32..1024 (32, 64, 128, 256, 512, 1024)");
  }
  return Checked<int>::ok(static_cast<int>(literal->magnitude));
}

Checked<std::uint64_t> check_draw_batch_size(std::string_view text) {
  if (text == "0")
    return Checked<std::uint64_t>::ok(0);
  const auto [status, bytes] = parse_size(text);
  if (status != SizeStatus::ok) {
    return Checked<std::uint64_t>::fail("must be a size (e.g. 256MiB) or 0 for no draw batches");
  }
  if (bytes > (std::uint64_t(64) << 30))
    return Checked<std::uint64_t>::fail("must be at most 64GiB");
  return Checked<std::uint64_t>::ok(bytes);
}

Checked<std::uint64_t> check_max_device_memory(std::string_view text) {
  const auto [status, bytes] = parse_size(text);
  switch (status) {
  case SizeStatus::ok:
    return Checked<std::uint64_t>::ok(bytes);
  case SizeStatus::zero:
    return Checked<std::uint64_t>::fail("must be > 0");
  case SizeStatus::malformed:
    break;
  }
  return Checked<std::uint64_t>::fail(
      "must be a number of bytes or a size such as 512MiB, 4GiB or 2GB");
}

Checked<int> check_cpu_threads(std::string_view text) {
  return narrow<int>(check_integer(text, 0, 4096));
}

Checked<int> check_replicates(std::string_view text) {
  return narrow<int>(check_integer(text, 1, 1024));
}

Checked<std::vector<Greek>> check_greeks(std::string_view text) {
  using Result = Checked<std::vector<Greek>>;
  if (text == "none") {
    return Result::ok({});
  }
  std::array<bool, kGreekCount> wanted{};
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item =
        text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    const auto greek = parse_greek(item);
    if (!greek) {
      return Result::fail(
          (item.empty() ? std::string("empty name") : "unknown greek '" + std::string(item) + "'") +
          " (expected none, or a comma-separated list of: " + join_spellings(all_greeks) + ")");
    }
    if (wanted[static_cast<std::size_t>(*greek)]) {
      return Result::fail("duplicate greek '" + std::string(item) + "'");
    }
    wanted[static_cast<std::size_t>(*greek)] = true;
    if (comma == std::string_view::npos) {
      break;
    }
    start = comma + 1;
  }
  std::vector<Greek> greeks;
  for (Greek g : all_greeks) {
    if (wanted[static_cast<std::size_t>(g)]) {
      greeks.push_back(g);
    }
  }
  return Result::ok(std::move(greeks));
}

std::optional<SimulationConflict> check_simulation(const SimulationConfig& simulation) {
  const std::uint64_t paths = simulation.paths;
  const int replicates = simulation.replicates;
  const std::string paths_text = std::to_string(paths);
  const std::string replicates_text = std::to_string(replicates);
  if (replicates != 0 && simulation.rng != RngType::scrambled_sobol) {
    if (simulation.rng != RngType::sobol) {
      return SimulationConflict{{"replicates", "rng"},
                                std::string("replicates apply to scrambled_sobol only (rng is ") +
                                    to_string(simulation.rng) + ")",
                                {}};
    }
    if (replicates != 1) {
      return SimulationConflict{
          {"replicates", "rng"},
          "replicates apply to scrambled_sobol only: plain sobol has no randomisation to repeat, "
          "so it runs one replicate (use rng: scrambled_sobol, or replicates: 1)",
          {}};
    }
  }
  if (simulation.antithetic && paths % 2 != 0) {
    return SimulationConflict{{"paths", "antithetic"},
                              "antithetic pairs need an even number of paths",
                              "paths is " + paths_text};
  }
  if (replicates > 1) {
    const auto count = static_cast<std::uint64_t>(replicates);
    if (paths % count != 0) {
      return SimulationConflict{{"paths", "replicates"},
                                paths_text + " paths do not split evenly into " + replicates_text +
                                    " replicates",
                                {}};
    }
    if (paths / count < 2) {
      return SimulationConflict{{"paths", "replicates"},
                                "each of the " + replicates_text +
                                    " replicates needs at least 2 paths (paths is " + paths_text +
                                    ")",
                                {}};
    }
    if (simulation.antithetic && (paths / count) % 2 != 0) {
      // A pair must not straddle two replicates: each replicate is an independent estimate.
      return SimulationConflict{{"paths", "replicates", "antithetic"},
                                "antithetic pairs need an even number of paths in each replicate "
                                "(" +
                                    paths_text + " paths / " + replicates_text +
                                    " replicates = " + std::to_string(paths / count) + ")",
                                {}};
    }
  }
  return std::nullopt;
}

} // namespace detail

void apply_overrides(RunConfig& config, const Overrides& overrides) {
  // Judge every flag on a copy first, so that a bad flag leaves the config untouched.
  EngineConfig engine = config.engine;
  SimulationConfig simulation = config.simulation;
  const auto text = [](long long value) { return std::to_string(value); };

  if (overrides.device) {
    engine.device = take(detail::check_device(*overrides.device), "--device");
  }
  if (overrides.backend) {
    engine.backend = take(detail::check_backend(*overrides.backend), "--backend");
    engine.backend_mark = SourceMark{};
  }
  if (overrides.padding) {
    engine.padding = take(detail::check_padding(*overrides.padding), "--padding");
  }
  if (overrides.precision) {
    simulation.precision = take(detail::check_precision(*overrides.precision), "--precision");
  }
  if (overrides.rng) {
    simulation.rng = take(detail::check_rng(*overrides.rng), "--rng");
  }
  if (overrides.prefetch_distance) {
    engine.prefetch_distance = take(
        detail::check_prefetch_distance(text(*overrides.prefetch_distance)), "--prefetch-distance");
  }
  if (overrides.block_size) {
    engine.block_size = take(detail::check_block_size(text(*overrides.block_size)), "--block-size");
  }
  if (overrides.cpu_threads) {
    engine.cpu_threads =
        take(detail::check_cpu_threads(text(*overrides.cpu_threads)), "--cpu-threads");
  }
  if (overrides.paths) {
    simulation.paths = take(detail::check_paths(*overrides.paths), "--paths");
  }
  if (overrides.seed) {
    simulation.seed = take(detail::check_seed(*overrides.seed), "--seed");
  }
  if (overrides.draw_batch_size) {
    engine.draw_batch_size =
        take(detail::check_draw_batch_size(*overrides.draw_batch_size), "--draw-batch-size");
  }
  if (overrides.max_device_memory) {
    engine.max_device_memory =
        take(detail::check_max_device_memory(*overrides.max_device_memory), "--max-device-memory");
  }
  if (overrides.replicates) {
    simulation.replicates = take(detail::check_replicates(*overrides.replicates), "--replicates");
  }
  if (overrides.greeks) {
    simulation.greeks = take(detail::check_greeks(*overrides.greeks), "--greeks");
  }
  if (overrides.antithetic) {
    simulation.antithetic = *overrides.antithetic;
  }
  if (overrides.control_variate) {
    simulation.control_variate = *overrides.control_variate;
  }
  if (auto conflict = detail::check_simulation(simulation)) {
    // Blame a flag that was given; a conflict among YAML values alone (a config that did not come
    // from the loader) is reported at its key.
    const auto flag_of = [&](std::string_view key) -> const char* {
      if (key == "paths" && overrides.paths)
        return "--paths";
      if (key == "replicates" && overrides.replicates)
        return "--replicates";
      if (key == "rng" && overrides.rng)
        return "--rng";
      if (key == "antithetic" && overrides.antithetic)
        return "--antithetic";
      return nullptr;
    };
    for (std::size_t k = 0; k < conflict->keys.size(); ++k) {
      if (const char* flag = flag_of(conflict->keys[k])) {
        throw ConfigError("", SourceMark{}, flag,
                          conflict->message + (k > 0 && !conflict->note.empty()
                                                   ? " (" + conflict->note + ")"
                                                   : std::string()));
      }
    }
    throw ConfigError("", SourceMark{}, std::string("simulation.") + conflict->keys.front(),
                      conflict->message);
  }

  config.engine = std::move(engine);
  config.simulation = simulation;
}

} // namespace pfmc::config
