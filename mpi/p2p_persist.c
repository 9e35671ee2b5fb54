/* SPDX-License-Identifier: BSD-3-Clause */
/* Persistent requests: Send_init (every mode), Recv_init, Start, Startall.
 * The request keeps its arguments; each Start posts one rmp operation into it. */
#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_p2p.h"

static int persist_init(const void *buf, MPI_Count count, MPI_Datatype dt, int rank, int tag,
                        MPI_Comm comm, MPI_Request *request, int recv, int mode, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_p2p_null_type(mpii_dtype(dt), dt, count);
    int rc = mpii_p2p_check(c, comm, buf, count, d, rank, tag, recv, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!request)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "request is NULL");
    mpii_req_t *r = mpii_req_new(c, MPII_REQ_DONE);
    if (!r)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    r->persistent = recv ? MPII_REQ_PRECV : MPII_REQ_PSEND;
    r->recv = (uint8_t)recv;
    r->mode = (uint8_t)mode;
    r->done = 1; /* inactive */
    mpii_status_empty(&r->status);
    r->buf = (void *)buf;
    r->count = count;
    r->dt = d;
    mpii_dtype_retain(d);
    r->peer = rank;
    r->tag = tag;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

MPII_TWINS(Send_init, persist_init(buf, count, datatype, dest, tag, comm, request, 0,
           MPII_MODE_STD, FN))

MPII_TWINS(Ssend_init, persist_init(buf, count, datatype, dest, tag, comm, request, 0,
           MPII_MODE_SYNC, FN))

MPII_TWINS(Rsend_init, persist_init(buf, count, datatype, dest, tag, comm, request, 0,
           MPII_MODE_READY, FN))

MPII_TWINS(Bsend_init, persist_init(buf, count, datatype, dest, tag, comm, request, 0,
           MPII_MODE_BUFFERED, FN))

MPII_TWINS(Recv_init, persist_init(buf, count, datatype, source, tag, comm, request, 1,
           MPII_MODE_STD, FN))

static int persist_start(MPI_Request h, const char *fn)
{
    mpii_req_t *r = mpii_req(h);
    if (!r || !r->persistent)
        return mpii_err_comm(NULL, MPI_ERR_REQUEST, fn, "not a persistent request: %p",
                             (void *)h);
    if (r->active)
        return mpii_err_comm(r->comm, MPI_ERR_REQUEST, fn, "the request is already active");
    if (r->persistent == MPII_REQ_PCOLL)
        return mpii_pcoll_start(r, fn);
    if (r->persistent == MPII_REQ_PART)
        return mpii_part_start(r, fn);
    int rc = r->recv ? mpii_irecv(r->buf, r->count, r->dt, r->peer, r->tag, r->comm, r, NULL)
                     : mpii_isend(r->buf, r->count, r->dt, r->peer, r->tag, r->comm, r->mode, r,
                                  NULL);
    if (rc != MPI_SUCCESS) {
        r->kind = MPII_REQ_DONE;
        r->done = 1;
        return mpii_err_comm(r->comm, rc, fn, "could not start the %s",
                             r->recv ? "receive" : "send");
    }
    r->active = 1;
    return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request *request)
{
    if (!request)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Start", "request is NULL");
    return persist_start(*request, "MPI_Start");
}
MPII_WEAK(Start)

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (count < 0 || (count > 0 && !array_of_requests))
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Startall", "invalid count %d or NULL array",
                             count);
    for (int i = 0; i < count; i++) {
        int rc = persist_start(array_of_requests[i], "MPI_Startall");
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
MPII_WEAK(Startall)

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "p2p_persist.twins.h"
