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

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/block_reduce.cuh"
#include "kernels/loader_common.cuh"
#include "kernels/value_layout.cuh"
#include "models/exercise.cuh"
#include "models/path.cuh"
#include "models/pathwise.cuh"
#include "models/pathwise_heston.cuh"
#include "models/pathwise_local_vol.cuh"
#include "models/payoff.cuh"
#include "models/scenarios.cuh"

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
  /// ncu v29).
  int one_step_terminal;
};

/// Antithetic pairs are adjacent lanes when a thread has one path: the even lane gets the pair's
/// mean, the odd lane 0, so sums and sums of squares are over pair means (whose variance is the
/// estimator's). Every lane of the warp must call it. The CPU backend computes
/// (x_even + x_odd) * 0.5 the same way.
__device__ __forceinline__ double pair_mean(double x) {
  const double other = __shfl_xor_sync(0xffffffffu, x, 1);
  return (threadIdx.x & 1) ? 0.0 : math::add_rn(x, other) * 0.5;
}

/// The pair means of x[0 .. P) (P paths of one thread), in place: x[2k] ← (x[2k] + x[2k+1]) / 2,
/// x[2k+1] ← 0; with one path per thread, across lanes.
template <int P>
__device__ __forceinline__ void pair_means(double (&x)[P]) {
  if constexpr (P == 1) {
    x[0] = pair_mean(x[0]);
  } else {
#pragma unroll
    for (int p = 0; p < P; p += 2) {
      x[p] = math::add_rn(x[p], x[p + 1]) * 0.5;
      x[p + 1] = 0.0;
    }
  }
}

/// The pairwise sum of a thread's P paths' leaves (leaf(p)): the bottom levels of the tree.
template <int P, class Leaf>
__device__ __forceinline__ double thread_tree_sum(Leaf&& leaf) {
  static_assert(P == 1 || P == 2 || P == 4, "a thread's paths are 1, 2 or 4");
  if constexpr (P == 1) {
    return leaf(0);
  } else if constexpr (P == 2) {
    return math::add_rn(leaf(0), leaf(1));
  } else {
    return math::add_rn(math::add_rn(leaf(0), leaf(1)), math::add_rn(leaf(2), leaf(3)));
  }
}

/// Prices only (no control variates, no Greeks): every instrument of the group paid off on the
/// thread's P paths (the first `valid` of them in range; the others are +0.0) and reduced over
/// the block's round. Never inlined (as pay_estimates): the kernels of one model (every loader
/// and distance) share one copy, and the common case keeps a small register footprint of its
/// own (measured with both cases in one function: 0.8-1.7 KB of spills a thread per call).
/// Every thread of the block must call it.
template <class Group, class Real, int P>
__device__ __noinline__ void pay_prices(const Group& group,
                                        const Real (*observed)[models::kMaxObservations], int valid,
                                        RoundPosition at, double* scratch) {
  const RoundSink sink{scratch, group.reduction, at};
  const int n = group.instrument_count;
  const int items = n + (group.portfolio ? 1 : 0); // the instruments, then the portfolio
  {
    // Prices only: values in passes; item j < n contributes (payoff, payoff²) of instrument j,
    // item n the portfolio's (complete by then: items go in order): the ValueLayout of
    // kPriceValues values per item.
    constexpr int kItemsPerPass =
        P > kReduceBatch / kPriceValues ? 1 : kReduceBatch / kPriceValues / P;
    double portfolio[P];
#pragma unroll
    for (int p = 0; p < P; ++p)
      portfolio[p] = 0.0;
    for (int first = 0; first < items; first += kItemsPerPass) {
      const int count = min(kItemsPerPass, items - first);
      double value[kItemsPerPass][P];
#pragma unroll
      for (int k = 0; k < kItemsPerPass; ++k) {
        const int j = first + k;
        if (j < n) {
          const models::InstrumentView& instrument = group.instruments[j];
          models::discounted_payoffs<P>(
              instrument, [&](int p, int o) { return observed[p][o]; }, value[k]);
#pragma unroll
          for (int p = 0; p < P; ++p) {
            if (p >= valid)
              value[k][p] = 0.0;
          }
          if (group.portfolio) {
            const double quantity = instrument.quantity;
#pragma unroll
            for (int p = 0; p < P; ++p)
              portfolio[p] = math::add_rn(portfolio[p], math::mul_rn(value[k][p], quantity));
          }
        } else {
#pragma unroll
          for (int p = 0; p < P; ++p)
            value[k][p] = j == n ? portfolio[p] : 0.0;
        }
      }
      if (group.antithetic) {
#pragma unroll
        for (int k = 0; k < kItemsPerPass; ++k)
          pair_means<P>(value[k]);
      }
      sink(kPriceValues * first, kPriceValues * count, [&](int m) {
        const int k = m / kPriceValues;
        return thread_tree_sum<P>([&](int p) {
          const double x = value[k][p];
          return m % kPriceValues ? math::mul_rn(x, x) : x; // [x, x²]
        });
      });
    }
  }
}

