#pragma once
// The path kernel: a block simulates `rounds` rounds of block size × passes × P consecutive
// paths of one simulation group (P = the loader's paths per thread: 1, or the paths of one
// generator call for `inline`); in each round a thread owns passes × P consecutive paths, which
// it simulates P at a time. The loader runs the step loop and hands each step's draws to the
// paths; observations are updated at their dates; after each pass every instrument of the
// group is paid off on the pass's paths (a runtime switch over payoff kinds). A group of one
// instrument's price folds its passes' [y, y²] in registers and reduces once per round; any
// other group runs one pass and reduces its values per round. Values are reduced in the fixed
// order of kernels/reduction_shape.cuh. A short-path group thus runs few blocks — one per tile
// of paths when it has many — and one reduction ticket per block, while the prices do not
// depend on the passes, the rounds, P or the block size. A group of one European paid on the
// spot after one step (a book of Europeans on the event grid) runs lean passes of the same
// arithmetic (one_step_terminal_passes).

#include <cstdint>
#include <type_traits>

#include "kernels/block_reduce.cuh"
#include "kernels/loader_common.cuh"
#include "kernels/path/block_schedule.cuh"
#include "kernels/path/leaves.cuh"
#include "kernels/path/params.cuh"
#include "kernels/path/pay_round.cuh"
#include "kernels/path/register_policy.cuh"
#include "kernels/path/terminal.cuh"
#include "models/exercise.cuh"
#include "models/path.cuh"

