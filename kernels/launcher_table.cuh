#pragma once
// The one place where runtime backend names become template instantiations: for a model and a
// precision (an entry of kernels/model_list.cuh), every (backend, prefetch distance) pair maps
// to a launch function — the kernel built ahead of time where kernels/ahead_of_time.hpp's list
// (for the build's PFMC_KERNELS) has it, else the same instantiation compiled on first use
// (kernels/launch.cuh). Adding a backend is its loader header (kernels/kernel_sources.cuh) plus
// one add_loader line below (and its entry in kernels/catalog.cpp, which a test keeps in step
// with this table).

#include <utility>
#include <vector>

#include "kernels/ahead_of_time.hpp"
#include "kernels/kernel_sources.cuh"
#include "kernels/launch.cuh"
#include "kernels/model_list.cuh"

namespace pfmc::kernels {

/// Which instantiation of an entry's kernel a launch takes (same bits): the loader's register
/// budget; the wide one (kWideRegisters, launches of one wave); the terminal one
/// (kTerminalRegisters, launches whose every group is one-step terminal).
enum class KernelVariant { narrow, wide, terminal };
// path_kernel tells its variants apart by their register caps.
static_assert(kTerminalRegisters != kWideRegisters && kTerminalRegisters > 0);

template <class Model, class Real>
struct LauncherEntry {
  using Launch = PathKernelLauncher<Model, Real>;
  using Load = void (*)();
  const char* backend;
  int prefetch_distance; ///< the instantiated distance (0 with any_distance)
  bool any_distance;     ///< no distance, or the loader takes it at run time
  int paths_per_thread;  ///< paths a thread simulates per round (the loader's)
  Launch launch;
  Load load; ///< loads the kernel's code (kernels/launch.cuh); compiles it on first use
  /// The same kernel under kWideRegisters (null where not instantiated): the engine launches it
  /// where the launch runs in one wave at that cap (engine/run/device_unit.cuh). Same bits.
  Launch launch_wide;
  Load load_wide;
  bool ahead_of_time; ///< built into the binary (else compiled on first use)
  /// A candidate of the tuner: a distance kernels/model_list.cuh lists for the model (or the
  /// loader takes none at compile time). The others serve runs that ask for them.
  bool tuned;
  /// The same kernels compiled on first use, whether or not built in (a run's
  /// compile_at_runtime: the test that both give the same bits), and their
  /// NVRTC name expressions (`pfmc kernels`, the CPU suite's compile check).
  Launch launch_runtime;
  Load load_runtime;
  Launch launch_wide_runtime;
  Load load_wide_runtime;
  const std::string& (*name)();
  const std::string& (*name_wide)(); ///< null where there is no wide kernel
  /// The terminal instantiation (has_terminal_kernel; null elsewhere), always compiled on first
  /// use, and its name expression.
  Launch launch_terminal;
  Load load_terminal;
  const std::string& (*name_terminal)();

