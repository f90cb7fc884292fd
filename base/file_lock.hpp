#pragma once
// An advisory lock on a file, for the scope: what the kernel cache (one lock per kernel, so that
// two processes compile it once) and the tuning cache (savers take turns to re-read, merge and
// rename) use alike.

#include <string>

namespace pfmc::base {

/// An exclusive flock on `path`, the file created if missing (0666 less the umask), held until
/// destruction; an interrupted wait is resumed. Where the file cannot be opened (a read-only
/// folder) nothing is locked and locked() is false: the caller goes on unlocked.
class FileLock {
public:
  explicit FileLock(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  [[nodiscard]] bool locked() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

} // namespace pfmc::base
