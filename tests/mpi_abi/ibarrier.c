/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Ibarrier + MPI_Wait synchronizes: rank 1 sends rank 0 a message late (after a
 * sleep) and only then enters the barrier, so when rank 0's wait returns the message
 * has arrived (same pair, sent before rank 1's barrier message). It once completed at
 * once: the request wrapped was read before rmp_ibarrier wrote it (mpi/nbc.c). */
#include <unistd.h>

#include "check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    for (int round = 0; round < 3; round++) {
        int x = round, flag = 0;
        MPI_Request req = MPI_REQUEST_NULL;
        if (rank == 1) {
            usleep(200000);
            CHECK_OK(MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
        }
        CHECK_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
        CHECK(req != MPI_REQUEST_NULL, "no request");
        CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (rank == 0) {
            CHECK_OK(MPI_Iprobe(1, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            CHECK(flag, "round %d: the barrier completed before rank 1 entered it", round);
            CHECK_OK(MPI_Recv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(x == round, "wrong message");
        }
    }
    MPI_Finalize();
    if (rank == 0)
        printf("ibarrier: ok\n");
    return 0;
}
