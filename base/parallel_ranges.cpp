#include "base/parallel_ranges.hpp"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

namespace pfmc::base {

unsigned hardware_threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

unsigned threads_for(std::size_t items, std::size_t per_thread) {
  const std::size_t hardware = hardware_threads();
  const std::size_t enough = per_thread > 0 ? items / per_thread : items;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(hardware, enough)));
}

std::size_t range_count(std::size_t items, unsigned threads) {
  return std::max<std::size_t>(1, std::min<std::size_t>(threads, items));
}

std::size_t range_begin(std::size_t items, std::size_t ranges, std::size_t range) {
  return items * range / ranges;
}

FirstFailure parallel_ranges(std::size_t items, unsigned threads,
                             const std::function<void(std::size_t, std::size_t)>& work) {
  const std::size_t ranges = range_count(items, threads);
  std::vector<FirstFailure> failures(ranges, FirstFailure{items, nullptr});
  // A range past an earlier range's failure need not go on (its items would not be reached).
  std::atomic<std::size_t> lowest_failure{items};
  const auto run = [&](std::size_t r) {
    const std::size_t begin = range_begin(items, ranges, r);
    const std::size_t end = range_begin(items, ranges, r + 1);
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
  for (std::size_t r = 1; r < ranges; ++r) {
    try {
      pool.emplace_back(run, r);
    } catch (const std::system_error&) { // no thread to be had: this range here
      run(r);
    }
  }
  run(0);
  for (auto& t : pool)
    t.join();
  for (const FirstFailure& f : failures) {
    if (f.error)
      return f; // ranges in order: the first one that failed holds the lowest item
  }
  return FirstFailure{items, nullptr};
}

std::exception_ptr parallel_items(std::size_t items, unsigned threads,
                                  const std::function<void(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(std::max(1u, threads));
  const auto run = [&](std::size_t t) {
    for (std::size_t i = next++; i < items && !failed.load(std::memory_order_relaxed); i = next++) {
      try {
        work(i);
      } catch (...) {
        errors[t] = std::current_exception();
        failed = true;
        return;
      }
    }
  };
  const std::size_t helpers = std::min<std::size_t>(errors.size(), items) - (items > 0 ? 1 : 0);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t <= helpers; ++t) {
    try {
      pool.emplace_back(run, t);
    } catch (const std::system_error&) {
      break; // a thread that cannot start leaves its items to the others
    }
  }
  run(0);
  for (auto& t : pool)
    t.join(); // before the errors are read: a helper may still be failing
  for (const auto& e : errors) {
    if (e)
      return e;
  }
  return nullptr;
}

} // namespace pfmc::base
