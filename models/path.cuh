#pragma once
// One path of one simulation group: the model's state and the group's observations, advanced
// one grid step (or one batch of steps) at a time. The GPU kernel and the CPU backend both drive
// this class, so the two compute the same arithmetic in the same order (up to each compiler's
// contractions and math library).
//
// The per-step cost is what the latency- and bandwidth-bound workloads measure, so the common
// path is lean:
//  - steps with observations come as *runs* of consecutive steps that take the same
//    observations (a daily fixing schedule is one run); the current run is held in registers,
//    so a step costs one or two compares;
//  - the first kRegisterObservations observations (the planner gives them to the most
//    frequently observed schedules) live in registers and are updated under per-kind bit masks
//    (the schedule is the same for every path: the masks are warp-uniform), never through a
//    dynamic index, which would put the object in local memory — measured in the PTX: every
//    step stored the state, cursor and slots;
//  - observations beyond those go through a list of events and the caller's array;
//  - advance_batch<D>() takes D steps whose draws have arrived together (batched and rolling
//    loaders): when the D steps lie inside one run, the masks are tested once and the D steps'
//    observation inputs (an exp each for arithmetic averages) are independent instructions in
//    one basic block, which the compiler interleaves. Every accumulator still sees its inputs in
//    step order: the same bits as D single steps.

#include <climits>
#include <type_traits>
#include <utility>

#include "models/dual.cuh"
#include "models/math.cuh"
#include "models/payoff.cuh"

namespace pfmc::models {

inline constexpr int kRegisterObservations = 4;
inline constexpr int kObservationKinds = 7;
/// Steps per basic block of a batch: the block holds each step's draws, state and observation
/// inputs, about 6 registers a step in double, so larger batches (distances 6 to 16) go
/// through in sub-batches; measured: whole batches of 8 to 16 double steps spilled 0.1-1.7 KB.
inline constexpr int kMaxBatchBlock = 4;

/// Whether a model keeps per-step data in memory that it can ask for ahead of its steps
/// (Model::prefetch<Count>(params, first)).
template <class Model, class = void>
struct HasPrefetch : std::false_type {};
template <class Model>
struct HasPrefetch<Model, std::void_t<decltype(Model::template prefetch<1>(
                              std::declval<const typename Model::Params&>(), 0))>>
    : std::true_type {};

/// Consecutive kernel steps [first, last] after each of which the same observations are taken.
struct alignas(16) ObservationRun {
  int first;          ///< INT_MAX: the sentinel that ends the list
  int last;           ///< inclusive
  unsigned int masks; ///< bit kind * kRegisterObservations + slot: register slot takes one
  int spill;          ///< index into spill_ranges (observations beyond the slots), or -1
};
static_assert(std::is_trivially_copyable_v<ObservationRun>);
static_assert(kObservationKinds * kRegisterObservations <= 32);

/// spill_events[begin, end) of a single-step run.
struct SpillRange {
  int begin;
  int end;
};

/// When each observation is taken (device or host memory; non-owning).
struct PathSchedule {
  const ObservationRun* runs; ///< in step order, ending with a sentinel (first = INT_MAX)
  const SpillRange* spill_ranges;
  const EventCode* spill_events;
  const ObservationView* observations;
  int observation_count;
};
static_assert(std::is_trivially_copyable_v<PathSchedule>);

/// P paths of one group advanced side by side (P > 1: a thread that simulates several paths at
/// once, e.g. the paths that share one call of the counter-based generator); they share the
/// schedule, the run cursor and the model's parameters, and keep their own states and
/// observations. Each path sees exactly the arithmetic it would see alone.
template <class Model, class Real, int P = 1, bool PrefetchModel = false>
class Path {
public:
  static constexpr int factors = Model::factors;
  static constexpr int paths = P;
  /// What the observations are kept in: Real, or a pathwise model's Dual (models/dual.cuh); the
  /// draws stay Real.
  using Value = ValueOf<Model, Real>;
  /// A pathwise gamma's moved observation (ObservationView::shifted_leg >= 0): what of it the
  /// path computes, the leading entries of its Value (MovedValueOf; void: the model has none).
  using MovedValue = MovedValueOf<Model, Real>;

