/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Isendrecv and MPI_Isendrecv_replace (and _c): a receive and a send started at once,
 * one request that completes when both have, with the receive's status. The replace form
 * packs the outgoing data first (the receive lands in the same buffer) and frees the copy
 * with the request. */
#include <stdlib.h>

#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_p2p.h"

typedef struct isr {
    mpii_req_t *rr, *sr;
    void *tmp; /* replace: the packed outgoing data */
} isr_t;

static int isr_poll(mpii_req_t *r)
{
    isr_t *x = r->ctx;
    if (!mpii_req_test(x->sr) || !mpii_req_test(x->rr))
        return 0;
    r->status = x->rr->status;
    r->err = x->rr->err != MPI_SUCCESS ? x->rr->err : x->sr->err;
    r->status.MPI_ERROR = r->err;
    return 1;
}

static void isr_release(mpii_req_t *r)
{
    isr_t *x = r->ctx;
    if (!x)
        return;
    if (x->sr) {
        mpii_req_wait(x->sr); /* freed before completion: finish it first */
        mpii_req_free(x->sr);
    }
    if (x->rr) {
        mpii_req_wait(x->rr);
        mpii_req_free(x->rr);
    }
    free(x->tmp);
    free(x);
    r->ctx = NULL;
}

static int isr_start(mpii_comm_t *c, const void *sbuf, MPI_Count scount, mpii_dtype_t *sd,
                     int dest, int stag, void *rbuf, MPI_Count rcount, mpii_dtype_t *rd,
                     int source, int rtag, void *tmp, MPI_Request *request, const char *fn)
{
    isr_t *x = calloc(1, sizeof(*x));
    mpii_req_t *r = x ? mpii_req_new_poll(c, isr_poll, isr_release, x) : NULL;
    if (!r) {
        free(x);
        free(tmp);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    x->tmp = tmp;
    int rc = mpii_irecv(rbuf, rcount, rd, source, rtag, c, NULL, &x->rr);
    if (rc != MPI_SUCCESS) {
        x->rr = NULL;
        mpii_req_free(r);
        return mpii_err_comm(c, rc, fn, "could not post the receive");
    }
    rc = mpii_isend(sbuf, scount, sd, dest, stag, c, MPII_MODE_STD, NULL, &x->sr);
    if (rc != MPI_SUCCESS) {
        x->sr = NULL;
        mpii_req_free(r); /* waits for the receive: a peer's send completes it */
        return mpii_err_comm(c, rc, fn, "could not start the send");
    }
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

static int isendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest,
                     int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source,
                     int rtag, MPI_Comm comm, MPI_Request *request, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *sd = mpii_dtype(stype), *rd = mpii_dtype(rtype);
    int rc = mpii_p2p_check(c, comm, sbuf, scount, sd, dest, stag, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = mpii_p2p_check(c, comm, rbuf, rcount, rd, source, rtag, 1, fn);
    if (rc == MPI_SUCCESS && !request)
        rc = mpii_err_comm(c, MPI_ERR_ARG, fn, "request is NULL");
    if (rc != MPI_SUCCESS)
        return rc;
    return isr_start(c, sbuf, scount, sd, dest, stag, rbuf, rcount, rd, source, rtag, NULL,
                     request, fn);
}

static int isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
                             int source, int rtag, MPI_Comm comm, MPI_Request *request,
                             const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    int rc = mpii_p2p_check(c, comm, buf, count, d, dest, stag, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = mpii_p2p_check(c, comm, buf, count, d, source, rtag, 1, fn);
    if (rc == MPI_SUCCESS && !request)
        rc = mpii_err_comm(c, MPI_ERR_ARG, fn, "request is NULL");
    if (rc != MPI_SUCCESS)
        return rc;
    size_t bytes = (size_t)count * d->size;
    void *tmp = bytes ? malloc(bytes) : NULL;
    if (bytes && !tmp)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "no memory for %zu bytes", bytes);
    mpii_dtype_pack(d, buf, count, 0, tmp, bytes);
    return isr_start(c, tmp, (MPI_Count)bytes, mpii_dtype(MPI_BYTE), dest, stag, buf, count, d,
                     source, rtag, tmp, request, fn);
}

MPII_TWINS(Isendrecv, isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
           recvtype, source, recvtag, comm, request, FN))

MPII_TWINS(Isendrecv_replace, isendrecv_replace(buf, count, datatype, dest, sendtag, source,
           recvtag, comm, request, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "p2p_isendrecv.twins.h"
