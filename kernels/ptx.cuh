#pragma once
// Thin wrappers over the PTX instructions the loaders use, one function per instruction form,
// so that each loader reads as what it does. Check the SASS (scripts/gpu-check.sh sass) for
// what they become: LDGSTS (cp.async), CCTL/prefetch, UBLKPF (bulk prefetch), UBLKCP (bulk
// copy), SYNCS (mbarrier).

#include <cstdint>

namespace pfmc::kernels::ptx {

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// --- loads and L2 prefetches ----------------------------------------------------------------

/// Read-only load of a draw that does not allocate in L1 (ld.global.nc.L1::no_allocate): each
/// draw is read once. Kept for bandwidth_bound (3.8% faster); latency_bound, where the draws were
/// thought to evict the path's local memory, did not gain (docs/decisions.md#draw-loads). Not
/// volatile: like __ldg, the compiler may schedule it (the draws do not change during a launch).
__device__ __forceinline__ float load(const float* p) {
  float v;
  asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ double load(const double* p) {
  double v;
  asm("ld.global.nc.L1::no_allocate.f64 %0, [%1];" : "=d"(v) : "l"(p));
  return v;
}

/// Read-only load asking L2 to fetch the whole 256-byte block around the line (.L2::256B).
__device__ __forceinline__ float load_l2_256b(const float* p) {
  float v;
  asm volatile("ld.global.nc.L2::256B.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ double load_l2_256b(const double* p) {
  double v;
  asm volatile("ld.global.nc.L2::256B.f64 %0, [%1];" : "=d"(v) : "l"(p));
  return v;
}

__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}
/// Prefetch into L2 with the evict-last priority (sm_80+).
__device__ __forceinline__ void prefetch_l2_evict_last(const void* p) {
  asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(p));
}

// --- cp.async (sm_80+) --------------------------------------------------------------------------

/// 16-byte global → shared copy bypassing L1 (cp.async.cg), L2 asked for 256-byte blocks.
__device__ __forceinline__ void cp_async_16(void* shared_dst, const void* global_src) {
  asm volatile(
      "cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(shared_address(shared_dst)),
      "l"(global_src)
      : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
/// Waits until at most N of this thread's committed groups are pending. Explicit PTX rather
/// than __pipeline_wait_prior, which clamps N to 8 (_CUDA_PIPELINE_MAX_STAGES) and would
/// silently shorten prefetch distances 12 and 16.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// --- bulk copies and mbarriers (sm_90) ----------------------------------------------------------

/// Asks L2 to fetch `bytes` (a multiple of 16, 16-byte aligned) from global memory.
__device__ __forceinline__ void bulk_prefetch_l2(const void* global_src, std::uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(global_src), "r"(bytes)
               : "memory");
#endif
}

__device__ __forceinline__ void mbarrier_init(std::uint64_t* barrier, std::uint32_t arrivals) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)),
               "r"(arrivals)
               : "memory");
#endif
}
/// Makes mbarrier initialisation visible to the async proxy (the bulk-copy engine).
__device__ __forceinline__ void fence_mbarrier_init() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
/// Arrives on the barrier and expects `bytes` of transactions before its phase completes.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* barrier,
                                                          std::uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)),
      "r"(bytes)
      : "memory");
#endif
}
/// Spins until the phase with the given parity has completed.
__device__ __forceinline__ void mbarrier_wait_parity(std::uint64_t* barrier, std::uint32_t parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n"
               ".reg .pred done;\n"
               "wait_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra wait_%=;\n"
               "}\n" ::"r"(shared_address(barrier)),
               "r"(parity)
               : "memory");
#endif
}
/// Bulk copy global → shared (the CTA's own shared memory), completing `bytes` of transactions
/// on the barrier.
__device__ __forceinline__ void bulk_copy_to_shared(void* shared_dst, const void* global_src,
                                                    std::uint32_t bytes, std::uint64_t* barrier) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
               "[%3];" ::"r"(shared_address(shared_dst)),
               "l"(global_src), "r"(bytes), "r"(shared_address(barrier))
               : "memory");
#endif
}

} // namespace pfmc::kernels::ptx