/// Control variates and/or Greeks: per base instrument its raw estimates (payoff y, control c,
/// Greek estimates g: models::path_estimates) and their reduced values in the ValueLayout,
/// reduced over the block's round in passes of whole instruments, at most kEstimateBatch values
/// a pass (the portfolio's two values join the last pass where they fit). An instrument of more
/// values than a pass — a basket's per-underlying Greeks — spans several: its estimates are
/// computed in each, and its value counts once in the portfolio, in the pass where its values
/// start. Dynamic indices: these arrays live in local memory, once per round. Every thread of
/// the block must call it.
template <class Group, class Real, int P>
__device__ __noinline__ void pay_estimates(const Group& group,
                                           const Real (*observed)[models::kMaxObservations],
                                           int valid, RoundPosition at, double* scratch) {
  const RoundSink sink{scratch, group.reduction, at};
  const int n = group.instrument_count;
  const ValueLayout layout{n, group.control_variate, group.greek_count, group.portfolio};
  const int K = layout.per_instrument();
  const int S = group.scenarios;
  const models::EstimateSpec spec{S,
                                  group.control_variate,
                                  group.greek_count,
                                  group.delta_greek,
                                  group.greek_weights,
                                  group.pathwise_greeks};
  const int total = layout.size();
  double portfolio[P];
  for (int p = 0; p < P; ++p)
    portfolio[p] = 0.0;
  const int instrument_values = layout.portfolio_value(); // the instruments' values: n K
  // The fewest whole instruments that make kReduceBatch values or more, within kEstimateBatch.
  const int whole = min((kReduceBatch + K - 1) / K, kEstimateBatch / max(K, 1));
  const int per_pass = K <= kEstimateBatch ? whole * K : kEstimateBatch;
  for (int v0 = 0, v1 = 0; v0 < total; v0 = v1) {
    v1 = v0 < instrument_values ? min(instrument_values, v0 + per_pass) : total;
    if (v1 == instrument_values && total - v1 <= kEstimateBatch - (v1 - v0))
      v1 = total;                   // the portfolio's values fit in this pass
    double vals[kEstimateBatch][P]; // values v0 .. v1 - 1
    for (int j = v0 / K; j < n && layout.instrument(j) < v1; ++j) {
      const models::InstrumentView* scenarios = group.instruments + j * S;
      const bool starts_here = layout.instrument(j) >= v0;
      double raw[models::kMaxEstimates][P]; // y, c, g... of the thread's paths
      for (int p = 0; p < P; ++p) {
        double y = 0.0, c = 0.0;
        double g[models::kMaxGreeks];
        for (int k = 0; k < models::kMaxGreeks; ++k)
          g[k] = 0.0;
        if (p < valid) {
          models::path_estimates(
              scenarios, spec, [&](int o) -> const Real& { return observed[p][o]; }, y, c, g);
          if (starts_here)
            portfolio[p] = math::add_rn(portfolio[p], math::mul_rn(y, scenarios[0].quantity));
        }
        raw[0][p] = y;
        if (group.control_variate)
          raw[ValueLayout::control_estimate()][p] = c;
        for (int k = 0; k < group.greek_count; ++k)
          raw[layout.greek_estimate(k)][p] = g[k];
      }
      if (group.antithetic) {
        for (int e = 0; e < layout.estimates(); ++e) {
          double x[P];
          for (int p = 0; p < P; ++p)
            x[p] = raw[e][p];
          pair_means<P>(x);
          for (int p = 0; p < P; ++p)
            raw[e][p] = x[p];
        }
      }
      const int first = layout.instrument(j);
      layout.for_each_value([&](int offset, int a, int b) {
        const int v = first + offset;
        if (v < v0 || v >= v1)
          return;
        for (int p = 0; p < P; ++p)
          vals[v - v0][p] = b < 0 ? raw[a][p] : math::mul_rn(raw[a][p], raw[b][p]);
      });
    }
    if (group.portfolio && v1 > layout.portfolio_value()) { // every instrument is in it by now
      double x[P];
      for (int p = 0; p < P; ++p)
        x[p] = portfolio[p];
      if (group.antithetic)
        pair_means<P>(x);
      ValueLayout::for_each_portfolio_value([&](int offset, int, int b) {
        const int v = layout.portfolio_value() + offset;
        if (v < v0 || v >= v1)
          return;
        for (int p = 0; p < P; ++p)
          vals[v - v0][p] = b < 0 ? x[p] : math::mul_rn(x[p], x[p]);
      });
    }
    sink.estimates(v0, v1 - v0,
                   [&](int k) { return thread_tree_sum<P>([&](int p) { return vals[k][p]; }); });
  }
}

