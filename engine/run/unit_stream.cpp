#include "engine/run/unit_stream.hpp"

#include <utility>

#include "base/parallel_ranges.hpp"
#include "base/trace.hpp"

namespace pfmc::engine {

UnitStream::UnitStream(std::function<void(std::size_t group)> finish)
    : finish_(std::move(finish)), thread_([this] { work(); }) {}

UnitStream::~UnitStream() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    units_.clear(); // not closed: the run failed or stopped, its groups are not wanted
  }
  posted_.notify_one();
  if (thread_.joinable())
    thread_.join();
}

void UnitStream::post(std::function<void()> ready, std::vector<int> groups) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    units_.push_back({std::move(ready), std::move(groups)});
  }
  posted_.notify_one();
}

void UnitStream::close() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  posted_.notify_one();
  if (thread_.joinable())
    thread_.join();
  if (error_)
    std::rethrow_exception(std::exchange(error_, nullptr));
}

void UnitStream::work() {
  for (;;) {
    Unit unit;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      posted_.wait(lock, [this] { return closing_ || !units_.empty(); });
      if (units_.empty())
        return; // closing, and every posted unit taken
      unit = std::move(units_.front());
      units_.pop_front();
    }
    if (error_)
      continue; // after a failed unit: drain, finish nothing more
    try {
      unit.ready();
      const base::TraceSpan span("outcomes: a unit's groups");
      const std::size_t n = unit.groups.size();
      const base::FirstFailure failed = base::parallel_ranges(
          n, base::threads_for(n, kFinishItemsPerThread),
          [&](std::size_t i, std::size_t) { finish_(static_cast<std::size_t>(unit.groups[i])); });
      if (failed.error)
        std::rethrow_exception(failed.error);
    } catch (...) {
      error_ = std::current_exception();
    }
  }
}

} // namespace pfmc::engine