namespace pfmc::kernels {

/// Exercise: the group's instruments exercise early (models/exercise.cuh): the paths go through
/// an ExerciseStepper, which records the regression pass's levels or decides, at each exercise
/// date (an instantiation of its own per model, with `inline` draws: the other kernels carry
/// none of its code).
template <class Model, class Loader, class Real, bool Exercise = false, int Registers = 0>
// Registers: each loader states its budget (Loader::register_budget, at most 64 so that a
// 1024-thread block always launches). Left to itself under __launch_bounds__(1024, 1) ptxas
// took 55-64 registers for every loader (occupancy 56% with 128-thread blocks, sm_90, nvcc
// 13.0); loaders whose look-ahead lives in shared memory or L2 run without spills in 40
// (occupancy 75%), register rings need up to 64. Registers: 0, the loader's budget;
// kWideRegisters, a wide instantiation's cap, for launches of one wave; kTerminalRegisters, the
// terminal instantiation (one-step terminal groups only).
__global__ void __maxnreg__((register_cap<Model, Loader, Registers>()))
    path_kernel(const __grid_constant__ PathKernelParams<Model, Real> p) {
  static_assert(std::is_trivially_copyable_v<PathKernelParams<Model, Real>>);
  static_assert(std::is_trivially_copyable_v<GroupParams<Model, Real>>);
  constexpr int P = Loader::paths_per_thread;
  extern __shared__ __align__(16) unsigned char shared[];

  // Which group this block works for (the last one whose first block is at or below it), its
  // parameters staged in shared memory for the whole block.
  __shared__ GroupParams<Model, Real> group;
  // Loaders of several paths per thread (`inline`) carry the lean passes of one-step terminal
  // groups; the others keep one code path, and neither early exercise nor the Greeks' scenario
  // models (whose groups are never single prices) compile them.
  constexpr bool kOneStepTerminalCode =
      P > 1 && !Exercise && !models::kIsScenarios<Model> && !models::kIsPathwise<Model>;
  // The terminal instantiation runs nothing but the lean passes (its launches' groups are all
  // one-step terminal); a wide one asks for the model's step data a batch ahead.
  constexpr bool kTerminal = Registers == kTerminalRegisters;
  constexpr bool kWide = Registers > 0 && !kTerminal;
  static_assert(!kTerminal || kOneStepTerminalCode, "a terminal kernel runs the lean passes");
  // The blocks of paths this thread block works through (one but for the terminal
  // instantiation), consecutive: a new group's parameters are staged only where it changes.
  const int per_cta = kTerminal ? p.blocks_per_cta : 1;
  const int first_vb = static_cast<int>(blockIdx.x) * per_cta;
  const int end_vb = kTerminal ? min(first_vb + per_cta, p.total_blocks) : first_vb + 1;
  Loader loader(shared);
  using Value = models::ValueOf<Model, Real>; // a pathwise model's observations are Duals
  Value observed[P][models::kMaxObservations];
  for (int vb = first_vb; vb < end_vb; ++vb) {
    if (vb == first_vb || vb >= group.first_block + group.blocks) { // uniform
      if (vb != first_vb)
        __syncthreads(); // the block is done with the group it leaves
      if (threadIdx.x < kWarpSize) {
        // A book's groups have as many paths each: the group by a division, where the search's
        // dependent loads held the block's other warps at the barrier below (20% of the terminal
        // kernel's stall samples: docs/decisions.md#block-prologue).
        const int g = p.group_blocks > 0 ? min(vb / p.group_blocks, p.group_count - 1)
                                         : find_group(p.groups, p.group_count, vb);
        stage_group(p.groups[g], group);
      }
      __syncthreads();
    }
    const bool one_step_terminal =
        kTerminal || (kOneStepTerminalCode && group.one_step_terminal != 0);
    const int block = vb - group.first_block;
    // Passes > 1 only where every group of the launch is one instrument's price (the engine's
    // round shape); such a group folds its passes in registers (loaders of P > 1 only: the others
    // keep one code path).
    const int passes = P == 1 ? 1 : p.passes;
    const bool single = P > 1 && group.instrument_count == 1 && !group.portfolio &&
                        group.scenarios == 1 && group.values_per_instrument == kPriceValues;
    const int round_paths = static_cast<int>(blockDim.x) * P * passes;
    const int block_first = block * p.rounds * round_paths;
    // Rounds past the end of the chunk are skipped (their sums count as +0.0); uniform. Loaders of
    // one path per thread run one round: a loop around their step loop cost them registers
    // (measured: scalar_batched d8 in double spilled 1.1 KB against 0.7 KB, and latency_bound ran
    // 32% slower), and short-path groups take `inline`, whose paths per thread fill its rounds.
    // A block wholly inside its group (all but a group's last) runs them all without a division.
    const int rounds =
        P == 1 ? 1
        : group.chunk_paths - block_first >= p.rounds * round_paths
            ? p.rounds
            : min(p.rounds, (group.chunk_paths - block_first + round_paths - 1) / round_paths);
    const std::size_t rows = static_cast<std::size_t>(group.steps) * Model::factors;
    double* scratch = reinterpret_cast<double*>(shared + p.scratch_offset);
    double* round_sums = reinterpret_cast<double*>(shared + p.round_sums_offset);
    double* warp_sums = p.warp_sums_values >= group.reduction.values
                            ? reinterpret_cast<double*>(shared + p.warp_sums_offset)
                            : nullptr;

    // Simulates the thread's P paths from `first` (the round's first path: round_first) into
    // `observed`; false where the kernel only measures the step loop (reduce == 0).
    const auto simulate = [&](int round_first, int first, int valid) {
      LoaderInputs<Real> inputs{};
      if (group.normals != nullptr) {
        const int path = valid > 0 ? first : group.chunk_paths - 1;
        inputs.path_draws = group.normals + draw_offset(static_cast<std::size_t>(path), 0, rows);
        inputs.block_draws =
            group.normals + draw_offset(static_cast<std::size_t>(round_first), 0, rows);
      }
      inputs.block_paths = min(static_cast<int>(blockDim.x), group.chunk_paths - round_first);
      inputs.steps = group.steps;
      inputs.prefetch_distance = p.prefetch_distance;
      inputs.ring = p.ring;
      inputs.seed = p.seed;
      inputs.first_call = group.first_call + static_cast<std::uint64_t>(first / P);
      inputs.group = group.group_index;
      inputs.antithetic = group.antithetic;

      // A wide instantiation runs launches of one wave (few warps an SM): its paths ask for the
      // model's step data a batch ahead (models::Path).
      models::Path<Model, Real, P, kWide> simulated(group.model, group.schedule, observed);
      if constexpr (Exercise) {
        models::ExerciseStepper<Model, Real, P> stepper(
            simulated, *group.exercise, observed,
            group.first_call * static_cast<std::uint64_t>(P) + static_cast<std::uint64_t>(first),
            valid);
        loader.run(inputs, stepper);
      } else {
        loader.run(inputs, models::PathStepper<Model, Real, P, kWide>{simulated});
      }
      if (!p.reduce) {
        // Benchmark of the kernel without its reduction: a store that depends on every path keeps
        // the path alive (never taken for a finite path).
        if (simulated.is_nan())
          group.reduction.totals[0] = 1.0;
        return false;
      }
      simulated.finish();
      return true;
    };
    if (!single && passes > 1) // the engine shapes passes only for launches of single prices
      __trap();
    for (int round = 0; round < rounds; ++round) {
      const int round_first = block_first + round * round_paths;
      const RoundPosition at{block, round, p.rounds, round_sums};
      // The thread's passes × P consecutive paths, P at a time (one step loop in the code: a
      // second copy for the single prices doubled the `inline` kernels' spills). A single price
      // folds its passes in registers and reduces once per round; other groups run one pass and
      // reduce all their values.
      const int thread_first = round_first + static_cast<int>(threadIdx.x) * P * passes;
      PassFold fold;
      if (one_step_terminal) { // lean passes: the same bits as the loop below
        if constexpr (kOneStepTerminalCode)
          one_step_terminal_passes<Model, Loader, Real>(p, group, loader, thread_first, passes,
                                                        fold);
      } else if constexpr (!kTerminal) {
#pragma unroll 1
        for (int pass = 0; pass < passes; ++pass) {
          const int first = thread_first + pass * P;
          const int valid = max(0, min(P, group.chunk_paths - first));
          if (!simulate(round_first, first, valid))
            continue;
          if (single) {
            fold.add(pass, pay_single<GroupParams<Model, Real>, Value, P>(group, observed, valid));
          } else {
            pay_round<GroupParams<Model, Real>, Value, P>(group, observed, valid, at, scratch,
                                                          warp_sums);
          }
        }
      }
      if (single && p.reduce) {
        const PriceLeaf sum = fold.total(passes);
        round_partials(scratch, group.reduction, at, 0, kPriceValues,
                       [&](int k) { return k == 0 ? sum.y : sum.y2; });
      }
    }
    if (!p.reduce)
      continue;
    finish_block(group.reduction, block, p.rounds, rounds, round_sums);
    finish_in_last_block(group.reduction, block, group.blocks, p.blocks_per_tile);
  }
}

} // namespace pfmc::kernels
