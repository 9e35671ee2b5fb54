/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_mt_rate: the multi-threaded message rate (benchmarks/mt/mt_rate.h) on any MPI with
 * MPI_THREAD_MULTIPLE (Open MPI, MPICH, rmp's MPI layer): mpicc mpi_mt_rate.c. */
#include <mpi.h>

#define MT_NAME "mpi_mt_rate"
#define MT_REQ MPI_Request
#define MT_ISEND(b, n, to, tag, r) MPI_Isend(b, n, MPI_BYTE, to, tag, MPI_COMM_WORLD, r)
#define MT_IRECV(b, n, from, tag, r) MPI_Irecv(b, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, r)
#define MT_WAITALL(n, r) MPI_Waitall(n, r, MPI_STATUSES_IGNORE)
#define MT_SEND(b, n, to, tag) MPI_Send(b, n, MPI_BYTE, to, tag, MPI_COMM_WORLD)
#define MT_RECV(b, n, from, tag)                                                           \
    MPI_Recv(b, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
#define MT_BARRIER() MPI_Barrier(MPI_COMM_WORLD)
#include "mt_rate.h"

int main(int argc, char **argv)
{
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "mpi_mt_rate: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    mt_main(argc, argv);
    MPI_Finalize();
    return 0;
}
