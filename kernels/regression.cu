#include "base/error.hpp"
#include "kernels/regression.cuh"

namespace pfmc::kernels {

template <class Real>
void launch_regression_step(const RegressionStep<Real>& step, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned int>(regression_blocks(step.paths));
  PFMC_EXPECTS(blocks > 0, "a regression needs paths");
  regression_step_kernel<Real><<<blocks, kRegressionThreads, 0, stream>>>(step);
  PFMC_CUDA_TRY(cudaGetLastError());
}

template void launch_regression_step<float>(const RegressionStep<float>&, cudaStream_t);
template void launch_regression_step<double>(const RegressionStep<double>&, cudaStream_t);

} // namespace pfmc::kernels
