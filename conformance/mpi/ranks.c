/* One MPI program for the MPI conformance cases and the MPI benchmark (conformance/mpi/README.md).
 * Every rank prints one line: its rank, the world size, its host, the sum of all ranks (MPI_Allreduce) and the
 * rank it received from in a point-to-point ring, so placement, collectives and point-to-point traffic are all
 * visible in one sortable line. With RANKS_TIMING=1 rank 0 also prints, on stderr, the wall-clock time at which
 * MPI_Init returned in the slowest rank (an MPI_Reduce of CLOCK_REALTIME), for the benchmark. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int rank, size, sum, from, next, prev;
    char host[256];
    double init_done, slowest;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 2;
    init_done = now();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "?");

    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    MPI_Sendrecv(&rank, 1, MPI_INT, next, 7, &from, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    printf("rank %d of %d on %s sum=%d ring_from=%d\n", rank, size, host, sum, from);
    fflush(stdout);

    MPI_Reduce(&init_done, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0 && getenv("RANKS_TIMING"))
        fprintf(stderr, "init_done_max=%.6f\n", slowest);

    MPI_Finalize();
    return 0;
}
