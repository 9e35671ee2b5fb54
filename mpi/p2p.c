/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI point-to-point: blocking and nonblocking sends and receives in every
 * mode (Sendrecv: p2p_sendrecv.c). Contiguous data of any type goes straight to
 * rmp's byte calls (no request, no allocation for a blocking call); other
 * data is packed (docs/mpi.md, "Point-to-point"). */
#include <stdlib.h>

#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"
#include "mpii_p2p.h"

/* ---- checks and errors (the slow path) ---- */

int mpii_p2p_check(mpii_comm_t *c, MPI_Comm comm, const void *buf, MPI_Count count,
                   const mpii_dtype_t *d, int rank, int tag, int is_recv, const char *fn)
{
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator %p", (void *)comm);
    if (count < 0)
        return mpii_err_comm(c, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    if (!d)
        return mpii_err_comm(c, MPI_ERR_TYPE, fn, "invalid datatype");
    if (!d->committed)
        return mpii_err_comm(c, MPI_ERR_TYPE, fn, "datatype %s is not committed",
                             d->name[0] ? d->name : "(derived)");
    if (!(is_recv && tag == MPI_ANY_TAG) && (tag < 0 || tag > RMP_TAG_UB))
        return mpii_err_comm(c, MPI_ERR_TAG, fn, "invalid tag %d (0..%d%s)", tag, RMP_TAG_UB,
                             is_recv ? " or MPI_ANY_TAG" : "");
    if (rank != MPI_PROC_NULL && !(is_recv && rank == MPI_ANY_SOURCE) &&
        (rank < 0 || rank >= mpii_p2p_size(c)))
        return mpii_err_comm(c, MPI_ERR_RANK, fn, "invalid rank %d (%ssize %d)", rank,
                             c->inter ? "remote " : "", mpii_p2p_size(c));
    if (!buf && count > 0 && d->predefined && d->size > 0)
        return mpii_err_comm(c, MPI_ERR_BUFFER, fn, "NULL buffer for %lld elements",
                             (long long)count);
    return MPI_SUCCESS;
}

int mpii_p2p_err(mpii_comm_t *c, int rmp_rc, const char *fn)
{
    return mpii_err_comm(c, mpii_err_from_rmp(rmp_rc), fn, "%s", rmp_strerror(rmp_rc));
}

/* Is the fast path allowed? (Everything valid, a real peer, an intracomm: p2p_slow.) */
static inline int p2p_fast(const mpii_comm_t *c, const mpii_dtype_t *d, MPI_Count count, int rank,
                           int tag)
{
    return MPII_LIKELY(c && d && d->committed && count >= 0 && (unsigned)tag <= RMP_TAG_UB &&
                       ((unsigned)rank | c->p2p_slow) < (unsigned)c->size);
}

/* A source is 0..size-1 or MPI_ANY_SOURCE (-1): rank + 1 in 0..size. */
_Static_assert(MPI_ANY_SOURCE == -1, "p2p_fast_recv's source range");
static inline int p2p_fast_recv(const mpii_comm_t *c, const mpii_dtype_t *d, MPI_Count count,
                                int rank, int tag)
{
    return MPII_LIKELY(c && d && d->committed && count >= 0 &&
                       ((unsigned)tag <= RMP_TAG_UB || tag == MPI_ANY_TAG) &&
                       (((unsigned)rank + 1u) | c->p2p_slow) <= (unsigned)c->size);
}

/* The status of a receive on c (on an intercomm its source is a union rank). */
static void p2p_status_out_c(const mpii_comm_t *c, MPI_Status *status, const rmp_status_t *st)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = mpii_inter_source(c, st->source);
    status->MPI_TAG = st->tag;
    mpii_status_set_bytes(status, (MPI_Count)st->bytes);
    status->MPI_internal[2] = 0;
}

static void p2p_status_out(MPI_Status *status, const rmp_status_t *st)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = st->source;
    status->MPI_TAG = st->tag;
    mpii_status_set_bytes(status, (MPI_Count)st->bytes);
    status->MPI_internal[2] = 0;
}

