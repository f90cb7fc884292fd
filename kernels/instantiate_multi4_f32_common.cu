// Four-asset correlated Black-Scholes path kernels in float: the common module (none, inline, scalar_batched at 4 and 8;
// kernels/launcher_table.cuh says why it is a module of its own).
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels {

PFMC_DEFINE_COMMON_LAUNCHERS(models::MultiBlackScholes<float PFMC_COMMA 4>, float)

} // namespace pfmc::kernels
