/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_ERRORS_ARE_FATAL (the default) or MPI_ERRORS_ABORT ends the whole job
 * when one rank errs: rank 1 passes an invalid rank to MPI_Group_incl while
 * the others wait in a collective. fatal.sh checks the exit status and the
 * message naming the function, the rank and the class. */
#include <string.h>

#include "check.h"

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    if (argc > 1 && strcmp(argv[1], "abort") == 0)
        CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ABORT));
    int rank;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_Comm dup;
    if (rank == 1) {
        MPI_Group g, ng;
        CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
        int bad = 7;
        MPI_Group_incl(g, 1, &bad, &ng);
        fprintf(stderr, "rank 1 survived an error under a fatal handler\n");
        return 0;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* never completes: rank 1 is gone */
    fprintf(stderr, "rank %d left the collective\n", rank);
    MPI_Finalize();
    return 0;
}
