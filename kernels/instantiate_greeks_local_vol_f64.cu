// Local-volatility Greeks kernels (base and bumped scenarios on common draws) in double: the
// prefetch matrix (every backend but the common module's), at the distances of ScenarioDistances
// (kernels/launcher_table.cuh).
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels {

PFMC_DEFINE_PREFETCH_LAUNCHERS(models::Scenarios<models::LocalVol<double>>, double,
                               ScenarioDistances)

} // namespace pfmc::kernels
