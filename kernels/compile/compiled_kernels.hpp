#pragma once
// This process's runtime-compiled kernels: each name expression is compiled (or read from the
// disk cache, kernels/compile/kernel_cache.hpp) at most once per architecture, and loaded through
// the CUDA library API, whose kernel handles serve every context of the process.

#include <string>
#include <vector>

namespace pfmc::kernels::compile {

/// The kernel for `name_expression` on the current device's architecture, as the launch APIs
/// take it (a cudaKernel_t: cudaLaunchKernel, cudaFuncSetAttribute and cudaFuncGetAttributes
/// accept one in place of a __global__ function's address). Compiling says so on standard error
/// (`label` names the kernel there). Thread-safe; threads asking for the same kernel wait for
/// one compilation.
const void* runtime_kernel(const std::string& name_expression, const std::string& label);

/// A path kernel's name expression ("&pfmc::kernels::path_kernel<...>") from the mangled name of
/// the tag type that carries its template arguments (typeid(PathKernelTag<...>).name(),
/// kernels/launch.cuh): the host compiler spells the arguments, so no list of type names is kept.
std::string path_kernel_expression(const char* tag_mangled_name);
/// A type's name without pfmc's namespaces ("Heston<float>"), for notices.
std::string short_type_name(const char* mangled_name);

/// Compiles `name_expression` for sm_<arch> without a GPU, through the cache as a run would
/// (the CPU tests; `pfmc kernels --warm --arch`). Returns true when it was compiled now, false
/// when the cache had it.
bool compile_to_cache(const std::string& name_expression, int arch, bool notice = true);

/// What compile_all did.
struct CompileBatch {
  std::size_t compiled = 0; ///< by NVRTC now (the rest came from the cache)
  double seconds = 0.0;
  std::vector<std::string> failures; ///< one message per name that did not compile
};

/// compile_to_cache for each of `names` (duplicates once; none this process has loaded already),
/// started in the order given, on `jobs` threads (0: the host's);
/// where `progress`, a progress line on standard error if it is a terminal and one notice of
/// what was compiled; afterwards a run finds them in the cache. What a run, the tuner and `pfmc
/// kernels --warm` compile with.
CompileBatch compile_all(const std::vector<std::string>& names, int arch, int jobs, bool progress);

/// What this process compiled and loaded, for a run's report.
struct CompileTotals {
  double compile_ms = 0.0; ///< NVRTC's time, summed over compilations
  double load_ms = 0.0;    ///< cache reads and module loads
  int compiled = 0;        ///< kernels compiled by NVRTC
  int from_cache = 0;      ///< kernels read from the disk cache
};
CompileTotals compile_totals();

/// The cache folder this process uses (kernel_cache_dir() unless set).
std::string cache_dir();
/// Moves the cache for this process (the CLI's --kernel-cache). Empty: the default again.
void set_cache_dir(const std::string& dir);

} // namespace pfmc::kernels::compile