static void p2p_status_null(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
    mpii_status_set_bytes(status, 0);
    status->MPI_internal[2] = 0;
}

/* ---- blocking ---- */

/* rmp refused or failed a send the checks let through: say why (a NULL buffer: the
 * argument; otherwise rmp's error). */
static __attribute__((noinline)) int p2p_send_failed(mpii_comm_t *c, MPI_Comm comm,
                                                     const void *buf, MPI_Count count,
                                                     const mpii_dtype_t *d, int dest, int tag,
                                                     int rc, const char *fn)
{
    if (rc == RMP_ERR_ARG) {
        int e = mpii_p2p_check(c, comm, buf, count, d, dest, tag, 0, fn);
        if (e != MPI_SUCCESS)
            return e;
    }
    return mpii_p2p_err(c, rc, fn);
}

/* Every case of a blocking send (the entry points try the common one first, inline). */
static __attribute__((noinline)) int p2p_send(const void *buf, MPI_Count count,
                                              MPI_Datatype dt, int dest, int tag,
                                              MPI_Comm comm, int mode, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    if (!p2p_fast(c, d, count, dest, tag)) {
        d = mpii_p2p_null_type(d, dt, count);
        int rc = mpii_p2p_check(c, comm, buf, count, d, dest, tag, 0, fn);
        if (rc != MPI_SUCCESS || dest == MPI_PROC_NULL)
            return rc;
    }
    if (mode == MPII_MODE_BUFFERED)
        return mpii_bsend(buf, count, d, dest, tag, c, fn, NULL);
    int rc, peer = MPII_UNLIKELY(c->inter != NULL) ? mpii_inter_peer(c, dest) : dest;
    size_t bytes = (size_t)count * d->size;
    if (MPII_LIKELY(d->contig && mode != MPII_MODE_SYNC)) {
        rc = rmp_send(mpii_buf_at(buf, d->true_lb), bytes, peer, tag, c->rc);
    } else if (d->contig) {
        rc = rmp_ssend(mpii_buf_at(buf, d->true_lb), bytes, peer, tag, c->rc);
    } else {
        mpii_req_t *r;
        rc = mpii_isend(buf, count, d, dest, tag, c, mode, NULL, &r);
        if (rc != MPI_SUCCESS)
            return mpii_err_comm(c, rc, fn, "could not start the send");
        mpii_req_wait(r);
        rc = r->err;
        mpii_req_free(r);
        return rc == MPI_SUCCESS ? rc : mpii_err_comm(c, rc, fn, "send failed");
    }
    if (MPII_LIKELY(rc == RMP_SUCCESS))
        return MPI_SUCCESS;
    return p2p_send_failed(c, comm, buf, count, d, dest, tag, rc, fn);
}

/* The common case, inlined into the entry points: valid arguments, a real peer,
 * contiguous data, standard or ready mode: one rmp_send. */
static inline __attribute__((always_inline)) int
p2p_send_entry(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
               MPI_Comm comm, int mode, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    if (MPII_LIKELY(p2p_fast(c, d, count, dest, tag) && d->contig &&
                    (mode == MPII_MODE_STD || mode == MPII_MODE_READY))) {
        int rc = rmp_send(mpii_buf_at(buf, d->true_lb), (size_t)count * d->size, dest, tag,
                          c->rc);
        if (MPII_LIKELY(rc == RMP_SUCCESS))
            return MPI_SUCCESS;
        return p2p_send_failed(c, comm, buf, count, d, dest, tag, rc, fn);
    }
    return p2p_send(buf, count, dt, dest, tag, comm, mode, fn);
}

MPII_TWINS(Send, p2p_send_entry(buf, count, datatype, dest, tag, comm, MPII_MODE_STD, FN))

/* Ready mode: the receive is posted (the user promises), so a standard send is correct. */
MPII_TWINS(Rsend, p2p_send_entry(buf, count, datatype, dest, tag, comm, MPII_MODE_READY, FN))

