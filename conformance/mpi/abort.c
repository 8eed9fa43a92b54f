/* A rank that calls MPI_Abort: rank ABORT_RANK (default 1) aborts with error code ABORT_CODE (default 7) after
 * every rank has initialised; the others wait in a receive that never completes, so only the launcher's teardown
 * ends them. Used to compare exit codes and messages of the launchers (conformance/mpi/README.md). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, victim = 1, code = 7, dummy;
    const char *v = getenv("ABORT_RANK"), *c = getenv("ABORT_CODE");

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (v)
        victim = atoi(v);
    if (c)
        code = atoi(c);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim % size) {
        printf("rank %d aborting with %d\n", rank, code);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    MPI_Recv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
