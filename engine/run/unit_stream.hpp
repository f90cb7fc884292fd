#pragma once
// A run's groups finished while the run goes on: a thread of its own waits for each unit's sums
// to reach the host (a GPU run's copies, behind the unit's kernels) and makes its groups'
// outcomes, estimates and results (engine/run/unit_runner.hpp's sink) on a few threads, while
// the host stages the next units and the device runs them. The 8,192-option book's four units
// spent 1.7 ms on that after its last kernel (docs/decisions.md#group-bookkeeping): now only the
// last unit's share is left after it.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pfmc::engine {

/// A group's outcome, estimates and results (about 0.8 µs on the H200's host, mostly cache
/// misses: docs/decisions.md#group-bookkeeping) pay a thread from this many groups: a unit of
/// 2,048 takes 4.
inline constexpr std::size_t kFinishItemsPerThread = 512;

class UnitStream {
public:
  /// finish(g): group g's outcome made and handed on (groups apart, on several threads at once).
  explicit UnitStream(std::function<void(std::size_t group)> finish);
  UnitStream(const UnitStream&) = delete;
  UnitStream& operator=(const UnitStream&) = delete;
  /// Finishes the unit in hand, drops the others and any error (a run that did not close its
  /// stream is failing already).
  ~UnitStream();

  /// A unit's groups, to finish once `ready()` returns (ready: a wait for the unit's sums; it
  /// runs on the stream's thread).
  void post(std::function<void()> ready, std::vector<int> groups);

  /// Waits until every posted unit is finished; rethrows the first error (a later unit's
  /// groups are not finished after one).
  void close();

private:
  struct Unit {
    std::function<void()> ready;
    std::vector<int> groups;
  };
  void work();

  std::function<void(std::size_t)> finish_;
  std::mutex mutex_;
  std::condition_variable posted_;
  std::deque<Unit> units_;
  bool closing_ = false;
  std::exception_ptr error_;
  std::thread thread_; ///< last: started once the members above are
};

} // namespace pfmc::engine
