// Black-Scholes path kernels in float, every backend and prefetch distance.
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels {

template <>
const LauncherTable<models::BlackScholes<float>, float>& launcher_table() {
  static const auto table = make_launcher_table<models::BlackScholes<float>, float>();
  return table;
}

} // namespace pfmc::kernels
