#pragma once
// The prefetch backends the kernel layer instantiates, as host-only data: runtime names, what
// each one does, what it needs, and the distances. The config layer validates names and
// distances against it; the registry (engine/run/backend_registry.cuh) maps each (backend,
// distance) to its kernel instantiation (kernels/launcher_table.cuh).

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pfmc::kernels {

struct BackendInfo {
  const char* name;
  const char* description;     ///< one line, for `pfmc backends`
  int min_compute_capability;  ///< major*10+minor, e.g. 90 for sm_90-only backends
  bool uses_prefetch_distance; ///< false: the distance is ignored
  bool uses_padding;           ///< true for shared-memory rings
  bool reads_draws = true;     ///< false: computes its draws in the step loop (`inline`)
  /// A diagnostic of `pfmc bench` (`ideal`): refused by `price` and `tune`, not in the tuner's
  /// candidates, not compared with `none` (its draws are not the run's).
  bool bench_only = false;
};

/// The cap of a path kernel's wide instantiation (kernels/launcher_table.cuh), for launches
/// that run in one wave even at this cap (fits_one_wide_wave below: few paths, every block
/// resident at once, so the narrow cap would buy no occupancy): about the registers a
/// double-precision path takes where nothing holds it back (126-162 for the single-asset
/// models, sm_90, nvcc 13.0: docs/decisions.md#wide-kernels). 128 lets four 128-thread blocks
/// share an SM.
inline constexpr int kWideRegisters = 128;
/// An SM's registers (every architecture since sm_50), resident threads and blocks (sm_90).
inline constexpr int kRegistersPerMultiprocessor = 65536;
inline constexpr int kMaxThreadsPerMultiprocessor = 2048;
inline constexpr int kMaxBlocksPerMultiprocessor = 32;

/// Whether `blocks` blocks of `block_size` threads are all resident at once on `multiprocessors`
/// SMs when each thread holds kWideRegisters registers. Then the narrow register cap buys no
/// occupancy — every block runs from the start either way — and the wide kernel's registers only
/// save its spills (docs/decisions.md#wide-kernels). Shared memory limits both kernels alike.
inline bool fits_one_wide_wave(std::uint64_t blocks, int block_size, int multiprocessors) {
  const int per_block = kWideRegisters * block_size;
  if (per_block > kRegistersPerMultiprocessor)
    return false;
  const int resident =
      std::min({kRegistersPerMultiprocessor / per_block, kMaxThreadsPerMultiprocessor / block_size,
                kMaxBlocksPerMultiprocessor});
  return blocks <=
         static_cast<std::uint64_t>(resident) * static_cast<std::uint64_t>(multiprocessors);
}

/// Every backend, in the order `pfmc backends` lists them.
const std::vector<BackendInfo>& backend_catalog();

/// nullptr when no backend has that name.
const BackendInfo* find_backend(std::string_view name);

/// "none, unroll, ..." for error messages: the backends a run may name (not the bench-only).
std::string backend_name_list();

/// Why a device of compute capability `device_cc` (major*10+minor) cannot run `backend`, or an
/// empty string when it can.
std::string why_backend_cannot_run(const BackendInfo& backend, int device_cc,
                                   const std::string& device_name);

/// The prefetch distances a run may ask for, on every model (a distance outside this set is
/// refused); kernels/model_list.cuh names which of them each model's tuner tries (and a
/// PFMC_KERNELS=all build builds ahead). Black-Scholes: all of them.
inline constexpr int kPrefetchDistances[] = {1, 2, 3, 4, 6, 8, 12, 16};
/// The models beyond Black-Scholes: the distances that won on the reference workloads (4, the
/// default, and 8, the tuner's usual choice; docs/decisions.md#winning-distances). The one home of
/// that fact: the kernels built in (kernels/ahead_of_time.hpp) and the tuner's quick screen
/// (engine/tune/tuning.cpp) ask is_winning_distance.
inline constexpr int kReducedPrefetchDistances[] = {4, 8};
constexpr bool is_winning_distance(int distance) {
  for (const int d : kReducedPrefetchDistances) {
    if (d == distance)
      return true;
  }
  return false;
}
/// The Greeks' scenario kernels (eight model copies per path): distance 4.
inline constexpr int kScenarioPrefetchDistances[] = {4};

/// kPrefetchDistances, as a vector.
const std::vector<int>& prefetch_distances();
bool is_prefetch_distance(int distance);
std::string prefetch_distance_list(); ///< "1, 2, 3, 4, 6, 8, 12, 16"
/// kReducedPrefetchDistances, as a vector.
const std::vector<int>& reduced_prefetch_distances();

/// Why `backend` cannot draw from `rng` (the backends that compute their draws in the loop
/// compute Philox's), or an empty string when it can.
std::string why_backend_cannot_draw(const BackendInfo& backend, const std::string& rng);

} // namespace pfmc::kernels
