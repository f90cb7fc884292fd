#pragma once
// Stopping a run when the process is asked to (SIGINT, SIGTERM). The signal handler only
// records the signal (request_stop, async-signal-safe); the engine looks at it where stopping
// is clean — between blocks of paths on the CPU, before each launch on the GPU, between the
// tuner's measurements — and throws Interrupted, so that every buffer, stream and temporary
// file is released by its owner on the way out and nothing is written.

#include <stdexcept>

namespace pfmc::engine {

/// A run stopped by a signal; the process exits with 128 + signal() (130 for SIGINT, 143 for
/// SIGTERM).
class Interrupted : public std::runtime_error {
public:
  explicit Interrupted(int signal);
  [[nodiscard]] int signal() const { return signal_; }

private:
  int signal_;
};

/// Records that the process was asked to stop by `signal` (the first one wins).
/// Async-signal-safe: a lock-free atomic store.
void request_stop(int signal) noexcept;
/// Whether a stop was requested (a relaxed atomic load: cheap enough for inner loops).
[[nodiscard]] bool stop_requested() noexcept;
/// Throws Interrupted when a stop was requested.
void throw_if_stopped();
/// Forgets a request (tests that interrupt a run and then run again in the same process).
void clear_stop_request() noexcept;

} // namespace pfmc::engine
