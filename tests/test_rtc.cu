// Compile on first use without a GPU (CI): a sample of the kernels this build does not build in,
// compiled by NVRTC to cubins for sm_90 through the kernel cache; and the cache's rules (its
// key, corrupt entries, two processes asking for one kernel).

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gpu_coverage.hpp"
#include "kernels/compile/compiled_kernels.hpp"
#include "kernels/compile/kernel_cache.hpp"
#include "kernels/compile/runtime_compiler.hpp"
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels::compile {
namespace {

namespace fs = std::filesystem;

/// A fresh cache folder for one test, used by this process while the test runs.
class ScopedCache {
public:
  ScopedCache() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::temp_directory_path() /
            ("pfmc-rtc-" + std::to_string(::getpid()) + "-" + test->name()))
               .string();
    fs::remove_all(dir_);
    set_cache_dir(dir_);
  }
  ~ScopedCache() {
    set_cache_dir("");
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  const std::string& dir() const { return dir_; }

private:
  std::string dir_;
};

TEST(RuntimeCompiler, NamesAKernelAsTheHostCompilerSpellsIt) {
  EXPECT_EQ((path_kernel_name<models::BlackScholes<float>, NoneLoader<float, 1, 0>, float>()),
            "&pfmc::kernels::path_kernel<pfmc::models::BlackScholes<float, pfmc::math::Accurate>, "
            "pfmc::kernels::NoneLoader<float, 1, 0>, float, false, 0>");
  EXPECT_EQ(
      (path_kernel_name<models::Heston<double>, InlineStepLoader<double, 2, 0>, double, true>()),
      "&pfmc::kernels::path_kernel<pfmc::models::Heston<double, pfmc::math::Accurate>, "
      "pfmc::kernels::InlineBatchLoader<double, 2, 0, 1, pfmc::math::Accurate>, double, true, 0>");
  // The fast math profile's: its own instantiations (models/math.cuh).
  EXPECT_EQ((path_kernel_name<models::BlackScholes<float, math::Fast>,
                              InlineLoaders<math::Fast>::Batch<float, 1, 0>, float>()),
            "&pfmc::kernels::path_kernel<pfmc::models::BlackScholes<float, pfmc::math::Fast>, "
            "pfmc::kernels::InlineBatchLoader<float, 1, 0, 4, pfmc::math::Fast>, float, false, "
            "0>");
}

TEST(RuntimeCompiler, CompilesASampleOfTheKernelsNotBuiltInWithoutAGpu) {
  ScopedCache cache;
  // Every model kind, both precisions, loaders of every family at distances the check build
  // does not compile (it builds each loader at 4, on Black-Scholes float), and a wide kernel.
  // (The Greeks' and early exercise's kernels take 12-18 s each here: the check build compiles
  // them with nvcc; the fast profile's, never built ahead, and a pathwise Greeks' model's, whose
  // observations are Duals, are compiled here.)
  const std::map<std::string, std::string> chosen{
      {"heston float unroll 3",
       path_kernel_name<models::Heston<float>, UnrollLoader<float, 2, 3>, float>()},
      {"local vol double smem_rolling_async 6",
       path_kernel_name<models::LocalVol<double>, SmemRollingAsyncLoader<double, 1, 6>, double>()},
      {"basket2 float tma",
       path_kernel_name<models::MultiBlackScholes<float, 2>, TmaLoader<float, 2, 0>, float>()},
      {"black-scholes double l2_hint_256b 12",
       path_kernel_name<models::BlackScholes<double>, L2Hint256Loader<double, 1, 12>, double>()},
      {"heston double smem_block_async 2",
       path_kernel_name<models::Heston<double>, SmemBlockAsyncLoader<double, 2, 2>, double>()},
      {"local vol float l2_prefetch_evict_last",
       path_kernel_name<models::LocalVol<float>, L2PrefetchEvictLastLoader<float, 1, 0>, float>()},
      {"black-scholes float smem_batched 16",
       path_kernel_name<models::BlackScholes<float>, SmemBatchedLoader<float, 1, 16>, float>()},
      {"black-scholes float fast inline",
       path_kernel_name<models::BlackScholes<float, math::Fast>,
                        InlineLoaders<math::Fast>::Batch<float, 1, 0>, float>()},
      {"heston double fast early exercise",
       path_kernel_name<models::Heston<double, math::Fast>,
                        InlineLoaders<math::Fast>::Step<double, 2, 0>, double, true>()},
      {"black-scholes float fast inline terminal",
       path_kernel_name<models::BlackScholes<float, math::Fast>,
                        InlineLoaders<math::Fast>::Batch<float, 1, 0>, float, false,
                        kTerminalRegisters>()},
      {"black-scholes double pathwise inline",
       path_kernel_name<models::PathwiseBlackScholes<double, 1>,
                        InlineLoaders<math::Accurate>::Batch<double, 1, 0>, double>()},
      {"black-scholes double wide l2_prefetch",
       path_kernel_name<models::BlackScholes<double>, L2PrefetchLoader<double, 1, 0>, double, false,
                        kWideRegisters>()},
  };
  // Two at a time (the CI machine's cores).
  std::vector<std::pair<std::string, std::string>> all(chosen.begin(), chosen.end());
  for (std::size_t i = 0; i < all.size(); i += 2) {
    std::vector<std::future<bool>> running;
    for (std::size_t j = i; j < std::min(i + 2, all.size()); ++j) {
      running.push_back(std::async(std::launch::async,
                                   [name = all[j].second] { return compile_to_cache(name, 90); }));
    }
    for (std::size_t j = 0; j < running.size(); ++j)
      EXPECT_TRUE(running[j].get()) << all[i + j].first << ": " << all[i + j].second;
  }
  // Now from the cache.
  for (const auto& [backend, name] : all)
    EXPECT_FALSE(compile_to_cache(name, 90)) << backend << " was compiled twice";
  EXPECT_EQ(KernelCache(cache.dir()).list().size(), all.size());
  // Without line tables (PFMC_KERNEL_LINEINFO=1 asks for them): with them NVRTC also embeds the
  // PTX's text, most of an entry's bytes.
  if (std::getenv("PFMC_KERNEL_LINEINFO") == nullptr) {
    for (const auto& file : fs::directory_iterator(cache.dir())) {
      std::ifstream in(file.path(), std::ios::binary);
      const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      EXPECT_EQ(bytes.find(".nv_debug_ptx_txt"), std::string::npos) << file.path();
      EXPECT_EQ(bytes.find(".debug_line"), std::string::npos) << file.path();
    }
  }
}

TEST(RuntimeCompiler, ReportsWhatDoesNotCompile) {
  ScopedCache cache;
  try {
    compile_to_cache("&pfmc::kernels::path_kernel<int, int, int, false, 0>", 90);
    FAIL() << "an impossible instantiation compiled";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("NVRTC could not compile"), std::string::npos) << e.what();
  }
}

