#include "kernels/catalog.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <stdexcept>
#include <string>

#include "base/environment.hpp"

namespace pfmc::kernels {

namespace {

std::atomic<bool>& terminal_switch() {
  static std::atomic<bool> on{[] {
    const char* env = std::getenv("PFMC_TERMINAL_KERNELS");
    return env == nullptr || std::string(env) != "0";
  }()};
  return on;
}

std::atomic<int>& terminal_blocks_switch() {
  static std::atomic<int> blocks{0};
  return blocks;
}

/// $PFMC_TERMINAL_BLOCKS_PER_CTA, read once: 0 where unset or empty; a bad value is kept as its
/// error and thrown at use, where an exception reaches the caller.
int terminal_blocks_from_environment() {
  static const struct Read {
    int blocks = 0;
    std::string error;
  } read = [] {
    Read r;
    try {
      r.blocks = parse_terminal_blocks_per_cta(std::getenv("PFMC_TERMINAL_BLOCKS_PER_CTA"));
    } catch (const std::invalid_argument& e) {
      r.error = e.what();
    }
    return r;
  }();
  if (!read.error.empty())
    throw std::invalid_argument(read.error);
  return read.blocks;
}

} // namespace

int parse_terminal_blocks_per_cta(const char* text) {
  return base::parse_whole_number_variable("PFMC_TERMINAL_BLOCKS_PER_CTA", text, 1, 4096, 0);
}

int terminal_blocks_per_cta_setting() {
  const int set = terminal_blocks_switch().load();
  return set > 0 ? set : terminal_blocks_from_environment();
}

void set_terminal_blocks_per_cta(int blocks) {
  terminal_blocks_switch().store(blocks);
}

bool terminal_kernels() {
  return terminal_switch().load();
}

void set_terminal_kernels(bool on) {
  terminal_switch().store(on);
}

const std::vector<BackendInfo>& backend_catalog() {
  // name, description, minimum compute capability, takes a distance, takes a padding, reads
  // draws, bench only
  static const std::vector<BackendInfo> catalog = {
      {"none", "plain load of each step's draws inside the step loop (baseline)", 0, false, false},
      {"unroll", "the step loop unrolled PDIST times by the compiler: loads issued together", 0,
       true, false},
      {"scalar_batched", "every PDIST steps, load the next PDIST steps' draws into registers", 0,
       true, false},
      {"smem_batched", "every PDIST steps, load PDIST steps into the thread's shared-memory ring",
       0, true, true},
      {"scalar_rolling", "register ring, compile-time indexed: step s loads step s + PDIST", 0,
       true, false},
      {"smem_rolling", "per-thread shared-memory ring: step s loads step s + PDIST", 0, true, true},
      {"smem_rolling_async",
       "per-thread shared-memory ring filled by 4/8-byte cp.async, PDIST steps ahead, no barrier; "
       "the steps' arithmetic in groups of 4",
       80, true, true},
      {"smem_batched_async",
       "per-thread shared-memory ring, a lap of PDIST steps at a time: the lap goes to the path as "
       "a batch, the next lap's cp.async copies are issued before it runs",
       80, true, true},
      {"smem_block_async",
       "block-wide shared-memory ring filled by 16-byte cp.async, PDIST steps ahead, a barrier "
       "per step",
       80, true, false},
      {"l2_prefetch", "prefetch.global.L2 of step s + PDIST, plain loads", 0, true, false},
      {"l2_prefetch_evict_last", "prefetch.global.L2::evict_last of step s + PDIST, plain loads",
       80, true, false},
      {"l2_hint_256b", "register ring whose loads carry the .L2::256B prefetch-size hint", 75, true,
       false},
      {"bulk_l2", "one thread per block bulk-prefetches the block's row of step s + PDIST into L2",
       90, true, false},
      {"tma", "bulk copies into a shared-memory stage ring completed on mbarriers, PDIST ahead", 90,
       true, false},
      {"inline", "no draw buffer: each step's Philox draws computed in registers in the step loop",
       0, false, false, false},
      {"ideal",
       "bench only: scalar_batched's loop with free draws (a few instructions from thread and "
       "step), PDIST steps a batch: the ceiling of every loader; its prices mean nothing",
       0, true, false, false, true},
  };
  return catalog;
}

const BackendInfo* find_backend(std::string_view name) {
  const auto& catalog = backend_catalog();
  const auto it = std::find_if(catalog.begin(), catalog.end(),
                               [&](const BackendInfo& b) { return name == b.name; });
  return it == catalog.end() ? nullptr : &*it;
}

std::string backend_name_list() {
  std::string list;
  for (const auto& b : backend_catalog()) {
    if (!b.bench_only)
      list += (list.empty() ? "" : ", ") + std::string(b.name);
  }
  return list;
}

std::string why_backend_cannot_run(const BackendInfo& backend, int device_cc,
                                   const std::string& device_name) {
  if (device_cc >= backend.min_compute_capability)
    return {};
  const auto version = [](int cc) {
    return std::to_string(cc / 10) + "." + std::to_string(cc % 10);
  };
  return "backend '" + std::string(backend.name) + "' needs compute capability " +
         version(backend.min_compute_capability) + " (sm_" +
         std::to_string(backend.min_compute_capability) + "); " + device_name + " has " +
         version(device_cc);
}

std::string why_backend_cannot_draw(const BackendInfo& backend, const std::string& rng) {
  if (backend.reads_draws || backend.bench_only || rng == "philox")
    return {};
  return "backend '" + std::string(backend.name) +
         "' computes Philox draws in the step loop; rng '" + rng +
         "' is generated by cuRAND into a buffer: use rng: philox, or another backend";
}

const std::vector<int>& reduced_prefetch_distances() {
  static const std::vector<int> distances(std::begin(kReducedPrefetchDistances),
                                          std::end(kReducedPrefetchDistances));
  return distances;
}

const std::vector<int>& prefetch_distances() {
  static const std::vector<int> distances(std::begin(kPrefetchDistances),
                                          std::end(kPrefetchDistances));
  return distances;
}

bool is_prefetch_distance(int distance) {
  const auto& d = prefetch_distances();
  return std::find(d.begin(), d.end(), distance) != d.end();
}

std::string prefetch_distance_list() {
  std::string list;
  for (int d : prefetch_distances()) {
    list += (list.empty() ? "" : ", ") + std::to_string(d);
  }
  return list;
}

} // namespace pfmc::kernels
