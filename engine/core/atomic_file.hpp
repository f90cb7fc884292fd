#pragma once
// The one rule by which pfmc writes a file (results, CSVs, the tuning cache): readers see the old
// contents or the new ones, never a half-written file, and concurrent writers never share a
// temporary file.

#include <string>
#include <string_view>

namespace pfmc::engine {

/// Writes `contents` to `path`: into a uniquely named temporary file in the same folder (so
/// that the rename stays on one file system), flushed to disk (fsync), then renamed over `path`.
/// The file gets the permissions a new file would (0666 less the umask). On any failure the
/// temporary file is removed, `path` is left as it was, and pfmc::RuntimeError says which path
/// and which step failed (with the system's reason). The folder must exist.
void write_file_atomically(const std::string& path, std::string_view contents);

} // namespace pfmc::engine
