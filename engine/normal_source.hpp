#pragma once
// Standard normal draws from cuRAND's host API, one draw tile at a time (see
// kernels/draw_layout.hpp), on the device or on the host.
//
// Tile k of a group is the k-th generation call of rows × kDrawTilePaths normals made by a
// fresh generator seeded with the group's seed (pseudo-random), or points
// k·kDrawTilePaths .. (k+1)·kDrawTilePaths − 1 of every dimension (quasi-random; plain Sobol
// skips its first point, the origin). Tiles are produced strictly in order, so the draws of a
// path never depend on how the run is chunked. cuRAND's device and host generators produce
// the same sequence, so the CPU backend sees the GPU's draws.

#include <cuda_runtime.h>
#include <curand.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "config/run_config.hpp"

namespace pfmc::engine {

/// cuRAND's limit on Sobol dimensions (steps × factors of one group).
inline constexpr int kMaxSobolDimensions = 20000;

class NormalSource {
public:
  enum class Memory { device, host };

  NormalSource(config::RngType type, std::uint64_t seed, Memory memory, int rows);
  NormalSource(const NormalSource&) = delete;
  NormalSource& operator=(const NormalSource&) = delete;
  ~NormalSource();

  /// Device generators only: the stream generation runs on.
  void set_stream(cudaStream_t stream);

  /// Writes the next `tiles` draw tiles to out (tile i of this call at out + i·tile_size()).
  void next_tiles(float* out, std::uint64_t tiles);
  void next_tiles(double* out, std::uint64_t tiles);

  [[nodiscard]] std::size_t tile_size() const; ///< normals per tile: rows × kDrawTilePaths
  [[nodiscard]] std::uint64_t tiles_done() const { return tiles_done_; }
  [[nodiscard]] bool is_quasi_random() const { return quasi_; }

  /// A group's own seed, from the run's seed and the model name: a group's prices do not
  /// depend on which other groups are in the run.
  static std::uint64_t group_seed(std::uint64_t seed, const std::string& model_name);

private:
  template <class Real>
  void next_tiles_impl(Real* out, std::uint64_t tiles);

  curandGenerator_t generator_ = nullptr;
  config::RngType type_;
  int rows_;
  bool quasi_;
  std::uint64_t tiles_done_ = 0;
};

} // namespace pfmc::engine
