// Black-Scholes path kernels in float: the prefetch matrix (every backend but the common module's),
// at the distances of InstantiatedDistances (kernels/launcher_table.cuh).
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels {

PFMC_DEFINE_PREFETCH_LAUNCHERS(models::BlackScholes<float>, float, InstantiatedDistances)

} // namespace pfmc::kernels
