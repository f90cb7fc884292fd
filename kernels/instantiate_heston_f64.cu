// Heston path kernels in double: every backend, at the distances of ReducedDistances
// (kernels/launcher_table.cuh).
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels {

PFMC_DEFINE_LAUNCHER_TABLE(models::Heston<double>, double, ReducedDistances)

} // namespace pfmc::kernels
