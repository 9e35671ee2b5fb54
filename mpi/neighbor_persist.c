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

MPII_TWINS(Neighbor_allgather_init, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .count = sendcount, .type = sendtype, .same = 1}, &(nbr_args_t){.buf = recvbuf,
           .count = recvcount, .type = recvtype}, MPII_NBR_PERSISTENT, info, request, FN))

MPII_TWINS(Neighbor_allgatherv_init, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .count = sendcount, .type = sendtype, .same = 1}, &(nbr_args_t){.buf = recvbuf,
           .TWIN(icnt, cnt) = recvcounts, .TWIN(idsp, dsp) = displs, .type = recvtype, .vec = 1},
           MPII_NBR_PERSISTENT, info, request, FN))

MPII_TWINS(Neighbor_alltoall_init, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .count = sendcount, .type = sendtype}, &(nbr_args_t){.buf = recvbuf,
           .count = recvcount, .type = recvtype}, MPII_NBR_PERSISTENT, info, request, FN))

MPII_TWINS(Neighbor_alltoallv_init, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .TWIN(icnt, cnt) = sendcounts, .TWIN(idsp, dsp) = sdispls, .type = sendtype, .vec = 1},
           &(nbr_args_t){.buf = recvbuf, .TWIN(icnt, cnt) = recvcounts,
           .TWIN(idsp, dsp) = rdispls, .type = recvtype, .vec = 1}, MPII_NBR_PERSISTENT, info,
           request, FN))

MPII_TWINS(Neighbor_alltoallw_init, mpii_nbr_go(comm, &(nbr_args_t){.buf = sendbuf,
           .TWIN(icnt, cnt) = sendcounts, .dsp = sdispls, .types = sendtypes, .bytes_disp = 1,
           .vec = 2}, &(nbr_args_t){.buf = recvbuf, .TWIN(icnt, cnt) = recvcounts, .dsp = rdispls,
           .types = recvtypes, .bytes_disp = 1, .vec = 2}, MPII_NBR_PERSISTENT, info, request,
           FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "neighbor_persist.twins.h"