/// A pathwise group's estimates in registers (pay_pathwise): y and up to 7 Greeks an
/// instrument, their values [x, x²] the warp's slots (warp_slot_sums).
inline constexpr int kPathwiseSlots = 16;

/// True where pay_pathwise takes the group's estimates: a pathwise model's group (one scenario)
/// without control variates, of at most kPathwiseSlots values an instrument, whose launch keeps
/// the warps' sums of all its values (warp_sums not null). Uniform across the block.
template <class Group>
__device__ __forceinline__ bool pathwise_in_registers(const Group& group, const double* warp_sums) {
  return warp_sums != nullptr && group.pathwise_greeks != nullptr && group.scenarios == 1 &&
         !group.control_variate && group.values_per_instrument <= kPathwiseSlots;
}

/// pay_estimates for the groups of pathwise_in_registers, the same values to the bit: each
/// instrument's raw estimates (models::pathwise_estimates) on the thread's P paths stay in
/// registers (static indices: at most S / 2 of them), and its values go through the warp's
/// slots at once (warp_slot_sums: 9 or 16 shuffles for all of them) into the warp's sums in shared
/// memory; the block's warps are folded once, after the last instrument (fold_warp_sums). No
/// barrier between instruments, no local arrays (ncu, bench/NOTES.md v38: pay_estimates took 68%
/// of the portfolio's delta + vega launch, about 70 local accesses an instrument and two block
/// barriers a pass; with this pass the launch ran 1.18 ms against 2.08).
/// S = 8 where an instrument has at most 8 values, else 16. Every thread of the block must call
/// it.
template <class Group, class Real, int P, int S>
__device__ __noinline__ void pay_pathwise(const Group& group,
                                          const Real (*observed)[models::kMaxObservations],
                                          int valid, RoundPosition at, double* warp_sums) {
  constexpr int kEstimates = S / 2;
  const int n = group.instrument_count;
  const ValueLayout layout{n, 0, group.greek_count, group.portfolio};
  const int estimates = layout.estimates(); // uniform, at most kEstimates
  const int lane = threadIdx.x % kWarpSize;
  const int slot = warp_slot<S>(lane);
  double* sums =
      warp_sums + static_cast<std::size_t>(threadIdx.x / kWarpSize) * group.reduction.values;
  // The warp's sums of one item's `count` raw estimates e[k] (their [x, x²] at values first ..):
  // pair means with antithetic paths, the thread's subtrees, then the warp's.
  const auto reduce = [&](double(&e)[kEstimates][P], int count, int first) {
    if (group.antithetic) {
#pragma unroll
      for (int k = 0; k < kEstimates; ++k) {
        if (k < count) // uniform: pair means shuffle with one path a thread
          pair_means<P>(e[k]);
      }
    }
    double x[S];
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const int k = s / 2;
      x[s] = k < count ? thread_tree_sum<P>([&](int p) {
        const double v = e[k][p];
        return s % 2 ? math::mul_rn(v, v) : v; // [x, x²]
      })
                       : 0.0;
    }
    const double sum = warp_slot_sums<S>(x);
    if (lane < S && slot < 2 * count)
      sums[first + slot] = sum;
  };
  double portfolio[kEstimates][P];
