#pragma once
// Transforms of a generation call's draws, applied right after the call on the same stream
// (device) or in the same thread (host), before any path reads them:
//  - antithetic pairs: path 2k+1 of every row of every tile gets −(draw of path 2k);
//  - Brownian-bridge path construction of a group: the k-th normal of factor f (row
//    k·factors + f, so the first Sobol dimensions) builds the terminal point and then the
//    coarsest bridge levels, and the column is replaced by the standardized increments, which
//    are again independent N(0,1) per step (the models see what they expect);
//  - the digital shift of randomised QMC (scrambled Sobol with a replicate; used by
//    NormalSource).
// Every transform acts on whole draw tiles (kernels/draw_layout.hpp) and on each tile alone,
// so results stay independent of the chunking. The device and host versions share their
// arithmetic (kernels/draw_transform.cuh) and give the same bits.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/core/cuda_resources.hpp"
#include "engine/plan/plan.hpp"
#include "kernels/draw_layout.hpp"

namespace pfmc::engine {

// --- antithetic pairs --------------------------------------------------------------------------

/// values[i] ← −values[i−1] for every odd i; `count` even. On a buffer that starts at a tile
/// (kDrawTilePaths is even) this pairs path 2k+1 with path 2k in every row of every tile.
void apply_antithetic(float* values, std::size_t count, cudaStream_t stream);
void apply_antithetic(double* values, std::size_t count, cudaStream_t stream);
void apply_antithetic_host(float* values, std::size_t count);
void apply_antithetic_host(double* values, std::size_t count);

// --- Brownian bridge ---------------------------------------------------------------------------

/// The bridge of one time grid (times[0] = 0 < times[1] < ... ; steps = times.size() − 1) for
/// `factors` independent factors. Built in double on the host once; the device tables (a few
/// arrays of `steps` values, per precision used) are uploaded on the first device apply. The
/// transform is in place: it needs no scratch memory (kernels/draw_transform.cuh says how).
class BrownianBridge {
public:
  BrownianBridge(const std::vector<double>& times, int factors);

  [[nodiscard]] int steps() const { return steps_; }
  [[nodiscard]] int factors() const { return factors_; }
  [[nodiscard]] int rows() const { return steps_ * factors_; }
  /// Time index (1..steps) of bridge slot k: point(0) = steps, then coarse to fine.
  [[nodiscard]] const std::vector<int>& points() const { return point_; }

  /// All `tile_count` tiles of `rows` rows (= this->rows()) at `tiles`, on `stream`.
  void apply(float* tiles, std::uint64_t tile_count, int rows, cudaStream_t stream);
  void apply(double* tiles, std::uint64_t tile_count, int rows, cudaStream_t stream);
  /// tile_paths: the paths of one tile ([row][path], path fastest): kDrawTilePaths for draw
  /// buffers, or the CPU backend's block of paths.
  void apply_host(float* tiles, std::uint64_t tile_count, int rows,
                  int tile_paths = kernels::kDrawTilePaths) const;
  void apply_host(double* tiles, std::uint64_t tile_count, int rows,
                  int tile_paths = kernels::kDrawTilePaths) const;

  /// Device memory held (the tables of the precisions applied so far; no scratch).
  [[nodiscard]] std::size_t device_bytes() const;

private:
  template <class Real>
  struct DeviceTables {
    DeviceBuffer<int> left, right, cycles;
    DeviceBuffer<Real> left_weight, right_weight, sd, sqrt_dt;
  };
  template <class Real>
  void apply_impl(Real* tiles, std::uint64_t tile_count, int rows, cudaStream_t stream,
                  std::optional<DeviceTables<Real>>& tables);
  template <class Real>
  void apply_host_impl(Real* tiles, std::uint64_t tile_count, int rows, int tile_paths) const;

