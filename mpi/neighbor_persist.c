/* SPDX-License-Identifier: BSD-3-Clause */
/* Persistent neighbourhood collectives (MPI_Neighbor_<coll>_init, int and MPI_Count
 * forms): the plan is made once, at init (MPI keeps the buffers and arrays unchanged
 * until the request is freed), and each MPI_Start runs it again. The persistent request
 * itself is coll_persist.c's, started through mpii_pcoll_custom. */
#include "mpii_dtype.h"
#include "mpii_nbr.h"
#include "mpii_p2p.h"

static int nbr_launch(void *ctx, MPI_Request *q)
{
    return mpii_nbr_run(ctx, q, 0, "MPI_Start");
}

static void nbr_plan_drop(void *ctx)
{
    mpii_nbr_plan_free(ctx);
}

int mpii_nbr_persist(nbr_plan_t *p, MPI_Request *req, const char *fn)
{
    return mpii_pcoll_custom(mpii_nbr_comm(p), nbr_launch, p, nbr_plan_drop, req, fn);
}

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_PERSISTENT, info, request,
                       "MPI_Neighbor_allgather_init");
}
MPII_WEAK(Neighbor_allgather_init)

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount,
                                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_PERSISTENT, info, request,
                       "MPI_Neighbor_allgather_init_c");
}
MPII_WEAK(Neighbor_allgather_init_c)

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .icnt = recvcounts, .idsp = displs, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_PERSISTENT, info, request,
                       "MPI_Neighbor_allgatherv_init");
}
MPII_WEAK(Neighbor_allgatherv_init)

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf,
                                    const MPI_Count recvcounts[], const MPI_Aint displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    nbr_args_t r = {.buf = recvbuf, .cnt = recvcounts, .dsp = displs, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_PERSISTENT, info, request,
                       "MPI_Neighbor_allgatherv_init_c");
}
MPII_WEAK(Neighbor_allgatherv_init_c)

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_PERSISTENT, info, request,
                       "MPI_Neighbor_alltoall_init");
}
MPII_WEAK(Neighbor_alltoall_init)

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount,
                                  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    nbr_args_t r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_PERSISTENT, info, request,
                       "MPI_Neighbor_alltoall_init_c");
}
MPII_WEAK(Neighbor_alltoall_init_c)

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                 const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .icnt = sendcounts, .idsp = sdispls, .type = sendtype,
                    .vec = 1};
    nbr_args_t r = {.buf = recvbuf, .icnt = recvcounts, .idsp = rdispls, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_PERSISTENT, info, request,
                       "MPI_Neighbor_alltoallv_init");
}
MPII_WEAK(Neighbor_alltoallv_init)

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .cnt = sendcounts, .dsp = sdispls, .type = sendtype,
                    .vec = 1};
    nbr_args_t r = {.buf = recvbuf, .cnt = recvcounts, .dsp = rdispls, .type = recvtype,
                    .vec = 1};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_PERSISTENT, info, request,
                       "MPI_Neighbor_alltoallv_init_c");
}
MPII_WEAK(Neighbor_alltoallv_init_c)

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .icnt = sendcounts, .dsp = sdispls, .types = sendtypes,
                    .bytes_disp = 1, .vec = 2};
    nbr_args_t r = {.buf = recvbuf, .icnt = recvcounts, .dsp = rdispls, .types = recvtypes,
                    .bytes_disp = 1, .vec = 2};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_PERSISTENT, info, request,
                       "MPI_Neighbor_alltoallw_init");
}
MPII_WEAK(Neighbor_alltoallw_init)

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    nbr_args_t s = {.buf = sendbuf, .cnt = sendcounts, .dsp = sdispls, .types = sendtypes,
                    .bytes_disp = 1, .vec = 2};
    nbr_args_t r = {.buf = recvbuf, .cnt = recvcounts, .dsp = rdispls, .types = recvtypes,
                    .bytes_disp = 1, .vec = 2};
    return mpii_nbr_go(comm, &s, &r, MPII_NBR_PERSISTENT, info, request,
                       "MPI_Neighbor_alltoallw_init_c");
}
MPII_WEAK(Neighbor_alltoallw_init_c)
