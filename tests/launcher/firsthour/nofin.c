/* SPDX-License-Identifier: BSD-3-Clause */
/* Rank 1 returns from main without MPI_Finalize while rank 0 waits in a barrier:
 * the launcher must name rank 1, not rank 0's reaction to its absence. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        return 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
