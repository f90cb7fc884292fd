#pragma once
// Which of a plan's groups run the path kernel's lean passes: the one fact behind the kernels'
// GroupParams::one_step_terminal, the units' terminal instantiation (engine/run/device_unit.cuh)
// and the kernels a config warms (engine/run/kernel_inventory.cu).

#include "engine/plan/plan.hpp"
#include "kernels/path_kernel.cuh"

namespace pfmc::engine {

/// Whether a group runs the kernels' lean passes (kernels::is_one_step_terminal) from its plan:
/// its first observation, observation run and instrument.
inline bool one_step_terminal(const GroupPlan& g) {
  return !g.observations.empty() && !g.observation_runs.empty() && !g.instruments.empty() &&
         kernels::is_one_step_terminal(g.steps(), g.base_instruments(), g.portfolio, g.scenarios,
                                       g.values_per_instrument(),
                                       static_cast<int>(g.observations.size()), g.observations[0],
                                       g.observation_runs[0], g.instruments[0]);
}

} // namespace pfmc::engine
