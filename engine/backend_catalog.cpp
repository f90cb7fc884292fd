#include "engine/backend_catalog.hpp"

#include <algorithm>

namespace pfmc::engine {

const std::vector<BackendInfo>& backend_catalog() {
  // name, description, minimum compute capability, takes a distance, takes a padding
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
       "block-wide shared-memory ring filled by 16-byte cp.async, PDIST steps ahead", 80, true,
       false},
      {"l2_prefetch", "prefetch.global.L2 of step s + PDIST, plain loads", 0, true, false},
      {"l2_prefetch_evict_last", "prefetch.global.L2::evict_last of step s + PDIST, plain loads",
       80, true, false},
      {"l2_hint_256b", "register ring whose loads carry the .L2::256B prefetch-size hint", 75, true,
       false},
      {"bulk_l2", "one thread per block bulk-prefetches the block's row of step s + PDIST into L2",
       90, true, false},
      {"tma", "bulk copies into a shared-memory stage ring completed on mbarriers, PDIST ahead", 90,
       true, false},
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

const std::vector<int>& reduced_prefetch_distances() {
  static const std::vector<int> distances{4, 8};
  return distances;
}

const std::vector<int>& prefetch_distances() {
  static const std::vector<int> distances = {1, 2, 3, 4, 6, 8, 12, 16};
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

} // namespace pfmc::engine
