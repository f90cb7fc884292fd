#include "config/parallel_ranges.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace pfmc::config {

unsigned threads_for(std::size_t items, std::size_t per_thread) {
  const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t enough = per_thread > 0 ? items / per_thread : items;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(hardware, enough)));
}

FirstFailure parallel_ranges(std::size_t items, unsigned threads,
                             const std::function<void(std::size_t, std::size_t)>& work) {
  const std::size_t ranges = std::max<std::size_t>(1, std::min<std::size_t>(threads, items));
  std::vector<FirstFailure> failures(ranges, FirstFailure{items, nullptr});
  // A range past an earlier range's failure need not go on (its items would not be reached).
  std::atomic<std::size_t> lowest_failure{items};
  const auto run = [&](std::size_t r) {
    const std::size_t begin = items * r / ranges;
    const std::size_t end = items * (r + 1) / ranges;
    for (std::size_t i = begin; i < end && i < lowest_failure.load(std::memory_order_relaxed);
         ++i) {
      try {
        work(i, r);
      } catch (...) {
        failures[r] = FirstFailure{i, std::current_exception()};
        std::size_t seen = lowest_failure.load();
        while (i < seen && !lowest_failure.compare_exchange_weak(seen, i)) {
        }
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t r = 1; r < ranges; ++r)
    pool.emplace_back(run, r);
  run(0);
  for (auto& t : pool)
    t.join();
  for (const FirstFailure& f : failures) {
    if (f.error)
      return f; // ranges in order: the first one that failed holds the lowest item
  }
  return FirstFailure{items, nullptr};
}

} // namespace pfmc::config
