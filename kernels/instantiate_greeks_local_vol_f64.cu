// Local-volatility Greeks kernels (base and bumped scenarios on common draws) in double: every
// backend, at the distances of ScenarioDistances (kernels/launcher_table.cuh).
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels {

PFMC_DEFINE_LAUNCHER_TABLE(models::Scenarios<models::LocalVol<double>>, double, ScenarioDistances)

} // namespace pfmc::kernels
