#include "engine/core/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <string>

namespace pfmc::engine {

namespace {

std::atomic<int> requested_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "used from a signal handler");

std::string describe(int signal) {
  switch (signal) {
  case SIGINT:
    return "interrupted (SIGINT)";
  case SIGTERM:
    return "terminated (SIGTERM)";
  default:
    return "stopped by signal " + std::to_string(signal);
  }
}

} // namespace

Interrupted::Interrupted(int signal)
    : std::runtime_error(describe(signal) + ": the run stopped, nothing was written"),
      signal_(signal) {}

void request_stop(int signal) noexcept {
  int none = 0;
  requested_signal.compare_exchange_strong(none, signal, std::memory_order_relaxed);
}

bool stop_requested() noexcept {
  return requested_signal.load(std::memory_order_relaxed) != 0;
}

void throw_if_stopped() {
  const int signal = requested_signal.load(std::memory_order_relaxed);
  if (signal != 0)
    throw Interrupted(signal);
}

void clear_stop_request() noexcept {
  requested_signal.store(0, std::memory_order_relaxed);
}

} // namespace pfmc::engine
