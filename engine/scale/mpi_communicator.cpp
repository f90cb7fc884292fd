#include "engine/scale/mpi_communicator.hpp"

#include <cstdlib>
#include <deque>
#include <string>

#include "base/error.hpp"

#ifdef PFMC_MPI
#include <mpi.h>
#endif

namespace pfmc::engine {

namespace {

/// Set by Open MPI's mpirun, MPICH/Hydra's mpiexec (PMI) and Slurm's srun (PMIx or PMI).
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"}) {
    if (std::getenv(name) != nullptr)
      return true;
  }
  return false;
}

} // namespace

#ifdef PFMC_MPI

namespace {

void mpi_try(int status, const char* call) {
  if (status != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(status, text, &length);
    throw RuntimeError(std::string(call) + " failed: " + text);
  }
}

class MpiCommunicator final : public Communicator {
public:
  MpiCommunicator() {
    // Every MPI call of pfmc is made by the thread that made the communicator (the workers'
    // threads never call MPI: engine/scale/split_run.cpp relays their progress).
    int provided = 0;
    mpi_try(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mpi_try(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    mpi_try(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    // The ranks of this host (for the turns on its GPUs).
    mpi_try(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host_),
            "MPI_Comm_split_type");
    MPI_Comm_set_errhandler(host_, MPI_ERRORS_RETURN);
    mpi_try(MPI_Comm_rank(host_, &host_rank_), "MPI_Comm_rank");
    // Progress messages on a communicator of their own: never mixed with the exchange's.
    mpi_try(MPI_Comm_dup(MPI_COMM_WORLD, &progress_), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(progress_, MPI_ERRORS_RETURN);
  }
  ~MpiCommunicator() override {
    for (Send& send : sends_) { // sent without waiting; done in the background
      if (send.request != MPI_REQUEST_NULL)
        MPI_Request_free(&send.request);
    }
    MPI_Comm_free(&progress_);
    MPI_Comm_free(&host_);
    MPI_Finalize();
  }

  void post_progress(std::uint64_t paths_done) override {
    if (rank_ == 0)
      return;
    // Sent without waiting: a slot per message kept until the send is done (a few a second).
    sends_.push_back({paths_done, MPI_REQUEST_NULL});
    Send& send = sends_.back();
    if (MPI_Isend(&send.paths_done, 1, MPI_UINT64_T, 0, kProgressTag, progress_, &send.request) !=
        MPI_SUCCESS)
      sends_.pop_back(); // progress is not worth failing a run over
    while (!sends_.empty()) {
      int done = 0;
      MPI_Test(&sends_.front().request, &done, MPI_STATUS_IGNORE);
      if (!done)
        break;
      sends_.pop_front();
    }
  }
  void read_progress(std::vector<std::uint64_t>& done_by_rank) override {
    if (rank_ != 0)
      return;
    done_by_rank.resize(static_cast<std::size_t>(size_), 0);
    for (;;) {
      int waiting = 0;
      MPI_Status status;
      if (MPI_Iprobe(MPI_ANY_SOURCE, kProgressTag, progress_, &waiting, &status) != MPI_SUCCESS ||
          !waiting)
        return;
      std::uint64_t done = 0;
      if (MPI_Recv(&done, 1, MPI_UINT64_T, status.MPI_SOURCE, kProgressTag, progress_,
                   MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return;
      done_by_rank[static_cast<std::size_t>(status.MPI_SOURCE)] = done;
    }
  }

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }

protected:
  std::vector<std::string> gather_messages(const std::string& message) override {
    const int length = static_cast<int>(message.size());
    std::vector<int> lengths(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    mpi_try(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD),
            "MPI_Gather");
    std::vector<int> offsets(lengths.size());
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    mpi_try(MPI_Gatherv(message.data(), length, MPI_CHAR, all.data(), lengths.data(),
                        offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
            "MPI_Gatherv");
    std::vector<std::string> out;
    for (std::size_t r = 0; r < lengths.size(); ++r)
      out.push_back(
          all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
    return out;
  }

  std::vector<DeviceMask> host_masks(DeviceMask mine) override {
    int ranks = 0;
    mpi_try(MPI_Comm_size(host_, &ranks), "MPI_Comm_size");
    std::vector<DeviceMask> masks(static_cast<std::size_t>(ranks));
    mpi_try(MPI_Allgather(&mine, 1, MPI_UINT64_T, masks.data(), 1, MPI_UINT64_T, host_),
            "MPI_Allgather");
    return masks;
  }
  [[nodiscard]] int host_rank() const override { return host_rank_; }
  void send_turn(int host_rank) override {
    mpi_try(MPI_Send(nullptr, 0, MPI_CHAR, host_rank, kTurnTag, host_), "MPI_Send");
  }
  void receive_turn(int host_rank) override {
    mpi_try(MPI_Recv(nullptr, 0, MPI_CHAR, host_rank, kTurnTag, host_, MPI_STATUS_IGNORE),
            "MPI_Recv");
  }

private:
  struct Send {
    std::uint64_t paths_done;
    MPI_Request request;
  };
  static constexpr int kTurnTag = 17;
  static constexpr int kProgressTag = 23;
  MPI_Comm progress_ = MPI_COMM_NULL;
  std::deque<Send> sends_; ///< progress sends not known done (a deque: slots do not move)
  int rank_ = 0;
  int size_ = 1;
  MPI_Comm host_ = MPI_COMM_NULL;
  int host_rank_ = 0;
};

} // namespace

bool mpi_built() {
  return true;
}

std::unique_ptr<Communicator> mpi_communicator() {
  if (!launched_by_mpi())
    return nullptr;
  auto comm = std::make_unique<MpiCommunicator>();
  if (comm->size() < 2)
    return nullptr; // one rank: a plain run (MPI_Finalize as it goes)
  return comm;
}

#else

bool mpi_built() {
  return false;
}

std::unique_ptr<Communicator> mpi_communicator() {
  // Without MPI every rank would price the whole run and print it: refuse rather than repeat.
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size == nullptr)
    size = std::getenv("PMI_SIZE");
  if (launched_by_mpi() && size != nullptr && std::atoi(size) > 1) {
    throw RuntimeError("this pfmc was built without MPI: under an MPI launcher each of the " +
                       std::string(size) +
                       " ranks would price the whole run; rebuild with -DPFMC_MPI=ON "
                       "(libopenmpi-dev), or run one process");
  }
  return nullptr;
}

#endif

} // namespace pfmc::engine
