#pragma once
// The generation kernel of the counter-based draws (kernels/counter_draws.cuh): writes the draws
// of the given groups' paths into draw buffers laid out in tiles (kernels/draw_layout.hpp), for
// the backends that read their draws (every backend but `inline`). One launch writes any
// number of groups. Host-only interface.

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace pfmc::kernels {

/// One group's part of a generation launch: `paths` paths from `first_path` (a multiple of the
/// draw tile, kernels/draw_layout.hpp) of group `group`, `rows` draws each, written at `out`
/// (whose first path starts a tile).
template <class Real>
struct DrawRequest {
  Real* out;
  std::uint64_t first_path;
  std::uint64_t paths;
  std::uint32_t group;
  int rows;
};

/// Enqueues the generation of every request on `stream`. `table` is device memory for
/// requests.size() entries of the kernel's table (generate_table_bytes()); it must stay valid
/// until the launch has run. `fast`: the fast math profile's draws (models/math.cuh's Fast:
/// Philox4x32-7), else the accurate profile's.
template <class Real>
void generate_philox_draws(const std::vector<DrawRequest<Real>>& requests, std::uint64_t seed,
                           bool fast, void* table, cudaStream_t stream);

/// Bytes of device memory the table of `requests` entries takes.
std::size_t generate_table_bytes(std::size_t requests);

} // namespace pfmc::kernels
