#include "engine/scale/partial_sums.hpp"

#include "base/error.hpp"
#include "kernels/reduction_shape.cuh"
#include "models/math.cuh"

namespace pfmc::engine {

int PartialSums::depth() const {
  return values > 0 ? static_cast<int>(blocks.size() / static_cast<std::size_t>(values)) : 0;
}

void PartialSums::push_tile(const double* sums) {
  const int d = depth();
  blocks.resize(static_cast<std::size_t>(d + 1) * values);
  int new_depth = d;
  for (int v = 0; v < values; ++v) {
    double* column = blocks.data() + v;
    new_depth = kernels::push_tile(
        [&](int k) -> double& { return column[static_cast<std::size_t>(k) * values]; }, d,
        first_tile, end_tile, sums[v]);
  }
  blocks.resize(static_cast<std::size_t>(new_depth) * values);
  ++end_tile;
}

void PartialSums::append(const PartialSums& right) {
  if (right.first_tile == right.end_tile)
    return;
  if (first_tile == end_tile) { // nothing yet: the sums are the right range's
    *this = right;
    return;
  }
  PFMC_EXPECTS(right.first_tile == end_tile && right.values == values,
               "partial sums append the adjacent range of the same values");
  PFMC_EXPECTS(right.depth() == kernels::tile_blocks(right.first_tile, right.end_tile),
               "a range's stack holds one sum per tile block");
  // This range's blocks, as (start, size), to find each new block's left sibling.
  std::vector<std::uint64_t> starts, sizes;
  for (std::uint64_t s = first_tile; s < end_tile;) {
    const std::uint64_t size = kernels::tile_block_size(s, end_tile);
    starts.push_back(s);
    sizes.push_back(size);
    s += size;
  }
  int k = 0;
  for (std::uint64_t start = right.first_tile; start < right.end_tile; ++k) {
    std::uint64_t size = kernels::tile_block_size(start, right.end_tile);
    const std::uint64_t next = start + size;
    std::vector<double> node(right.blocks.begin() + static_cast<std::ptrdiff_t>(k) * values,
                             right.blocks.begin() + static_cast<std::ptrdiff_t>(k + 1) * values);
    // Merge while the block on top is this one's left sibling: as large, adjacent, and the
    // pair aligned on twice the size (kernels::push_tile's rule, for blocks of any size).
    while (!sizes.empty() && sizes.back() == size && (start & size) != 0 &&
           starts.back() + size == start && start - size >= first_tile) {
      const std::size_t top = sizes.size() - 1;
      for (int v = 0; v < values; ++v) {
        node[static_cast<std::size_t>(v)] = math::add_rn(
            blocks[top * values + static_cast<std::size_t>(v)], node[static_cast<std::size_t>(v)]);
      }
      blocks.resize(top * values);
      start -= size;
      size <<= 1;
      starts.pop_back();
      sizes.pop_back();
    }
    blocks.insert(blocks.end(), node.begin(), node.end());
    starts.push_back(start);
    sizes.push_back(size);
    start = next;
  }
  end_tile = right.end_tile;
}

std::vector<double> PartialSums::totals() const {
  std::vector<double> out(static_cast<std::size_t>(values));
  const int d = depth();
  for (int v = 0; v < values; ++v) {
    out[static_cast<std::size_t>(v)] = kernels::fold_blocks(
        [&](int k) { return blocks[static_cast<std::size_t>(k) * values + v]; }, d);
  }
  return out;
}

} // namespace pfmc::engine
