/* SPDX-License-Identifier: BSD-3-Clause */
/* Matching: posted receives and unexpected messages (core/recv.h). */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "eager.h"
#include "engine.h"
#include "mt.h"
#include "frag.h"
#include "log.h"
#include "failure.h"
#include "peer.h"
#include "recv.h"
#include "layout.h"
#include "request.h"
#include "rndv.h"

static rmpi_ux_t *ux_alloc(rmpi_engine_t *e, size_t size)
{
    rmpi_ux_t *u = e->p2p.ux_free;
    if (u)
        e->p2p.ux_free = u->next_free;
    else if (!(u = malloc(sizeof(*u))))
        return NULL;
    u->data = u->inline_buf;
    if (size > RMPI_UX_INLINE && !(u->data = malloc(size))) {
        u->next_free = e->p2p.ux_free;
        e->p2p.ux_free = u;
        return NULL;
    }
    u->have = 0;
    return u;
}

static void ux_free(rmpi_ux_t *u)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (u->data != u->inline_buf)
        free(u->data);
    u->next_free = e->p2p.ux_free;
    e->p2p.ux_free = u;
}

rmpi_ux_t *rmpi_recv_buffer(rmpi_engine_t *e, int src, const rmpi_hdr_t *h, size_t cap, size_t size,
                            const void *payload, size_t plen)
{
    rmpi_ux_t *u = ux_alloc(e, cap);
    if (!u) {
        /* The size comes from the peer: one that cannot be buffered fails
         * that peer's operations, not this whole process. */
        rmpi_error("out of memory buffering an unexpected message of %zu bytes from rank %d",
                   cap, src);
        rmpi_peer_failed(src, "unexpected message too large to buffer");
        return NULL;
    }
    u->mq.cid = h->cid;
    u->mq.src = h->src;
    u->mq.tag = h->tag;
    u->peer = src;
    u->type = h->type;
    u->hflags = h->flags;
    u->size = size;
    if (plen)
        memcpy(u->data, payload, plen);
    u->have = plen;
    e->stats.unexpected++;
    rmpi_mq_push(&e->p2p.unexp, &u->mq);
    return u;
}

/* A receive takes an unexpected message: the protocol that brought it finishes it. */
static void recv_take_unexpected(rmpi_engine_t *e, rmp_request_t req, rmpi_ux_t *u)
{
    rmpi_hdr_t h = {u->type, u->hflags, 0, u->mq.cid, u->mq.src, u->mq.tag};
    req->peer = u->peer;
    if (u->type == RMPI_MSG_EAGER)
        rmpi_eager_deliver(req, &h, u->data, u->size);
    else if (u->type == RMPI_MSG_RTS)
        rmpi_rndv_take(e, req, &h, u);
    else
        rmpi_frag_take(e, req, &h, u);
    ux_free(u);
}

RMPI_MT_BODY int irecv_cid_locked(void *buf, const rmp_layout_t *lay, size_t bytes, int source,
                                  int tag, rmp_comm_t comm, uint32_t cid, rmp_request_t *out)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmp_request_t req = rmpi_req_alloc(e, RMPI_REQ_RECV);
    if (RMPI_UNLIKELY(!req))
        return RMP_ERR_NOMEM;
    req->buf = buf;
    req->lay = lay;
    req->bytes = bytes;
    req->mq.cid = cid;
    req->mq.src = source;
    req->mq.tag = tag;
    req->peer = source == RMP_ANY_SOURCE ? -1 : rmpi_comm_world_rank(comm, source);
    req->comm = comm;
    req->status.comm = comm;
    rmpi_mq_elem_t *el = rmpi_mq_match_unexp(&e->p2p.unexp, cid, source, tag, 1);
    if (el) {
        recv_take_unexpected(e, req, rmpi_container_of(el, rmpi_ux_t, mq));
    } else if (RMPI_UNLIKELY(e->p2p.nfailed > 0 &&
                             rmpi_failure_dooms_recv(e, req->peer, cid, comm))) {
        rmpi_req_free(req);
        return RMP_ERR_PEER_FAILED;
    } else {
        rmpi_mq_push(&e->p2p.posted, &req->mq);
    }
    *out = req;
    return RMP_SUCCESS;
}

/* Inlined into its two public forms: the plain receive's lay == NULL folds away. */
RMPI_MT_ENTRY(static inline __attribute__((always_inline)), irecv_cid, irecv_cid_locked,
    (void *buf, const rmp_layout_t *lay, size_t bytes, int source, int tag, rmp_comm_t comm,
     uint32_t cid, rmp_request_t *out),
    (buf, lay, bytes, source, tag, comm, cid, out))

int rmpi_irecv_cid(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm, uint32_t cid,
                   rmp_request_t *out)
{
    return irecv_cid(buf, NULL, bytes, source, tag, comm, cid, out);
}

int rmpi_irecv_layout_cid(const rmp_layout_t *lay, size_t bytes, int source, int tag,
                          rmp_comm_t comm, uint32_t cid, rmp_request_t *out)
{
    return irecv_cid(NULL, lay, bytes, source, tag, comm, cid, out);
}

/* keep: the request completes with RMP_ERR_CANCELLED and stays for its wait
 * (MPI_Cancel), else it is freed (rmp_cancel). */
RMPI_MT_BODY int recv_cancel_locked(rmp_request_t req, int keep)
{
    if (req->kind != RMPI_REQ_RECV || req->done || !rmpi_recv_is_posted(&req->mq))
        return 0;
    rmpi_recv_withdraw(req);
    if (keep) {
        req->status = (rmp_status_t){RMP_ANY_SOURCE, RMP_ANY_TAG, 0, RMP_ERR_CANCELLED,
                                     req->status.comm};
        rmpi_req_complete(req);
    } else {
        rmpi_req_free(req);
    }
    return 1;
}

