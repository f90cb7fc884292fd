#pragma once
// Standard normal draws from cuRAND's host API (MRG32k3a, Sobol, scrambled Sobol; Philox draws
// are counter-based, kernels/counter_draws.cuh), on the device or on the host, in the calls of a
// run's draw plan (engine/draws/draw_plan.hpp): one call for a draw batch, or one call per draw
// tile (kernels/draw_layout.hpp) of a tiled group.
//
// cuRAND's output for a call depends on the call's size and on the calls before it (measured:
// past 2^18 values neither an explicit offset nor a continued generator reproduces a larger
// call), so the draws are defined by the sequence of calls, and both backends make the same
// sequence. Pseudo-random generators are seeded with the run's seed and used for the whole
// run; a quasi-random generator belongs to one group (its dimensions are the group's rows) and
// tile k is points k·kDrawTilePaths .. (k+1)·kDrawTilePaths − 1 of every dimension (plain Sobol
// skips its first point, the origin). cuRAND's device and host generators produce the same
// sequence (to a few ulps: the normal transform rounds differently), so the CPU backend sees
// the GPU's draws.
//
// Scrambled Sobol is randomised QMC: each `replicate` r XORs the 32-bit Sobol integer of
// dimension d with a digital shift hashed from (seed, r, d) (kernels/draw_transform.cuh) before
// the inverse normal CDF, so every replicate is an independent, unbiased randomisation and the
// spread over replicates estimates the QMC error. Its normals are therefore our transform of
// cuRAND's integers, not curandGenerateNormal's: the device takes normcdfinv, the host an
// accurate Φ⁻¹ (engine/draws/draw_transform.hpp), and the two agree to about 1e-15. Plain Sobol has
// no randomisation (seed and replicate unused).

#include <cuda_runtime.h>
#include <curand.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "engine/core/cuda_resources.hpp"

namespace pfmc::engine {

/// cuRAND's limit on Sobol dimensions (steps × factors of one group).
inline constexpr int kMaxSobolDimensions = 20000;

class NormalSource {
public:
  enum class Memory { device, host };

  /// quasi_dimensions: the group's rows, for Sobol generators (ignored by pseudo-random ones).
  /// replicate: the randomisation of scrambled Sobol (>= 0; ignored by the other generators).
  NormalSource(config::RngType type, std::uint64_t seed, Memory memory, int quasi_dimensions = 0,
               int replicate = 0);
  NormalSource(const NormalSource&) = delete;
  NormalSource& operator=(const NormalSource&) = delete;
  ~NormalSource();

  /// Device generators only: the stream generation runs on.
  void set_stream(cudaStream_t stream);

  /// One generation call of `values` normals (a draw batch; pseudo-random only).
  void generate(float* out, std::size_t values);
  void generate(double* out, std::size_t values);

  /// The next `tiles` draw tiles of a group with `rows` rows (tile i of this call at
  /// out + i·rows·kDrawTilePaths), one call per tile.
  void next_tiles(float* out, std::uint64_t tiles, int rows);
  void next_tiles(double* out, std::uint64_t tiles, int rows);

  [[nodiscard]] bool is_quasi_random() const { return quasi_; }

private:
  template <class Real>
  void generate_impl(Real* out, std::size_t values);
  template <class Real>
  void next_tiles_impl(Real* out, std::uint64_t tiles, int rows);

  template <class Real>
  void shifted_tile(Real* out, std::size_t tile_size);

  curandGenerator_t generator_ = nullptr;
  config::RngType type_;
  Memory memory_;
  std::uint64_t seed_;
  int replicate_ = 0;
  cudaStream_t stream_ = nullptr;
  /// Scrambled Sobol in double: one tile's 32-bit integers (4 · rows · kDrawTilePaths bytes;
  /// float converts in place).
  DeviceBuffer<std::uint32_t> device_integers_;
  std::vector<std::uint32_t> host_integers_;
  int dimensions_ = 0;
  bool quasi_;
  std::uint64_t tiles_done_ = 0; ///< quasi-random: the next tile's first point
};

} // namespace pfmc::engine
