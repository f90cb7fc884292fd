#pragma once
// One path of one simulation group: the model's state and the group's observations, advanced
// one grid step at a time. The GPU kernel and the CPU backend both drive this class, so the two
// compute the same arithmetic in the same order (up to each compiler's contractions and math
// library).

#include <type_traits>

#include "models/math.cuh"
#include "models/payoff.cuh"

namespace pfmc::models {

/// When each observation is taken (device or host memory; non-owning).
struct PathSchedule {
  const int* event_offsets; ///< [steps + 1]: events after step s are [offsets[s], offsets[s+1])
  const int* event_observations; ///< observation index of each event
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
      observed_[o] = observation_start<Real>(schedule_.observations[o].kind);
    }
  }

  /// Moves the path over grid step `step` with its draws, then takes that date's observations.
  PFMC_HD_INLINE void advance(int step, const Real (&z)[Model::factors]) {
    Model::advance(state_, model_, step, z);
    const int last_event = schedule_.event_offsets[step + 1];
    for (; event_ < last_event; ++event_) {
      const int o = schedule_.event_observations[event_];
      const ObservationView view = schedule_.observations[o];
      observe(observed_[o], view.kind, Model::log_spot(state_, view.asset));
    }
  }

  /// Turns sums into averages and log-spots into spots; call once after the last step.
  PFMC_HD_INLINE void finish() {
    for (int o = 0; o < schedule_.observation_count; ++o) {
      observed_[o] = observation_finish(observed_[o], schedule_.observations[o]);
    }
  }

  PFMC_HD_INLINE const Real* observed() const { return observed_; }

  /// True when the path went wrong (NaN); used to keep benchmarks from optimising paths away.
  PFMC_HD_INLINE bool is_nan() const {
    return schedule_.observation_count > 0 && observed_[0] != observed_[0];
  }

private:
  typename Model::Params model_;
  PathSchedule schedule_;
  typename Model::State state_;
  int event_ = 0;
  Real observed_[kMaxObservations];
};

} // namespace pfmc::models
