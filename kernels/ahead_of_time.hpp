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

namespace pfmc::kernels {

enum class KernelSet { ahead, all, check, runtime };

/// The common module of kernels/launcher_table.cuh: what a run takes without being asked.
constexpr bool in_common_module(std::string_view loader, int distance) {
  return loader == "none" || loader == "inline" ||
         (loader == "scalar_batched" && (distance == 4 || distance == 8));
}

/// Built ahead under `ahead`, for every model and precision: the fallbacks — `none` (every
/// comparison's baseline and the fallback of any backend) and `inline` (the default with Philox
/// draws) — and early exercise's kernel. For the single-asset models without the Greeks'
/// scenarios (the reference workloads' and most example books'), the winners too: scalar_batched
/// at 4 (the default with draws in memory) and 8 (the tuner's usual choice on the reference
/// workloads, bench/NOTES.md v13-v23). Everything else, the baskets' and the Greeks' scalar_batched
/// included (their kernels take 25-110 s of nvcc each: bench/NOTES.md v25), is compiled on first
/// use.
constexpr bool in_ahead_list(std::string_view loader, int distance, bool single_asset_price) {
  return loader == "none" || loader == "inline" ||
         (single_asset_price && loader == "scalar_batched" && (distance == 4 || distance == 8));
}

/// Whether a kernel is built ahead under `set`. `listed`: the distance is one
/// kernels/model_list.cuh lists for the model (or the loader takes none at compile time);
/// `single_asset_price`: a single-asset model without the Greeks' scenarios.
constexpr bool built_ahead(KernelSet set, std::string_view loader, int distance, bool listed,
                           bool single_asset_price) {
  switch (set) {
  case KernelSet::all:
    return listed;
  case KernelSet::ahead:
    return in_ahead_list(loader, distance, single_asset_price);
  case KernelSet::check:
    return loader == "none" ||
           ((distance == 0 || distance == 4) && !in_common_module(loader, distance));
  case KernelSet::runtime:
    return false;
  }
  return false;
}

} // namespace pfmc::kernels
