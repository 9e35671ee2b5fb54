/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI twin of rmp_path_cost.c, for callgrind (benchmarks/cost/run --api mpi): the
 * same pattern through rmp's libmpi_abi, so that the difference between the two is
 * what the MPI layer costs per message. Rank 1 posts N receives (MPI_Irecv), rank 0
 * sends N messages of S bytes of MPI_CHAR (MPI_Send, or with -i MPI_Isend and one
 * MPI_Waitall) while rank 1 sleeps, then rank 1 completes them all (MPI_Waitall).
 * Usage:
 *   mpi_path_cost [-n N] [-s BYTES] [-i] */
#include <mpi.h>
#include <valgrind/callgrind.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CK(c)                                                                              \
    do {                                                                                   \
        if ((c) != MPI_SUCCESS) {                                                          \
            fprintf(stderr, "%s failed\n", #c);                                           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                  \
        }                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    int n = 64, bytes = 8, isend = 0, opt, rank, size;
    CK(MPI_Init(&argc, &argv));
    while ((opt = getopt(argc, argv, "n:s:i")) != -1) {
        if (opt == 'i')
            isend = 1;
        else if (opt == 'n')
            n = atoi(optarg);
        else if (opt == 's')
            bytes = atoi(optarg);
        else {
            fprintf(stderr, "usage: mpi_path_cost [-n N] [-s BYTES] [-i]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Comm w = MPI_COMM_WORLD;
    CK(MPI_Comm_rank(w, &rank));
    CK(MPI_Comm_size(w, &size));
    char *buf = calloc(1, (size_t)bytes + 1);
    MPI_Request *reqs = calloc((size_t)n, sizeof(*reqs));
    if (!buf || !reqs || size != 2 || n < 1 || bytes < 0) {
        fprintf(stderr, "mpi_path_cost: 2 ranks, N >= 1\n");
        MPI_Abort(w, 2);
    }
    int peer = 1 - rank, tag = n + 1; /* connect the pair outside the measured calls */
    CK(MPI_Sendrecv(buf, bytes, MPI_CHAR, peer, tag, buf, bytes, MPI_CHAR, peer, tag, w,
                    MPI_STATUS_IGNORE));
    /* Twice, as rmp_path_cost.c: the counters are zeroed before the second round. */
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            CALLGRIND_ZERO_STATS;
        if (rank == 1)
            for (int i = 0; i < n; i++)
                CK(MPI_Irecv(buf, bytes, MPI_CHAR, 0, i, w, &reqs[i]));
        CK(MPI_Barrier(w));
        if (rank == 0 && isend) {
            for (int i = 0; i < n; i++)
                CK(MPI_Isend(buf, bytes, MPI_CHAR, 1, i, w, &reqs[i]));
            CK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
        } else if (rank == 0) {
            for (int i = 0; i < n; i++)
                CK(MPI_Send(buf, bytes, MPI_CHAR, 1, i, w));
        } else {
            usleep(200000); /* every message is in the receiver's queue by now */
            CK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
        }
        CK(MPI_Barrier(w));
    }
    CK(MPI_Barrier(w));
    free(reqs);
    free(buf);
    CK(MPI_Finalize());
    return 0;
}
