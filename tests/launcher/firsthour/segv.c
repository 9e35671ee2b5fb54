/* SPDX-License-Identifier: BSD-3-Clause */
/* Rank 1 writes through a NULL pointer: it must print its backtrace (unless
 * RMP_BACKTRACE=0) and die of SIGSEGV. */
#include <mpi.h>
#include <stdlib.h>

/* Not inlined and not static: the frame has a name in the backtrace. */
void __attribute__((noinline)) firsthour_crash(int *p);
void firsthour_crash(int *p)
{
    *p = 42;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) /* the pointer is NULL, but the compiler cannot know */
        firsthour_crash(getenv("RMP_TEST_NEVER_SET") ? (int *)malloc(sizeof(int)) : NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
