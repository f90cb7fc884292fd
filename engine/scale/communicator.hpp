#pragma once
// The processes of a run: an MPI job's ranks (engine/scale/mpi_communicator.hpp, in a build with
// PFMC_MPI) or this process alone. A split run exchanges once: every rank sends its message
// (its groups' partial sums, or the error that stopped it) and rank 0 receives all of them in
// rank order. A rank that fails before its run reaches the exchange still takes part in it
// (apps/pfmc.cpp sends its error), so no rank waits for ever on another.

#include <string>
#include <vector>

namespace pfmc::engine {

class Communicator {
public:
  Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  virtual ~Communicator() = default;

  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// The exchange: every rank calls it once with its message; rank 0 gets every rank's, in rank
  /// order (its own first), the others get none.
  std::vector<std::string> gather(const std::string& message) {
    exchanged_ = true;
    return gather_messages(message);
  }
  /// Whether this rank has taken part in the exchange.
  [[nodiscard]] bool exchanged() const { return exchanged_; }

protected:
  virtual std::vector<std::string> gather_messages(const std::string& message) = 0;

private:
  bool exchanged_ = false;
};

/// The messages' first byte: what follows.
inline constexpr char kMessageOutcomes = 'o'; ///< a rank's partial sums (engine/scale/split_run)
inline constexpr char kMessageError = 'e';    ///< the one-line error that stopped the rank

} // namespace pfmc::engine