  /// `observed` (P arrays of kMaxObservations values, the caller's) holds the observations
  /// beyond the register slots while the paths run, and every observation after finish(). The
  /// arrays model and schedule point to must outlive the path.
  PFMC_HD_INLINE Path(const typename Model::Params& model, const PathSchedule& schedule,
                      Value (*observed)[kMaxObservations])
      : model_(model), schedule_(schedule), run_(schedule.runs[0]), observed_(observed) {
    // Each observation's start is read from the schedule once for all the paths (the loads are
    // not hoisted out of a loop over paths that stores to `observed`).
    PFMC_UNROLL
    for (int p = 0; p < P; ++p)
      state_[p] = Model::initial(model);
    PFMC_UNROLL
    for (int k = 0; k < kRegisterObservations; ++k) {
      if (k < schedule_.observation_count) {
        const Value start = observation_start<Value>(schedule_.observations[k].kind);
        PFMC_UNROLL
        for (int p = 0; p < P; ++p)
          registers_[p][k] = start;
      }
    }
    for (int o = kRegisterObservations; o < schedule_.observation_count; ++o) {
      const Value start = observation_start<Value>(schedule_.observations[o].kind);
      PFMC_UNROLL
      for (int p = 0; p < P; ++p)
        observed_[p][o] = start;
    }
  }

  /// Moves the paths over grid step `step` with their draws (z[p]: path p's), then takes that
  /// date's observations.
  PFMC_HD_INLINE void advance(int step, const Real (&z)[P][factors]) {
    prefetch<1>(step + kMaxBatchBlock);
    PFMC_UNROLL
    for (int p = 0; p < P; ++p)
      Model::advance(state_[p], model_, step, z[p]);
    if (step >= run_.first) {
      typename Model::State states[1][P];
      PFMC_UNROLL
      for (int p = 0; p < P; ++p)
        states[0][p] = state_[p];
      take<1>(run_.masks, states);
      if (run_.spill >= 0)
        take_spilled(run_.spill);
      if (step == run_.last)
        run_ = schedule_.runs[++cursor_];
    }
  }

  /// Steps step0 .. step0 + D - 1 (all inside the grid) with their draws z[d][p].
  template <int D>
  PFMC_HD_INLINE void advance_batch(int step0, const Real (&z)[D][P][factors]) {
    prefetch<D>(step0 + D); // the next batch's model data, while this one runs
    const int step_last = step0 + D - 1;
    if (run_.first > step_last) { // no observation in the batch
      PFMC_UNROLL
      for (int d = 0; d < D; ++d) {
        PFMC_UNROLL
        for (int p = 0; p < P; ++p)
          Model::advance(state_[p], model_, step0 + d, z[d][p]);
      }
      return;
    }
    if (run_.first <= step0 && step_last <= run_.last) { // the batch lies inside one run
      typename Model::State states[D][P];
      PFMC_UNROLL
      for (int d = 0; d < D; ++d) {
        PFMC_UNROLL
        for (int p = 0; p < P; ++p) {
          Model::advance(state_[p], model_, step0 + d, z[d][p]);
          states[d][p] = state_[p];
        }
      }
      take<D>(run_.masks, states);
      // Only single-step runs have spilled observations, so only a batch of one meets them.
      if (run_.spill >= 0)
        take_spilled(run_.spill);
      if (step_last == run_.last)
        run_ = schedule_.runs[++cursor_];
      return;
    }
    PFMC_UNROLL
    for (int d = 0; d < D; ++d)
      advance(step0 + d, z[d]);
  }

  /// One path (P == 1): its draws as z[factor].
  PFMC_HD_INLINE void advance(int step, const Real (&z)[factors]) {
    static_assert(P == 1, "several paths take their draws as z[path][factor]");
    advance(step, reinterpret_cast<const Real(&)[1][factors]>(z));
  }
  template <int D>
  PFMC_HD_INLINE void advance_batch(int step0, const Real (&z)[D][factors]) {
    static_assert(P == 1, "several paths take their draws as z[step][path][factor]");
    advance_batch<D>(step0, reinterpret_cast<const Real(&)[D][1][factors]>(z));
  }

  /// Writes every observation of every path, finalised (sums to averages, log-spots to spots),
  /// to observed[p][0 .. count): the arrays given at construction. Call once after the last step.
  PFMC_HD_INLINE void finish() {
    PFMC_UNROLL
    for (int k = 0; k < kRegisterObservations; ++k) {
      if (k < schedule_.observation_count) {
        // Read once for all the paths (not the basket fields: the loads are what counts).
        const ObservationKind kind = schedule_.observations[k].kind;
        const int count = schedule_.observations[k].count;
        PFMC_UNROLL
        for (int p = 0; p < P; ++p)
          observed_[p][k] = observation_finish<typename Model::Math>(registers_[p][k], kind, count);
      }
    }
    for (int k = kRegisterObservations; k < schedule_.observation_count; ++k) {
      const ObservationKind kind = schedule_.observations[k].kind;
      const int count = schedule_.observations[k].count;
      PFMC_UNROLL
      for (int p = 0; p < P; ++p)
        observed_[p][k] = observation_finish<typename Model::Math>(observed_[p][k], kind, count);
    }
  }

