#pragma once
// MPI (a build with -DPFMC_MPI=ON): the ranks of `mpirun -np N pfmc price ...` as the run's
// Communicator. MPI is initialised only when the process was started by an MPI launcher
// (mpirun, mpiexec, srun): a plain `pfmc` stays one process.

#include <memory>

#include "engine/scale/communicator.hpp"

namespace pfmc::engine {

/// True in a build with MPI.
bool mpi_built();

/// The job's communicator when this process was started by an MPI launcher with more than one
/// rank (MPI initialised here, finalised when the communicator goes); null otherwise, or in a
/// build without MPI.
std::unique_ptr<Communicator> mpi_communicator();

} // namespace pfmc::engine