MPII_TWINS(Ssend, p2p_send(buf, count, datatype, dest, tag, comm, MPII_MODE_SYNC, FN))

MPII_TWINS(Bsend, p2p_send(buf, count, datatype, dest, tag, comm, MPII_MODE_BUFFERED, FN))

static __attribute__((noinline)) int p2p_recv_failed(mpii_comm_t *c, MPI_Comm comm,
                                                     void *buf, MPI_Count count,
                                                     const mpii_dtype_t *d, int source, int tag,
                                                     int rc, const rmp_status_t *st,
                                                     MPI_Status *status, const char *fn)
{
    if (rc == RMP_ERR_ARG) {
        int e = mpii_p2p_check(c, comm, buf, count, d, source, tag, 1, fn);
        if (e != MPI_SUCCESS)
            return e;
    }
    if (rc == RMP_ERR_TRUNCATE) {
        p2p_status_out_c(c, status, st);
        return mpii_err_comm(c, MPI_ERR_TRUNCATE, fn,
                             "message from rank %d (tag %d) longer than the %zu-byte buffer",
                             st->source, st->tag, (size_t)count * d->size);
    }
    return mpii_p2p_err(c, rc, fn);
}

/* A message that is not a whole number of the receive type's basic elements (3 bytes
 * into MPI_INTs) does not match its type signature. Checked for layout receives only:
 * a contiguous one stays as cheap as rmp_recv. */
static size_t p2p_recv_elem(const mpii_dtype_t *d)
{
    /* as MPI_Get_elements counts them (status.c) */
    return d->size && d->basic != MPII_B_NONE && d->dl->nbasic ? d->size / d->dl->nbasic : 0;
}

static int p2p_recv_partial(const mpii_dtype_t *d, size_t bytes)
{
    size_t es = p2p_recv_elem(d);
    return es > 1 && bytes % es != 0;
}

static int p2p_recv_partial_err(mpii_comm_t *c, const mpii_dtype_t *d, size_t bytes,
                                const char *fn)
{
    return mpii_err_comm(c, MPI_ERR_TYPE, fn,
                         "%zu bytes received: not a whole number of the receive type's "
                         "%zu-byte elements (type signatures differ)",
                         bytes, p2p_recv_elem(d));
}

/* fin of a layout receive request: the same check at completion. */
static int p2p_recv_fin(mpii_req_t *r)
{
    size_t bytes = (size_t)mpii_status_bytes(&r->status);
    if (r->err == MPI_SUCCESS && r->dt && p2p_recv_partial(r->dt, bytes)) {
        r->err = MPI_ERR_TYPE;
        r->status.MPI_ERROR = MPI_ERR_TYPE;
    }
    return MPI_SUCCESS;
}

/* A blocking receive from any source held up by a failure (ULFM): withdrawn and failed
 * with MPIX_ERR_PROC_FAILED, unless it matched meanwhile (then it completes). */
static int p2p_recv_withdraw(rmp_request_t *rr, rmp_status_t *st)
{
    int cancelled = 0;
    if (rmp_cancel(rr, &cancelled) == RMP_SUCCESS && cancelled)
        return RMP_ERR_PEER_FAILED;
    return rmp_wait(rr, st); /* matched: no longer held up by anyone */
}

