/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI layer's request object (mpii_req_t, mpii_p2p.h): its pool, creation,
 * release, completion from the rmp request it wraps or its poll function, and the
 * requests the user freed while they ran (reaped by the waits). */
#include <stdlib.h>

#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"
#include "mpii_p2p.h"

mpii_pool_t mpii_req_pool = MPII_POOL_INIT(mpii_req_t);
mpii_req_t *mpii_req_orphans; /* freed by the user while running: reaped by the waits */

mpii_req_t *mpii_req_new(mpii_comm_t *c, int kind)
{
    mpii_req_t *r = mpii_obj_new(&mpii_req_pool, MPII_MAGIC_REQ);
    if (!r)
        return NULL;
    r->kind = (uint8_t)kind;
    r->comm = c;
    return r;
}

mpii_req_t *mpii_req_new_rmp(mpii_comm_t *c, rmp_request_t rr, int (*fin)(mpii_req_t *r))
{
    mpii_req_t *r = mpii_req_new(c, MPII_REQ_RMP);
    if (r) {
        r->rr = rr;
        r->fin = fin;
    }
    return r;
}

mpii_req_t *mpii_req_new_poll(mpii_comm_t *c, int (*poll)(mpii_req_t *r),
                              void (*release)(mpii_req_t *r), void *ctx)
{
    mpii_req_t *r = mpii_req_new(c, MPII_REQ_POLL);
    if (r) {
        r->poll = poll;
        r->release = release;
        r->ctx = ctx;
        mpii_status_empty(&r->status);
    }
    return r;
}

void mpii_req_free(mpii_req_t *r)
{
    if (r->release)
        r->release(r);
    if (r->kind == MPII_REQ_GREQ && r->free_fn)
        r->free_fn(r->extra_state);
    free(r->tmp);
    if (r->dt)
        mpii_dtype_release(r->dt);
    mpii_obj_free(&mpii_req_pool, r);
}

void mpii_req_take_rmp_status(mpii_req_t *r, const rmp_status_t *st, int rc)
{
    mpii_status_set(&r->status, mpii_inter_source(r->comm, st->source), st->tag, MPI_SUCCESS,
                    (MPI_Count)st->bytes);
    r->err = rc == RMP_SUCCESS ? MPI_SUCCESS : mpii_err_from_rmp(rc);
    r->status.MPI_ERROR = r->err;
    if (MPII_UNLIKELY(rc == RMP_ERR_CANCELLED)) { /* a cancelled send (MPI_Cancel) */
        mpii_status_empty(&r->status);
        r->status.MPI_internal[2] = 1;
        r->cancelled = 1;
    }
    r->done = 1;
    /* A wait that gave up before completion (RMP_TIMEOUT): nobody waits for the rmp
     * request now; it stops using r's layout (rmp_request_free). */
    if (MPII_UNLIKELY(r->rr != RMP_REQUEST_NULL))
        rmp_request_free(&r->rr);
    r->rr = RMP_REQUEST_NULL;
    if (r->fin)
        r->fin(r);
}

int mpii_req_test(mpii_req_t *r)
{
    if (r->done)
        return 1;
    switch (r->kind) {
    case MPII_REQ_RMP: {
        int flag = 0;
        rmp_status_t st = {MPI_ANY_SOURCE, MPI_ANY_TAG, 0, RMP_SUCCESS, RMP_COMM_NULL};
        int rc = rmp_test(&r->rr, &flag, &st);
        /* Held up by a failure (ULFM's PENDING): still pending, as before. */
        if (flag || (rc != RMP_SUCCESS && rc != RMP_ERR_PEER_FAILED_PENDING))
            mpii_req_take_rmp_status(r, &st, rc);
        break;
    }
    case MPII_REQ_POLL:
        if (r->poll(r))
            r->done = 1;
        break;
    case MPII_REQ_GREQ:
        break; /* done by MPI_Grequest_complete */
    default:
        r->done = 1;
    }
    return r->done;
}

int mpii_req_wait(mpii_req_t *r)
{
    if (r->done)
        return r->err;
    if (r->kind == MPII_REQ_RMP) {
        rmp_status_t st = {MPI_ANY_SOURCE, MPI_ANY_TAG, 0, RMP_SUCCESS, RMP_COMM_NULL};
        int rc;
        /* These requests (a strided receive, a collective's) keep waiting for their match
         * after a failure, until MPIX_Comm_failure_ack or the match (docs/reliability.md). */
        while ((rc = rmp_wait(&r->rr, &st)) == RMP_ERR_PEER_FAILED_PENDING)
            ;
        mpii_req_take_rmp_status(r, &st, rc);
        return r->err;
    }
    while (!mpii_req_test(r))
        rmp_progress();
    return r->err;
}

void mpii_req_reap(void)
{
    /* Take the whole list, test outside it, put back what is still running. */
    MPII_LOCK();
    mpii_req_t *list = mpii_req_orphans;
    __atomic_store_n(&mpii_req_orphans, NULL, __ATOMIC_RELAXED);
    MPII_UNLOCK();
    while (list) {
        mpii_req_t *r = list;
        list = r->next;
        if (mpii_req_test(r)) {
            mpii_req_free(r);
        } else {
            MPII_LOCK();
            r->next = mpii_req_orphans;
            __atomic_store_n(&mpii_req_orphans, r, __ATOMIC_RELAXED);
            MPII_UNLOCK();
        }
    }
}
