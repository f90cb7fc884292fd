#include "base/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "base/error.hpp"

namespace pfmc::base {

namespace {

/// Throws the one error of a failed write: `name` (the path as given, and where a link led),
/// the step that failed, and the system's reason when there is one (`error` != 0).
[[noreturn]] void fail(const std::string& name, const std::string& what, int error) {
  throw RuntimeError("cannot write " + name + ": " + what +
                     (error != 0 ? std::string(": ") + std::strerror(error) : std::string()));
}

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

/// `path` up to and including its last '/'; empty for a name in the current folder.
std::string folder_prefix(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

/// Writes all of `contents` to an open descriptor: a short write goes on with the rest, and a
/// write that takes nothing is a failure (rather than a loop).
void write_all(int descriptor, std::string_view contents, const std::string& name,
               const std::string& what) {
  while (!contents.empty()) {
    const ssize_t written = ::write(descriptor, contents.data(), contents.size());
    if (written < 0 && errno == EINTR)
      continue;
    if (written < 0)
      fail(name, what, errno);
    if (written == 0) {
      fail(name, what + ": short write (" + std::to_string(contents.size()) + " bytes not taken)",
           0);
    }
    contents.remove_prefix(static_cast<std::size_t>(written));
  }
}

/// What a path names once its symbolic links are followed.
struct Destination {
  std::string path;      ///< the final target; the path as given when it is not a link
  bool exists = false;   ///< false: a new file is to be created at `path`
  struct stat info = {}; ///< lstat of `path` when it exists
};

/// Follows `name` through symbolic links (each relative target read against its link's folder)
/// to what it finally names; a dangling link names the new file to create.
Destination resolve(const std::string& name) {
  std::string current = name;
  for (int links = 0; links <= 40; ++links) { // 40: Linux's own limit (ELOOP)
    Destination destination;
    destination.path = current;
    if (::lstat(current.c_str(), &destination.info) != 0) {
      if (errno == ENOENT)
        return destination; // new (a missing folder is named when the temporary file fails)
      fail(name, "cannot look at " + current, errno);
    }
    destination.exists = true;
    if (!S_ISLNK(destination.info.st_mode))
      return destination;
    char target[PATH_MAX];
    const ssize_t length = ::readlink(current.c_str(), target, sizeof target);
    if (length < 0)
      fail(name, "cannot read the symbolic link " + current, errno);
    if (static_cast<std::size_t>(length) == sizeof target)
      fail(name, "cannot read the symbolic link " + current, ENAMETOOLONG);
    const std::string next(target, static_cast<std::size_t>(length));
    current = next.front() == '/' ? next : folder_prefix(current) + next;
  }
  fail(name, "cannot follow its symbolic links", ELOOP);
}

/// The temporary file of one replacement: created next to the destination, removed unless
/// committed.
class TemporaryFile {
public:
  TemporaryFile(const std::string& destination, const std::string& name)
      : destination_(destination), name_(name) {
    const std::string prefix = folder_prefix(destination);
    folder_ = prefix.empty() ? "." : prefix.size() == 1 ? "/" : prefix.substr(0, prefix.size() - 1);
    // Hidden, and named after the destination, so that a leftover (after a crash) says whose.
    std::string pattern = prefix + "." + destination.substr(prefix.size()) + ".XXXXXX";
    descriptor_ = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (descriptor_ < 0)
      fail(name_, "cannot create a temporary file in " + folder_, errno);
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

  void write(std::string_view contents, mode_t mode) {
    if (::fchmod(descriptor_, mode) != 0)
      fail(name_, "cannot set the permissions of " + path_, errno);
    write_all(descriptor_, contents, name_, "writing " + path_ + " failed");
    if (::fsync(descriptor_) != 0)
      fail(name_, "flushing " + path_ + " to disk (fsync) failed", errno);
    const int descriptor = descriptor_;
    descriptor_ = -1;
    if (::close(descriptor) != 0)
      fail(name_, "closing " + path_ + " failed", errno);
  }

  /// Renames the temporary file over the destination; from here on it is the destination.
  void commit() {
    if (::rename(path_.c_str(), destination_.c_str()) != 0)
      fail(name_, "renaming " + path_ + " over it failed", errno);
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
  std::string destination_;
  std::string name_;   ///< what errors call the destination
  std::string folder_; ///< the destination's, where the temporary file lives
  std::string path_;   ///< empty once renamed (or before it exists)
  int descriptor_ = -1;
};

void replace_regular_file(const Destination& destination, const std::string& name,
                          std::string_view contents) {
  // A file being replaced keeps its permission bits (not set-user-ID and the like, which the
  // new owner should not inherit); a new one gets what open(2) would give it.
  const mode_t mode =
      destination.exists ? (destination.info.st_mode & 0777) : (0666 & ~current_umask());
  TemporaryFile temporary(destination.path, name);
  temporary.write(contents, mode);
  temporary.commit();
}

/// A character device or a FIFO: the reader (a terminal, /dev/null, a pipe's other end) takes
/// the bytes as they come; renaming over it would replace the device node with a file.
void write_directly(const Destination& destination, const std::string& name,
                    std::string_view contents) {
  // No O_CREAT and no O_TRUNC: this opens what was looked at, or fails. Opening a FIFO waits
  // for its reader, as a shell's `>` does.
  const int descriptor = ::open(destination.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (descriptor < 0)
    fail(name, "cannot open it", errno);
  try {
    struct stat info = {};
    if (::fstat(descriptor, &info) != 0)
      fail(name, "cannot look at it", errno);
    if (!S_ISCHR(info.st_mode) && !S_ISFIFO(info.st_mode))
      fail(name, "it changed into something else while being opened", 0);
    write_all(descriptor, contents, name, "writing failed");
  } catch (...) {
    ::close(descriptor);
    throw;
  }
  if (::close(descriptor) != 0)
    fail(name, "closing failed", errno);
}

void write_standard_output(std::string_view contents) {
  // Whatever the program already printed through the C and C++ streams goes first.
  std::cout.flush();
  std::fflush(stdout);
  write_all(STDOUT_FILENO, contents, "- (standard output)", "writing failed");
}

} // namespace

void write_file_atomically(const std::string& path, std::string_view contents) {
  if (path.empty())
    throw RuntimeError("cannot write a file with an empty name");
  if (path == "-")
    return write_standard_output(contents);
  const Destination destination = resolve(path);
  const std::string name =
      destination.path == path ? path : path + " (-> " + destination.path + ")";
  const mode_t type = destination.info.st_mode;
  if (!destination.exists || S_ISREG(type))
    return replace_regular_file(destination, name, contents);
  if (S_ISCHR(type) || S_ISFIFO(type))
    return write_directly(destination, name, contents);
  if (S_ISDIR(type))
    fail(name, "it is a directory", 0);
  fail(name, "it is not a regular file, a character device or a FIFO", 0);
}

} // namespace pfmc::base
