#pragma once
// The GPU suite's coverage of the kernel cross product, in one place: which (model-list entry,
// loader, distance) each bit-identity test compares with `none`, and from the same lists the
// kernels the suite compiles on every core before its tests (tests/gpu_test_main.cpp), so that
// no test waits for a compile on first use.
//
// Two tiers ($PFMC_GPU_SUITE, read once):
//  - standard (the default; scripts/gpu-check.sh test): what one device call can build, compile
//    and run. Why it is enough is written beside each list in gpu_coverage.cpp: a loader moves
//    draws, so its bits depend on the distance, the element's size and the draws a step holds,
//    never on what the model does with them; each of those is crossed with every loader, and each
//    model kind meets the loaders of each family.
//  - exhaustive: every loader at every distance the model list names for every entry (and the
//    Greeks', pathwise and fast-profile entries on every loader), for a release; about 1,000
//    kernels not built in, run over several device calls with gtest's sharding.

#include <string>
#include <vector>

#include "engine/run/kernel_inventory.hpp"

namespace pfmc::testing::coverage {

enum class Tier { standard, exhaustive };
/// $PFMC_GPU_SUITE: unset or `standard`, or `exhaustive` (anything else: std::invalid_argument).
Tier tier();

/// One bit-identity case: `entry`'s kernel for `backend` at `distance` (4 for a loader that takes
/// none at compile time) against `none` on the same book.
struct LoaderCase {
  std::string entry; ///< the model list's name (kernels/model_list.cuh), e.g. heston_f32
  std::string backend;
  int distance = 4;
};

/// The cases of the entries whose names `select` accepts, in the tier's coverage, ordered by
/// entry, backend and distance.
std::vector<LoaderCase> loader_cases(bool (*select)(const std::string& entry));

/// The wide instantiations' cases (Black-Scholes in double, kernels/launcher_table.cuh): each
/// backend and distance that WideKernelsKeepEveryBit compares with its narrow kernel.
std::vector<LoaderCase> wide_cases();

/// The kernels the suite launches that the binary may lack: every loader case (its wide kernel
/// too where the launch takes one), and those the other tests launch (the defaults `auto` takes,
/// early exercise's, the runtime-compile test's). Ordered by an estimate of their compile time,
/// the longest first, so that the slowest do not start last.
std::vector<engine::KernelInfo> suite_kernels();

/// Whether the suite compiles `entry`'s `inline` kernel, the default (`auto`) of a run with
/// Philox draws: all but the float pathwise baskets' in the standard tier (gpu_coverage.cpp says
/// why). gpu_engine: the engine mapping a test that compares the GPU with the CPU takes for it,
/// `auto` where the suite has the kernel, else `none` (built in).
bool runs_inline(const std::string& entry);
std::string gpu_engine(const std::string& entry);

/// The book kind a test's model book takes for `entry`'s model ("heston", "basket3", ...) and
/// whether the entry is float.
std::string model_kind(const std::string& entry);
bool is_float(const std::string& entry);

} // namespace pfmc::testing::coverage
