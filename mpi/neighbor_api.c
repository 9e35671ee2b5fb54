/* SPDX-License-Identifier: BSD-3-Clause */
/* The blocking and nonblocking neighbourhood collectives, int and MPI_Count forms: each
 * describes its two sides for the plan (neighbor.c). */
#include "mpii_dtype.h"
#include "mpii_nbr.h"

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL,
                       "MPI_Neighbor_allgather");
}
MPII_WEAK(Neighbor_allgather)

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL,
                       "MPI_Neighbor_allgather_c");
}
MPII_WEAK(Neighbor_allgather_c)

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .icnt = recvcounts, .idsp = displs, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL,
                       "MPI_Neighbor_allgatherv");
}
MPII_WEAK(Neighbor_allgatherv)

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .cnt = recvcounts, .dsp = displs, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL,
                       "MPI_Neighbor_allgatherv_c");
}
MPII_WEAK(Neighbor_allgatherv_c)

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL,
                       "MPI_Neighbor_alltoall");
}
MPII_WEAK(Neighbor_alltoall)

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL,
                       "MPI_Neighbor_alltoall_c");
}
MPII_WEAK(Neighbor_alltoall_c)

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_args_t s = {.buf = sendbuf, .icnt = sendcounts, .idsp = sdispls, .type = sendtype,
                    .vec = 1};
    nbr_args_t r = {.buf = recvbuf, .icnt = recvcounts, .idsp = rdispls, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL,
                       "MPI_Neighbor_alltoallv");
}
MPII_WEAK(Neighbor_alltoallv)

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    nbr_args_t s = {.buf = sendbuf, .cnt = sendcounts, .dsp = sdispls, .type = sendtype,
                    .vec = 1};
    nbr_args_t r = {.buf = recvbuf, .cnt = recvcounts, .dsp = rdispls, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL,
                       "MPI_Neighbor_alltoallv_c");
}
MPII_WEAK(Neighbor_alltoallv_c)

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    nbr_args_t s = {.buf = sendbuf, .icnt = sendcounts, .dsp = sdispls, .types = sendtypes,
                    .bytes_disp = 1, .vec = 2};
    nbr_args_t r = {.buf = recvbuf, .icnt = recvcounts, .dsp = rdispls, .types = recvtypes,
                    .bytes_disp = 1, .vec = 2};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL,
                       "MPI_Neighbor_alltoallw");
}
MPII_WEAK(Neighbor_alltoallw)

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                              MPI_Comm comm)
{
    nbr_args_t s = {.buf = sendbuf, .cnt = sendcounts, .dsp = sdispls, .types = sendtypes,
                    .bytes_disp = 1, .vec = 2};
    nbr_args_t r = {.buf = recvbuf, .cnt = recvcounts, .dsp = rdispls, .types = recvtypes,
                    .bytes_disp = 1, .vec = 2};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_BLOCKING, MPI_INFO_NULL, NULL,
                       "MPI_Neighbor_alltoallw_c");
}
MPII_WEAK(Neighbor_alltoallw_c)

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request,
                       "MPI_Ineighbor_allgather");
}
MPII_WEAK(Ineighbor_allgather)

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request,
                       "MPI_Ineighbor_allgather_c");
}
MPII_WEAK(Ineighbor_allgather_c)

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .icnt = recvcounts, .idsp = displs, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request,
                       "MPI_Ineighbor_allgatherv");
}
MPII_WEAK(Ineighbor_allgatherv)

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .cnt = recvcounts, .dsp = displs, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request,
                       "MPI_Ineighbor_allgatherv_c");
}
MPII_WEAK(Ineighbor_allgatherv_c)

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request,
                       "MPI_Ineighbor_alltoall");
}
MPII_WEAK(Ineighbor_alltoall)

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request,
                       "MPI_Ineighbor_alltoall_c");
}
MPII_WEAK(Ineighbor_alltoall_c)

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .icnt = sendcounts, .idsp = sdispls, .type = sendtype,
                    .vec = 1};
    nbr_args_t r = {.buf = recvbuf, .icnt = recvcounts, .idsp = rdispls, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request,
                       "MPI_Ineighbor_alltoallv");
}
MPII_WEAK(Ineighbor_alltoallv)

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .cnt = sendcounts, .dsp = sdispls, .type = sendtype,
                    .vec = 1};
    nbr_args_t r = {.buf = recvbuf, .cnt = recvcounts, .dsp = rdispls, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request,
                       "MPI_Ineighbor_alltoallv_c");
}
MPII_WEAK(Ineighbor_alltoallv_c)

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .icnt = sendcounts, .dsp = sdispls, .types = sendtypes,
                    .bytes_disp = 1, .vec = 2};
    nbr_args_t r = {.buf = recvbuf, .icnt = recvcounts, .dsp = rdispls, .types = recvtypes,
                    .bytes_disp = 1, .vec = 2};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request,
                       "MPI_Ineighbor_alltoallw");
}
MPII_WEAK(Ineighbor_alltoallw)

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .cnt = sendcounts, .dsp = sdispls, .types = sendtypes,
                    .bytes_disp = 1, .vec = 2};
    nbr_args_t r = {.buf = recvbuf, .cnt = recvcounts, .dsp = rdispls, .types = recvtypes,
                    .bytes_disp = 1, .vec = 2};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_NONBLOCKING, MPI_INFO_NULL, request,
                       "MPI_Ineighbor_alltoallw_c");
}
MPII_WEAK(Ineighbor_alltoallw_c)
