#pragma once
// This process's runtime-compiled kernels: each name expression is compiled (or read from the
// disk cache, kernels/compile/kernel_cache.hpp) at most once per architecture, and loaded through
// the CUDA library API, whose kernel handles serve every context of the process.

#include <mutex>
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

/// What was compiled and loaded on behalf of a run, for its report.
struct CompileTotals {
  double compile_ms = 0.0; ///< NVRTC's time, summed over compilations
  double load_ms = 0.0;    ///< cache reads and module loads
  int compiled = 0;        ///< kernels compiled by NVRTC
  int from_cache = 0;      ///< kernels read from the disk cache
};

/// Counts the compiles and cache loads of one run (engine::price) or of a caller that wants its
/// own (the GPU suite's main): while a CompileScope of it is in force on a thread, that thread's
/// compiles add to it, and to the counter that was in force where it was made (so a suite sees
/// its runs'). Two runs at once (two Python threads) count apart. Thread-safe.
class CompileCounter {
public:
  CompileCounter();
  CompileCounter(const CompileCounter&) = delete;
  CompileCounter& operator=(const CompileCounter&) = delete;
  [[nodiscard]] CompileTotals totals() const;
  void add(const CompileTotals& more);

private:
  CompileCounter* parent_;
  mutable std::mutex mutex_;
  CompileTotals totals_;
};

/// Puts `counter` in force on this thread for the scope (null: none), the one before after.
/// A thread that works for a run takes the run's counter with it (compile_all's threads, the
/// devices' threads: current_counter() where the work was handed over).
class CompileScope {
public:
  explicit CompileScope(CompileCounter* counter);
  ~CompileScope();
  CompileScope(const CompileScope&) = delete;
  CompileScope& operator=(const CompileScope&) = delete;

private:
  CompileCounter* previous_;
};
CompileCounter* current_counter();

/// The cache folder this process uses (kernel_cache_dir() unless set).
std::string cache_dir();
/// Moves the cache for this process (the CLI's --kernel-cache). Empty: the default again.
void set_cache_dir(const std::string& dir);

} // namespace pfmc::kernels::compile
