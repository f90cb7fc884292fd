// Two-asset correlated Black-Scholes path kernels in double: the prefetch matrix (every backend but
// the common module's), at the distances of ReducedDistances (kernels/launcher_table.cuh).
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels {

PFMC_DEFINE_PREFETCH_LAUNCHERS(models::MultiBlackScholes<double PFMC_COMMA 2>, double,
                               ReducedDistances)

} // namespace pfmc::kernels
