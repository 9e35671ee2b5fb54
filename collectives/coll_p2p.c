/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point helpers on the collective context, and the argument checks every
 * collective shares. */
#include <stdint.h>
#include <stdlib.h>

#include "coll_check.h"
#include "coll_core.h"
#include "coll_op.h"
#include "coll_p2p.h"
#include "log.h"

int coll_req_finish(rmp_request_t req)
{
    rmp_status_t st;
    size_t expect;
    rmpi_req_take(req, &st, &expect);
    int rc = st.error;
    if (rc == RMP_SUCCESS && expect != SIZE_MAX && st.bytes != expect) {
        rmpi_error("collective: rank %d sent %zu bytes where %zu were expected (the ranks "
                   "passed different counts or datatypes)",
                   st.source, st.bytes, expect);
        rc = RMP_ERR_ARG;
    } else if (rc == RMP_ERR_TRUNCATE) {
        rmpi_error("collective: rank %d sent more than the %zu bytes expected (the ranks "
                   "passed different counts or datatypes)",
                   st.source, expect);
        rc = RMP_ERR_ARG;
    }
    return rc;
}

int coll_wait(rmp_request_t req)
{
    int rc = rmpi_req_wait(req);
    if (rc != RMP_SUCCESS) {
        /* Timed out: a receive not yet matched is withdrawn (its buffer may be
         * scratch that goes away), anything else is freed when it completes. */
        rmpi_req_abandon(req);
        return rc;
    }
    return coll_req_finish(req);
}

int coll_waitn(rmp_request_t *reqs, int n)
{
    int rc = RMP_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (rc == RMP_ERR_TIMEOUT) {
            /* RMP_TIMEOUT bounds the call, not each of its requests. */
            rmpi_req_abandon(reqs[i]);
            continue;
        }
        int r = coll_wait(reqs[i]);
        if (r != RMP_SUCCESS && rc == RMP_SUCCESS)
            rc = r;
    }
    return rc;
}

int coll_send(const void *buf, size_t bytes, int dst, int tag, rmp_comm_t comm)
{
    rmp_request_t req;
    int rc = rmpi_isend_cid(buf, bytes, dst, tag, comm, coll_cid(comm), &req);
    return rc != RMP_SUCCESS ? rc : coll_wait(req);
}

int coll_recv(void *buf, size_t bytes, int src, int tag, rmp_comm_t comm)
{
    rmp_request_t req;
    int rc = rmpi_irecv_cid(buf, bytes, src, tag, comm, coll_cid(comm), &req);
    return rc != RMP_SUCCESS ? rc : coll_wait(req);
}

int coll_sendrecv(const void *sbuf, size_t sbytes, int dst, void *rbuf, size_t rbytes,
                  int src, int tag, rmp_comm_t comm)
{
    rmp_request_t reqs[2];
    int n = 0, rc = RMP_SUCCESS;
    if (src >= 0 && rbytes > 0) {
        rc = rmpi_irecv_cid(rbuf, rbytes, src, tag, comm, coll_cid(comm), &reqs[n]);
        if (rc != RMP_SUCCESS)
            return rc;
        n++;
    }
    if (dst >= 0 && sbytes > 0) {
        rc = rmpi_isend_cid(sbuf, sbytes, dst, tag, comm, coll_cid(comm), &reqs[n]);
        if (rc == RMP_SUCCESS)
            n++;
    }
    int wrc = coll_waitn(reqs, n);
    return rc != RMP_SUCCESS ? rc : wrc;
}

int coll_exchange_all(const char *sbuf, size_t sstride, size_t sbytes, char *rbuf,
                      size_t rstride, size_t rbytes, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank, nreq = 0, rc = RMP_SUCCESS;
    rmp_request_t stack[32], *reqs = stack;
    if (2 * n > 32 && !(reqs = malloc(2 * (size_t)n * sizeof(*reqs))))
        return RMP_ERR_NOMEM;
    for (int k = 1; k < n && rbuf && rc == RMP_SUCCESS; k++) {
        int from = (rank - k + n) % n;
        rc = rmpi_irecv_cid(rbuf + (size_t)from * rstride, rbytes, from, tag, comm,
                            coll_cid(comm), &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    for (int k = 1; k < n && sbuf && rc == RMP_SUCCESS; k++) {
        int to = (rank + k) % n;
        rc = rmpi_isend_cid(sbuf + (size_t)to * sstride, sbytes, to, tag, comm, coll_cid(comm),
                            &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    int wrc = coll_waitn(reqs, nreq);
    if (reqs != stack)
        free(reqs);
    return rc != RMP_SUCCESS ? rc : wrc;
}

int coll_check_dt(rmp_datatype_t dt)
{
    if (RMPI_UNLIKELY(coll_dt_size(dt) == 0)) {
        rmpi_error("collective: unknown datatype %d", (int)dt);
        return RMP_ERR_ARG;
    }
    return RMP_SUCCESS;
}

int coll_check_dt_op_fail(rmp_datatype_t dt, rmp_op_t op)
{
    int rc = coll_check_dt(dt);
    if (rc != RMP_SUCCESS)
        return rc;
    rmpi_error("collective: op %d cannot reduce datatype %d (unknown op, or a bitwise op "
               "on a floating type)",
               (int)op, (int)dt);
    return RMP_ERR_ARG;
}

int coll_check_root(int root, rmp_comm_t comm)
{
    if (RMPI_UNLIKELY(root < 0 || root >= comm->size)) {
        rmpi_error("collective: root %d out of range (communicator of %d ranks)", root,
                   comm->size);
        return RMP_ERR_ARG;
    }
    return RMP_SUCCESS;
}

void coll_check_buf_fail(const void *buf, const char *what)
{
    if (buf == NULL)
        rmpi_error("collective: %s is NULL with a non-zero count", what);
    else
        rmpi_error("collective: RMP_IN_PLACE is not valid as %s here", what);
}

void coll_bytes_overflow(size_t count)
{
    rmpi_error("collective: count %zu overflows the address space", count);
}
