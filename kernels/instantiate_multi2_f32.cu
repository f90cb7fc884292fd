// Two-asset correlated Black-Scholes path kernels in float: every backend, at the distances of
// ReducedDistances (kernels/launcher_table.cuh).
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels {

PFMC_DEFINE_LAUNCHER_TABLE(models::MultiBlackScholes<float PFMC_COMMA 2>, float, ReducedDistances)

} // namespace pfmc::kernels