static __attribute__((noinline)) int p2p_recv(void *buf, MPI_Count count, MPI_Datatype dt,
                                              int source, int tag, MPI_Comm comm,
                                              MPI_Status *status, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    if (!p2p_fast_recv(c, d, count, source, tag)) {
        d = mpii_p2p_null_type(d, dt, count);
        int rc = mpii_p2p_check(c, comm, buf, count, d, source, tag, 1, fn);
        if (rc != MPI_SUCCESS)
            return rc;
        if (source == MPI_PROC_NULL) {
            p2p_status_null(status);
            return MPI_SUCCESS;
        }
    }
    rmp_status_t st;
    int rc;
    size_t bytes = (size_t)count * d->size;
    if (MPII_UNLIKELY(c->inter != NULL))
        source = mpii_inter_peer(c, source);
    if (MPII_LIKELY(d->contig)) {
        rc = rmp_recv(mpii_buf_at(buf, d->true_lb), bytes, source, mpii_tag_to_rmp(tag), c->rc,
                      &st);
    } else {
        mpii_typed_t t;
        rmp_layout_t lay;
        rmp_request_t rr;
        mpii_layout_init(&lay, &t, d, buf, count);
        rc = rmp_irecv_layout(&lay, bytes, source, mpii_tag_to_rmp(tag), c->rc, &rr);
        if (rc == RMP_SUCCESS)
            rc = rmp_wait(&rr, &st);
        if (rc == RMP_ERR_PEER_FAILED_PENDING) /* as rmp_recv: withdrawn, a failure */
            rc = p2p_recv_withdraw(&rr, &st);
        if (rc == RMP_SUCCESS && p2p_recv_partial(d, st.bytes)) {
            p2p_status_out_c(c, status, &st);
            return p2p_recv_partial_err(c, d, st.bytes, fn);
        }
    }
    if (MPII_LIKELY(rc == RMP_SUCCESS)) {
        p2p_status_out_c(c, status, &st);
        return MPI_SUCCESS;
    }
    return p2p_recv_failed(c, comm, buf, count, d, mpii_inter_source(c, source), tag, rc, &st,
                           status, fn);
}

/* The common case, inlined into the entry points: one rmp_recv into contiguous data. */
static inline __attribute__((always_inline)) int
p2p_recv_entry(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag,
               MPI_Comm comm, MPI_Status *status, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    if (MPII_LIKELY(p2p_fast_recv(c, d, count, source, tag) && d->contig)) {
        rmp_status_t st;
        int rc = rmp_recv(mpii_buf_at(buf, d->true_lb), (size_t)count * d->size, source,
                          mpii_tag_to_rmp(tag), c->rc, &st);
        if (MPII_LIKELY(rc == RMP_SUCCESS)) {
            p2p_status_out(status, &st);
            return MPI_SUCCESS;
        }
        return p2p_recv_failed(c, comm, buf, count, d, source, tag, rc, &st, status, fn);
    }
    return p2p_recv(buf, count, dt, source, tag, comm, status, fn);
}

MPII_TWINS(Recv, p2p_recv_entry(buf, count, datatype, source, tag, comm, status, FN))

/* ---- nonblocking ---- */

static mpii_req_t *p2p_req(mpii_req_t *into, mpii_comm_t *c)
{
    if (into) {
        into->done = 0;
        into->err = MPI_SUCCESS;
        into->cancelled = 0;
        into->fin = NULL;
        into->kind = MPII_REQ_RMP;
        return into;
    }
    return mpii_req_new(c, MPII_REQ_RMP);
}

/* Returns an MPI error class (not yet reported). */
int mpii_isend(const void *buf, MPI_Count count, mpii_dtype_t *d, int dest, int tag,
               mpii_comm_t *c, int mode, mpii_req_t *into, mpii_req_t **out)
{
    mpii_req_t *r = p2p_req(into, c);
    if (!r)
        return MPI_ERR_NO_MEM;
    if (dest == MPI_PROC_NULL || mode == MPII_MODE_BUFFERED) {
        int rc = dest == MPI_PROC_NULL ? MPI_SUCCESS
                                       : mpii_bsend(buf, count, d, dest, tag, c, NULL, r);
        if (rc != MPI_SUCCESS) { /* reported by the caller, nothing was sent */
            if (!into)
                mpii_req_free(r);
            return rc;
        }
        r->kind = MPII_REQ_DONE;
        r->done = 1;
        r->err = rc;
        r->mode = dest == MPI_PROC_NULL ? (uint8_t)mode : MPII_MODE_BUFFERED;
        mpii_status_empty(&r->status);
        if (out)
            *out = r;
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)count * d->size;
    int rc;
    if (MPII_UNLIKELY(c->inter != NULL))
        dest = mpii_inter_peer(c, dest);
    if (d->contig) {
        const void *p = mpii_buf_at(buf, d->true_lb);
        rc = mode == MPII_MODE_SYNC ? rmp_issend(p, bytes, dest, tag, c->rc, &r->rr)
                                    : rmp_isend(p, bytes, dest, tag, c->rc, &r->rr);
    } else {
        if (!into) { /* the type may be freed before the send completes */
            r->dt = d;
            mpii_dtype_retain(d);
        }
        mpii_layout_init(&r->lay, &r->typed, d, buf, count);
        rc = mode == MPII_MODE_SYNC ? rmp_issend_layout(&r->lay, bytes, dest, tag, c->rc, &r->rr)
                                    : rmp_isend_layout(&r->lay, bytes, dest, tag, c->rc, &r->rr);
    }
    if (rc != RMP_SUCCESS) {
        if (!into)
            mpii_req_free(r);
        return mpii_err_from_rmp(rc);
    }
    if (out)
        *out = r;
    return MPI_SUCCESS;
}

