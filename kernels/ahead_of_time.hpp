#pragma once
// The one list of the path kernels built into the binary (PFMC_KERNELS=ahead, the default on a
// GPU host); every other (model, precision, backend, distance) of kernels/launcher_table.cuh is
// compiled on first use by NVRTC and cached (kernels/compile/). A build setting picks the list a
// launcher table is made under (CMakeLists.txt, one per generated module):
//   ahead    the fallbacks and the measured winners below
//   all      every backend at each model's listed distances (kernels/model_list.cuh), the wide
//            instantiations too: the build before compile-on-first-use
//   check    CI's compile check (no GPU): `none`, and each loader once at distance 4 (or its
//            run-time distance) for the module CMake names
//   runtime  nothing ahead: every kernel of the module compiled on first use

#include <string_view>

#include "kernels/catalog.hpp"

namespace pfmc::kernels {

enum class KernelSet { ahead, all, check, runtime };

/// The common module of kernels/launcher_table.cuh: what a run takes without being asked.
constexpr bool in_common_module(std::string_view loader, int distance) {
  return loader == "none" || loader == "inline" ||
         (loader == "scalar_batched" && is_winning_distance(distance));
}

/// What a model is, for the list below.
struct ModelTraits {
  bool basket;    ///< several assets (multi_black_scholes), with or without the Greeks' scenarios
  bool scenarios; ///< the Greeks' scenario copies (models::Scenarios)
  bool fast = false;     ///< the fast math profile's (models/math.cuh): compiled on first use only
  bool pathwise = false; ///< pathwise Greeks' tangents (models/pathwise.cuh)
};

/// Built ahead under `ahead`: `none` (every comparison's baseline and the fallback of any backend)
/// for every model and precision; for the single-asset models, `inline` (the default with Philox
/// draws) and early exercise's kernel; for those without the Greeks' scenarios (the reference
/// workloads' and most example books'), the winners too: scalar_batched at the winning
/// distances (kernels/catalog.hpp, kReducedPrefetchDistances). The rest is compiled on first use —
/// the baskets' `inline` and early exercise included: nvcc took 80-89 s for each basket's float
/// `inline` and 17-30 s for each basket's early-exercise kernel (H200 machine, 16 cores busy;
/// docs/decisions.md#ahead-of-time), the whole list 930 s. Pathwise Greeks' models: `none` alone (a
/// Greek run's other backends on first use).
constexpr bool in_ahead_list(std::string_view loader, int distance, ModelTraits model) {
  if (loader == "none")
    return true;
  if (model.basket || model.pathwise)
    return false;
  return loader == "inline" ||
         (!model.scenarios && loader == "scalar_batched" && is_winning_distance(distance));
}

/// Whether a kernel is built ahead under `set`. `listed`: the distance is one
/// kernels/model_list.cuh lists for the model (or the loader takes none at compile time).
constexpr bool built_ahead(KernelSet set, std::string_view loader, int distance, bool listed,
                           ModelTraits model) {
  if (model.fast) // opt-in: its kernels are compiled for the runs that ask for them
    return false;
  switch (set) {
  case KernelSet::all:
    return listed;
  case KernelSet::ahead:
    return in_ahead_list(loader, distance, model);
  case KernelSet::check:
    return loader == "none" ||
           ((distance == 0 || distance == 4) && !in_common_module(loader, distance));
  case KernelSet::runtime:
    return false;
  }
  return false;
}

} // namespace pfmc::kernels
