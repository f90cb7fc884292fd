// The generation kernel of the counter-based draws: one thread per generator call (one row of
// kPathsPerCall<Real> consecutive paths), each writing its 16 bytes with one vector store; a
// warp writes 512 contiguous bytes of a tile's row.
#include "kernels/generate_draws.hpp"

#include <algorithm>

#include "kernels/counter_draws.cuh"
#include "kernels/draw_layout.hpp"
#include "base/error.hpp"

namespace pfmc::kernels {

namespace {

struct TableEntry {
  void* out;
  std::uint64_t first_call; ///< the group's generator call of its first path
  std::uint64_t first_item; ///< the entry's first work item in the launch (prefix sum)
  std::uint64_t calls;      ///< calls per row
  std::uint32_t group;
  int rows;
};

template <class Real>
using Vector16 = std::conditional_t<sizeof(Real) == 4, float4, double2>;

template <class Real, class Profile>
__global__ void generate_kernel(const TableEntry* __restrict__ table, int entries,
                                std::uint64_t items, std::uint64_t seed) {
  constexpr int P = kPathsPerCall<Real>;
  for (std::uint64_t item = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       item < items; item += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    int lo = 0;
    int hi = entries - 1;
    while (lo < hi) { // the last entry whose first item is at or below this one
      const int mid = (lo + hi + 1) / 2;
      if (table[mid].first_item <= item) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    const TableEntry e = table[lo];
    const std::uint64_t local = item - e.first_item;
    const auto row = static_cast<std::uint32_t>(local / e.calls);
    const std::uint64_t call = local % e.calls;
    Real normals[P];
    philox_normals<Real, Profile>(seed, e.group, e.first_call + call, row, normals);
    Vector16<Real> v;
    static_assert(sizeof(v) == sizeof(normals));
    __builtin_memcpy(&v, normals, sizeof(v));
    auto* out =
        static_cast<Real*>(e.out) + draw_offset(call * P, row, static_cast<std::size_t>(e.rows));
    *reinterpret_cast<Vector16<Real>*>(out) = v;
  }
}

} // namespace

std::size_t generate_table_bytes(std::size_t requests) {
  return requests * sizeof(TableEntry);
}

template <class Real>
void generate_philox_draws(const std::vector<DrawRequest<Real>>& requests, std::uint64_t seed,
                           bool fast, void* table, cudaStream_t stream) {
  constexpr int P = kPathsPerCall<Real>;
  std::vector<TableEntry> entries;
  std::uint64_t items = 0;
  for (const auto& r : requests) {
    PFMC_EXPECTS(r.first_path % kDrawTilePaths == 0, "draws are generated from a tile's start");
    const std::uint64_t calls = (r.paths + P - 1) / P;
    entries.push_back(TableEntry{r.out, r.first_path / P, items, calls, r.group, r.rows});
    items += calls * static_cast<std::uint64_t>(r.rows);
  }
  if (items == 0)
    return;
  PFMC_CUDA_TRY(cudaMemcpyAsync(table, entries.data(), entries.size() * sizeof(TableEntry),
                                cudaMemcpyHostToDevice, stream));
  // Enough blocks to fill the device several times over; the grid-stride loop does the rest.
  constexpr int kBlock = 256;
  static const int multiprocessors = [] {
    int device = 0, count = 0;
    PFMC_CUDA_TRY(cudaGetDevice(&device));
    PFMC_CUDA_TRY(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
  }();
  const std::uint64_t wanted = (items + kBlock - 1) / kBlock;
  const int grid =
      static_cast<int>(std::min<std::uint64_t>(wanted, std::uint64_t(multiprocessors) * 32));
  const auto* entry_table = static_cast<const TableEntry*>(table);
  const int count = static_cast<int>(entries.size());
  if (fast) {
    generate_kernel<Real, math::Fast><<<grid, kBlock, 0, stream>>>(entry_table, count, items, seed);
  } else {
    generate_kernel<Real, math::Accurate>
        <<<grid, kBlock, 0, stream>>>(entry_table, count, items, seed);
  }
  PFMC_CUDA_TRY(cudaGetLastError());
}

template void generate_philox_draws<float>(const std::vector<DrawRequest<float>>&, std::uint64_t,
                                           bool, void*, cudaStream_t);
template void generate_philox_draws<double>(const std::vector<DrawRequest<double>>&, std::uint64_t,
                                            bool, void*, cudaStream_t);

} // namespace pfmc::kernels
