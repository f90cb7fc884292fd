#include "engine/backend_catalog.hpp"

#include <algorithm>

namespace pfmc::engine {

const std::vector<BackendInfo>& backend_catalog() {
  static const std::vector<BackendInfo> catalog = {
      {"none", "plain load of each step's draws inside the step loop (baseline)", 0, false, false},
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
