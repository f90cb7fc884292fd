#pragma once
// One path of one simulation group: the model's state and the group's observations, advanced
// one grid step at a time. The GPU kernel and the CPU backend both drive this class, so the two
// compute the same arithmetic in the same order (up to each compiler's contractions and math
// library).
//
// The per-step cost is what the latency- and bandwidth-bound workloads measure, so the common
// path is lean (measured on an H100 before this design: ~214 instructions a step on the
// latency-bound workload, 38 per step on the bandwidth-bound one):
//  - the steps that have observations are records, in step order, ending in a sentinel; the
//    next one is held in registers, so a step without observations costs one compare;
//  - the first kRegisterObservations observations (the planner gives them to the most
//    frequently observed schedules) live in registers and are updated under per-kind bit masks
//    (the schedule is the same for every path: the masks are warp-uniform), never through a
//    dynamic index, which would put them in local memory;
//  - observations beyond those take the general path through a list of events and a local
//    array.

#include <climits>
#include <type_traits>

#include "models/math.cuh"
#include "models/payoff.cuh"

namespace pfmc::models {

inline constexpr int kRegisterObservations = 4;
inline constexpr int kObservationKinds = 5;

/// The observations taken after one grid step: 8 bytes, one load.
struct alignas(8) ObservationStep {
  int step;           ///< the kernel step after which they are taken (INT_MAX: sentinel)
  unsigned int masks; ///< bit kind * kRegisterObservations + slot: register slot takes one;
                      ///< kHasSpill: observations beyond the slots too (spill_ranges)
};
static_assert(std::is_trivially_copyable_v<ObservationStep>);
static_assert(kObservationKinds * kRegisterObservations < 31);
inline constexpr unsigned int kHasSpill = 1u << 31;

/// For a record with kHasSpill: spill_events[begin, end).
struct SpillRange {
  int begin;
  int end;
};

/// When each observation is taken (device or host memory; non-owning).
struct PathSchedule {
  const ObservationStep* steps;   ///< in step order, ending with a sentinel (step = INT_MAX)
  const SpillRange* spill_ranges; ///< one per record (used only under kHasSpill)
  const EventCode* spill_events;
  const ObservationView* observations;
  int observation_count;
};
static_assert(std::is_trivially_copyable_v<PathSchedule>);

template <class Model, class Real>
class Path {
public:
  /// `observed` (kMaxObservations values, the caller's) holds the observations beyond the
  /// register slots while the path runs, and every observation after finish(). The slots are
  /// only ever indexed with compile-time constants: an array indexed at run time inside this
  /// object keeps the whole object (state, cursor, slots) in local memory — seen in the PTX,
  /// where every step stored them. The arrays model and schedule point to must outlive the
  /// path.
  PFMC_HD_INLINE Path(const typename Model::Params& model, const PathSchedule& schedule,
                      Real* observed)
      : model_(model), schedule_(schedule), state_(Model::initial(model)), next_(schedule.steps[0]),
        observed_(observed) {
    PFMC_UNROLL
    for (int k = 0; k < kRegisterObservations; ++k) {
      if (k < schedule_.observation_count) {
        registers_[k] = observation_start<Real>(schedule_.observations[k].kind);
      }
    }
    for (int o = kRegisterObservations; o < schedule_.observation_count; ++o) {
      observed_[o] = observation_start<Real>(schedule_.observations[o].kind);
    }
  }

  /// Moves the path over grid step `step` with its draws, then takes that date's observations.
  PFMC_HD_INLINE void advance(int step, const Real (&z)[Model::factors]) {
    Model::advance(state_, model_, step, z);
    if (step == next_.step) {
      const unsigned int masks = next_.masks;
      const int record = cursor_++;
      next_ = schedule_.steps[cursor_]; // issued early: needed at the next observation
      take(masks, record);
    }
  }

  /// Writes every observation, finalised (sums to averages, log-spots to spots), to
  /// observed[0 .. count): the array given at construction. Call once after the last step.
  PFMC_HD_INLINE void finish() {
    PFMC_UNROLL
    for (int k = 0; k < kRegisterObservations; ++k) {
      if (k < schedule_.observation_count) {
        observed_[k] = observation_finish(registers_[k], schedule_.observations[k]);
      }
    }
    for (int o = kRegisterObservations; o < schedule_.observation_count; ++o) {
      observed_[o] = observation_finish(observed_[o], schedule_.observations[o]);
    }
  }

  /// True when the path went wrong (NaN); used to keep benchmarks from optimising paths away.
  PFMC_HD_INLINE bool is_nan() const {
    return schedule_.observation_count > 0 && registers_[0] != registers_[0];
  }

private:
  template <ObservationKind Kind>
  PFMC_HD_INLINE void take_kind(unsigned int masks) {
    const unsigned int slots = (masks >> (static_cast<int>(Kind) * kRegisterObservations)) &
                               ((1u << kRegisterObservations) - 1);
    if (slots == 0)
      return;
    PFMC_UNROLL
    for (int k = 0; k < kRegisterObservations; ++k) {
      if (slots & (1u << k)) {
        const Real x = Model::log_spot(state_, schedule_.observations[k].asset);
        registers_[k] = observation_combine(Kind, registers_[k], observation_input(Kind, x));
      }
    }
  }

  PFMC_HD_INLINE void take(unsigned int masks, int record) {
    take_kind<ObservationKind::terminal>(masks);
    take_kind<ObservationKind::arithmetic_sum>(masks);
    take_kind<ObservationKind::log_sum>(masks);
    take_kind<ObservationKind::running_min>(masks);
    take_kind<ObservationKind::running_max>(masks);
    if (!(masks & kHasSpill))
      return;
    const SpillRange range = schedule_.spill_ranges[record];
    for (int e = range.begin; e < range.end; ++e) {
      const EventCode event = schedule_.spill_events[e];
      const auto kind = static_cast<ObservationKind>(event.kind);
      const Real x = observation_input(kind, Model::log_spot(state_, event.asset));
      Real& slot = observed_[event.observation];
      slot = observation_combine(kind, slot, x);
    }
  }

  // Copies, not references: in the kernel they come from the parameter space, and a copy lets
  // the compiler re-read them from the constant bank instead of holding them in registers
  // (with references, a generic pointer into parameter space, the `none` kernel needed more
  // than 40 registers).
  typename Model::Params model_;
  PathSchedule schedule_;
  typename Model::State state_;
  ObservationStep next_;
  int cursor_ = 0;
  Real registers_[kRegisterObservations] = {};
  Real* observed_;
};

} // namespace pfmc::models
