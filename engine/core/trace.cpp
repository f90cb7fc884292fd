#include "engine/core/trace.hpp"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pfmc::engine {

namespace {

struct Interval {
  const char* name;
  int device;
  std::size_t thread;
  std::chrono::steady_clock::time_point start, end;
};

struct Trace {
  std::string file;
  std::mutex mutex;
  std::vector<Interval> intervals;
  std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now();
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
    // Chrome's trace format: complete events ("X"), microseconds from the process's first span.
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
  trace().file = file;
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

std::size_t flush_trace() {
  return tracing() ? trace().write() : 0;
}

} // namespace pfmc::engine
