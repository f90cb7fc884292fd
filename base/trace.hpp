#pragma once
// Where a run's host time goes, thread by thread: with PFMC_TRACE=FILE set, every TraceSpan
// records its name, thread, device and host-clock interval, and the process writes them to FILE
// at its exit in the Chrome trace format (open it in https://ui.perfetto.dev or chrome://tracing;
// the device machine has no Nsight Systems); "%p" in FILE is the process id (an MPI job's ranks
// write a file each). Unset, a span costs one relaxed load.

#include <chrono>
#include <string>

namespace pfmc::base {

/// Whether PFMC_TRACE names a file (read once).
bool tracing();

/// Records one finished interval (what TraceSpan does at its end).
void trace_interval(const char* name, int device, std::chrono::steady_clock::time_point start,
                    std::chrono::steady_clock::time_point end);

/// One named interval of the calling thread: from construction to destruction (or end()).
/// `device`: the GPU it works on (-1: none); the name must outlive the process (a literal).
class TraceSpan {
public:
  explicit TraceSpan(const char* name, int device = -1) : name_(name), device_(device) {
    if (tracing())
      start_ = std::chrono::steady_clock::now();
  }
  TraceSpan(const TraceSpan&) = delete;
  TraceSpan& operator=(const TraceSpan&) = delete;
  ~TraceSpan() { end(); }
  void end() {
    if (name_ != nullptr && tracing())
      trace_interval(name_, device_, start_, std::chrono::steady_clock::now());
    name_ = nullptr;
  }

private:
  const char* name_;
  int device_;
  std::chrono::steady_clock::time_point start_{};
};

} // namespace pfmc::base
