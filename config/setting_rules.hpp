#pragma once
// The value rules of the settings that both the YAML and the command line can set: a setting is
// accepted (or refused, with the same words) whether it was written in the file or given as a
// flag (config/overrides.hpp).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/number_syntax.hpp" // detail::parse_real
#include "config/run_config.hpp"

namespace pfmc::config {

/// Every Greek, in Greek order (the order of every output).
inline constexpr std::array<Greek, kGreekCount> kAllGreeks = {
    Greek::delta, Greek::gamma, Greek::vega, Greek::rho, Greek::theta, Greek::cross_gamma};

// Parsers shared by the YAML loader and the command line. They accept exactly the spellings of
// run_config.hpp's to_string, and nothing else (no case folding, no surrounding blanks).
std::optional<Precision> parse_precision(std::string_view text); ///< "float" | "double"
std::optional<RngType> parse_rng(std::string_view text); ///< philox|mrg32k3a|sobol|scrambled_sobol
std::optional<MathProfile> parse_math_profile(std::string_view text); ///< "accurate" | "fast"
/// "auto" | "bump" | "pathwise"
std::optional<GreeksMethod> parse_greeks_method(std::string_view text);
std::optional<DeviceChoice> parse_device(std::string_view text); ///< "auto" | "gpu" | "cpu"
/// "auto" | "none" | "slot_major" | an integer 0..64 (a fixed amount of padding).
std::optional<Padding> parse_padding(std::string_view text);
std::optional<Greek> parse_greek(std::string_view text); ///< kAllGreeks' spellings
/// kAllGreeks' spellings, comma-separated ("delta, gamma, ..."): for help texts.
std::string greek_spellings();
/// Bytes: "1073741824", or a number with a unit: "512MiB", "4GiB", "1.5GiB" (KiB, MiB, GiB, TiB
/// are powers of 1024), "2GB" (KB, MB, GB, TB are powers of 1000), "100B". A fraction needs a
/// unit and is rounded to the nearest byte. nullopt when malformed, zero, or over 2^64 - 1.
std::optional<std::uint64_t> parse_memory_size(std::string_view text);

/// The highest polynomial degree of the early-exercise regression's basis.
inline constexpr int kMaxRegressionDegree = 3;

namespace detail {

/// A value judged by one of the rules below: either `value`, or `error` (the message that goes
/// after the key path, e.g. "must be >= 1").
template <class T>
struct Checked {
  std::optional<T> value;
  std::string error;

  static Checked ok(T v) { return {std::move(v), {}}; }
  static Checked fail(std::string message) { return {std::nullopt, std::move(message)}; }
};

/// An integer in [lo, hi]: decimal digits with an optional sign, or a number that is exactly an
/// integer (`1e6`, `3.0`). Errors: "must be an integer", "must be >= lo", "must be <= hi".
Checked<long long> check_integer(std::string_view text, long long lo, long long hi);

// The rules of the settings that a flag can override (see DESIGN.md's config contract).
Checked<std::uint64_t> check_paths(std::string_view text); ///< 1..1e12
/// 0..100000; 0 is the event grid (only the instruments' dates, see SimulationConfig).
Checked<int> check_steps_per_year(std::string_view text);
Checked<std::uint64_t> check_seed(std::string_view text); ///< 0..2^64-1
Checked<RngType> check_rng(std::string_view text);
Checked<Precision> check_precision(std::string_view text);
Checked<MathProfile> check_math_profile(std::string_view text);
Checked<GreeksMethod> check_greeks_method(std::string_view text);
Checked<DeviceChoice> check_device(std::string_view text);
Checked<std::string> check_backend(std::string_view text);   ///< a backend_catalog() name
Checked<int> check_prefetch_distance(std::string_view text); ///< kernels::is_prefetch_distance
Checked<Padding> check_padding(std::string_view text);
/// `all`, a count 1..kMaxDevices, or comma-separated ordinals 0..kMaxDevices-1 (`0,2`).
Checked<DeviceList> check_devices(std::string_view text);
Checked<int> check_block_size(std::string_view text);                  ///< power of two in 32..1024
Checked<std::uint64_t> check_max_device_memory(std::string_view text); ///< parse_memory_size
/// A size as parse_memory_size, or 0 (no draw batches), at most 64 GiB.
Checked<std::uint64_t> check_draw_batch_size(std::string_view text);
Checked<int> check_cpu_threads(std::string_view text); ///< 0..4096, 0 = all
/// `auto` (0: the launch's choice) or 1..4096 blocks of paths a terminal launch's block takes.
Checked<int> check_terminal_blocks_per_cta(std::string_view text);
Checked<int> check_unit_groups(std::string_view text); ///< 0..1,000,000, 0 = no limit
Checked<int> check_replicates(std::string_view text);  ///< 1..1024
/// 0..1e12 paths of the early-exercise regression (0: as many as simulation.paths).
Checked<std::uint64_t> check_regression_paths(std::string_view text);
/// 1..kMaxRegressionDegree (models/exercise.cuh's basis sizes follow from it).
Checked<int> check_regression_degree(std::string_view text);
/// `none` (no Greeks) or a comma-separated list of distinct Greeks, returned in Greek order.
Checked<std::vector<Greek>> check_greeks(std::string_view text);

/// A rule across simulation settings that `simulation` breaks: the `simulation` keys involved,
/// the one to blame first (the YAML loader blames the first one written in the file, overrides
/// the first one given as a flag), and the message. `note` (the value of keys[0]) is appended in
/// parentheses when the blame falls on another key, whose reader may not see keys[0].
struct SimulationConflict {
  std::vector<const char*> keys;
  std::string message;
  std::string note;

  /// The message when the blame falls on keys[k]: with the note when k > 0.
  [[nodiscard]] std::string message_blaming(std::size_t k) const;
};

/// The rules of antithetic pairs and replicates:
/// - replicates (when given, i.e. not 0) apply to rng scrambled_sobol only; with plain sobol
///   only 1 is allowed (it has no randomisation to repeat);
/// - antithetic needs an even number of paths, in total and in each replicate;
/// - replicates > 1 split the paths evenly, at least 2 paths each.
std::optional<SimulationConflict> check_simulation(const SimulationConfig& simulation);

} // namespace detail

} // namespace pfmc::config
