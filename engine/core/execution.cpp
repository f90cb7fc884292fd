#include "engine/core/execution.hpp"

#include <algorithm>

#include "kernels/draw_layout.hpp"
#include "kernels/reduction_shape.cuh"
#include "kernels/value_layout.cuh"

namespace pfmc::engine {

ChunkPlan plan_chunks(std::uint64_t paths, int rows, int real_bytes, int values,
                      std::uint64_t memory_cap) {
  const std::uint64_t tile_paths = kernels::kTilePaths;
  auto bytes_for = [&](std::uint64_t chunk_paths) {
    const std::uint64_t drawn = kernels::draw_tiles_for(chunk_paths) * kernels::kDrawTilePaths;
    const std::uint64_t blocks = (chunk_paths + kernels::kWarpSize - 1) / kernels::kWarpSize;
    const std::uint64_t tiles = kernels::tiles_for_paths(chunk_paths);
    return drawn * static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(real_bytes) +
           (blocks + tiles + 1) * static_cast<std::uint64_t>(values) * sizeof(double);
  };
  ChunkPlan plan;
  if (paths <= kMaxChunkPaths && bytes_for(paths) <= memory_cap) {
    plan.chunk_paths = paths;
    plan.chunks = 1;
    plan.bytes_per_chunk = bytes_for(paths);
    return plan;
  }
  // Largest whole number of tiles under the cap (bytes_for is increasing in chunk_paths).
  std::uint64_t lo = 0;
  std::uint64_t hi = std::min(paths + tile_paths - 1, kMaxChunkPaths) / tile_paths;
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

RoundShape round_shape(std::uint64_t launch_paths, int steps, int factors, int paths_per_thread,
                       int block_size, int values, int multiprocessors) {
  RoundShape shape;
  if (steps * factors >= kLongPathRows || paths_per_thread == 1)
    return shape;
  const std::uint64_t thread_paths = static_cast<std::uint64_t>(paths_per_thread);
  const std::uint64_t min_blocks =
      static_cast<std::uint64_t>(kMinBlocksPerMultiprocessor) * std::max(1, multiprocessors);
  // Whether blocks of `paths` paths fit a tile and leave enough blocks.
  const auto fits = [&](std::uint64_t paths) {
    const std::uint64_t blocks = (launch_paths + paths - 1) / paths;
    return paths <= static_cast<std::uint64_t>(kernels::kTilePaths) && blocks >= min_blocks;
  };
  const std::uint64_t block = static_cast<std::uint64_t>(block_size) * thread_paths;
  if (values == kernels::kPriceValues) {
    while (shape.passes < kernels::kMaxPasses && fits(block * 2 * shape.passes))
      shape.passes *= 2;
  }
  const std::uint64_t round_paths = block * static_cast<std::uint64_t>(shape.passes);
  while (fits(round_paths * 2 * shape.rounds) &&
         kernels::round_sums_bytes(2 * shape.rounds, values) <= kernels::kMaxRoundSumsBytes)
    shape.rounds *= 2;
  return shape;
}

void add_plan_stats(PlanStats& total, const PlanStats& one) {
  total.draw_units += one.draw_units;
  total.kernel_launches += one.kernel_launches;
  total.generation_calls += one.generation_calls;
  total.host_syncs += one.host_syncs;
  total.kernel_load_ms += one.kernel_load_ms;
}

} // namespace pfmc::engine
