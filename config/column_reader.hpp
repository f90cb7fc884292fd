#pragma once
// A column of a trade list given in memory (Python's DataFrame or mapping of arrays) read into
// ColumnCells on every core: the cells lie anywhere in the caller's heap, each a cache miss, so
// the rows are read in contiguous pieces, one thread each (base/parallel_ranges.hpp), and joined
// in row order. The front end says how a cell is read (apps/python/module.cpp: Python's objects).

#include <cstddef>
#include <functional>

#include "config/load_config.hpp"

namespace pfmc::config {

/// Rows a thread of read_column takes at least (fewer rows: read on the calling thread alone).
inline constexpr std::size_t kColumnRowsPerThread = 16'384;

/// The cells of rows [0, n) in order. `plain(row, cells)` runs on any thread and must only read:
/// it appends the row's cell to `cells` and returns true, or appends nothing and returns false
/// for a cell it cannot read there; `serial(row, cells)` then reads each of those on the calling
/// thread, in row order, and may throw (read_column passes it on).
ColumnCells read_column(std::size_t n, const std::function<bool(std::size_t, ColumnCells&)>& plain,
                        const std::function<void(std::size_t, ColumnCells&)>& serial);

} // namespace pfmc::config
