#include "config/setting_rules.hpp"
#include "config/spellings.hpp"

#include <array>
#include <limits>
#include <utility>

#include "kernels/catalog.hpp"

namespace pfmc::config {

namespace {

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

} // namespace

std::optional<Precision> parse_precision(std::string_view text) {
  return parse_enum(text, spellings::kPrecisions);
}

std::optional<RngType> parse_rng(std::string_view text) {
  return parse_enum(text, spellings::kRngs);
}

std::optional<MathProfile> parse_math_profile(std::string_view text) {
  return parse_enum(text, spellings::kMathProfiles);
}

std::optional<GreeksMethod> parse_greeks_method(std::string_view text) {
  return parse_enum(text, spellings::kGreeksMethods);
}

std::optional<DeviceChoice> parse_device(std::string_view text) {
  return parse_enum(text, spellings::kDevices);
}

std::optional<Padding> parse_padding(std::string_view text) {
  for (auto mode : {Padding::Mode::automatic, Padding::Mode::none, Padding::Mode::slot_major}) {
    Padding padding{mode, 0};
    if (text == to_string(padding)) {
      return padding;
    }
  }
  const auto amount = detail::check_integer(text, 0, 64).value;
  if (!amount) {
    return std::nullopt;
  }
  return Padding{Padding::Mode::fixed, static_cast<int>(*amount)};
}

std::optional<Greek> parse_greek(std::string_view text) {
  return parse_enum(text, kAllGreeks);
}

std::string greek_spellings() {
  return join_spellings(kAllGreeks);
}

std::optional<std::uint64_t> parse_memory_size(std::string_view text) {
  const auto [status, bytes] = detail::parse_size(text);
  if (status != detail::SizeStatus::ok) {
    return std::nullopt;
  }
  return bytes;
}

namespace detail {

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

/// One of `values`, spelled as to_string spells it.
template <class Enum, std::size_t N>
Checked<Enum> check_choice(std::string_view text, const std::array<Enum, N>& values) {
  if (const auto value = parse_enum(text, values)) {
    return Checked<Enum>::ok(*value);
  }
  return Checked<Enum>::fail("must be one of: " + join_spellings(values));
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
  return check_choice(text, spellings::kRngs);
}

Checked<Precision> check_precision(std::string_view text) {
  return check_choice(text, spellings::kPrecisions);
}

Checked<MathProfile> check_math_profile(std::string_view text) {
  return check_choice(text, spellings::kMathProfiles);
}

Checked<GreeksMethod> check_greeks_method(std::string_view text) {
  return check_choice(text, spellings::kGreeksMethods);
}

Checked<DeviceChoice> check_device(std::string_view text) {
  return check_choice(text, spellings::kDevices);
}

Checked<std::string> check_backend(std::string_view text) {
  // `auto`: the tuner's cached choice for this GPU and workload (engine/tune/tuning.hpp).
  if (text == "auto")
    return Checked<std::string>::ok("auto");
  const kernels::BackendInfo* backend = kernels::find_backend(text);
  if (backend == nullptr) {
    return Checked<std::string>::fail("unknown backend '" + std::string(text) + "' (known: auto, " +
                                      kernels::backend_name_list() + ")");
  }
  if (backend->bench_only) {
    return Checked<std::string>::fail("'" + std::string(text) +
                                      "' is a diagnostic of `pfmc bench` (free draws, prices that "
                                      "mean nothing), not a backend to price with (known: auto, " +
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

Checked<DeviceList> check_devices(std::string_view text) {
  DeviceList devices;
  if (text == "all") {
    devices.kind = DeviceList::Kind::all;
    return Checked<DeviceList>::ok(devices);
  }
  const auto comma = text.find(',');
  if (comma == std::string_view::npos) {
    const Checked<long long> count = check_integer(text, 1, kMaxDevices);
    if (!count.value) {
      return Checked<DeviceList>::fail("must be all, a number of devices 1.." +
                                       std::to_string(kMaxDevices) +
                                       ", or a list of device ordinals such as [0, 2]");
    }
    devices.kind = DeviceList::Kind::count;
    devices.count = static_cast<int>(*count.value);
    return Checked<DeviceList>::ok(devices);
  }
  devices.kind = DeviceList::Kind::list;
  std::string_view rest = text;
  while (true) {
    const auto end = rest.find(',');
    const Checked<long long> ordinal = check_integer(rest.substr(0, end), 0, kMaxDevices - 1);
    if (!ordinal.value) {
      return Checked<DeviceList>::fail("device ordinals must be integers 0.." +
                                       std::to_string(kMaxDevices - 1) + " (e.g. 0,2)");
    }
    devices.ordinals.push_back(static_cast<int>(*ordinal.value));
    if (end == std::string_view::npos)
      break;
    rest = rest.substr(end + 1);
    if (rest.empty() && devices.ordinals.size() == 1)
      break; // "2,": the list of device 2 alone (a number alone is a count)
  }
  if (devices.ordinals.size() > static_cast<std::size_t>(kMaxDevices))
    return Checked<DeviceList>::fail("at most " + std::to_string(kMaxDevices) + " devices");
  return Checked<DeviceList>::ok(devices);
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

Checked<int> check_terminal_blocks_per_cta(std::string_view text) {
  if (text == "auto")
    return Checked<int>::ok(0);
  return narrow<int>(check_integer(text, 1, 4096));
}

Checked<int> check_unit_groups(std::string_view text) {
  return narrow<int>(check_integer(text, 0, 1'000'000));
}

Checked<int> check_replicates(std::string_view text) {
  return narrow<int>(check_integer(text, 1, 1024));
}

Checked<std::uint64_t> check_regression_paths(std::string_view text) {
  return narrow<std::uint64_t>(check_integer(text, 0, 1'000'000'000'000LL));
}

Checked<int> check_regression_degree(std::string_view text) {
  return narrow<int>(check_integer(text, 1, kMaxRegressionDegree));
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
          " (expected none, or a comma-separated list of: " + join_spellings(kAllGreeks) + ")");
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
  for (Greek g : kAllGreeks) {
    if (wanted[static_cast<std::size_t>(g)]) {
      greeks.push_back(g);
    }
  }
  return Result::ok(std::move(greeks));
}

std::optional<SimulationConflict> check_simulation(const SimulationConfig& simulation) {
  if (simulation.math == MathProfile::fast && !simulation.greeks.empty()) {
    return SimulationConflict{{"math", "greeks"},
                              "the fast math profile prices without Greeks: the Greeks' kernels "
                              "have the accurate profile only (leave out greeks, or use math: "
                              "accurate)",
                              {}};
  }
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

std::string SimulationConflict::message_blaming(std::size_t k) const {
  return message + (k > 0 && !note.empty() ? " (" + note + ")" : std::string());
}

} // namespace detail

} // namespace pfmc::config
