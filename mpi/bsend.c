/* SPDX-License-Identifier: BSD-3-Clause */
/* Buffered sends: the message is packed into the attached buffer (or a
 * malloc'd one with MPI_BUFFER_AUTOMATIC) and sent from there; the space is
 * reclaimed once rmp completed the send. Each message takes exactly its bytes +
 * MPI_BSEND_OVERHEAD of an attached buffer (a buffer sized by the standard's
 * formula always fits): the overhead holds the segment's header and the
 * alignment of header and data. Flushes (blocking and not) are here too; the
 * attach/detach entry points are in bsend_attach.c. */
#include <stdlib.h>

#include "mpii_bsend.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"
#include "mpii_p2p.h"

struct mpii_bsseg {
    mpii_bsseg_t *next;
    size_t off, len; /* the reserved range of the buffer (MPII_BS_AUTO: malloc'd) */
    uint64_t seq;
    rmp_request_t rr;
    mpii_req_t *cancel; /* MPI_Cancel asked for it: completed when rr is */
};

/* Header + its alignment + the data's 64-byte alignment fit in the overhead. */
_Static_assert(sizeof(mpii_bsseg_t) + 7 + 63 <= MPI_BSEND_OVERHEAD, "MPI_BSEND_OVERHEAD");

mpii_bsbuf_t mpii_bs_proc;

/* Threads share the buffers; the lock is never held across a wait. */
static pthread_mutex_t bs_lock = PTHREAD_MUTEX_INITIALIZER;
#define BS_LOCK()                                                                          \
    do {                                                                                   \
        if (mpii_mt)                                                                       \
            pthread_mutex_lock(&bs_lock);                                                  \
    } while (0)
#define BS_UNLOCK()                                                                        \
    do {                                                                                   \
        if (mpii_mt)                                                                       \
            pthread_mutex_unlock(&bs_lock);                                                \
    } while (0)

static uintptr_t bs_align(uintptr_t p, uintptr_t a)
{
    return (p + a - 1) & ~(a - 1);
}

/* The cancel of a buffered send is decided (bs_cancel_poll sees ctx NULL). */
static void bs_cancel_done(mpii_req_t *r, int cancelled)
{
    if (cancelled) {
        mpii_status_empty(&r->status);
        r->status.MPI_internal[2] = 1;
        r->cancelled = 1;
    }
    r->ctx = NULL;
}

/* Reclaim the space of completed sends (no blocking). Under bs_lock. */
static void bs_reap(mpii_bsbuf_t *b)
{
    mpii_bsseg_t **pp = &b->segs;
    while (*pp) {
        mpii_bsseg_t *s = *pp;
        int done = 1;
        int rc = rmp_test(&s->rr, &done, NULL);
        if (rc != RMP_SUCCESS && rc != RMP_ERR_CANCELLED)
            done = 1; /* an error is the receiver's to see */
        if (!done) {
            pp = &s->next;
            continue;
        }
        if (MPII_UNLIKELY(s->cancel != NULL))
            bs_cancel_done(s->cancel, rc == RMP_ERR_CANCELLED);
        *pp = s->next;
        if (b->kind == MPII_BS_AUTO)
            free(s);
    }
}

/* First fit of len bytes: where to link it, its offset. */
static int bs_fit(mpii_bsbuf_t *b, size_t len, mpii_bsseg_t ***link, size_t *off)
{
    size_t end = 0;
    mpii_bsseg_t **pp = &b->segs;
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->off - end >= len)
            break;
        end = (*pp)->off + (*pp)->len;
    }
    if (!*pp && (b->size < end || b->size - end < len))
        return 0;
    *link = pp;
    *off = end;
    return 1;
}

/* A segment for bytes of data in b (linked at *link by the caller): NULL with *err. */
static mpii_bsseg_t *bs_take(mpii_bsbuf_t *b, size_t bytes, mpii_bsseg_t ***link, char **data,
                             int *err)
{
    mpii_bsseg_t *s;
    if (bytes > SIZE_MAX - MPI_BSEND_OVERHEAD) {
        *err = MPI_ERR_BUFFER;
        return NULL;
    }
    size_t len = bytes + MPI_BSEND_OVERHEAD, off = 0;
    if (b->kind == MPII_BS_AUTO) {
        s = malloc(len);
        if (!s) {
            *err = MPI_ERR_NO_MEM;
            return NULL;
        }
        *link = &b->segs;
    } else {
        if (b->kind != MPII_BS_USER || !bs_fit(b, len, link, &off)) {
            *err = MPI_ERR_BUFFER;
            return NULL;
        }
        s = (mpii_bsseg_t *)bs_align((uintptr_t)(b->buf + off), 8);
    }
    s->off = off;
    s->len = len;
    s->seq = b->seq++;
    *data = (char *)bs_align((uintptr_t)(s + 1), 64);
    return s;
}

/* The buffer a buffered send on c uses: c's own, else its session's, else the
 * process's. */
static mpii_bsbuf_t *bs_of(mpii_comm_t *c)
{
    if (c->bsbuf && c->bsbuf->kind != MPII_BS_NONE)
        return c->bsbuf;
    return c->sbs && c->sbs->kind != MPII_BS_NONE ? c->sbs : &mpii_bs_proc;
}

