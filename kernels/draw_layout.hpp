#pragma once
// Layout of a chunk's random draws, shared by the generator, the kernels and the CPU backend.
//
// Draws come in *draw tiles* of kDrawTilePaths paths × every row (row = step * factors +
// factor), one cuRAND call per tile, in tile order. cuRAND's output for a call depends on the
// call's size and on the calls before it, not on an addressable position (measured: past 2^18
// values neither an explicit offset nor a continued generator reproduces a larger call), so a
// tile — never a chunk — is the unit that fixes the draws: chunks are whole numbers of tiles
// and give the same draws however a run is cut.
//
// Within a tile the layout is [row][path-in-tile] (path fastest): a warp's loads of one step
// are one 128-byte line (float) and a block's paths of one step are contiguous, because the
// block size is a power of two that divides kDrawTilePaths.

#include <cstddef>

namespace pfmc::kernels {

inline constexpr int kDrawTilePaths = 2048;

/// Offset of draw (path, row) from the start of a buffer whose first path starts a tile.
constexpr std::size_t draw_offset(std::size_t path, std::size_t row, std::size_t rows) {
  return (path / kDrawTilePaths) * rows * kDrawTilePaths + row * kDrawTilePaths +
         path % kDrawTilePaths;
}

constexpr std::size_t draw_tiles_for(std::size_t paths) {
  return (paths + kDrawTilePaths - 1) / kDrawTilePaths;
}

} // namespace pfmc::kernels