#pragma unroll
  for (int p = 0; p < P; ++p)
    portfolio[0][p] = 0.0;
  for (int j = 0; j < n; ++j) {
    const models::InstrumentView& instrument = group.instruments[j];
    double e[kEstimates][P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
#pragma unroll
      for (int k = 0; k < kEstimates; ++k)
        e[k][p] = 0.0;
      if (p < valid) {
        models::pathwise_estimates<kEstimates, (Group::PathModel::assets > 1)>(
            instrument, group.pathwise_greeks, group.greek_count,
            [&](int o) -> const Real& { return observed[p][o]; },
            [&](int k, double x) {
#pragma unroll
              for (int m = 0; m < kEstimates; ++m) // static indices (k is one where unrolled)
                e[m][p] = m == k ? x : e[m][p];
            });
      }
      if (group.portfolio && p < valid)
        portfolio[0][p] = math::add_rn(portfolio[0][p], math::mul_rn(e[0][p], instrument.quantity));
    }
    reduce(e, estimates, layout.instrument(j));
  }
  if (group.portfolio)
    reduce(portfolio, 1, layout.portfolio_value());
  fold_warp_sums(warp_sums, group.reduction, at, layout.size());
}

/// A pass's reduced values of a group of one instrument's price: the thread's subtrees of y and
/// y² over its P paths (the first `valid` in range; the others are +0.0).
struct PriceLeaf {
  double y;
  double y2;
};

/// A pass's leaf of a single price from its P paths' discounted payoffs (the first `valid` in
/// range; the others become +0.0; pair means with antithetic). Every lane of the warp must call
/// it (antithetic pairs of one path per thread are neighbouring lanes).
template <int P>
__device__ __forceinline__ PriceLeaf price_leaf(double (&value)[P], int valid, int antithetic) {
#pragma unroll
  for (int p = 0; p < P; ++p) {
    if (p >= valid)
      value[p] = 0.0;
  }
  if (antithetic)
    pair_means<P>(value);
  return PriceLeaf{thread_tree_sum<P>([&](int p) { return value[p]; }),
                   thread_tree_sum<P>([&](int p) { return math::mul_rn(value[p], value[p]); })};
}

/// The group's one instrument paid off on the thread's P paths (pair means with antithetic).
/// Never inlined, as pay_prices (measured inlined: the book's kernels as fast, 14.18 against
/// 14.10 ms, but the multi-step `inline` kernels in double spilled 2-3× more: Heston 1,964/2,560
/// bytes of spill stores/loads against 640/1,080). Every lane of the warp must call it.
template <class Group, class Real, int P>
__device__ __noinline__ PriceLeaf pay_single(const Group& group,
                                             const Real (*observed)[models::kMaxObservations],
                                             int valid) {
  double value[P];
  models::discounted_payoffs<P>(
      group.instruments[0], [&](int p, int o) { return observed[p][o]; }, value);
  return price_leaf<P>(value, valid, group.antithetic);
}

/// True for a group of one instrument's price whose paths take one step and whose payoff reads
/// nothing but the spot after it: a European without a knock on the group's only observation,
/// the terminal log-spot of asset 0 taken at step 0. Such a group (a book of
/// short-dated Europeans) runs OneStepTerminal's lean passes: the same arithmetic as Path and
/// pay_single, without the observation schedule, the observations' array or the payoff call.
/// Evaluated on the host from the group's plan (engine/run/device_unit.cuh): `observation`,
/// `run` and `instrument` are its first observation, observation run and instrument.
PFMC_HD_INLINE bool is_one_step_terminal(int steps, int instrument_count, bool portfolio,
                                         int scenarios, int values_per_instrument,
                                         int observation_count,
                                         const models::ObservationView& observation,
                                         const models::ObservationRun& run,
                                         const models::InstrumentView& instrument) {
  using models::ObservationKind;
  if (steps != 1 || instrument_count != 1 || portfolio || scenarios != 1 ||
      values_per_instrument != kPriceValues || observation_count != 1)
    return false;
  constexpr unsigned int kTerminalSlot0 =
      1u << (static_cast<int>(ObservationKind::terminal) * models::kRegisterObservations);
  return observation.kind == ObservationKind::terminal && observation.asset == 0 &&
         run.first == 0 && run.last == 0 && run.spill < 0 && run.masks == kTerminalSlot0 &&
         instrument.knock_observation < 0 && instrument.underlying_observation == 0 &&
         instrument.kind == models::PayoffKind::european;
}

