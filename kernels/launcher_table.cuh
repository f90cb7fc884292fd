#pragma once
// The one place where runtime backend names become template instantiations: for a model and a
// precision (an entry of kernels/model_list.cuh), every (backend, prefetch distance) pair maps
// to a launch function. Adding a backend is its loader header plus one add_loader line below (and
// its entry in kernels/catalog.cpp, which a test keeps in step with this table).

#include <utility>
#include <vector>

#include "kernels/launch.cuh"
#include "kernels/loaders/async_ring.cuh"
#include "kernels/loaders/batched.cuh"
#include "kernels/loaders/ideal.cuh"
#include "kernels/loaders/inline.cuh"
#include "kernels/loaders/l2_prefetch.cuh"
#include "kernels/loaders/none.cuh"
#include "kernels/loaders/rolling.cuh"
#include "kernels/loaders/tma.cuh"
#include "kernels/loaders/unroll.cuh"
#include "kernels/model_list.cuh"

namespace pfmc::kernels {

template <class Model, class Real>
struct LauncherEntry {
  const char* backend;
  int prefetch_distance; ///< the instantiated distance (0 with any_distance)
  bool any_distance;     ///< no distance, or the loader takes it at run time
  int paths_per_thread;  ///< paths a thread simulates per round (the loader's)
  PathKernelLauncher<Model, Real> launch;
  void (*load)(); ///< loads the kernel's code (kernels/launch.cuh)
  /// The same kernel under kWideRegisters (null where not instantiated): the engine launches it
  /// where the launch runs in one wave at that cap (engine/run/device_unit.cuh). Same bits.
  PathKernelLauncher<Model, Real> launch_wide;
  void (*load_wide)();
};

template <class Model, class Real>
using LauncherTable = std::vector<LauncherEntry<Model, Real>>;

/// Whether a (model, precision) has wide instantiations (under kWideRegisters), and at which
/// compile-time distances: what latency_bound measured to pay (bench/NOTES.md v22: Black-Scholes
/// in double, one 128-thread block an SM, the best loader 1.69 -> 1.41 ms, no spills; at 12 and
/// 16 slower than at 8), 36 more kernels in the build. Other models: not measured yet.
template <class Model, class Real>
constexpr bool has_wide_registers() {
  return std::is_same_v<Model, models::BlackScholes<double>>;
}
constexpr bool is_wide_distance(int distance) {
  return distance == 0 || distance == 4 || distance == 6 || distance == 8;
}

/// One table entry: LoaderT's kernel, and its wide instantiation where the (model, precision)
/// and the distance have one and the table is the build's (Wide; not the check set's).
template <class Model, class LoaderT, class Real, int Distance, bool AnyDistance, bool Wide>
LauncherEntry<Model, Real> make_entry() {
  LauncherEntry<Model, Real> entry{LoaderT::name,
                                   Distance,
                                   AnyDistance,
                                   LoaderT::paths_per_thread,
                                   &launch_path_kernel<Model, LoaderT, Real>,
                                   &load_path_kernel<Model, LoaderT, Real>,
                                   nullptr,
                                   nullptr};
  if constexpr (Wide && has_wide_registers<Model, Real>() && is_wide_distance(Distance)) {
    entry.launch_wide = &launch_path_kernel<Model, LoaderT, Real, false, kWideRegisters>;
    entry.load_wide = &load_path_kernel<Model, LoaderT, Real, false, kWideRegisters>;
  }
  return entry;
}

/// A loader instantiated at each compile-time distance (register rings, unrolling, cp.async
/// wait counts need it as a constant).
template <template <class, int, int> class Loader, class Model, class Real, bool Wide = true,
          int... Distances>
void add_loader(LauncherTable<Model, Real>& table, std::integer_sequence<int, Distances...>) {
  (table.push_back(
       make_entry<Model, Loader<Real, Model::factors, Distances>, Real, Distances, false, Wide>()),
   ...);
}

/// A loader instantiated once: it takes no distance, or takes it at run time (an address
/// offset or a ring size), which keeps the build small.
template <template <class, int, int> class Loader, class Model, class Real, bool Wide = true>
void add_loader(LauncherTable<Model, Real>& table) {
  table.push_back(make_entry<Model, Loader<Real, Model::factors, 0>, Real, 0, true, Wide>());
}

/// A loader at each compile-time distance but those of the common module (4 and 8).
template <template <class, int, int> class Loader, class Model, class Real, bool Wide,
          int... Distances>
void add_loader_but_common(LauncherTable<Model, Real>& table,
                           std::integer_sequence<int, Distances...>) {
  (
      [&] {
        if constexpr (Distances != 4 && Distances != 8)
          add_loader<Loader, Model, Real, Wide>(table, std::integer_sequence<int, Distances>{});
      }(),
      ...);
}

/// The backends a run takes without being asked — `inline` (the default for Philox draws),
/// scalar_batched at 4 (the default for draws in memory) and 8 (the tuner's usual winner), and
/// `none` (every comparison's baseline) — in a module of their own per (model, precision): CUDA
/// loads a kernel's module at its first launch, and this one is 4 kernels, not 60 (measured: the
/// first `inline` launch of a fresh process spent 53-105 ms loading the 62-kernel Black-Scholes
/// float module).
template <class Model, class Real, bool Wide = true>
LauncherTable<Model, Real> make_common_table() {
  LauncherTable<Model, Real> table;
  add_loader<NoneLoader, Model, Real, Wide>(table);
  add_loader<InlineLoader, Model, Real, Wide>(table);
  add_loader<ScalarBatchedLoader, Model, Real, Wide>(table, std::integer_sequence<int, 4, 8>{});
  return table;
}

/// Every other backend at the given distances: the prefetch matrix that `pfmc bench`, the tuner
/// and named backends use, in two modules compiled side by side (one module of a basket's took
/// ptxas over 9 minutes on one core): the loads and register or shared-memory rings here, ...
template <class Model, class Real, class Distances, bool Wide = true>
LauncherTable<Model, Real> make_prefetch_table() {
  LauncherTable<Model, Real> table;
  if constexpr (Distances::size() > 0) { // else NoPrefetchMatrix
    add_loader<UnrollLoader, Model, Real, Wide>(table, Distances{});
    add_loader_but_common<ScalarBatchedLoader, Model, Real, Wide>(table, Distances{});
    add_loader<SmemBatchedLoader, Model, Real, Wide>(table, Distances{});
    add_loader<ScalarRollingLoader, Model, Real, Wide>(table, Distances{});
    add_loader<SmemRollingLoader, Model, Real, Wide>(table, Distances{});
    add_loader<L2PrefetchLoader, Model, Real, Wide>(table);
    add_loader<L2PrefetchEvictLastLoader, Model, Real, Wide>(table);
    add_loader<L2Hint256Loader, Model, Real, Wide>(table, Distances{});
  }
  return table;
}

/// ... and the asynchronous copies (cp.async rings, bulk copies, TMA) with the bench's `ideal`.
template <class Model, class Real, class Distances, bool Wide = true>
LauncherTable<Model, Real> make_async_table() {
  LauncherTable<Model, Real> table;
  if constexpr (Distances::size() > 0) {
    add_loader<SmemRollingAsyncLoader, Model, Real, Wide>(table, Distances{});
    add_loader<SmemBatchedAsyncLoader, Model, Real, Wide>(table, Distances{});
    add_loader<SmemBlockAsyncLoader, Model, Real, Wide>(table, Distances{});
    add_loader<BulkL2Loader, Model, Real, Wide>(table);
    add_loader<TmaLoader, Model, Real, Wide>(table);
    add_loader<IdealLoader, Model, Real, Wide>(table,
                                               Distances{}); // bench only (kernels/catalog.cpp)
  }
  return table;
}

/// Early exercise's kernel (kernels/path_kernel.cuh's Exercise): `inline` draws, one step at a
/// time, a module of its own so that runs without early exercise never load it.
template <class Model, class Real>
LauncherTable<Model, Real> make_exercise_table() {
  using Loader = InlineStepLoader<Real, Model::factors, 0>;
  return {LauncherEntry<Model, Real>{Loader::name, 0, true, Loader::paths_per_thread,
                                     &launch_path_kernel<Model, Loader, Real, true>,
                                     &load_path_kernel<Model, Loader, Real, true>, nullptr,
                                     nullptr}};
}

/// Defined, one model-list entry per file, in the build folder's generated
/// kernels/instantiate_<entry>_{common,prefetch}.cu: separate modules, compiled in parallel.
template <class Model, class Real>
const LauncherTable<Model, Real>& common_launcher_table();
template <class Model, class Real>
const LauncherTable<Model, Real>& prefetch_launcher_table();
template <class Model, class Real>
const LauncherTable<Model, Real>& async_launcher_table();
template <class Model, class Real>
const LauncherTable<Model, Real>& exercise_launcher_table();

/// Every instantiation of a (model, precision) but early exercise's: the common module's, then
/// the prefetch matrix.
template <class Model, class Real>
const LauncherTable<Model, Real>& launcher_table() {
  static const LauncherTable<Model, Real> table = [] {
    LauncherTable<Model, Real> all = common_launcher_table<Model, Real>();
    for (const auto* rest :
         {&prefetch_launcher_table<Model, Real>(), &async_launcher_table<Model, Real>()})
      all.insert(all.end(), rest->begin(), rest->end());
    return all;
  }();
  return table;
}

#define PFMC_DECLARE_LAUNCHER_TABLES(NAME, TYPE, ASSETS, SCENARIOS, REAL, MODEL, DISTANCES)        \
  template <>                                                                                      \
  const LauncherTable<model_entries::NAME::Model, REAL>&                                           \
  common_launcher_table<model_entries::NAME::Model, REAL>();                                       \
  template <>                                                                                      \
  const LauncherTable<model_entries::NAME::Model, REAL>&                                           \
  prefetch_launcher_table<model_entries::NAME::Model, REAL>();                                     \
  template <>                                                                                      \
  const LauncherTable<model_entries::NAME::Model, REAL>&                                           \
  async_launcher_table<model_entries::NAME::Model, REAL>();                                        \
  template <>                                                                                      \
  const LauncherTable<model_entries::NAME::Model, REAL>&                                           \
  exercise_launcher_table<model_entries::NAME::Model, REAL>();
PFMC_KERNEL_MODELS(PFMC_DECLARE_LAUNCHER_TABLES)
#undef PFMC_DECLARE_LAUNCHER_TABLES

/// The definitions of one entry's tables (the generated instantiation files): TABLE's
/// specialisation for ENTRY, built once by the expression that follows.
#define PFMC_DEFINE_TABLE(ENTRY, TABLE, ...)                                                       \
  template <>                                                                                      \
  const LauncherTable<ENTRY::Model, ENTRY::Real>& TABLE<ENTRY::Model, ENTRY::Real>() {             \
    static const LauncherTable<ENTRY::Model, ENTRY::Real> table = __VA_ARGS__;                     \
    return table;                                                                                  \
  }
#define PFMC_DEFINE_COMMON_LAUNCHERS(ENTRY)                                                        \
  PFMC_DEFINE_TABLE(ENTRY, common_launcher_table, make_common_table<ENTRY::Model, ENTRY::Real>())
#define PFMC_DEFINE_PREFETCH_LAUNCHERS(ENTRY)                                                      \
  PFMC_DEFINE_TABLE(ENTRY, prefetch_launcher_table,                                                \
                    make_prefetch_table<ENTRY::Model, ENTRY::Real, ENTRY::Distances>())
#define PFMC_DEFINE_ASYNC_LAUNCHERS(ENTRY)                                                         \
  PFMC_DEFINE_TABLE(ENTRY, async_launcher_table,                                                   \
                    make_async_table<ENTRY::Model, ENTRY::Real, ENTRY::Distances>())
#define PFMC_DEFINE_EXERCISE_LAUNCHERS(ENTRY)                                                      \
  PFMC_DEFINE_TABLE(ENTRY, exercise_launcher_table,                                                \
                    make_exercise_table<ENTRY::Model, ENTRY::Real>())

/// PFMC_KERNELS=check (CMakeLists.txt): the device code compiled for checking, not for runs —
/// `none` alone in the common module, every loader at distance 4 in the prefetch matrix.
template <class Model, class Real>
LauncherTable<Model, Real> make_check_common_table() {
  LauncherTable<Model, Real> table;
  add_loader<NoneLoader, Model, Real, false>(table);
  return table;
}
#define PFMC_DEFINE_CHECK_COMMON_LAUNCHERS(ENTRY)                                                  \
  PFMC_DEFINE_TABLE(ENTRY, common_launcher_table,                                                  \
                    make_check_common_table<ENTRY::Model, ENTRY::Real>())
#define PFMC_DEFINE_CHECK_PREFETCH_LAUNCHERS(ENTRY)                                                \
  PFMC_DEFINE_TABLE(                                                                               \
      ENTRY, prefetch_launcher_table,                                                              \
      make_prefetch_table<ENTRY::Model, ENTRY::Real, std::integer_sequence<int, 4>, false>())
#define PFMC_DEFINE_CHECK_ASYNC_LAUNCHERS(ENTRY)                                                   \
  PFMC_DEFINE_TABLE(                                                                               \
      ENTRY, async_launcher_table,                                                                 \
      make_async_table<ENTRY::Model, ENTRY::Real, std::integer_sequence<int, 4>, false>())

/// PFMC_KERNELS=none, or an entry that `check` leaves out: the tables, empty.
#define PFMC_DEFINE_EMPTY_COMMON_LAUNCHERS(ENTRY)                                                  \
  PFMC_DEFINE_TABLE(ENTRY, common_launcher_table, {})
#define PFMC_DEFINE_EMPTY_PREFETCH_LAUNCHERS(ENTRY)                                                \
  PFMC_DEFINE_TABLE(ENTRY, prefetch_launcher_table, {})
#define PFMC_DEFINE_EMPTY_ASYNC_LAUNCHERS(ENTRY) PFMC_DEFINE_TABLE(ENTRY, async_launcher_table, {})
#define PFMC_DEFINE_EMPTY_EXERCISE_LAUNCHERS(ENTRY)                                                \
  PFMC_DEFINE_TABLE(ENTRY, exercise_launcher_table, {})

} // namespace pfmc::kernels
