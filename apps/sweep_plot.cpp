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
#include <vector>

#include "engine/core/atomic_file.hpp"
#include "kernels/error.hpp"

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

/// bench/plot_sweep.py of the source tree, else next to the binary, else where `make install`
/// puts it relative to the binary.
std::string find_plot_script() {
  std::vector<fs::path> candidates;
  if (*PFMC_PLOT_SCRIPT != '\0')
    candidates.emplace_back(PFMC_PLOT_SCRIPT);
  std::error_code error;
  const fs::path binary = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    candidates.push_back(binary.parent_path() / "plot_sweep.py");
    candidates.push_back((binary.parent_path() / PFMC_INSTALLED_PLOT_SCRIPT).lexically_normal());
  }
  std::string tried;
  for (const auto& candidate : candidates) {
    if (fs::is_regular_file(candidate, error))
      return candidate.string();
    tried += (tried.empty() ? "" : ", ") + candidate.string();
  }
  throw RuntimeError("the plot script plot_sweep.py is missing (looked for " + tried + ")");
}

/// A CSV under the temporary folder, removed when this goes out of scope.
class TemporaryCsv {
public:
  explicit TemporaryCsv(const std::string& text) {
    std::string pattern = (fs::temp_directory_path() / "pfmc_sweep_XXXXXX.csv").string();
    const int descriptor = ::mkostemps(pattern.data(), 4, O_CLOEXEC); // unique, 4: ".csv"
    if (descriptor < 0) {
      throw RuntimeError("cannot create a temporary CSV for the plot (" + pattern +
                         "): " + std::strerror(errno));
    }
    ::close(descriptor);
    path_ = pattern;
    try {
      engine::write_file_atomically(path_, text);
    } catch (...) {
      ::unlink(path_.c_str());
      throw;
    }
  }
  ~TemporaryCsv() { ::unlink(path_.c_str()); }
  TemporaryCsv(const TemporaryCsv&) = delete;
  TemporaryCsv& operator=(const TemporaryCsv&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

private:
  std::string path_;
};

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
  const std::string script = find_plot_script();
  // The script reads the CSV again: from --csv when that left a regular file (through any link),
  // else (no --csv, `-`, a FIFO or a device) from a temporary copy.
  std::optional<TemporaryCsv> temporary;
  std::error_code error;
  if (csv_path.empty() || csv_path == "-" || !fs::is_regular_file(csv_path, error))
    temporary.emplace(csv_text);
  const std::string& csv = temporary ? temporary->path() : csv_path;
  const int status = run_program({python, script, csv, "--output", png_path}, /*quiet=*/false);
  if (status != 0) {
    throw RuntimeError("no plot written to " + png_path + ": " + python + " " + script +
                       (status < 0 ? " could not be run"
                                   : " failed (exit status " + std::to_string(status) + ")"));
  }
}

} // namespace pfmc::apps
