#pragma once
// One path of one simulation group: the model's state and the group's observations, advanced
// one grid step at a time. The GPU kernel and the CPU backend both drive this class, so the two
// compute the same arithmetic in the same order (up to each compiler's contractions and math
// library).
//
// The first kRegisterObservations observations live in registers: the schedule is the same for
// every path, so the observation index of an event is uniform across a warp and the chain of
// compile-time-indexed updates below is a uniform branch, not a dynamic index (which would put
// the array in local memory — measured: with every observation in local memory the
// latency-bound workload spent ~2,000 cycles a step, the draws streaming through L1 evicting
// the array to L2). Observations beyond them stay in local memory.

#include <type_traits>

#include "models/math.cuh"
#include "models/payoff.cuh"

namespace pfmc::models {

inline constexpr int kRegisterObservations = 8;

/// When each observation is taken (device or host memory; non-owning).
struct PathSchedule {
  const int* event_offsets; ///< [steps + 1]: events after step s are [offsets[s], offsets[s+1])
  const EventCode* events;
  const ObservationView* observations;
  int observation_count;
};
static_assert(std::is_trivially_copyable_v<PathSchedule>);

template <class Model, class Real>
class Path {
public:
  PFMC_HD_INLINE Path(const typename Model::Params& model, const PathSchedule& schedule)
      : model_(model), schedule_(schedule), state_(Model::initial(model)) {
    for (int o = 0; o < schedule_.observation_count; ++o) {
      set(o, observation_start<Real>(schedule_.observations[o].kind));
    }
  }

  /// Moves the path over grid step `step` with its draws, then takes that date's observations.
  PFMC_HD_INLINE void advance(int step, const Real (&z)[Model::factors]) {
    Model::advance(state_, model_, step, z);
    const int last_event = schedule_.event_offsets[step + 1];
    for (; event_ < last_event; ++event_) {
      const EventCode e = schedule_.events[event_];
      const auto kind = static_cast<ObservationKind>(e.kind);
      const Real x = observation_input(kind, Model::log_spot(state_, e.asset));
      set(e.observation, observation_combine(kind, value(e.observation), x));
    }
  }

  /// Turns sums into averages and log-spots into spots; call once after the last step.
  PFMC_HD_INLINE void finish() {
    for (int o = 0; o < schedule_.observation_count; ++o) {
      set(o, observation_finish(value(o), schedule_.observations[o]));
    }
  }

  /// Observation o (finalised after finish()).
  PFMC_HD_INLINE Real value(int o) const {
    PFMC_UNROLL
    for (int k = 0; k < kRegisterObservations; ++k) {
      if (o == k)
        return registers_[k];
    }
    return spilled_[o - kRegisterObservations];
  }

  /// True when the path went wrong (NaN); used to keep benchmarks from optimising paths away.
  PFMC_HD_INLINE bool is_nan() const {
    return schedule_.observation_count > 0 && registers_[0] != registers_[0];
  }

private:
  PFMC_HD_INLINE void set(int o, Real v) {
    PFMC_UNROLL
    for (int k = 0; k < kRegisterObservations; ++k) {
      if (o == k) {
        registers_[k] = v;
        return;
      }
    }
    spilled_[o - kRegisterObservations] = v;
  }

  typename Model::Params model_;
  PathSchedule schedule_;
  typename Model::State state_;
  int event_ = 0;
  Real registers_[kRegisterObservations] = {};
  Real spilled_[kMaxObservations - kRegisterObservations];
};

} // namespace pfmc::models
