// Three-asset correlated Black-Scholes path kernels in double: every backend, at the distances of
// ReducedDistances (kernels/launcher_table.cuh).
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels {

PFMC_DEFINE_LAUNCHER_TABLE(models::MultiBlackScholes<double PFMC_COMMA 3>, double, ReducedDistances)

} // namespace pfmc::kernels