/// The step function of a one-step terminal group (is_one_step_terminal): each path's log-spot
/// after its one step, as Path computes its terminal observation (the model's initial state
/// advanced once; the observation's input, combined into its start).
template <class Model, class Real, int P>
struct OneStepTerminal {
  static constexpr int factors = Model::factors;
  const typename Model::Params& model;
  Real (&log_spot)[P];
  __device__ __forceinline__ void operator()(int step, const Real (&z)[P][factors]) const {
    using models::ObservationKind;
#pragma unroll
    for (int p = 0; p < P; ++p) {
      typename Model::State state = Model::initial(model);
      Model::advance(state, model, step, z[p]);
      log_spot[p] = models::observation_combine(
          ObservationKind::terminal, models::observation_start<Real>(ObservationKind::terminal),
          models::observation_input<typename Model::Math>(ObservationKind::terminal,
                                                          Model::log_spot(state, 0)));
    }
  }
  /// A one-step group gets batches of one step at most (a loader's batch of several is never
  /// taken).
  template <int D>
  __device__ __forceinline__ void batch(int step0, const Real (&z)[D][P][factors]) const {
    if constexpr (D == 1) {
      (*this)(step0, z[0]);
    } else {
      __trap();
    }
  }
};

/// A thread's passes folded into the pairwise tree of its round (kernels/reduction_shape.cuh)
/// as they come: level l holds the pending subtree of 2^l passes to the left of the next one (a
/// binary counter), so that after 2^k passes level k holds their sum. ptxas keeps the levels in
/// the thread's stack (L1): named levels in registers instead made the `inline` kernel of
/// Black-Scholes float spill 284-440 bytes and the book's kernel 2% slower (measured, H100).
struct PassFold {
  static constexpr int kLevels = 5;
  double y[kLevels];
  double y2[kLevels];
  static_assert(kMaxPasses <= 1 << (kLevels - 1), "a level per halving of kMaxPasses");

  /// Pass `i` (0, 1, ..., in order; uniform across the block).
  __device__ __forceinline__ void add(int i, PriceLeaf x) {
#pragma unroll
    for (int l = 0; l < kLevels; ++l) {
      if ((i >> l) & 1) {
        x.y = math::add_rn(y[l], x.y);
        x.y2 = math::add_rn(y2[l], x.y2);
      } else {
        y[l] = x.y;
        y2[l] = x.y2;
        return;
      }
    }
  }
  /// The sum of all `passes` (a power of two up to kMaxPasses) passes.
  __device__ __forceinline__ PriceLeaf total(int passes) const {
    const int k = passes >= 16 ? 4 : passes >= 8 ? 3 : passes >= 4 ? 2 : passes >= 2 ? 1 : 0;
    return PriceLeaf{k == 4   ? y[4]
                     : k == 3 ? y[3]
                     : k == 2 ? y[2]
                     : k == 1 ? y[1]
                              : y[0],
                     k == 4   ? y2[4]
                     : k == 3 ? y2[3]
                     : k == 2 ? y2[2]
                     : k == 1 ? y2[1]
                              : y2[0]};
  }
};

/// After a round's step loop: the group's instruments paid off on the thread's paths and their
/// values reduced (pay_prices, or pay_estimates with control variates or Greeks).
/// The group's reduction target is read by the callee from the group (shared memory): built in
/// the kernel it was held in registers across the step loop (measured: spills in
/// scalar_batched d8 in float, 92% of the copy bandwidth against 100%).
template <class Group, class Real, int P>
__device__ __forceinline__ void
pay_round(const Group& group, const Real (*observed)[models::kMaxObservations], int valid,
          RoundPosition at, double* scratch, double* warp_sums) {
  if (group.values_per_instrument == kPriceValues && group.scenarios == 1) {
    pay_prices<Group, Real, P>(group, observed, valid, at, scratch);
    return;
  }
  if constexpr (models::kIsDual<Real>) {
    if (pathwise_in_registers(group, warp_sums)) {
      if (group.values_per_instrument <= 8)
        pay_pathwise<Group, Real, P, 8>(group, observed, valid, at, warp_sums);
      else
        pay_pathwise<Group, Real, P, kPathwiseSlots>(group, observed, valid, at, warp_sums);
      return;
    }
  }
  pay_estimates<Group, Real, P>(group, observed, valid, at, scratch);
}

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

