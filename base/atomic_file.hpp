#pragma once
// The one rule by which pfmc writes its output (results, CSVs, the tuning cache): readers of a
// file see the old contents or the new ones, never a half-written file; concurrent writers never
// share a temporary file; and what the path names is never replaced by something else (a link
// stays a link, a device or a pipe is written to, not renamed over).

#include <string>
#include <string_view>

namespace pfmc::base {

/// Writes `contents` to what `path` names:
/// - a regular file or a new path: into a uniquely named temporary file in the same folder (so
///   that the rename stays on one file system), flushed to disk (fsync), then renamed over the
///   file. A new file gets the permissions a new file would (0666 less the umask); a replaced
///   file keeps its permission bits.
/// - a symbolic link: followed to its final target, which is written by the rules here (a regular
///   file is replaced in the target's folder); the link stays as it was.
/// - `-`: standard output.
/// - a character device or a FIFO: opened and written directly (no temporary file, no rename).
/// - a directory, a block device or a socket: refused.
/// On any failure (ENOSPC, EIO, a short write, a failed fsync or close) pfmc::RuntimeError names
/// `path` and the step that failed with the system's reason; a temporary file is removed and a
/// file being replaced is left as it was. The folder must exist.
void write_file_atomically(const std::string& path, std::string_view contents);

} // namespace pfmc::base