  /// Path p's model state after the last step it took (early exercise reads it at its dates).
  PFMC_HD_INLINE const typename Model::State& state(int p) const { return state_[p]; }

  /// True when a path went wrong (NaN); used to keep benchmarks from optimising paths away.
  PFMC_HD_INLINE bool is_nan() const {
    bool nan = false;
    PFMC_UNROLL
    for (int p = 0; p < P; ++p)
      nan = nan || (schedule_.observation_count > 0 && registers_[p][0] != registers_[p][0]);
    return nan;
  }

private:
  /// With PrefetchModel, asks for the model's data of steps first .. first + Count - 1 where the
  /// model keeps it in memory (Black-Scholes: a drift and a diffusion a step). What pays on a
  /// launch of few warps an SM, whose every step waited on its first read of that data (on
  /// latency_bound 37% of the ideal kernel's stall samples; the best loader 1.42 -> 1.22 ms), and
  /// costs on a launch of many, whose L1 is busy with the draws (bandwidth_bound's `none` +35%
  /// when every kernel asked); docs/decisions.md#step-data-ahead. The kernels set it in their wide
  /// instantiations, which run only launches of one wave.
  template <int Count>
  PFMC_HD_INLINE void prefetch(int first) const {
    if constexpr (PrefetchModel && HasPrefetch<Model>::value)
      Model::template prefetch<Count>(model_, first);
  }

  /// The observations of one kind, for D consecutive states of each path, slot by slot in
  /// step order.
  template <ObservationKind Kind, int D>
  PFMC_HD_INLINE void take_kind(unsigned int masks, const typename Model::State (&states)[D][P]) {
    const unsigned int slots = (masks >> (static_cast<int>(Kind) * kRegisterObservations)) &
                               ((1u << kRegisterObservations) - 1);
    if (slots == 0)
      return;
    PFMC_UNROLL
    for (int k = 0; k < kRegisterObservations; ++k) {
      if (slots & (1u << k)) {
        const ObservationView& o = schedule_.observations[k];
        PFMC_UNROLL
        for (int p = 0; p < P; ++p) {
          if constexpr (takes_moved(Kind)) {
            if (o.shifted_leg >= 0) {
              take_moved<D>(
                  Kind, o, registers_[p][k], [&](int d) -> const auto& { return states[d][p]; });
              continue;
            }
          }
          Value inputs[D];
          PFMC_UNROLL
          for (int d = 0; d < D; ++d) {
            inputs[d] = input<Kind>(states[d][p], o);
          }
          PFMC_UNROLL
          for (int d = 0; d < D; ++d) {
            registers_[p][k] = observation_combine(Kind, registers_[p][k], inputs[d]);
          }
        }
      }
    }
  }

  /// Whether observations of `kind` may be a pathwise gamma's moved ones: basket levels of a
  /// model that names a MovedValue.
  static constexpr bool takes_moved(ObservationKind kind) {
    return !std::is_void_v<MovedValue> && Model::assets > 1 && is_basket_observation(kind);
  }

  /// A moved observation (o, of kind basket_min or basket_max) after the dates of D states
  /// (state(d): the d-th, in step order). moved_spot_greek reads its value and its tangents by
  /// the spots alone, so only those, MovedValue, are computed and combined, each as the whole
  /// Value's would be (a Dual's tangents are computed each on its own: the same bits), and
  /// written back to the slot's leading entries; its other tangents stay as they started.
  /// basket.yaml's knocked basket with gamma keeps 8 moved knocks of 52 dates: 5 of each one's
  /// 11 entries are computed, read and written a date, and its five Greeks ran 56.8 -> 44.6 ms
  /// (H200, docs/decisions.md#moved-observations). Moved observations take register slots as the
  /// planner numbers them: kept out of the slots, the five measured 49.8 ms.
  template <int D, class StateAt>
  PFMC_HD_INLINE static void take_moved(ObservationKind kind, const ObservationView& o, Value& slot,
                                        const StateAt& state) {
    if constexpr (!std::is_void_v<MovedValue>) {
      constexpr int K = MovedValue::tangents;
      MovedValue inputs[D];
      PFMC_UNROLL
      for (int d = 0; d < D; ++d) {
        inputs[d] = basket_level<MovedValue, typename Model::Math>(
            o, [&](int asset) { return leading<K>(Model::log_spot(state(d), asset)); });
      }
      MovedValue m = leading<K>(slot);
      PFMC_UNROLL
      for (int d = 0; d < D; ++d)
        m = observation_combine(kind, m, inputs[d]);
      slot.v = m.v;
      PFMC_UNROLL
      for (int j = 0; j < K; ++j)
        slot.d[j] = m.d[j];
    }
  }

