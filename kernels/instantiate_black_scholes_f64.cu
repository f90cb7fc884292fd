// Black-Scholes path kernels in double, every backend and prefetch distance.
#include "kernels/launcher_table.cuh"

namespace pfmc::kernels {

template <>
const LauncherTable<models::BlackScholes<double>, double>& launcher_table() {
  static const auto table = make_launcher_table<models::BlackScholes<double>, double>();
  return table;
}

} // namespace pfmc::kernels
