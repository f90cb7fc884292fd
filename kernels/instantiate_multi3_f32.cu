// Three-asset correlated Black-Scholes path kernels in float: the prefetch matrix (every backend
// but the common module's), at the distances of ReducedDistances (kernels/launcher_table.cuh).
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels {

PFMC_DEFINE_PREFETCH_LAUNCHERS(models::MultiBlackScholes<float PFMC_COMMA 3>, float,
                               ReducedDistances)

} // namespace pfmc::kernels