RMPI_MT_ENTRY(, rmpi_recv_cancel, recv_cancel_locked, (rmp_request_t req, int keep),
              (req, keep))

int rmpi_recv_cancel_unexp(rmpi_engine_t *e, int src, const rmpi_cancel_t *m, const void *payload,
                           size_t plen)
{
    /* From the newest back: the message came before m, and of several identical
     * eager copies the receiver cannot tell one from another. */
    for (rmpi_mq_elem_t *el = e->p2p.unexp.head.prev; el != &e->p2p.unexp.head;
         el = el->prev) {
        rmpi_ux_t *u = rmpi_container_of(el, rmpi_ux_t, mq);
        if (u->peer != src || el->cid != m->cid || el->src != m->src || el->tag != m->tag ||
            u->size != m->size)
            continue;
        int same = u->type == RMPI_MSG_EAGER
                       ? plen == u->size && (plen == 0 || memcmp(u->data, payload, plen) == 0)
                       : u->sreq == m->sreq && (u->type == RMPI_MSG_RTS || u->have == u->size);
        if (!same)
            continue;
        rmpi_mq_remove(&e->p2p.unexp, el);
        ux_free(u);
        return 1;
    }
    return 0;
}

rmpi_ux_t *rmpi_recv_mprobe(rmpi_engine_t *e, uint32_t cid, int source, int tag, rmp_status_t *st)
{
    rmpi_mt_enter(e);
    rmpi_mq_elem_t *el = rmpi_mq_match_unexp(&e->p2p.unexp, cid, source, tag, 1);
    rmpi_ux_t *u = el ? rmpi_container_of(el, rmpi_ux_t, mq) : NULL;
    if (u && st)
        *st = (rmp_status_t){el->src, el->tag, u->size, RMP_SUCCESS, RMP_COMM_NULL};
    rmpi_mt_leave(e);
    return u;
}

RMPI_MT_BODY void recv_take_locked(rmp_request_t req, rmpi_ux_t *u)
{
    rmpi_engine_t *e = &rmpi_eng;
    req->mq.cid = u->mq.cid;
    req->mq.src = u->mq.src;
    req->mq.tag = u->mq.tag;
    req->comm = NULL; /* a user context: no collective failure rule applies */
    recv_take_unexpected(e, req, u);
}

RMPI_MT_ENTRY_VOID(, rmpi_recv_take, recv_take_locked, (rmp_request_t req, rmpi_ux_t *u), (req, u))

RMPI_MT_BODY void recv_withdraw_locked(rmp_request_t req)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_mq_remove(&e->p2p.posted, &req->mq);
}

RMPI_MT_ENTRY_VOID(, rmpi_recv_withdraw, recv_withdraw_locked, (rmp_request_t req), (req))

RMPI_MT_BODY void req_abandon_locked(rmp_request_t req)
{
    if (req->done) {
        rmpi_req_free(req);
    } else if (req->kind == RMPI_REQ_RECV && rmpi_recv_is_posted(&req->mq)) {
        rmpi_recv_withdraw(req); /* still unmatched: withdraw */
        rmpi_req_free(req);
    } else {
        req->flags |= RMPI_REQF_ORPHAN;
        if (req->lay)
            req->lay = &rmpi_layout_discard;
    }
}

RMPI_MT_ENTRY_VOID(, rmpi_req_abandon, req_abandon_locked, (rmp_request_t req), (req))

int rmpi_recv_cid(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm, uint32_t cid,
                  rmp_status_t *st)
{
    rmp_request_t req;
    int rc = rmpi_irecv_cid(buf, bytes, source, tag, comm, cid, &req);
    if (rc != RMP_SUCCESS)
        return rc;
    rc = rmpi_req_wait(req);
    if (rc != RMP_SUCCESS) {
        rmpi_req_abandon(req); /* withdrawn if unmatched */
        /* ULFM: a blocking receive from any source ends with the failure itself. */
        return rc == RMP_ERR_PEER_FAILED_PENDING ? RMP_ERR_PEER_FAILED : rc;
    }
    if (st)
        *st = req->status;
    rc = req->status.error;
    rmpi_req_free(req);
    return rc;
}

RMPI_MT_BODY int recv_probe_locked(uint32_t cid, int source, int tag, rmp_status_t *st)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_mq_elem_t *el = rmpi_mq_match_unexp(&e->p2p.unexp, cid, source, tag, 0);
    if (el && st) {
        rmpi_ux_t *u = rmpi_container_of(el, rmpi_ux_t, mq);
        *st = (rmp_status_t){el->src, el->tag, u->size, RMP_SUCCESS, RMP_COMM_NULL};
    }
    return el != NULL;
}

RMPI_MT_ENTRY(, rmpi_recv_probe, recv_probe_locked,
    (uint32_t cid, int source, int tag, rmp_status_t *st),
    (cid, source, tag, st))

void rmpi_recv_fini(rmpi_engine_t *e)
{
    while (!rmpi_mq_empty(&e->p2p.unexp)) {
        rmpi_mq_elem_t *el = e->p2p.unexp.head.next;
        rmpi_mq_remove(&e->p2p.unexp, el);
        ux_free(rmpi_container_of(el, rmpi_ux_t, mq));
    }
    while (e->p2p.ux_free) {
        rmpi_ux_t *u = e->p2p.ux_free;
        e->p2p.ux_free = u->next_free;
        free(u);
    }
}

size_t rmpi_p2p_unexpected_high_water(rmpi_engine_t *e)
{
    return e->p2p.unexp.high_water;
}
