# shellcheck shell=bash
# Sourced by the MPI conformance cases (570-589) after lib.sh: builds the test programs once (build.sh caches
# them) and sets MPI_DIR to the directory holding ranks.openmpi, abort.openmpi, ranks.mpich and abort.mpich.
# Open MPI refuses to run as root unless told twice; the cases run as root on both targets, and sbatch passes the
# submitting environment on to the job, so exporting these here reaches mpirun and the direct-launched ranks.
MPI_DIR=$("$CASE_DIR/../../mpi/build.sh") || { echo "conformance/mpi/build.sh failed" >&2; exit 1; }
export MPI_DIR OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
