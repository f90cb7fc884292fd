#pragma once
// Every path kernel a run may launch, for `pfmc kernels`: which are built into the binary and
// which are compiled on first use (kernels/ahead_of_time.hpp), with their NVRTC name
// expressions; and the kernels one config's groups would launch, to compile them ahead.

#include <string>
#include <vector>

#include "config/run_config.hpp"

namespace pfmc::engine {

struct KernelInfo {
  std::string entry;   ///< the model list's entry (kernels/model_list.cuh), e.g. heston_f32
  std::string backend; ///< the loader's runtime name
  int distance = 0;    ///< 0: no compile-time distance
  bool ahead_of_time = false;
  bool tuned = false;    ///< a tuner candidate
  bool wide = false;     ///< the kernel under kernels::kWideRegisters
  bool terminal = false; ///< the kernel under kernels::kTerminalRegisters
  bool exercise = false; ///< early exercise's kernel
  std::string name;      ///< NVRTC's name expression
};

/// Every kernel of every model-list entry, the wide, terminal and early-exercise ones included.
std::vector<KernelInfo> kernel_inventory();

/// The kernels `config`'s groups launch with its backend and distance (`auto`: every tuner
/// candidate of each group's model), early exercise's where a group exercises early; with
/// engine.compile_at_runtime, none counts as built in.
std::vector<KernelInfo> config_kernels(const config::RunConfig& config);

/// What warm_kernels did.
struct WarmResult {
  std::size_t kernels = 0;  ///< asked for and not built in
  std::size_t compiled = 0; ///< by NVRTC now (the rest came from the cache)
  double seconds = 0.0;
  std::vector<std::string> failures; ///< one message per kernel that did not compile
};

/// Compiles into the kernel cache, for sm_<arch>, those of `kernels` not built into the binary
/// (ahead_of_time false), in their order, on `jobs` threads (0: the host's),
/// with a progress line on standard error where `progress` and it is a terminal.
WarmResult warm_kernels(const std::vector<KernelInfo>& kernels, int arch, int jobs, bool progress);

} // namespace pfmc::engine