int mpii_irecv(void *buf, MPI_Count count, mpii_dtype_t *d, int source, int tag, mpii_comm_t *c,
               mpii_req_t *into, mpii_req_t **out)
{
    mpii_req_t *r = p2p_req(into, c);
    if (!r)
        return MPI_ERR_NO_MEM;
    r->recv = 1;
    if (source == MPI_PROC_NULL) {
        r->kind = MPII_REQ_DONE;
        r->done = 1;
        mpii_status_set(&r->status, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0);
        if (out)
            *out = r;
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)count * d->size;
    int rc;
    if (MPII_UNLIKELY(c->inter != NULL))
        source = mpii_inter_peer(c, source);
    if (d->contig) {
        rc = rmp_irecv(mpii_buf_at(buf, d->true_lb), bytes, source, mpii_tag_to_rmp(tag), c->rc,
                       &r->rr);
    } else {
        if (!into) { /* a persistent request holds its type already */
            r->dt = d;
            mpii_dtype_retain(d);
        }
        mpii_layout_init(&r->lay, &r->typed, d, buf, count);
        rc = rmp_irecv_layout(&r->lay, bytes, source, mpii_tag_to_rmp(tag), c->rc, &r->rr);
        r->fin = p2p_recv_fin;
    }
    if (rc != RMP_SUCCESS) {
        if (!into)
            mpii_req_free(r);
        return mpii_err_from_rmp(rc);
    }
    if (out)
        *out = r;
    return MPI_SUCCESS;
}

