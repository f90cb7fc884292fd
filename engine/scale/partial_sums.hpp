#pragma once
// The sums of a group split at tile boundaries over workers (devices, processes), merged into
// exactly the sums of one run over all its paths. A worker's range of tiles [first, end) keeps
// its sums as the stack of the range's maximal aligned tile blocks (kernels/reduction_shape.cuh);
// appending the stack of the adjacent range that follows merges every block with the finished
// blocks to its left that it completes, with the additions one run would have made.

#include <cstdint>
#include <vector>

namespace pfmc::engine {

/// The sums of the tiles [first_tile, end_tile) of one group, `values` per path, as the stack of
/// the range's tile blocks ([block][value]).
struct PartialSums {
  std::uint64_t first_tile = 0;
  std::uint64_t end_tile = 0;
  int values = 0;
  std::vector<double> blocks;

  PartialSums() = default;
  PartialSums(std::uint64_t first, int value_count)
      : first_tile(first), end_tile(first), values(value_count) {}

  [[nodiscard]] int depth() const;
  /// Pushes the sums of tile end_tile (`values` of them), one tile further.
  void push_tile(const double* sums);
  /// Appends the range that follows (right.first_tile == end_tile; an empty one changes nothing,
  /// and appended to an empty one it is the sums).
  void append(const PartialSums& right);
  /// The stack folded: the sums of every path of the range (kernels::fold_blocks).
  [[nodiscard]] std::vector<double> totals() const;
};

} // namespace pfmc::engine
