#pragma once
// Lookup of a path-kernel launcher by runtime name: the registry over kernels/launcher_table.cuh.

#include <string_view>

#include "config/run_config.hpp"
#include "kernels/catalog.hpp"
#include "kernels/launcher_table.cuh"

namespace pfmc::engine {

/// The registry's entry of (backend, distance), or nullptr when there is no such backend or
/// distance. Backends that take no distance ignore it. `tuned_only`: the tuner's candidates
/// alone (kernels/launcher_table.cuh's LauncherEntry::tuned).
template <class Model, class Real>
const kernels::LauncherEntry<Model, Real>*
find_launcher(std::string_view backend, int prefetch_distance, bool tuned_only = false) {
  const kernels::BackendInfo* info = kernels::find_backend(backend);
  if (info == nullptr)
    return nullptr;
  if (info->uses_prefetch_distance && !kernels::is_prefetch_distance(prefetch_distance))
    return nullptr;
  for (const auto& entry : kernels::launcher_table<Model, Real>()) {
    if (backend == entry.backend &&
        (entry.any_distance || entry.prefetch_distance == prefetch_distance)) {
      return tuned_only && !entry.tuned ? nullptr : &entry;
    }
  }
  return nullptr;
}

} // namespace pfmc::engine
