#include "kernels/compile/compiled_kernels.hpp"

#include <cuda_runtime.h>
#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "base/error.hpp"
#include "kernels/compile/kernel_cache.hpp"
#include "kernels/compile/runtime_compiler.hpp"

namespace pfmc::kernels::compile {

namespace {

struct Slot {
  std::mutex mutex;
  bool ready = false;
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<Slot>> slots; ///< by arch and name expression
  std::string dir_override;
};

thread_local CompileCounter* counter_in_force = nullptr;

/// Adds to the counter in force on this thread, if any.
void count(const CompileTotals& more) {
  if (counter_in_force != nullptr)
    counter_in_force->add(more);
}

Registry& registry() {
  static Registry* r = new Registry; // never destroyed: kernels may launch during exit
  return *r;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

int current_arch() {
  int device = 0, major = 0, minor = 0;
  PFMC_CUDA_TRY(cudaGetDevice(&device));
  PFMC_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  PFMC_CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

/// The entry for `key` from the cache, else compiled (under the key's lock: another process
/// compiling it meanwhile is waited for) and stored. `compiled` says which.
CacheEntry fetch(const KernelKey& key, const std::string& label, bool& compiled,
                 bool notice = true) {
  const KernelCache cache(cache_dir());
  compiled = false;
  if (auto entry = cache.load(key))
    return *entry;
  const KernelCache::Lock lock(cache, key);
  if (auto entry = cache.load(key)) // compiled by another process while this one waited
    return *entry;
  const bool terminal = notice && ::isatty(STDERR_FILENO) != 0;
  if (terminal)
    std::fprintf(stderr, "pfmc: compiling %s for sm_%d (first use) ...\r", label.c_str(), key.arch);
  const Cubin cubin = compile_kernel(key.name_expression, key.arch);
  if (notice) {
    std::fprintf(stderr, "pfmc: compiled %s for sm_%d in %.1f s (first use; kept in %s)\n",
                 label.c_str(), key.arch, cubin.compile_ms / 1000.0, cache.dir().c_str());
  }
  CacheEntry entry{cubin.lowered_name, cubin.image};
  cache.store(key, entry);
  CompileTotals compile;
  compile.compile_ms = cubin.compile_ms;
  compile.compiled = 1;
  count(compile);
  compiled = true;
  return entry;
}

} // namespace

namespace {

std::string demangle(const char* mangled) {
  int status = 0;
  char* text = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  PFMC_EXPECTS(status == 0 && text != nullptr, "a kernel's type name did not demangle");
  std::string name(text);
  std::free(text);
  return name;
}

void erase_all(std::string& text, const std::string& what) {
  for (std::size_t at; (at = text.find(what)) != std::string::npos;)
    text.erase(at, what.size());
}

} // namespace

std::string path_kernel_expression(const char* tag_mangled_name) {
  const std::string tag = demangle(tag_mangled_name);
  const std::size_t open = tag.find('<');
  PFMC_EXPECTS(open != std::string::npos && tag.back() == '>', "a path kernel tag has arguments");
  return "&pfmc::kernels::path_kernel" + tag.substr(open);
}

std::string short_type_name(const char* mangled_name) {
  std::string name = demangle(mangled_name);
  erase_all(name, "pfmc::models::");
  erase_all(name, "pfmc::kernels::");
  return name;
}

std::string cache_dir() {
  const std::lock_guard<std::mutex> guard(registry().mutex);
  return kernel_cache_dir(registry().dir_override);
}

void set_cache_dir(const std::string& dir) {
  const std::lock_guard<std::mutex> guard(registry().mutex);
  registry().dir_override = dir;
}

CompileCounter::CompileCounter() : parent_(counter_in_force) {}

CompileTotals CompileCounter::totals() const {
  const std::lock_guard<std::mutex> guard(mutex_);
  return totals_;
}

void CompileCounter::add(const CompileTotals& more) {
  {
    const std::lock_guard<std::mutex> guard(mutex_);
    totals_.compile_ms += more.compile_ms;
    totals_.load_ms += more.load_ms;
    totals_.compiled += more.compiled;
    totals_.from_cache += more.from_cache;
  }
  if (parent_ != nullptr)
    parent_->add(more);
}

CompileScope::CompileScope(CompileCounter* counter) : previous_(counter_in_force) {
  counter_in_force = counter;
}

CompileScope::~CompileScope() {
  counter_in_force = previous_;
}

CompileCounter* current_counter() {
  return counter_in_force;
}

bool compile_to_cache(const std::string& name_expression, int arch, bool notice) {
  KernelKey key{name_expression, arch};
  bool compiled = false;
  fetch(key, name_expression, compiled, notice);
  return compiled;
}

namespace {

/// Whether this process has the kernel loaded already (runtime_kernel): then neither the cache
/// nor the compiler need be asked. A warm run of the MonteCarloMultiGPU book read its kernel's
/// 0.6 MB cache entry and checked its digest on every run (part of 11.5 ms of choosing backends,
/// docs/decisions.md#backend-choice). A slot being loaded by another thread counts as not loaded.
bool loaded_in_process(const std::string& name_expression, int arch) {
  std::shared_ptr<Slot> slot;
  {
    const std::lock_guard<std::mutex> guard(registry().mutex);
    const auto found = registry().slots.find(std::to_string(arch) + " " + name_expression);
    if (found == registry().slots.end() || !found->second)
      return false;
    slot = found->second;
  }
  const std::unique_lock<std::mutex> guard(slot->mutex, std::try_to_lock);
  return guard.owns_lock() && slot->ready;
}

} // namespace

CompileBatch compile_all(const std::vector<std::string>& names, int arch, int jobs, bool progress) {
  // In the caller's order (a caller that knows the long ones puts them first: a batch waits for
  // its last compile), each name once.
  std::vector<std::string> targets;
  std::set<std::string> seen;
  for (const auto& name : names) {
    if (seen.insert(name).second)
      targets.push_back(name);
  }
  targets.erase(
      std::remove_if(targets.begin(), targets.end(),
                     [&](const std::string& name) { return loaded_in_process(name, arch); }),
      targets.end());
  CompileBatch batch;
  const int threads_wanted =
      jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const bool terminal = progress && ::isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  std::atomic<std::size_t> next{0}, done{0}, compiled{0};
  std::mutex mutex;
  CompileCounter* const counter = counter_in_force; // the caller's run
  auto worker = [&] {
    const CompileScope scope(counter);
    for (std::size_t i; (i = next++) < targets.size();) {
      try {
        if (compile_to_cache(targets[i], arch, false))
          ++compiled;
      } catch (const std::exception& e) {
        const std::lock_guard<std::mutex> guard(mutex);
        batch.failures.push_back(e.what());
      }
      const std::size_t n = ++done;
      if (terminal) {
        const std::lock_guard<std::mutex> guard(mutex);
        std::fprintf(stderr, "\rpfmc: compiling kernels for sm_%d: %zu of %zu ready", arch, n,
                     targets.size());
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::min<int>(threads_wanted, static_cast<int>(targets.size())); ++t)
    threads.emplace_back(worker);
  for (auto& t : threads)
    t.join();
  if (terminal && !targets.empty())
    std::fprintf(stderr, "\n");
  batch.compiled = compiled;
  batch.seconds = ms_since(start) / 1000.0;
  if (progress && batch.compiled > 0) {
    std::fprintf(stderr,
                 "pfmc: compiled %zu kernels for sm_%d in %.1f s on %d threads (first use; kept "
                 "in %s)\n",
                 batch.compiled, arch, batch.seconds, std::min<int>(threads_wanted, targets.size()),
                 cache_dir().c_str());
  }
  return batch;
}

const void* runtime_kernel(const std::string& name_expression, const std::string& label) {
  const int arch = current_arch();
  std::shared_ptr<Slot> slot;
  {
    const std::lock_guard<std::mutex> guard(registry().mutex);
    auto& found = registry().slots[std::to_string(arch) + " " + name_expression];
    if (!found)
      found = std::make_shared<Slot>();
    slot = found;
  }
  const std::lock_guard<std::mutex> guard(slot->mutex);
  if (slot->ready)
    return reinterpret_cast<const void*>(slot->kernel);
  const auto start = std::chrono::steady_clock::now();
  const KernelKey key{name_expression, arch};
  bool compiled = false;
  const CacheEntry entry = fetch(key, label, compiled);
  PFMC_CUDA_TRY(cudaLibraryLoadData(&slot->library, entry.image.data(), nullptr, nullptr, 0,
                                    nullptr, nullptr, 0));
  PFMC_CUDA_TRY(cudaLibraryGetKernel(&slot->kernel, slot->library, entry.lowered_name.c_str()));
  slot->ready = true;
  if (!compiled) {
    CompileTotals load;
    load.load_ms = ms_since(start);
    load.from_cache = 1;
    count(load);
  }
  return reinterpret_cast<const void*>(slot->kernel);
}

} // namespace pfmc::kernels::compile