/// How many consecutive blocks of paths a thread block of a terminal launch of `blocks` works
/// through: the most (a power of two up to 8) that still leaves 32,768 thread blocks (15 waves of
/// a 132-multiprocessor GPU at 16 blocks each), so the last wave stays short. A block of the
/// book's terminal kernel spent about a quarter of its warps' time before its first pass (ncu
/// v31: the group's staging, the barrier after it, the rounds' division), for 64 paths a thread.
constexpr int terminal_blocks_per_cta(int blocks) {
  int k = 1;
  while (k < 8 && blocks / (2 * k) >= 32768)
    k *= 2;
  return k;
}

/// A round's passes of a one-step terminal group (is_one_step_terminal) into `fold`: the draws
/// of the thread's paths from the loader, OneStepTerminal's log-spots, the European's payoffs
/// and price_leaf — the bits of the kernel's simulate() and pay_single. What does not change
/// from pass to pass is decided once: the generator's counter, the instrument's fields, and as
/// compile-time branches of the loop the option's side, antithetic pairs (the loader's −z and
/// the pair means) and whether the pass's paths are all in range (a whole pass masks none; only
/// the passes from the group's end on, uniform across the block, take the masked loop). ncu on
/// the book's pass (v30): the masks, the antithetic selects and the per-pass flag tests were 23
/// of its 171 instructions.
template <class Model, class Loader, class Real>
__device__ __forceinline__ void one_step_terminal_passes(const PathKernelParams<Model, Real>& p,
                                                         const GroupParams<Model, Real>& group,
                                                         const Loader& loader, int thread_first,
                                                         int passes, PassFold& fold) {
  constexpr int P = Loader::paths_per_thread;
  const typename Model::Params model = group.model;
  const models::InstrumentView& instrument = group.instruments[0];
  const double strike = instrument.strike;
  const double discount = instrument.discount;
  const int remaining = group.chunk_paths - thread_first; // paths from the thread's first
  // thread_first is a multiple of P: pass k's paths are the generator's call first_call + k.
  const std::uint64_t first_call = group.first_call + static_cast<std::uint64_t>(thread_first / P);
  // Passes [0, whole) have all their P paths in range.
  const int whole = max(0, min(passes, remaining / P));
  const auto log_spots = [&](int pass, int antithetic, Real(&log_spot)[P]) {
    LoaderInputs<Real> inputs{};
    inputs.steps = 1;
    inputs.seed = p.seed;
    inputs.group = group.group_index;
    inputs.antithetic = antithetic;
    inputs.first_call = first_call + static_cast<std::uint64_t>(pass);
    loader.run(inputs, OneStepTerminal<Model, Real, P>{model, log_spot});
  };
  if (!p.reduce) { // the step loop alone (a benchmark of the kernel without its reduction)
#pragma unroll 1
    for (int pass = 0; pass < passes; ++pass) {
      Real log_spot[P];
      log_spots(pass, group.antithetic, log_spot);
      if (log_spot[0] != log_spot[0]) // as simulate(): keeps the paths alive
        group.reduction.totals[0] = 1.0;
    }
    return;
  }
  const auto run = [&](auto is_call, auto antithetic) {
    constexpr bool kAntithetic = decltype(antithetic)::value;
    // discounted_payoffs' arithmetic for a European without a knock, then price_leaf's.
    const auto pass_leaf = [&](int pass, int valid) {
      Real log_spot[P];
      log_spots(pass, kAntithetic ? 1 : 0, log_spot);
      double value[P];
#pragma unroll
      for (int q = 0; q < P; ++q) {
        const Real spot = models::observation_finish<typename Model::Math>(
            log_spot[q], models::ObservationKind::terminal, 1);
        value[q] =
            models::vanilla_payoff(decltype(is_call)::value, strike, static_cast<double>(spot)) *
            discount;
      }
      return price_leaf<P>(value, valid, kAntithetic ? 1 : 0);
    };
    int pass = 0;
#pragma unroll 1
    for (; pass < whole; ++pass)
      fold.add(pass, pass_leaf(pass, P));
#pragma unroll 1
    for (; pass < passes; ++pass)
      fold.add(pass, pass_leaf(pass, max(0, min(P, remaining - pass * P))));
  };
  const bool antithetic = group.antithetic != 0;
  if (instrument.is_call) {
    antithetic ? run(std::true_type{}, std::true_type{}) : run(std::true_type{}, std::false_type{});
  } else {
    antithetic ? run(std::false_type{}, std::true_type{})
               : run(std::false_type{}, std::false_type{});
  }
}

