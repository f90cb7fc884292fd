#pragma once
// Test hook for the GPU fault cases (issue 14): PFMC_INJECT_FAULT=alloc:N makes the Nth device
// allocation of the process ask the CUDA runtime for more memory than any card has, and
// launch:N makes the Nth path-kernel launch ask for more shared memory than any block may have.
// The runtime then reports a real cudaErrorMemoryAllocation / launch error, which travels the
// same path to the user as one on a full or misconfigured GPU. Several cases: "alloc:3,launch:1".
// Unset (the normal case), a check reads one number parsed at the first call.

namespace pfmc {

enum class Fault { allocation, launch };

/// True when this call is the one the environment asked to fail (counted per kind, from 1).
/// Thread-safe; an unreadable PFMC_INJECT_FAULT is ignored with one line on stderr.
bool inject_fault(Fault kind);

} // namespace pfmc
