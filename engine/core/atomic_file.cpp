#include "engine/core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "kernels/error.hpp"

namespace pfmc::engine {

namespace {

/// The process's umask, read without changing it (umask(2) can only read by setting, which
/// would race with other threads creating files); 022 where /proc does not say.
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0)
      return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

/// The temporary file of one write: created next to the destination, removed unless committed.
class TemporaryFile {
public:
  explicit TemporaryFile(const std::string& destination) : destination_(destination) {
    const auto slash = destination.rfind('/');
    const std::string prefix = slash == std::string::npos ? "" : destination.substr(0, slash + 1);
    folder_ = slash == std::string::npos ? "." : slash == 0 ? "/" : destination.substr(0, slash);
    // Hidden, and named after the destination, so that a leftover (after a crash) says whose.
    std::string pattern = prefix + "." + destination.substr(prefix.size()) + ".XXXXXX";
    descriptor_ = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (descriptor_ < 0)
      fail("cannot create a temporary file in " + folder_);
    path_ = pattern;
  }
  ~TemporaryFile() {
    if (descriptor_ >= 0)
      ::close(descriptor_);
    if (!path_.empty())
      ::unlink(path_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  void write(std::string_view contents) {
    if (::fchmod(descriptor_, 0666 & ~current_umask()) != 0)
      fail("cannot set the permissions of " + path_);
    while (!contents.empty()) {
      const ssize_t written = ::write(descriptor_, contents.data(), contents.size());
      if (written < 0 && errno == EINTR)
        continue;
      if (written <= 0)
        fail("writing " + path_ + " failed");
      contents.remove_prefix(static_cast<std::size_t>(written));
    }
    if (::fsync(descriptor_) != 0)
      fail("flushing " + path_ + " to disk (fsync) failed");
    const int descriptor = descriptor_;
    descriptor_ = -1;
    if (::close(descriptor) != 0)
      fail("closing " + path_ + " failed");
  }

  /// Renames the temporary file over the destination; from here on it is the destination.
  void commit() {
    if (::rename(path_.c_str(), destination_.c_str()) != 0)
      fail("renaming " + path_ + " over it failed");
    path_.clear();
    // The rename itself reaches the disk with the folder's entry; best effort, as the file is
    // already complete under its name.
    const int folder = ::open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder >= 0) {
      (void)::fsync(folder);
      ::close(folder);
    }
  }

private:
  [[noreturn]] void fail(const std::string& what) const {
    const int error = errno;
    throw RuntimeError("cannot write " + destination_ + ": " + what + ": " + std::strerror(error));
  }

  std::string destination_;
  std::string folder_; ///< the destination's, where the temporary file lives
  std::string path_;   ///< empty once renamed (or before it exists)
  int descriptor_ = -1;
};

} // namespace

void write_file_atomically(const std::string& path, std::string_view contents) {
  if (path.empty())
    throw RuntimeError("cannot write a file with an empty name");
  TemporaryFile temporary(path);
  temporary.write(contents);
  temporary.commit();
}

} // namespace pfmc::engine
