#pragma once
// The one place where runtime backend names become template instantiations: for a model and a
// precision, every (backend, prefetch distance) pair maps to a launch function. Adding a backend
// is its loader header plus one add_loader line below (and its entry in
// engine/backend_catalog.cpp, which a test keeps in step with this table).

#include <utility>
#include <vector>

#include "kernels/launch.cuh"
#include "kernels/loaders/none.cuh"
#include "models/black_scholes.cuh"

namespace pfmc::kernels {

template <class Model, class Real>
struct LauncherEntry {
  const char* backend;
  int prefetch_distance; ///< 0 for backends without a distance
  PathKernelLauncher<Model, Real> launch;
};

template <class Model, class Real>
using LauncherTable = std::vector<LauncherEntry<Model, Real>>;

/// Must match engine::prefetch_distances() (checked by a test).
using InstantiatedDistances = std::integer_sequence<int, 1, 2, 3, 4, 6, 8, 12, 16>;
using NoDistance = std::integer_sequence<int, 0>;

template <template <class, int, int> class Loader, class Model, class Real, int... Distances>
void add_loader(LauncherTable<Model, Real>& table, std::integer_sequence<int, Distances...>) {
  (table.push_back(LauncherEntry<Model, Real>{
       Loader<Real, Model::factors, Distances>::name, Distances,
       &launch_path_kernel<Model, Loader<Real, Model::factors, Distances>, Real>}),
   ...);
}

template <class Model, class Real>
LauncherTable<Model, Real> make_launcher_table() {
  LauncherTable<Model, Real> table;
  add_loader<NoneLoader, Model, Real>(table, NoDistance{});
  return table;
}

/// Defined, one (model, precision) per file, in kernels/instantiate_*.cu so that the build can
/// compile them in parallel.
template <class Model, class Real>
const LauncherTable<Model, Real>& launcher_table();

template <>
const LauncherTable<models::BlackScholes<float>, float>& launcher_table();
template <>
const LauncherTable<models::BlackScholes<double>, double>& launcher_table();

} // namespace pfmc::kernels
