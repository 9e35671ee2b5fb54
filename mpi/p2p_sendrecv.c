/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Sendrecv and MPI_Sendrecv_replace (and _c): a receive and a send started at once,
 * waited for together; the receive's status goes out. The replace form packs the
 * outgoing data first, so the receive may land in the same buffer. */
#include <stdlib.h>

#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_p2p.h"

/* Wait for both; the receive's status goes out. Returns the error to report. */
static int p2p_wait_pair(mpii_comm_t *c, mpii_req_t *rr, mpii_req_t *sr, MPI_Status *status,
                         const char *fn)
{
    mpii_req_wait(sr);
    mpii_req_wait(rr);
    int serr = sr->err, rerr = rr->err;
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = rr->status.MPI_SOURCE;
        status->MPI_TAG = rr->status.MPI_TAG;
        mpii_status_set_bytes(status, mpii_status_bytes(&rr->status));
        status->MPI_internal[2] = 0;
    }
    mpii_req_free(sr);
    mpii_req_free(rr);
    if (rerr != MPI_SUCCESS)
        return mpii_err_comm(c, rerr, fn, "receive failed");
    if (serr != MPI_SUCCESS)
        return mpii_err_comm(c, serr, fn, "send failed");
    return MPI_SUCCESS;
}

static int p2p_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest,
                        int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int source,
                        int rtag, MPI_Comm comm, MPI_Status *status, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *sd = mpii_dtype(stype), *rd = mpii_dtype(rtype);
    int rc = mpii_p2p_check(c, comm, sbuf, scount, sd, dest, stag, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = mpii_p2p_check(c, comm, rbuf, rcount, rd, source, rtag, 1, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    mpii_req_t *rr, *sr;
    rc = mpii_irecv(rbuf, rcount, rd, source, rtag, c, NULL, &rr);
    if (rc != MPI_SUCCESS)
        return mpii_err_comm(c, rc, fn, "could not post the receive");
    rc = mpii_isend(sbuf, scount, sd, dest, stag, c, MPII_MODE_STD, NULL, &sr);
    if (rc != MPI_SUCCESS) {
        mpii_req_wait(rr);
        mpii_req_free(rr);
        return mpii_err_comm(c, rc, fn, "could not start the send");
    }
    return p2p_wait_pair(c, rr, sr, status, fn);
}

MPII_TWINS(Sendrecv, p2p_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
           recvtype, source, recvtag, comm, status, FN))

/* The outgoing data is packed first, so the receive may land in the same buffer. */
static int p2p_sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
                                int source, int rtag, MPI_Comm comm, MPI_Status *status,
                                const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    int rc = mpii_p2p_check(c, comm, buf, count, d, dest, stag, 0, fn);
    if (rc == MPI_SUCCESS)
        rc = mpii_p2p_check(c, comm, buf, count, d, source, rtag, 1, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t bytes = (size_t)count * d->size;
    void *tmp = bytes ? malloc(bytes) : NULL;
    if (bytes && !tmp)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "no memory for %zu bytes", bytes);
    mpii_dtype_pack(d, buf, count, 0, tmp, bytes);
    mpii_req_t *rr, *sr;
    rc = mpii_irecv(buf, count, d, source, rtag, c, NULL, &rr);
    if (rc != MPI_SUCCESS) {
        free(tmp);
        return mpii_err_comm(c, rc, fn, "could not post the receive");
    }
    rc = mpii_isend(tmp, (MPI_Count)bytes, mpii_dtype(MPI_BYTE), dest, stag, c, MPII_MODE_STD,
                    NULL, &sr);
    if (rc != MPI_SUCCESS) {
        mpii_req_wait(rr);
        mpii_req_free(rr);
        free(tmp);
        return mpii_err_comm(c, rc, fn, "could not start the send");
    }
    rc = p2p_wait_pair(c, rr, sr, status, fn);
    free(tmp);
    return rc;
}

MPII_TWINS(Sendrecv_replace, p2p_sendrecv_replace(buf, count, datatype, dest, sendtag, source,
           recvtag, comm, status, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "p2p_sendrecv.twins.h"
