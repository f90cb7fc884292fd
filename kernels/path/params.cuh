#pragma once
// The path kernel's parameters (kernels/path_kernel.cuh): a launch's, by value, and each
// simulation group's, in a table in device memory. Trivially copyable: pointers are device memory.

#include <cstddef>
#include <cstdint>

#include "kernels/block_reduce.cuh"
#include "kernels/loader_common.cuh"
#include "models/exercise.cuh"
#include "models/path.cuh"
#include "models/pathwise.cuh"
#include "models/payoff.cuh"

namespace pfmc::kernels {

inline constexpr int kMaxBlockSize = 1024;

/// One simulation group (or one chunk of one) in a launch; launches carry a table of them in
/// device memory (trivially copyable; pointers are device memory).
template <class Model, class Real>
struct GroupParams {
  using PathModel = Model; ///< the model its paths follow
  typename Model::Params model;
  const Real* normals;      ///< the chunk's draw tiles (kernels/draw_layout.hpp); null: inline
  std::uint64_t first_call; ///< inline: the generator call of the chunk's first path
  int chunk_paths;
  int steps;
  int first_block;           ///< the group's first block in the launch
  int blocks;                ///< its blocks: ceil(chunk_paths / paths per block)
  std::uint32_t group_index; ///< the plan's group: the generator's counter
  models::PathSchedule schedule;
  const models::InstrumentView* instruments; ///< [instrument][scenario]
  int instrument_count;                      ///< base instruments
  int scenarios;                             ///< 1, or the Greeks' scenarios
  int values_per_instrument;                 ///< ValueLayout::per_instrument() of the group
  int portfolio;                             ///< 1: the group holds positions: reduce their value
  int control_variate;                       ///< 1: reduce each instrument's control too
  int antithetic;                            ///< 1: paths in pairs (2k, 2k + 1)
  int greek_count;
  const double* greek_weights; ///< [greek][scenario]
  int delta_greek; ///< which Greek is delta (-1: none): pathwise where the instrument allows
  const models::PathwiseGreek* pathwise_greeks; ///< [greek] of a pathwise model's group, else null
  ReductionTarget reduction;
  /// Early exercise (the kernels instantiated with Exercise only): the group's instruments'
  /// exercise table, in device memory.
  const models::ExerciseTable<Real>* exercise;
  /// 1: the group runs one_step_terminal_passes (is_one_step_terminal, decided on the host: read
  /// in the kernel, its chain of dependent loads held every block's warps at the first barrier,
  /// docs/decisions.md#block-prologue).
  int one_step_terminal;
};

/// What a launch shares, by value.
template <class Model, class Real>
struct PathKernelParams {
  const GroupParams<Model, Real>* groups; ///< ordered by first_block
  int group_count;
  /// > 0: every group but the last has this many blocks, so block b works for group
  /// min(b / group_blocks, group_count - 1) (no search); 0: find_group searches.
  int group_blocks;
  RingLayout ring;
  int prefetch_distance; ///< for loaders that take it at run time
  int scratch_offset;    ///< bytes of dynamic shared memory before the reduction's scratch
  int round_sums_offset; ///< bytes of dynamic shared memory before the rounds' sums
  int warp_sums_offset;  ///< bytes of dynamic shared memory before the warps' sums
  /// Values of a group the warps' sums hold (pay_pathwise; 0: none, pathwise models only).
  int warp_sums_values;
  int reduce; ///< 0: stop after the step loop (to measure the reduction's cost)
  int passes; ///< passes of paths per thread per round (> 1: every group is one instrument's price)
  int rounds; ///< rounds of block size × passes × paths per thread paths per block
  int round_values;    ///< the most values of a group of the launch (sizes the rounds' sums)
  int blocks_per_tile; ///< kTilePaths / paths per block
  std::uint64_t seed;  ///< the counter-based generator's key (inline)
  /// The launch's blocks of paths (every group's, in order), and how many consecutive ones a
  /// thread block works through: 1, or for the terminal instantiation more (its prologue and
  /// barrier paid once for several: terminal_blocks_per_cta).
  int total_blocks;
  int blocks_per_cta;
};

} // namespace pfmc::kernels
