#pragma once
// The processes of a run: an MPI job's ranks (engine/scale/mpi_communicator.hpp, in a build with
// PFMC_MPI) or this process alone. A split run exchanges once: every rank sends its message
// (its groups' partial sums, or the error that stopped it) and rank 0 receives all of them in
// rank order. A rank that fails before its run reaches the exchange still takes part in it
// (apps/pfmc.cpp sends its error), so no rank waits for ever on another.
//
// Ranks of one host that run on the same GPU take turns on it, in rank order: two CUDA contexts
// on one GPU (no MPS) are time-sliced, and their kernels together took 12% longer than one
// process's (docs/decisions.md#mpi-turns). Before its GPU work a rank says which GPUs it uses (one
// exchange among the host's ranks), then waits for a token from every lower rank of the host
// that uses one of them; after its work, or at the exchange if it failed first, it sends a token
// to every higher one. Bits do not depend on the order; only the waiting does.

#include <cstdint>
#include <string>
#include <vector>

namespace pfmc::engine {

/// The GPUs a rank uses, as a bit set (bit d: ordinal d); 0: none (a CPU rank, or one that
/// failed before it knew).
using DeviceMask = std::uint64_t;
DeviceMask device_mask(const std::vector<int>& ordinals);

/// Whom a rank of a host waits for and whom it lets go, given every host rank's mask (by host
/// rank): the lower ranks whose masks meet its own, and the higher ones.
struct TurnPartners {
  std::vector<int> before;
  std::vector<int> after;
};
TurnPartners turn_partners(const std::vector<DeviceMask>& masks, int host_rank);

class Communicator {
public:
  Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  virtual ~Communicator() = default;

  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// The exchange: every rank calls it once with its message; rank 0 gets every rank's, in rank
  /// order (its own first), the others get none. A turn begun and not ended ends here; a rank
  /// that never began one joins the host's exchange of masks with none.
  std::vector<std::string> gather(const std::string& message);
  /// Whether this rank has taken part in the exchange.
  [[nodiscard]] bool exchanged() const { return exchanged_; }

  /// Before this rank's GPU work (once): the host's ranks exchange masks, then this rank waits
  /// for the lower ranks that share a GPU with it to end their turns.
  void begin_turn(DeviceMask devices);
  /// After this rank's GPU work: lets the higher ranks that share a GPU with it go (once).
  void end_turn();
  /// How long begin_turn waited.
  [[nodiscard]] double turn_wait_ms() const { return turn_wait_ms_; }

  /// Progress between ranks, from the thread that made the communicator: a rank other than 0
  /// posts its paths done (without waiting for anyone); rank 0 reads the latest of each rank
  /// that has posted (by rank; the others' entries are left as they are).
  virtual void post_progress(std::uint64_t /*paths_done*/) {}
  virtual void read_progress(std::vector<std::uint64_t>& /*done_by_rank*/) {}

protected:
  virtual std::vector<std::string> gather_messages(const std::string& message) = 0;
  /// Every rank of this host's mask, by host rank (collective over the host's ranks).
  virtual std::vector<DeviceMask> host_masks(DeviceMask mine) = 0;
  [[nodiscard]] virtual int host_rank() const = 0;
  virtual void send_turn(int host_rank) = 0;
  virtual void receive_turn(int host_rank) = 0;

private:
  bool exchanged_ = false;
  bool turn_begun_ = false;
  bool turn_ended_ = false;
  std::vector<int> turn_after_;
  double turn_wait_ms_ = 0.0;
};

/// The messages' first byte: what follows.
inline constexpr char kMessageOutcomes = 'o'; ///< a rank's partial sums (engine/scale/split_run)
inline constexpr char kMessageError = 'e';    ///< the one-line error that stopped the rank

} // namespace pfmc::engine