  /// What observation o (of kind Kind) takes from a state.
  template <ObservationKind Kind>
  PFMC_HD_INLINE static Value input(const typename Model::State& state, const ObservationView& o) {
    if constexpr (is_basket_observation(Kind)) {
      return basket_level<Value, typename Model::Math>(
          o, [&](int asset) { return Model::log_spot(state, asset); });
    } else {
      return observation_input<typename Model::Math>(Kind, Model::log_spot(state, o.asset));
    }
  }

  template <int D>
  PFMC_HD_INLINE void take(unsigned int masks, const typename Model::State (&states)[D][P]) {
    take_kind<ObservationKind::terminal>(masks, states);
    take_kind<ObservationKind::arithmetic_sum>(masks, states);
    take_kind<ObservationKind::log_sum>(masks, states);
    take_kind<ObservationKind::running_min>(masks, states);
    take_kind<ObservationKind::running_max>(masks, states);
    // Basket levels exist only on multi-asset models: single-asset kernels carry no code for them.
    if constexpr (Model::assets > 1) {
      take_kind<ObservationKind::basket_min>(masks, states);
      take_kind<ObservationKind::basket_max>(masks, states);
    }
  }

  PFMC_HD_INLINE void take_spilled(int spill) {
    const SpillRange range = schedule_.spill_ranges[spill];
    for (int e = range.begin; e < range.end; ++e) {
      const EventCode event = schedule_.spill_events[e];
      const auto kind = static_cast<ObservationKind>(event.kind);
      PFMC_UNROLL
      for (int p = 0; p < P; ++p) {
        Value x;
        if (Model::assets > 1 && is_basket_observation(kind)) {
          const ObservationView& o = schedule_.observations[event.observation];
          if constexpr (takes_moved(ObservationKind::basket_min)) {
            if (o.shifted_leg >= 0) {
              take_moved<1>(
                  kind, o,
                  observed_[p][event.observation], [&](int) -> const auto& { return state_[p]; });
              continue;
            }
          }
          x = input<ObservationKind::basket_min>(state_[p], o);
        } else {
          x = observation_input<typename Model::Math>(kind,
                                                      Model::log_spot(state_[p], event.asset));
        }
        Value& slot = observed_[p][event.observation];
        slot = observation_combine(kind, slot, x);
      }
    }
  }

  // Copies, not references: in the kernel they come from the parameter space, and a copy lets
  // the compiler re-read them from the constant bank instead of holding them in registers.
  typename Model::Params model_;
  PathSchedule schedule_;
  typename Model::State state_[P];
  ObservationRun run_;
  int cursor_ = 0;
  Value registers_[P][kRegisterObservations] = {};
  Value (*observed_)[kMaxObservations];
};

/// The largest divisor of D that is at most kMaxBatchBlock.
constexpr int batch_block(int d) {
  for (int b = kMaxBatchBlock; b > 1; --b) {
    if (d % b == 0)
      return b;
  }
  return 1;
}

/// The step function a loader drives (kernels/loader_common.cuh): one step, or a batch of D
/// steps whose draws arrived together, for the P paths of a thread.
template <class Model, class Real, int P = 1, bool PrefetchModel = false>
struct PathStepper {
  static constexpr int factors = Model::factors;
  Path<Model, Real, P, PrefetchModel>& path;
  /// z[p][f]: path p's draws of the step.
  PFMC_HD_INLINE void operator()(int step, const Real (&z)[P][factors]) const {
    path.advance(step, z);
  }
  template <int D>
  PFMC_HD_INLINE void batch(int step0, const Real (&z)[D][P][factors]) const {
    constexpr int B = batch_block(D);
    using Block = const Real(&)[B][P][factors];
    PFMC_UNROLL
    for (int s = 0; s < D; s += B) {
      path.template advance_batch<B>(step0 + s, reinterpret_cast<Block>(z[s]));
    }
  }
  /// One path (P == 1): z[f], or z[d][f] for a batch.
  PFMC_HD_INLINE void operator()(int step, const Real (&z)[factors]) const {
    static_assert(P == 1, "several paths take z[path][factor]");
    (*this)(step, reinterpret_cast<const Real(&)[1][factors]>(z));
  }
  template <int D>
  PFMC_HD_INLINE void batch(int step0, const Real (&z)[D][factors]) const {
    static_assert(P == 1, "several paths take z[step][path][factor]");
    batch<D>(step0, reinterpret_cast<const Real(&)[D][1][factors]>(z));
  }
};

} // namespace pfmc::models