  /// What a launch calls: the variant's kernel; `runtime`: compiled on first use even where it
  /// is built in (a run's compile_at_runtime setting).
  Launch launcher(KernelVariant variant, bool runtime) const {
    switch (variant) {
    case KernelVariant::terminal:
      return launch_terminal;
    case KernelVariant::wide:
      return runtime ? launch_wide_runtime : launch_wide;
    default:
      return runtime ? launch_runtime : launch;
    }
  }
  Load loader(KernelVariant variant, bool runtime) const {
    switch (variant) {
    case KernelVariant::terminal:
      return load_terminal;
    case KernelVariant::wide:
      return runtime ? load_wide_runtime : load_wide;
    default:
      return runtime ? load_runtime : load;
    }
  }
};

template <class Model, class Real>
using LauncherTable = std::vector<LauncherEntry<Model, Real>>;

/// Whether a (model, precision) has wide instantiations (under kWideRegisters), and at which
/// compile-time distances: what latency_bound measured to pay (docs/decisions.md#wide-distances:
/// Black-Scholes in double, one 128-thread block an SM, the best loader 1.69 -> 1.41 ms, no spills;
/// at 12 and 16 slower than at 8). Other models: not measured yet. Both math profiles (without its
/// wide kernel the fast profile's latency_bound `inline` took 4.28 ms against the accurate one's
/// 3.76).
template <class Model, class Real>
constexpr bool has_wide_registers() {
  return std::is_same_v<Model, models::BlackScholes<double, math::Accurate>> ||
         std::is_same_v<Model, models::BlackScholes<double, math::Fast>>;
}
constexpr bool is_wide_distance(int distance) {
  return distance == 0 || distance == 4 || distance == 6 || distance == 8;
}

/// Whether a (model, precision)'s `inline` entry has a terminal instantiation (under
/// kTerminalRegisters): Black-Scholes in float under the fast profile, whose lean passes fit 32
/// registers without a spill. Measured on the MonteCarloMultiGPU book (H200, one call, warm,
/// docs/decisions.md#terminal-kernel): kernels 5.07 and 4.87 ms against the whole kernel's 5.38 and
/// 5.13, the same bits. Not the accurate profile's (7.31 and 7.03 ms against 7.21 and 7.21: no
/// gain, and its `inline` kernel is built in, this one would be compiled on first use), nor
/// double's or Heston's (they spill at 32 and 40 registers).
template <class Model, class Real>
constexpr bool has_terminal_kernel() {
  return std::is_same_v<Model, models::BlackScholes<float, math::Fast>>;
}

/// kernels/ahead_of_time.hpp's view of a model.
template <class Model>
constexpr ModelTraits model_traits() {
  constexpr bool fast = Model::Math::fast;
  if constexpr (models::kIsScenarios<Model>)
    return {Model::Base::assets > 1, true, fast};
  else
    return {Model::assets > 1, false, fast, models::kIsPathwise<Model>};
}

/// Whether `Distance` is one of `Listed`'s.
template <int Distance, int... Listed>
constexpr bool is_listed(std::integer_sequence<int, Listed...>) {
  return ((Distance == Listed) || ...);
}

/// One table entry: LoaderT's kernel, built ahead or compiled on first use as
/// kernels/ahead_of_time.hpp's list says for the module's set, and its wide instantiation where
/// the (model, precision) and the distance have one (built ahead with its kernel, but never in
/// the check set).
template <class Model, class LoaderT, class Real, int Distance, bool AnyDistance, KernelSet Set,
          bool Tuned>
LauncherEntry<Model, Real> make_entry() {
  constexpr bool kAhead = built_ahead(Set, LoaderT::name, Distance, Tuned, model_traits<Model>());
  LauncherEntry<Model, Real> entry{};
  entry.backend = LoaderT::name;
  entry.prefetch_distance = Distance;
  entry.any_distance = AnyDistance;
  entry.paths_per_thread = LoaderT::paths_per_thread;
  entry.ahead_of_time = kAhead;
  entry.tuned = Tuned;
  entry.launch_runtime = &launch_runtime_path_kernel<Model, LoaderT, Real, false, 0, Distance>;
  entry.load_runtime = &load_runtime_path_kernel<Model, LoaderT, Real, false, 0, Distance>;
  entry.name = &path_kernel_name<Model, LoaderT, Real>;
  if constexpr (kAhead) {
    entry.launch = &launch_path_kernel<Model, LoaderT, Real>;
    entry.load = &load_path_kernel<Model, LoaderT, Real>;
  } else {
    entry.launch = entry.launch_runtime;
    entry.load = entry.load_runtime;
  }
  if constexpr (has_terminal_kernel<Model, Real>() && LoaderT::paths_per_thread > 1) {
    entry.launch_terminal =
        &launch_runtime_path_kernel<Model, LoaderT, Real, false, kTerminalRegisters, Distance>;
    entry.load_terminal =
        &load_runtime_path_kernel<Model, LoaderT, Real, false, kTerminalRegisters, Distance>;
    entry.name_terminal = &path_kernel_name<Model, LoaderT, Real, false, kTerminalRegisters>;
  }
  if constexpr (has_wide_registers<Model, Real>() && is_wide_distance(Distance)) {
    entry.launch_wide_runtime =
        &launch_runtime_path_kernel<Model, LoaderT, Real, false, kWideRegisters, Distance>;
    entry.load_wide_runtime =
        &load_runtime_path_kernel<Model, LoaderT, Real, false, kWideRegisters, Distance>;
    entry.name_wide = &path_kernel_name<Model, LoaderT, Real, false, kWideRegisters>;
    if constexpr (kAhead && Set != KernelSet::check) {
      entry.launch_wide = &launch_path_kernel<Model, LoaderT, Real, false, kWideRegisters>;
      entry.load_wide = &load_path_kernel<Model, LoaderT, Real, false, kWideRegisters>;
    } else {
      entry.launch_wide = entry.launch_wide_runtime;
      entry.load_wide = entry.load_wide_runtime;
    }
  }
  return entry;
}

/// A loader instantiated at each compile-time distance (register rings, unrolling, cp.async
/// wait counts need it as a constant): every distance of the catalogue, `Listed` the model's.
template <template <class, int, int> class Loader, class Model, class Real, KernelSet Set,
          class Listed, int... Distances>
void add_loader(LauncherTable<Model, Real>& table, std::integer_sequence<int, Distances...>) {
  (table.push_back(make_entry<Model, Loader<Real, Model::factors, Distances>, Real, Distances,
                              false, Set, is_listed<Distances>(Listed{})>()),
   ...);
}

/// A loader instantiated once: it takes no distance, or takes it at run time (an address
/// offset or a ring size), which keeps the build small.
/// A tuner candidate unless `Listed` is empty (NoPrefetchMatrix: the baskets' Greeks).
template <template <class, int, int> class Loader, class Model, class Real, KernelSet Set,
          class Listed = std::integer_sequence<int, 0>>
void add_loader(LauncherTable<Model, Real>& table) {
  table.push_back(make_entry<Model, Loader<Real, Model::factors, 0>, Real, 0, true, Set,
                             (Listed::size() > 0)>());
}

/// A loader at each compile-time distance but those of the common module (4 and 8).
template <template <class, int, int> class Loader, class Model, class Real, KernelSet Set,
          class Listed, int... Distances>
void add_loader_but_common(LauncherTable<Model, Real>& table,
                           std::integer_sequence<int, Distances...>) {
  (
      [&] {
        if constexpr (Distances != 4 && Distances != 8)
          add_loader<Loader, Model, Real, Set, Listed>(table,
                                                       std::integer_sequence<int, Distances>{});
      }(),
      ...);
}

/// Every distance a run may ask for (kernels/catalog.hpp).
using AllDistances = DistanceSequence<kPrefetchDistances>;

/// The backends a run takes without being asked — `inline` (the default for Philox draws),
/// scalar_batched at 4 (the default for draws in memory) and 8 (the tuner's usual winner), and
/// `none` (every comparison's baseline) — in a module of their own per (model, precision): CUDA
/// loads a kernel's module at its first launch, and this one is 4 kernels, not 60 (measured: the
/// first `inline` launch of a fresh process spent 53-105 ms loading the 62-kernel Black-Scholes
/// float module).
template <class Model, class Real, KernelSet Set>
LauncherTable<Model, Real> make_common_table() {
  using Common = std::integer_sequence<int, 4, 8>;
  LauncherTable<Model, Real> table;
  add_loader<NoneLoader, Model, Real, Set>(table);
  add_loader<InlineLoaders<typename Model::Math>::template Batch, Model, Real, Set>(table);
  add_loader<ScalarBatchedLoader, Model, Real, Set, Common>(table, Common{});
  return table;
}

/// Every other backend at every distance — the prefetch matrix that `pfmc bench`, the tuner and
/// named backends use; the model's listed distances (`Listed`) are the tuner's candidates and
/// what `all` builds ahead — in two modules compiled side by side (one module of a basket's took
/// ptxas over 9 minutes on one core): the loads and register or shared-memory rings here, ...
template <class Model, class Real, class Listed, KernelSet Set>
LauncherTable<Model, Real> make_prefetch_table() {
  LauncherTable<Model, Real> table;
  add_loader<UnrollLoader, Model, Real, Set, Listed>(table, AllDistances{});
  add_loader_but_common<ScalarBatchedLoader, Model, Real, Set, Listed>(table, AllDistances{});
  add_loader<SmemBatchedLoader, Model, Real, Set, Listed>(table, AllDistances{});
  add_loader<ScalarRollingLoader, Model, Real, Set, Listed>(table, AllDistances{});
  add_loader<SmemRollingLoader, Model, Real, Set, Listed>(table, AllDistances{});
  add_loader<L2PrefetchLoader, Model, Real, Set, Listed>(table);
  add_loader<L2PrefetchEvictLastLoader, Model, Real, Set, Listed>(table);
  add_loader<L2Hint256Loader, Model, Real, Set, Listed>(table, AllDistances{});
  return table;
}

/// ... and the asynchronous copies (cp.async rings, bulk copies, TMA) with the bench's `ideal`.
template <class Model, class Real, class Listed, KernelSet Set>
LauncherTable<Model, Real> make_async_table() {
  LauncherTable<Model, Real> table;
  add_loader<SmemRollingAsyncLoader, Model, Real, Set, Listed>(table, AllDistances{});
  add_loader<SmemBatchedAsyncLoader, Model, Real, Set, Listed>(table, AllDistances{});
  add_loader<SmemBlockAsyncLoader, Model, Real, Set, Listed>(table, AllDistances{});
  add_loader<BulkL2Loader, Model, Real, Set, Listed>(table);
  add_loader<TmaLoader, Model, Real, Set, Listed>(table);
  add_loader<IdealLoader, Model, Real, Set, Listed>(table, AllDistances{}); // bench only
  return table;
}

/// Early exercise's kernel (kernels/path_kernel.cuh's Exercise): `inline` draws, one step at a
/// time, a module of its own so that runs without early exercise never load it. Built ahead in
/// `all` and `check`, and in `ahead` for the single-asset models (kernels/ahead_of_time.hpp);
/// the pathwise Greeks' (early exercise with its rule held fixed) compiled on first use only.
template <class Model, class Real, KernelSet Set>
constexpr bool exercise_built_ahead() {
  if constexpr (model_traits<Model>().fast || models::kIsPathwise<Model>)
    return false; // compiled on first use (kernels/ahead_of_time.hpp)
  else if constexpr (Set == KernelSet::ahead)
    return !model_traits<Model>().basket;
  else
    return Set != KernelSet::runtime;
}

template <class Model, class Real, KernelSet Set>
LauncherTable<Model, Real> make_exercise_table() {
  using Loader =
      typename InlineLoaders<typename Model::Math>::template Step<Real, Model::factors, 0>;
  constexpr bool kAhead = exercise_built_ahead<Model, Real, Set>();
  LauncherEntry<Model, Real> entry{};
  entry.backend = Loader::name;
  entry.any_distance = true;
  entry.paths_per_thread = Loader::paths_per_thread;
  entry.ahead_of_time = kAhead;
  entry.tuned = true;
  entry.launch_runtime = &launch_runtime_path_kernel<Model, Loader, Real, true>;
  entry.load_runtime = &load_runtime_path_kernel<Model, Loader, Real, true>;
  entry.name = &path_kernel_name<Model, Loader, Real, true>;
  if constexpr (kAhead) {
    entry.launch = &launch_path_kernel<Model, Loader, Real, true>;
    entry.load = &load_path_kernel<Model, Loader, Real, true>;
  } else {
    entry.launch = entry.launch_runtime;
    entry.load = entry.load_runtime;
  }
  return {entry};
}

/// Defined, one model-list entry per file, in the build folder's generated
/// kernels/instantiate_<entry>_{common,prefetch,async,exercise}.cu: separate modules, compiled
/// in parallel.
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
/// One module's table for ENTRY under SET (a KernelSet enumerator; CMakeLists.txt picks it).
#define PFMC_DEFINE_COMMON_LAUNCHERS(ENTRY, SET)                                                   \
  PFMC_DEFINE_TABLE(ENTRY, common_launcher_table,                                                  \
                    make_common_table<ENTRY::Model, ENTRY::Real, KernelSet::SET>())
#define PFMC_DEFINE_PREFETCH_LAUNCHERS(ENTRY, SET)                                                 \
  PFMC_DEFINE_TABLE(                                                                               \
      ENTRY, prefetch_launcher_table,                                                              \
      make_prefetch_table<ENTRY::Model, ENTRY::Real, ENTRY::Distances, KernelSet::SET>())
#define PFMC_DEFINE_ASYNC_LAUNCHERS(ENTRY, SET)                                                    \
  PFMC_DEFINE_TABLE(                                                                               \
      ENTRY, async_launcher_table,                                                                 \
      make_async_table<ENTRY::Model, ENTRY::Real, ENTRY::Distances, KernelSet::SET>())
#define PFMC_DEFINE_EXERCISE_LAUNCHERS(ENTRY, SET)                                                 \
  PFMC_DEFINE_TABLE(ENTRY, exercise_launcher_table,                                                \
                    make_exercise_table<ENTRY::Model, ENTRY::Real, KernelSet::SET>())

} // namespace pfmc::kernels