int mpii_bsend(const void *buf, MPI_Count count, mpii_dtype_t *d, int dest, int tag,
               mpii_comm_t *c, const char *fn, mpii_req_t *r)
{
    size_t bytes = (size_t)count * d->size;
    mpii_bsbuf_t *b = bs_of(c);
    mpii_bsseg_t **link, *s;
    char *data;
    int err = MPI_SUCCESS;
    BS_LOCK();
    bs_reap(b);
    s = bs_take(b, bytes, &link, &data, &err);
    if (s) {
        s->cancel = NULL;
        if (r) {
            r->ctx = b;
            r->bs_seq = s->seq;
        }
        mpii_dtype_pack(d, buf, count, 0, data, bytes);
        int rc = rmp_isend(data, bytes, c->inter ? mpii_inter_peer(c, dest) : dest, tag, c->rc,
                           &s->rr);
        if (rc == RMP_SUCCESS) {
            s->next = *link;
            *link = s;
        } else {
            if (b->kind == MPII_BS_AUTO)
                free(s);
            err = rc;
        }
    }
    size_t size = b->size;
    int kind = b->kind;
    BS_UNLOCK();
    if (MPII_LIKELY(err == MPI_SUCCESS) || !fn)
        return err < 0 ? mpii_err_from_rmp(err) : err;
    if (err < 0)
        return mpii_p2p_err(c, err, fn);
    if (err == MPI_ERR_NO_MEM)
        return mpii_err_comm(c, err, fn, "out of memory for a buffered message");
    return mpii_err_comm(c, MPI_ERR_BUFFER, fn,
                         "no room for %zu bytes (+ MPI_BSEND_OVERHEAD %d) in the attached "
                         "buffer (%zu bytes%s)",
                         bytes, MPI_BSEND_OVERHEAD, size,
                         kind == MPII_BS_NONE ? ": none attached" : "");
}

/* Is every message of b numbered below upto gone? */
static int bs_flushed(mpii_bsbuf_t *b, uint64_t upto)
{
    BS_LOCK();
    bs_reap(b);
    int done = 1;
    for (mpii_bsseg_t *s = b->segs; s && done; s = s->next)
        done = s->seq >= upto;
    BS_UNLOCK();
    return done;
}

static uint64_t bs_seq(mpii_bsbuf_t *b)
{
    BS_LOCK();
    uint64_t seq = b->seq;
    BS_UNLOCK();
    return seq;
}

void mpii_bs_flush(mpii_bsbuf_t *b)
{
    uint64_t upto = bs_seq(b);
    while (!bs_flushed(b, upto))
        rmp_progress();
}

/* MPII_REQ_POLL: r->ctx the buffer, r->count the first message not waited for. */
static int bs_iflush_poll(mpii_req_t *r)
{
    return bs_flushed(r->ctx, (uint64_t)r->count);
}

int mpii_bs_iflush(mpii_bsbuf_t *b, mpii_comm_t *c, MPI_Request *request)
{
    mpii_req_t *r = mpii_req_new_poll(c, bs_iflush_poll, NULL, b);
    if (!r)
        return MPI_ERR_NO_MEM;
    r->count = (MPI_Count)bs_seq(b);
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

/* MPII_REQ_POLL while a cancel is undecided: r->ctx the buffer, NULL once decided. */
static int bs_cancel_poll(mpii_req_t *r)
{
    mpii_bsbuf_t *b = r->ctx;
    if (b) {
        BS_LOCK();
        bs_reap(b);
        BS_UNLOCK();
    }
    return r->ctx == NULL;
}

void mpii_bs_cancel(mpii_req_t *r)
{
    mpii_bsbuf_t *b = r->ctx;
    BS_LOCK();
    /* No reaping first: a message sent eagerly has completed locally, and is still
     * here unless another buffered send reaped it (then it is not cancelled). */
    mpii_bsseg_t *s = b->segs;
    while (s && s->seq != r->bs_seq)
        s = s->next;
    if (s && !s->cancel) { /* else gone: it has reached the receiver, not cancelled */
        int cancelled = 0;
        if (rmp_request_cancel(s->rr, &cancelled) == RMP_SUCCESS) {
            s->cancel = r;
            r->kind = MPII_REQ_POLL;
            r->poll = bs_cancel_poll;
            r->done = 0;
        }
    }
    BS_UNLOCK();
}

int mpii_bs_attach(mpii_bsbuf_t *b, void *buffer, MPI_Count size)
{
    int err = MPI_SUCCESS;
    BS_LOCK();
    if (b->kind != MPII_BS_NONE)
        err = MPI_ERR_BUFFER;
    else if (buffer == MPI_BUFFER_AUTOMATIC)
        b->kind = MPII_BS_AUTO;
    else if (!buffer || size < 0)
        err = MPI_ERR_BUFFER;
    else {
        b->kind = MPII_BS_USER;
        b->buf = buffer;
        b->size = (size_t)size;
    }
    BS_UNLOCK();
    return err;
}

void mpii_bs_detach(mpii_bsbuf_t *b, void **buffer, MPI_Count *size)
{
    mpii_bs_flush(b);
    BS_LOCK();
    *buffer = b->kind == MPII_BS_AUTO ? MPI_BUFFER_AUTOMATIC : b->buf;
    *size = b->kind == MPII_BS_USER ? (MPI_Count)b->size : 0;
    b->kind = MPII_BS_NONE;
    b->buf = NULL;
    b->size = 0;
    BS_UNLOCK();
}

/* A communicator's buffer goes with it: its messages leave first. */
void mpii_bsend_comm_free(mpii_comm_t *c)
{
    if (!c->bsbuf)
        return;
    void *buf;
    MPI_Count size;
    mpii_bs_detach(c->bsbuf, &buf, &size);
    free(c->bsbuf);
    c->bsbuf = NULL;
}

void mpii_bsend_fini(void)
{
    void *buf;
    MPI_Count size;
    mpii_bs_detach(&mpii_bs_proc, &buf, &size);
    mpii_bsend_comm_free(&mpii_comm_world);
    mpii_bsend_comm_free(&mpii_comm_self);
}
