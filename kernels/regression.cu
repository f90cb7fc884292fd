#include "kernels/error.hpp"
#include "kernels/regression.cuh"

namespace pfmc::kernels {

template <class Real>
void launch_regression_step(const RegressionStep<Real>& step, cudaStream_t stream) {
  const auto tiles = static_cast<unsigned int>(tiles_for_paths(step.paths));
  PFMC_EXPECTS(tiles > 0, "a regression needs paths");
  const std::size_t shared = regression_shared_bytes(step.target.values);
  regression_step_kernel<Real><<<tiles, kRegressionThreads, shared, stream>>>(step);
  PFMC_CUDA_TRY(cudaGetLastError());
}

template void launch_regression_step<float>(const RegressionStep<float>&, cudaStream_t);
template void launch_regression_step<double>(const RegressionStep<double>&, cudaStream_t);

} // namespace pfmc::kernels
