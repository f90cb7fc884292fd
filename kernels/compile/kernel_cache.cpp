#include "kernels/compile/kernel_cache.hpp"

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

#include "base/atomic_file.hpp"
#include "base/cache_folder.hpp"
#include "kernels/compile/runtime_compiler.hpp"

namespace pfmc::kernels::compile {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "pfmc-kernel 1\n";

/// One notice a process for a folder that cannot be written.
std::atomic<bool> unwritable_noticed{false};

} // namespace

void Fingerprint::add(std::string_view bytes) {
  // Two FNV-1a 64 streams from different offsets, each byte then the length (so that field
  // boundaries count).
  for (const unsigned char c : bytes) {
    a_ = (a_ ^ c) * 1099511628211ull;
    b_ = (b_ ^ c) * 1099511628211ull;
    b_ ^= b_ >> 29;
  }
  for (int i = 0; i < 8; ++i) {
    const auto c = static_cast<unsigned char>(bytes.size() >> (8 * i));
    a_ = (a_ ^ c) * 1099511628211ull;
    b_ = (b_ ^ c) * 1099511628211ull;
  }
}

std::string Fingerprint::hex() const {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(a_),
                static_cast<unsigned long long>(b_));
  return text;
}

std::string KernelKey::text() const {
  std::ostringstream out;
  out << "kernel: " << name_expression << "\narch: sm_" << arch << "\nsources: " << source_digest()
      << "\nnvrtc: " << compiler_version() << "\n";
  return out.str();
}

std::string KernelKey::file_stem() const {
  Fingerprint fingerprint;
  fingerprint.add(text());
  return fingerprint.hex();
}

std::string kernel_cache_dir(const std::string& override_dir) {
  if (!override_dir.empty())
    return override_dir;
  return base::cache_path("PFMC_KERNEL_CACHE", "kernels", "pfmc-kernels");
}

KernelCache::KernelCache(std::string dir) : dir_(std::move(dir)) {}

std::string KernelCache::path_of(const KernelKey& key, const char* suffix) const {
  return dir_ + "/" + key.file_stem() + suffix;
}

namespace {

/// An entry's bytes: the magic, the key's length and text, the lowered name, the image's length
/// and bytes, then the digest of all that.
std::string serialise(const std::string& key_text, const CacheEntry& entry) {
  std::string body(kMagic);
  body += std::to_string(key_text.size()) + "\n" + key_text;
  body += entry.lowered_name + "\n";
  body += std::to_string(entry.image.size()) + "\n";
  body += entry.image;
  Fingerprint fingerprint;
  fingerprint.add(body);
  return body + fingerprint.hex() + "\n";
}

/// Reads a decimal length ended by '\n' at `at`; false when there is none.
bool read_length(const std::string& bytes, std::size_t& at, std::size_t& value) {
  const std::size_t end = bytes.find('\n', at);
  if (end == std::string::npos || end == at || end - at > 12)
    return false;
  value = 0;
  for (std::size_t i = at; i < end; ++i) {
    if (bytes[i] < '0' || bytes[i] > '9')
      return false;
    value = value * 10 + static_cast<std::size_t>(bytes[i] - '0');
  }
  at = end + 1;
  return true;
}

/// The entry in `bytes` and its key's text; an empty `why` when it is whole.
CacheEntry parse(const std::string& bytes, std::string& key_text, std::string& why) {
  CacheEntry entry;
  std::size_t at = kMagic.size();
  std::size_t length = 0;
  if (bytes.compare(0, kMagic.size(), kMagic) != 0) {
    why = "not a pfmc kernel entry";
    return entry;
  }
  if (!read_length(bytes, at, length) || at + length > bytes.size()) {
    why = "truncated key";
    return entry;
  }
  key_text = bytes.substr(at, length);
  at += length;
  const std::size_t name_end = bytes.find('\n', at);
  if (name_end == std::string::npos) {
    why = "truncated kernel name";
    return entry;
  }
  entry.lowered_name = bytes.substr(at, name_end - at);
  at = name_end + 1;
  if (!read_length(bytes, at, length) || at + length + 33 != bytes.size()) {
    why = "truncated image (" + std::to_string(bytes.size()) + " bytes)";
    return entry;
  }
  entry.image = bytes.substr(at, length);
  Fingerprint fingerprint;
  fingerprint.add(std::string_view(bytes).substr(0, at + length));
  if (bytes.compare(at + length, 32, fingerprint.hex()) != 0 || bytes.back() != '\n')
    why = "its digest does not match its contents";
  return entry;
}

} // namespace

std::optional<CacheEntry> KernelCache::load(const KernelKey& key) const {
  const std::string path = path_of(key, ".cubin");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string key_text, why;
  CacheEntry entry = parse(bytes, key_text, why);
  if (why.empty() && key_text != key.text())
    return std::nullopt; // another key's entry (a digest collision): never loaded, replaced
  if (!why.empty()) {
    std::fprintf(stderr, "pfmc: kernel cache entry %s is unusable (%s): %s, compiling again\n",
                 path.c_str(), why.c_str(), base::set_aside(path).c_str());
    return std::nullopt;
  }
  return entry;
}

bool KernelCache::store(const KernelKey& key, const CacheEntry& entry) const {
  std::error_code error;
  fs::create_directories(dir_, error);
  // Readers see the old entry or the whole new one (base/atomic_file.hpp).
  try {
    base::write_file_atomically(path_of(key, ".cubin"), serialise(key.text(), entry));
    return true;
  } catch (const std::exception& e) {
    if (!unwritable_noticed.exchange(true)) {
      std::fprintf(stderr,
                   "pfmc: cannot write the kernel cache %s (%s): compiled kernels are kept for "
                   "this process only (set PFMC_KERNEL_CACHE to a writable folder)\n",
                   dir_.c_str(), e.what());
    }
    return false;
  }
}

KernelCache::Lock::Lock(const KernelCache& cache, const KernelKey& key)
    : lock_([&] {
        std::error_code error;
        fs::create_directories(cache.dir_, error);
        return cache.path_of(key, ".lock");
      }()) {}

std::vector<KernelCache::Listed> KernelCache::list() const {
  std::vector<Listed> listed;
  std::error_code error;
  for (const auto& item : fs::directory_iterator(dir_, error)) {
    if (item.path().extension() != ".cubin")
      continue;
    Listed entry;
    entry.file = item.path().string();
    entry.bytes = item.file_size(error);
    std::ifstream in(entry.file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string key_text, why;
    parse(bytes, key_text, why);
    if (why.empty()) {
      std::istringstream lines(key_text);
      for (std::string line; std::getline(lines, line);) {
        if (line.rfind("kernel: ", 0) == 0)
          entry.name_expression = line.substr(8);
        else if (line.rfind("arch: ", 0) == 0)
          entry.arch = line.substr(6);
      }
    }
    listed.push_back(std::move(entry));
  }
  return listed;
}

int KernelCache::clear() const {
  int removed = 0;
  std::error_code error;
  for (const auto& item : fs::directory_iterator(dir_, error)) {
    const std::string name = item.path().filename().string();
    const bool ours =
        name.find(".cubin") != std::string::npos || item.path().extension() == ".lock";
    if (ours && fs::remove(item.path(), error))
      ++removed;
  }
  return removed;
}

} // namespace pfmc::kernels::compile
