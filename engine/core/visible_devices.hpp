#pragma once
// Which GPUs this process's CUDA sees. The driver starts every visible GPU at the process's first
// CUDA call: on a host of 4 H200s a fresh `pfmc price` on one of them took 1.30 s with all four
// visible and 0.51 s with one (docs/decisions.md#visible-devices). The command line therefore
// narrows what CUDA sees to what the run needs before its first CUDA call (CUDA_VISIBLE_DEVICES):
// the first N GPUs for a run on devices 0..N-1 (ordinals unchanged), or, for an MPI rank on its
// host's GPU by local rank, that GPU alone (then CUDA's device 0, which physical_ordinal() maps
// back). A user's CUDA_VISIBLE_DEVICES is narrowed, never widened; PFMC_NARROW_DEVICES=0 turns
// this off.

namespace pfmc::engine {

/// This process's rank among the MPI ranks of its host, as the launchers set it (0 if none).
int local_rank();

/// How many GPUs CUDA would show this process, known without starting CUDA: the entries of
/// CUDA_VISIBLE_DEVICES, else the NVIDIA driver's /proc/driver/nvidia/gpus; -1 if neither says.
int gpus_without_cuda();

/// Before any CUDA call: CUDA shows only the first `count` GPUs it would show. False (nothing
/// changed) when turned off or count < 1.
bool narrow_visible_devices(int count);

/// Before any CUDA call: CUDA shows only GPU `ordinal` (as it would have numbered it), as its
/// device 0. False when turned off or ordinal < 0.
bool narrow_to_device(int ordinal);

/// The ordinal a user would call CUDA's device `cuda_ordinal` (itself unless narrow_to_device
/// moved it).
int physical_ordinal(int cuda_ordinal);

/// narrow_to_device did not take (CUDA had started before it): physical_ordinal is the identity.
void forget_narrowing();

} // namespace pfmc::engine
