#include "base/trace.hpp"

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

namespace pfmc::base {

namespace {

struct Interval {
  const char* name;
  int device;
  std::size_t thread;
  std::chrono::steady_clock::time_point start, end;
};

/// When this process started, on the steady clock (Linux: /proc/self/stat's start time, in clock
/// ticks since boot, against CLOCK_BOOTTIME); now where that cannot be read. Spans are written
/// from it, so that a trace shows what came before main (the loader, static initialisers).
std::chrono::steady_clock::time_point process_start() {
  const auto now = std::chrono::steady_clock::now();
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')'); // the command's name may hold spaces
  if (close == std::string::npos)
    return now;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  for (int k = 3; k <= 22 && fields >> field; ++k) {
    if (k == 22) {
      timespec boot{};
      if (clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
        return now;
      const double since_start = static_cast<double>(boot.tv_sec) + 1e-9 * boot.tv_nsec -
                                 std::stod(field) / static_cast<double>(sysconf(_SC_CLK_TCK));
      return now - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(since_start));
    }
  }
  return now;
}

struct Trace {
  std::string file;
  std::mutex mutex;
  std::vector<Interval> intervals;
  std::chrono::steady_clock::time_point origin = process_start();
  ~Trace() { write(); }

  std::size_t write() {
    const std::lock_guard<std::mutex> lock(mutex);
    if (file.empty() || intervals.empty())
      return 0;
    std::FILE* out = std::fopen(file.c_str(), "w");
    if (out == nullptr) {
      std::fprintf(stderr, "pfmc: PFMC_TRACE: cannot write %s\n", file.c_str());
      return 0;
    }
    // Chrome's trace format: complete events ("X"), microseconds from the process's start (to
    // the clock tick: 10 ms).
    std::fprintf(out, "{\"traceEvents\": [\n");
    for (std::size_t k = 0; k < intervals.size(); ++k) {
      const Interval& i = intervals[k];
      const auto us = [&](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double, std::micro>(t - origin).count();
      };
      std::fprintf(out,
                   "{\"name\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %zu, \"ts\": %.1f, "
                   "\"dur\": %.1f, \"args\": {\"device\": %d}}%s\n",
                   i.name, i.thread, us(i.start), us(i.end) - us(i.start), i.device,
                   k + 1 < intervals.size() ? "," : "");
    }
    std::fprintf(out, "]}\n");
    std::fclose(out);
    return intervals.size();
  }
};

Trace& trace() {
  static Trace t;
  return t;
}

bool read_tracing() {
  const char* file = std::getenv("PFMC_TRACE");
  if (file == nullptr || *file == '\0')
    return false;
  std::string name = file;
  // "%p": this process's id (the ranks of an MPI job write a file each).
  if (const auto at = name.find("%p"); at != std::string::npos)
    name.replace(at, 2, std::to_string(getpid()));
  trace().file = name;
  return true;
}

} // namespace

bool tracing() {
  static const bool on = read_tracing();
  return on;
}

void trace_interval(const char* name, int device, std::chrono::steady_clock::time_point start,
                    std::chrono::steady_clock::time_point end) {
  Trace& t = trace();
  const std::size_t thread = std::hash<std::thread::id>{}(std::this_thread::get_id()) % 100000;
  const std::lock_guard<std::mutex> lock(t.mutex);
  t.intervals.push_back({name, device, thread, start, end});
}

} // namespace pfmc::base