static __attribute__((noinline)) int p2p_isend(const void *buf, MPI_Count count,
                                               MPI_Datatype dt, int dest, int tag,
                                               MPI_Comm comm, MPI_Request *request, int mode,
                                               const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    if (!p2p_fast(c, d, count, dest, tag)) {
        d = mpii_p2p_null_type(d, dt, count);
        int rc = mpii_p2p_check(c, comm, buf, count, d, dest, tag, 0, fn);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (!request)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "request is NULL");
    mpii_req_t *r;
    int rc = mpii_isend(buf, count, d, dest, tag, c, mode, NULL, &r);
    if (MPII_UNLIKELY(rc != MPI_SUCCESS)) {
        int e = rc == MPI_ERR_ARG ? mpii_p2p_check(c, comm, buf, count, d, dest, tag, 0, fn)
                                  : MPI_SUCCESS;
        return e != MPI_SUCCESS ? e
                                : mpii_err_comm(c, rc, fn, "could not start the send to rank %d",
                                                dest);
    }
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

static __attribute__((noinline)) int p2p_start_failed(mpii_comm_t *c, MPI_Comm comm,
                                                      const void *buf, MPI_Count count,
                                                      const mpii_dtype_t *d, int rank, int tag,
                                                      int is_recv, int rc, const char *fn)
{
    int e = rc == RMP_ERR_ARG ? mpii_p2p_check(c, comm, buf, count, d, rank, tag, is_recv, fn)
                              : MPI_SUCCESS;
    if (e != MPI_SUCCESS)
        return e;
    return mpii_err_comm(c, mpii_err_from_rmp(rc), fn, "could not %s rank %d: %s",
                         is_recv ? "post the receive from" : "start the send to", rank,
                         rmp_strerror(rc));
}

/* The common case, inlined into the entry points: contiguous data to a real peer in
 * standard, ready or synchronous mode; the handle is the rmp request (mpii_p2p.h). */
static inline __attribute__((always_inline)) int
p2p_isend_entry(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, MPI_Request *request, int mode, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    if (MPII_LIKELY(p2p_fast(c, d, count, dest, tag) && d->contig && request &&
                    mode != MPII_MODE_BUFFERED)) {
        rmp_request_t rr;
        const void *p = mpii_buf_at(buf, d->true_lb);
        size_t bytes = (size_t)count * d->size;
        int rc = mode == MPII_MODE_SYNC ? rmp_issend(p, bytes, dest, tag, c->rc, &rr)
                                        : rmp_isend(p, bytes, dest, tag, c->rc, &rr);
        if (MPII_LIKELY(rc == RMP_SUCCESS)) {
            *request = mpii_req_of_rr(rr);
            return MPI_SUCCESS;
        }
        return p2p_start_failed(c, comm, buf, count, d, dest, tag, 0, rc, fn);
    }
    return p2p_isend(buf, count, dt, dest, tag, comm, request, mode, fn);
}

MPII_TWINS(Isend, p2p_isend_entry(buf, count, datatype, dest, tag, comm, request, MPII_MODE_STD,
           FN))

MPII_TWINS(Issend, p2p_isend_entry(buf, count, datatype, dest, tag, comm, request, MPII_MODE_SYNC,
           FN))

MPII_TWINS(Irsend, p2p_isend_entry(buf, count, datatype, dest, tag, comm, request,
           MPII_MODE_READY, FN))

MPII_TWINS(Ibsend, p2p_isend(buf, count, datatype, dest, tag, comm, request, MPII_MODE_BUFFERED,
           FN))

static __attribute__((noinline)) int p2p_irecv(void *buf, MPI_Count count, MPI_Datatype dt,
                                               int source, int tag, MPI_Comm comm,
                                               MPI_Request *request, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    if (!p2p_fast_recv(c, d, count, source, tag)) {
        d = mpii_p2p_null_type(d, dt, count);
        int rc = mpii_p2p_check(c, comm, buf, count, d, source, tag, 1, fn);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (!request)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "request is NULL");
    mpii_req_t *r;
    int rc = mpii_irecv(buf, count, d, source, tag, c, NULL, &r);
    if (MPII_UNLIKELY(rc != MPI_SUCCESS)) {
        int e = rc == MPI_ERR_ARG ? mpii_p2p_check(c, comm, buf, count, d, source, tag, 1, fn)
                                  : MPI_SUCCESS;
        return e != MPI_SUCCESS ? e : mpii_err_comm(c, rc, fn, "could not post the receive");
    }
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

/* The common case, inlined: contiguous data; the handle is the rmp request. */
static inline __attribute__((always_inline)) int
p2p_irecv_entry(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag,
                MPI_Comm comm, MPI_Request *request, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    mpii_dtype_t *d = mpii_dtype(dt);
    if (MPII_LIKELY(p2p_fast_recv(c, d, count, source, tag) && d->contig && request)) {
        rmp_request_t rr;
        int rc = rmp_irecv(mpii_buf_at(buf, d->true_lb), (size_t)count * d->size, source,
                           mpii_tag_to_rmp(tag), c->rc, &rr);
        if (MPII_LIKELY(rc == RMP_SUCCESS)) {
            *request = mpii_req_of_rr(rr);
            return MPI_SUCCESS;
        }
        return p2p_start_failed(c, comm, buf, count, d, source, tag, 1, rc, fn);
    }
    return p2p_irecv(buf, count, dt, source, tag, comm, request, fn);
}

MPII_TWINS(Irecv, p2p_irecv_entry(buf, count, datatype, source, tag, comm, request, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "p2p.twins.h"
