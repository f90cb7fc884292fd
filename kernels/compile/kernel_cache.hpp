#pragma once
// The on-disk cache of runtime-compiled kernels: one file per key, written atomically (a
// temporary file renamed over), compiled at most once across processes (an advisory lock per
// key while one compiles), checked on every load (its key written in it, a digest over the
// whole entry): an entry for another key is never loaded, a corrupt or truncated one is set
// aside (`<entry>.corrupt`) with one notice and built again.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_lock.hpp"

namespace pfmc::kernels::compile {

/// A 128-bit FNV-1a digest, for cache file names and entry checks (not for security: an entry's
/// full key is compared on load).
class Fingerprint {
public:
  void add(std::string_view bytes);
  std::string hex() const;

private:
  std::uint64_t a_ = 14695981039346656037ull, b_ = 0x6c62272e07bb0142ull;
};

/// Everything that changes a compiled kernel's code, as text: the kernel's name expression, the
/// architecture, the embedded sources' and options' digest, NVRTC's version. Not the driver's:
/// an entry is a cubin (machine code, which no driver recompiles), so a cache warmed on a host
/// without a GPU (`pfmc kernels --warm --arch`) serves the GPU hosts that share it.
struct KernelKey {
  std::string name_expression;
  int arch = 0;
  std::string text() const;      ///< the whole key, one field a line
  std::string file_stem() const; ///< the digest of text(), the entry's file name
};

/// The cache folder: `override_dir`, else $PFMC_KERNEL_CACHE, else $XDG_CACHE_HOME/pfmc/kernels,
/// else $HOME/.cache/pfmc/kernels.
std::string kernel_cache_dir(const std::string& override_dir = {});

/// One cached compilation.
struct CacheEntry {
  std::string lowered_name;
  std::string image;
};

class KernelCache {
public:
  explicit KernelCache(std::string dir);
  const std::string& dir() const { return dir_; }

  /// The entry for `key`, or nothing (absent; or corrupt, then set aside with a notice on
  /// standard error; or written for another key).
  std::optional<CacheEntry> load(const KernelKey& key) const;
  /// Writes the entry atomically. False (with one notice a process) when the folder cannot be
  /// written: the kernel is then used uncached.
  bool store(const KernelKey& key, const CacheEntry& entry) const;

  /// Holds `key`'s lock (an exclusive flock of `<stem>.lock`) while alive: one process compiles
  /// a key at a time. Without a writable folder, holds nothing.
  class Lock {
  public:
    Lock(const KernelCache& cache, const KernelKey& key);

  private:
    base::FileLock lock_;
  };

  /// The entries' files (`*.cubin`), for `pfmc kernels`.
  struct Listed {
    std::string file;
    std::string name_expression; ///< from the entry's key ("" when unreadable)
    std::string arch;
    std::uintmax_t bytes = 0;
  };
  std::vector<Listed> list() const;
  /// Removes every entry, lock and set-aside file; returns how many files went.
  int clear() const;

private:
  std::string path_of(const KernelKey& key, const char* suffix) const;
  std::string dir_;
};

} // namespace pfmc::kernels::compile