KernelKey key_of(const std::string& name) {
  return KernelKey{name, 90};
}

TEST(GpuSuiteCoverage, NamesKernelsThatExistTheLongestFirstAndEveryLoaderInEachRole) {
  // tests/gpu_coverage.cpp, checked where CI runs (no GPU): every case names a kernel of the
  // inventory (suite_kernels throws otherwise), no kernel twice, the compile order's weights
  // falling, and every loader crossed with every distance and both precisions on Black-Scholes,
  // and with 2, 3 and 4 factors a step.
  const auto kernels = testing::coverage::suite_kernels();
  std::set<std::string> names;
  for (const auto& k : kernels)
    EXPECT_TRUE(names.insert(k.name).second) << k.name;
  EXPECT_GT(kernels.size(), 300u);
  EXPECT_LT(kernels.size(), 600u); // the standard tier fits a device call (scripts/gpu-check.sh)
  std::map<std::string, std::set<std::string>> roles; // backend -> "entry d"
  for (const auto& c : testing::coverage::loader_cases([](const std::string&) { return true; })) {
    // Each case once: its name is a parameterised test's (test_gpu aborts on a duplicate).
    EXPECT_TRUE(roles[c.backend].insert(c.entry + " d" + std::to_string(c.distance)).second)
        << c.entry << " " << c.backend << " d" << c.distance;
  }
  for (const auto& b : backend_catalog()) {
    if (std::string(b.name) == "none" || b.bench_only)
      continue;
    const auto& r = roles[b.name];
    for (const char* entry : {"black_scholes_f64", "black_scholes_f32"}) {
      for (int d : kPrefetchDistances) {
        const int asked = b.uses_prefetch_distance ? d : 4;
        EXPECT_TRUE(r.count(std::string(entry) + " d" + std::to_string(asked))) << b.name << d;
      }
    }
    for (const char* two_three_four : {"heston_f32 d4", "multi3_f64 d4", "multi4_f32 d4"})
      EXPECT_TRUE(r.count(two_three_four)) << b.name << " " << two_three_four;
  }
}

TEST(KernelCache, KeepsAnEntryUnderItsKeyAlone) {
  ScopedCache scoped;
  const KernelCache cache(scoped.dir());
  const CacheEntry entry{"_Z6kernelv", std::string("\x7f"
                                                   "ELF\0\1binary",
                                                   12)};
  ASSERT_TRUE(cache.store(key_of("&k<1>"), entry));
  const auto loaded = cache.load(key_of("&k<1>"));
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->lowered_name, entry.lowered_name);
  EXPECT_EQ(loaded->image, entry.image);
  EXPECT_FALSE(cache.load(key_of("&k<2>")).has_value());
  EXPECT_FALSE(cache.load(KernelKey{"&k<1>", 100}).has_value()); // another architecture
  // An entry renamed to another key's file is not loaded for that key.
  fs::rename(scoped.dir() + "/" + key_of("&k<1>").file_stem() + ".cubin",
             scoped.dir() + "/" + key_of("&k<3>").file_stem() + ".cubin");
  EXPECT_FALSE(cache.load(key_of("&k<3>")).has_value());
}

