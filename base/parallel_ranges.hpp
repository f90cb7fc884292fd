#pragma once
// Host work over many independent items in parallel, with the errors of a sequential loop: the
// items are cut into contiguous ranges, one thread each; a range stops at its first exception,
// and the caller gets the lowest item that failed. Used where a book of 100,000 instruments makes
// the host the bottleneck: a CSV book's rows (config/schema_products.cpp) and the plan's groups
// (engine/plan/plan.cpp).

#include <cstddef>
#include <exception>
#include <functional>

namespace pfmc::base {

struct FirstFailure {
  std::size_t index;        ///< the lowest item whose work threw; the item count if none did
  std::exception_ptr error; ///< its exception (null if none)
};

/// Light work an item (a run's bookkeeping over a book's groups: ~0.1 µs an item, mostly
/// cache misses) pays a thread from this many items: 8,192 groups take 4 threads.
inline constexpr std::size_t kLightItemsPerThread = 2'048;

/// This host's hardware threads (at least 1).
unsigned hardware_threads();

/// The threads for `items` of work: this host's hardware threads, but at least `per_thread`
/// items each (1 thread below 2 × per_thread: starting threads costs more than small work).
unsigned threads_for(std::size_t items, std::size_t per_thread);

/// The contiguous ranges parallel_ranges cuts `items` into on `threads`: min(threads, items),
/// at least 1; range r is [range_begin(items, ranges, r), range_begin(items, ranges, r + 1)).
std::size_t range_count(std::size_t items, unsigned threads);
std::size_t range_begin(std::size_t items, std::size_t ranges, std::size_t range);

/// Runs work(item, range) for every item in [0, items), in range_count(items, threads)
/// contiguous ranges (range r on its own thread; range 0 on this one), in order within a
/// range. Every item below the returned index was done; items above it may or may not have
/// been.
FirstFailure parallel_ranges(std::size_t items, unsigned threads,
                             const std::function<void(std::size_t item, std::size_t range)>& work);

/// Runs work(item) for every item in [0, items) on `threads` threads (this one among them), each
/// taking the next item not yet taken: for items of unequal work, put the largest first. After
/// an item throws no more are taken; an exception of a failed item comes back (null if none
/// failed): the caller needs only whether all of them were done, not which failed first.
std::exception_ptr parallel_items(std::size_t items, unsigned threads,
                                  const std::function<void(std::size_t item)>& work);

} // namespace pfmc::base