/// The launch's group that block `b` works for: the last of `groups` (ordered by first_block,
/// the first at block 0) whose first block is at or below b. Searched by the first warp 32-ary:
/// each lane tests one candidate per level and a ballot keeps the last that qualifies, so a
/// launch of 8,192 groups costs three dependent loads where a binary search by one thread took
/// thirteen. Every lane of the warp calls it and gets the same index.
template <class Group>
__device__ __forceinline__ int find_group(const Group* groups, int count, int b) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  int first = 0; // the group is one of [first, first + span); groups[first] qualifies
  int span = count;
  while (span > 1) {
    const int stride = (span + kWarpSize - 1) / kWarpSize;
    const int candidate = first + lane * stride;
    const bool qualifies = lane * stride < span && groups[candidate].first_block <= b;
    const int last = kWarpSize - 1 - __clz(static_cast<int>(__ballot_sync(0xffffffffu, qualifies)));
    first += last * stride;
    span = min(stride, span - last * stride);
  }
  return first;
}

/// Copies a group's parameters into the block's shared copy, the first warp's lanes a word
/// each. Every lane of the warp calls it.
template <class Group>
__device__ __forceinline__ void stage_group(const Group& from, Group& to) {
  static_assert(sizeof(Group) % sizeof(std::uint64_t) == 0 && alignof(Group) >= 8);
  constexpr int kWords = sizeof(Group) / sizeof(std::uint64_t);
  const auto* source = reinterpret_cast<const std::uint64_t*>(&from);
  auto* target = reinterpret_cast<std::uint64_t*>(&to);
  for (int i = static_cast<int>(threadIdx.x) % kWarpSize; i < kWords; i += kWarpSize)
    target[i] = source[i];
}

template <class Model>
constexpr auto requires_register_floor(int) -> decltype(Model::register_floor, bool()) {
  return true;
}
template <class Model>
constexpr bool requires_register_floor(...) {
  return false;
}

/// A model may ask for more registers than a loader's budget (Model::register_floor): Heston in
/// double spilled 380 bytes a thread at the 40-register budget of `none` (its floor 64: a
/// 1024-thread block still launches); the pathwise Greeks' models take 128 (blocks of at most 512
/// threads, engine/run/run_setup.cpp checks the setting).
template <class Model>
constexpr int model_register_floor() {
  if constexpr (requires_register_floor<Model>(0))
    return Model::register_floor;
  return 0;
}

/// path_kernel's `Registers` of its terminal instantiation: the lean passes of one-step terminal
/// groups alone (one_step_terminal_passes; the kernel's other code compiled out), for launches
/// whose every group is one (kernels/launcher_table.cuh). They take 32 registers without a spill
/// (ptxas, sm_90, nvcc 13.0, Black-Scholes float `inline`, fast profile), where the whole
/// kernel's 64 held 128-thread blocks to 8 an SM. ncu on 512 of the MonteCarloMultiGPU book's
/// options (H200, NOTES v30): warps active 94% against 48%, but issue active only 77.6% against
/// 74.7%, 273 against 291 us: twice the warps hid little, the issue rate is held elsewhere.
inline constexpr int kTerminalRegisters = 32;

/// A path kernel's register cap: its loader's budget or its model's floor, whichever is larger.
/// A diagnostic build sets every kernel's cap instead (CMake PFMC_REGISTER_CAP, e.g. 255: the
/// registers ptxas takes where nothing holds it back, so what each kernel's spills are the
/// price of; scripts/spill-causes.py); its kernels cannot launch 1024-thread blocks.
template <class Model, class Loader, int Registers = 0>
constexpr int register_cap() {
#ifdef PFMC_REGISTER_CAP
  return PFMC_REGISTER_CAP;
#else
  if constexpr (Registers > 0)
    return Registers;
  return Loader::register_budget > model_register_floor<Model>() ? Loader::register_budget
                                                                 : model_register_floor<Model>();
#endif
}

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
        // dependent loads held the block's other warps at the barrier below (ncu v31: 20% of the
        // terminal kernel's stall samples).
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