  int steps_ = 0;
  int factors_ = 1;
  std::vector<int> point_, left_, right_, cycles_;
  std::vector<double> left_weight_, right_weight_, sd_, sqrt_dt_;
  std::optional<DeviceTables<float>> device_float_;
  std::optional<DeviceTables<double>> device_double_;
};

// --- a run's transforms ------------------------------------------------------------------------

/// The transforms a run applies after each generation call (ExecutionSettings::antithetic,
/// ::brownian_bridge): antithetic first, then each group's bridge. Bridges are built per group
/// on first use and kept.
class DrawTransforms {
public:
  DrawTransforms(const SimulationPlan& plan, bool antithetic, bool brownian_bridge);

  [[nodiscard]] bool empty() const { return !antithetic_ && !brownian_bridge_; }

  /// The draws of one generation call (`values` in all): group groups[m]'s `tiles` tiles start
  /// at draws + offsets[m] (a tiled group: groups = {g}, offsets = {0}).
  void apply(float* draws, std::size_t values, const std::vector<int>& groups,
             const std::vector<std::size_t>& offsets, std::uint64_t tiles, cudaStream_t stream);
  void apply(double* draws, std::size_t values, const std::vector<int>& groups,
             const std::vector<std::size_t>& offsets, std::uint64_t tiles, cudaStream_t stream);
  void apply_host(float* draws, std::size_t values, const std::vector<int>& groups,
                  const std::vector<std::size_t>& offsets, std::uint64_t tiles);
  void apply_host(double* draws, std::size_t values, const std::vector<int>& groups,
                  const std::vector<std::size_t>& offsets, std::uint64_t tiles);

  /// Device memory held by the bridges built so far.
  [[nodiscard]] std::size_t device_bytes() const;

  /// Group `group`'s bridge (built on first use).
  BrownianBridge& bridge(int group);

private:
  template <class Real>
  void apply_impl(Real* draws, std::size_t values, const std::vector<int>& groups,
                  const std::vector<std::size_t>& offsets, std::uint64_t tiles, cudaStream_t stream,
                  bool device);

  const SimulationPlan& plan_;
  bool antithetic_;
  bool brownian_bridge_;
  std::vector<std::unique_ptr<BrownianBridge>> bridges_; ///< per group, built on first use
};

// --- randomised QMC ----------------------------------------------------------------------------

/// Φ⁻¹(u) for 0 < u < 1 on the host: Acklam's rational approximation (relative error below
/// 1.2e-9) refined by one Halley step on Φ computed with std::erfc, in the lower tail (u > ½ by
/// symmetry, with 1 − u exact for the (k + ½)/2³² inputs; exactly odd about ½ there). Measured
/// against the std::erfc/erf round trip (tests/test_draw_transform.cpp): relative error at most
/// 1.1e-15 over [2⁻³³, 1 − 2⁻³³]; CUDA documents normcdfinv to 5 ulp, so host and device agree
/// to a few 1e-15.
double inverse_normal_cdf(double u);

/// out[i] ← Φ⁻¹((sobol[i] ^ mask(d) + ½)/2³²) for the points of one Sobol tile: `values` =
/// dimensions × points, dimension-major (d = i / points), masks from
/// kernels::digital_shift_mask(seed, replicate, d). Computed in double for both precisions (a
/// float cannot hold (k + ½)/2³²). `sobol` and `out` may be the same memory only for float.
void digital_shift_to_normal(const std::uint32_t* sobol, float* out, std::size_t values,
                             std::size_t points, std::uint64_t seed, int replicate,
                             cudaStream_t stream);
void digital_shift_to_normal(const std::uint32_t* sobol, double* out, std::size_t values,
                             std::size_t points, std::uint64_t seed, int replicate,
                             cudaStream_t stream);
void digital_shift_to_normal_host(const std::uint32_t* sobol, float* out, std::size_t values,
                                  std::size_t points, std::uint64_t seed, int replicate);
void digital_shift_to_normal_host(const std::uint32_t* sobol, double* out, std::size_t values,
                                  std::size_t points, std::uint64_t seed, int replicate);

} // namespace pfmc::engine
