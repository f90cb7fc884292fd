#include "apps/sweep_plot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "base/atomic_file.hpp"
#include "base/error.hpp"

extern char** environ;

// The script in the source tree (set by CMake), and where an installed pfmc finds its copy,
// relative to the binary's folder (CMake derives it from the install folders).
#ifndef PFMC_PLOT_SCRIPT
#define PFMC_PLOT_SCRIPT ""
#endif
#ifndef PFMC_INSTALLED_PLOT_SCRIPT
#define PFMC_INSTALLED_PLOT_SCRIPT "../share/pfmc/plot_sweep.py"
#endif

namespace pfmc::apps {

namespace {

namespace fs = std::filesystem;

/// Runs `arguments` (the program searched on PATH) and waits for it: its exit status, or -1 when
/// it could not be started or did not exit. `quiet` sends its output to /dev/null.
int run_program(const std::vector<std::string>& arguments, bool quiet) {
  std::vector<char*> argv;
  for (const auto& argument : arguments)
    argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  // What this process printed so far comes before what the child prints.
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = 0;
  const int error = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0)
    return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// bench/NAME (plot_sweep.py, plot_risk.py) of the source tree, else next to the binary, else
/// where `make install` puts it relative to the binary.
std::string find_plot_script(const std::string& name) {
  std::vector<fs::path> candidates;
  if (*PFMC_PLOT_SCRIPT != '\0')
    candidates.push_back(fs::path(PFMC_PLOT_SCRIPT).parent_path() / name);
  std::error_code error;
  const fs::path binary = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    candidates.push_back(binary.parent_path() / name);
    candidates.push_back(
        (binary.parent_path() / fs::path(PFMC_INSTALLED_PLOT_SCRIPT).parent_path() / name)
            .lexically_normal());
  }
  std::string tried;
  for (const auto& candidate : candidates) {
    if (fs::is_regular_file(candidate, error))
      return candidate.string();
    tried += (tried.empty() ? "" : ", ") + candidate.string();
  }
  throw RuntimeError("the plot script " + name + " is missing (looked for " + tried + ")");
}

/// A file of its own under the temporary folder ("pfmc_sweep_XXXXXX.csv" / ".png"), removed when
/// this goes out of scope.
class TemporaryFile {
public:
  explicit TemporaryFile(const std::string& suffix) {
    std::string pattern = (fs::temp_directory_path() / ("pfmc_sweep_XXXXXX" + suffix)).string();
    const int descriptor = ::mkostemps(pattern.data(), static_cast<int>(suffix.size()), O_CLOEXEC);
    if (descriptor < 0) {
      throw RuntimeError("cannot create a temporary file for the plot (" + pattern +
                         "): " + std::strerror(errno));
    }
    ::close(descriptor);
    path_ = pattern;
  }
  ~TemporaryFile() { ::unlink(path_.c_str()); }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

private:
  std::string path_;
};

/// The bytes of a file the plot script wrote.
std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in.good() && !in.eof())
    throw RuntimeError("cannot read the plot the script drew (" + path + ")");
  return bytes.str();
}

} // namespace

std::optional<std::string> find_plot_python() {
  std::vector<std::string> candidates;
  if (const char* chosen = std::getenv("PFMC_PYTHON"); chosen != nullptr && *chosen != '\0')
    candidates.emplace_back(chosen);
  candidates.emplace_back("python3");
  candidates.emplace_back("/usr/bin/python3");
  for (const auto& python : candidates) {
    if (run_program({python, "-c", "import matplotlib"}, /*quiet=*/true) == 0)
      return python;
  }
  return std::nullopt;
}

void draw_sweep_plot(const std::string& python, const std::string& png_path,
                     const std::string& csv_path, const std::string& csv_text) {
  draw_plot(python, "plot_sweep.py", png_path, csv_path, csv_text, ".csv");
}

void draw_plot(const std::string& python, const std::string& script_name,
               const std::string& png_path, const std::string& csv_path,
               const std::string& csv_text, const std::string& suffix) {
  const std::string script = find_plot_script(script_name);
  // The script reads the data again: from the file written when that left a regular file
  // (through any link), else (none, `-`, a FIFO or a device) from a temporary copy.
  std::optional<TemporaryFile> temporary;
  std::error_code error;
  if (csv_path.empty() || csv_path == "-" || !fs::is_regular_file(csv_path, error)) {
    temporary.emplace(suffix);
    base::write_file_atomically(temporary->path(), csv_text);
  }
  const std::string& csv = temporary ? temporary->path() : csv_path;
  // The script draws into a file of its own; the PNG reaches `png_path` through pfmc's one writer
  // (base/atomic_file.hpp), which follows links and writes FIFOs and devices in place.
  const TemporaryFile drawn(".png");
  const int status = run_program({python, script, csv, "--output", drawn.path()}, /*quiet=*/false);
  if (status != 0) {
    throw RuntimeError("no plot written to " + png_path + ": " + python + " " + script +
                       (status < 0 ? " could not be run"
                                   : " failed (exit status " + std::to_string(status) + ")"));
  }
  base::write_file_atomically(png_path, read_bytes(drawn.path()));
}

} // namespace pfmc::apps
