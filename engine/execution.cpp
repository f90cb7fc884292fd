#include "engine/execution.hpp"

#include <algorithm>

#include "kernels/draw_layout.hpp"
#include "kernels/reduction_shape.hpp"

namespace pfmc::engine {

ChunkPlan plan_chunks(std::uint64_t paths, int rows, int real_bytes, int values, int block_size,
                      std::uint64_t memory_cap) {
  const std::uint64_t tile_paths =
      static_cast<std::uint64_t>(kernels::kTileBlocks) * static_cast<std::uint64_t>(block_size);
  auto bytes_for = [&](std::uint64_t chunk_paths) {
    const std::uint64_t drawn = kernels::draw_tiles_for(chunk_paths) * kernels::kDrawTilePaths;
    const std::uint64_t blocks = (chunk_paths + block_size - 1) / block_size;
    const std::uint64_t tiles = kernels::tiles_for_blocks(blocks);
    return drawn * static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(real_bytes) +
           (blocks + tiles + 1) * static_cast<std::uint64_t>(values) * sizeof(double);
  };
  ChunkPlan plan;
  if (bytes_for(paths) <= memory_cap) {
    plan.chunk_paths = paths;
    plan.chunks = 1;
    plan.bytes_per_chunk = bytes_for(paths);
    return plan;
  }
  // Largest whole number of tiles under the cap (bytes_for is increasing in chunk_paths).
  std::uint64_t lo = 0;
  std::uint64_t hi = (paths + tile_paths - 1) / tile_paths;
  while (lo < hi) {
    const std::uint64_t mid = (lo + hi + 1) / 2;
    if (bytes_for(mid * tile_paths) <= memory_cap) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  if (lo == 0)
    return plan;
  plan.chunk_paths = lo * tile_paths;
  plan.chunks = (paths + plan.chunk_paths - 1) / plan.chunk_paths;
  plan.bytes_per_chunk = bytes_for(plan.chunk_paths);
  return plan;
}

} // namespace pfmc::engine