TEST(KernelCache, SetsACorruptOrTruncatedEntryAsideWithOneNotice) {
  ScopedCache scoped;
  const KernelCache cache(scoped.dir());
  const CacheEntry entry{"_Z6kernelv", std::string(4096, 'x')};
  for (const char* damage : {"truncated", "flipped"}) {
    ASSERT_TRUE(cache.store(key_of("&k<1>"), entry));
    const std::string file = scoped.dir() + "/" + key_of("&k<1>").file_stem() + ".cubin";
    std::string bytes;
    {
      std::ifstream in(file, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (std::string(damage) == "truncated")
      bytes.resize(bytes.size() / 2);
    else
      bytes[bytes.size() / 2] ^= 1;
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.load(key_of("&k<1>")).has_value()) << damage;
    const std::string notice = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(notice.find("is unusable"), std::string::npos) << damage << ": " << notice;
    EXPECT_NE(notice.find("set aside"), std::string::npos) << notice;
    EXPECT_TRUE(fs::exists(file + ".corrupt")) << damage;
    EXPECT_FALSE(fs::exists(file)) << damage;
    // Rebuilt: a new entry loads.
    ASSERT_TRUE(cache.store(key_of("&k<1>"), entry));
    EXPECT_TRUE(cache.load(key_of("&k<1>")).has_value()) << damage;
  }
  EXPECT_EQ(cache.clear(), 2); // the entry and the set-aside file
}

TEST(KernelCache, TwoProcessesAskingForOneKernelCompileItOnce) {
  ScopedCache scoped;
  const std::string name =
      path_kernel_name<models::BlackScholes<float>, UnrollLoader<float, 1, 3>, float>();
  std::vector<pid_t> children;
  for (int i = 0; i < 2; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 3;
      try {
        status = compile_to_cache(name, 90) ? 1 : 0;
      } catch (...) {
      }
      std::_Exit(status);
    }
    children.push_back(pid);
  }
  int compiled = 0;
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_LE(WEXITSTATUS(status), 1) << "a child failed";
    compiled += WEXITSTATUS(status);
  }
  EXPECT_EQ(compiled, 1) << "both compiled, or neither";
  EXPECT_EQ(KernelCache(scoped.dir()).list().size(), 1u);
}

TEST(CompileCounter, ARunCountsItsOwnCompilesAndItsCallerSeesThem) {
  // Two "runs" on two threads at once, each with its counter in force (as engine::price puts
  // one), under an outer counter on this thread (as the GPU suite's main does): each counts the
  // kernel it compiled, its threads' included (compile_all's workers), not the other's; the
  // outer counter sees only the run made under it.
  ScopedCache scoped;
  const std::string first =
      path_kernel_name<models::BlackScholes<float>, UnrollLoader<float, 1, 2>, float>();
  const std::string second =
      path_kernel_name<models::BlackScholes<float>, UnrollLoader<float, 1, 6>, float>();
  CompileCounter outer;
  const CompileScope outer_scope(&outer);
  CompileCounter one; // made under `outer`: adds to it too
  std::thread other([&] {
    CompileCounter two; // no counter in force on this thread: its own alone
    const CompileScope scope(&two);
    compile_to_cache(second, 90, false);
    EXPECT_EQ(two.totals().compiled, 1);
  });
  {
    const CompileScope scope(&one);
    const auto batch = compile_all({first}, 90, 2, false);
    EXPECT_EQ(batch.compiled, 1u);
  }
  other.join();
  EXPECT_EQ(one.totals().compiled, 1);
  EXPECT_GT(one.totals().compile_ms, 0.0);
  EXPECT_EQ(outer.totals().compiled, 1);
  EXPECT_EQ(current_counter(), &outer);
}

TEST(KernelCache, LivesWhereTheEnvironmentSays) {
  const char* saved = std::getenv("PFMC_KERNEL_CACHE");
  const char* saved_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string before = saved == nullptr ? "" : saved;
  const std::string before_xdg = saved_xdg == nullptr ? "" : saved_xdg;
  ::setenv("PFMC_KERNEL_CACHE", "/tmp/somewhere", 1);
  EXPECT_EQ(kernel_cache_dir(), "/tmp/somewhere");
  EXPECT_EQ(kernel_cache_dir("/elsewhere"), "/elsewhere");
  ::unsetenv("PFMC_KERNEL_CACHE");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(kernel_cache_dir(), "/tmp/xdg/pfmc/kernels");
  if (saved != nullptr)
    ::setenv("PFMC_KERNEL_CACHE", before.c_str(), 1);
  if (saved_xdg != nullptr)
    ::setenv("XDG_CACHE_HOME", before_xdg.c_str(), 1);
  else
    ::unsetenv("XDG_CACHE_HOME");
}

} // namespace
} // namespace pfmc::kernels::compile
