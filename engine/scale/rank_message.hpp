#pragma once
// What a rank of an MPI job sends rank 0 (engine/scale/split_run.hpp): its workers, its plan
// statistics and its groups' merged outcomes, as the values' bytes are in memory (the ranks of a
// job run the same build on the same kind of host).

#include <cstddef>
#include <string>
#include <vector>

#include "engine/core/execution.hpp"
#include "engine/core/pricing_types.hpp"

namespace pfmc::engine {

/// The message of a rank's workers, statistics and outcomes (communicator.hpp's
/// kMessageOutcomes).
std::string outcomes_message(const std::vector<GroupOutcome>& outcomes,
                             const std::vector<WorkerInfo>& workers, const PlanStats& stats);

/// Reads such a message, appending its workers and outcomes; RuntimeError when it is truncated or
/// has another number of groups than `groups`.
void read_outcomes_message(const std::string& message, std::size_t groups,
                           std::vector<GroupOutcome>& outcomes, std::vector<WorkerInfo>& workers,
                           PlanStats& stats);

} // namespace pfmc::engine
