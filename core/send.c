/* SPDX-License-Identifier: BSD-3-Clause */
/* Sending: choose the protocol of a message (eager, rendezvous or
 * fragmented: docs/protocols.md), move it now if the transport has room,
 * otherwise queue it in its peer's FIFO, which keeps the order of a pair. */
#include <string.h>

#include "comm.h"
#include "eager.h"
#include "engine.h"
#include "mt.h"
#include "frag.h"
#include "layout.h"
#include "log.h"
#include "peer.h"
#include "request.h"
#include "rndv.h"
#include "send.h"

static void send_pending_push(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req)
{
    if (rmpi_mq_empty(&p->pending))
        e->p2p.npending++;
    rmpi_mq_push(&p->pending, &req->mq);
}

/* Move as much of req's wire data as the transport takes. RMP_SUCCESS when
 * all of it left, RMPI_AGAIN when the transport is full, or an error. */
static int send_try(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req)
{
    if (!(req->flags & RMPI_REQF_FRAG))
        return p->iface->send(p->ep, &req->wire, req->hlen, req->payload, req->plen);
    return rmpi_frag_send(e, p, req);
}

/* The wire part of req is gone: finish what that means for its kind. */
static void send_done(rmp_request_t req)
{
    if (req->kind == RMPI_REQ_CTRL) {
        rmpi_req_free(req);
        return;
    }
    if (!(req->flags & RMPI_REQF_WAIT_FIN))
        rmpi_req_complete(req);
}

static int send_fail(rmp_request_t req, int rc)
{
    rmpi_error("send to rank %d failed: %s", req->peer, rmp_strerror(rc));
    rmpi_req_fail(req, rc);
    return rc;
}

/* Send req now if the peer's FIFO is empty and the transport has room,
 * otherwise queue it behind the others. */
static int send_post(rmpi_engine_t *e, rmp_request_t req)
{
    rmpi_peer_t *p = &e->peers[req->peer];
    if (RMPI_UNLIKELY(p->failed)) {
        /* Nobody would ever drain its FIFO again (control messages get here
         * without the entry points' check). */
        rmpi_req_fail(req, RMP_ERR_PEER_FAILED);
        return RMP_ERR_PEER_FAILED;
    }
    if (rmpi_mq_empty(&p->pending)) {
        int rc = send_try(e, p, req);
        if (rc == RMP_SUCCESS) {
            send_done(req);
            return RMP_SUCCESS;
        }
        if (rc < 0)
            return send_fail(req, rc);
    }
    send_pending_push(e, p, req);
    return RMP_SUCCESS;
}

int rmpi_send_drain_pending(rmpi_engine_t *e)
{
    int n = 0;
    for (int w = 0; w < e->npeers && e->p2p.npending > 0; w++) {
        rmpi_peer_t *p = &e->peers[w];
        while (!rmpi_mq_empty(&p->pending)) {
            rmp_request_t req = rmpi_container_of(p->pending.head.next, struct rmp_request, mq);
            int rc = send_try(e, p, req);
            if (rc == RMPI_AGAIN)
                break;
            rmpi_mq_remove(&p->pending, &req->mq);
            if (rmpi_mq_empty(&p->pending))
                e->p2p.npending--;
            n++;
            if (rc < 0)
                send_fail(req, rc);
            else
                send_done(req);
        }
    }
    return n;
}

void rmpi_send_fail_pending(rmpi_engine_t *e, int peer)
{
    rmpi_peer_t *p = &e->peers[peer];
    while (!rmpi_mq_empty(&p->pending)) {
        rmp_request_t req = rmpi_container_of(p->pending.head.next, struct rmp_request, mq);
        rmpi_mq_remove(&p->pending, &req->mq);
        if (rmpi_mq_empty(&p->pending))
            e->p2p.npending--;
        rmpi_req_fail(req, RMP_ERR_PEER_FAILED);
    }
}

void rmpi_send_drop_orphans(rmpi_engine_t *e)
{
    for (int w = 0; w < e->npeers && e->p2p.npending > 0; w++) {
        rmpi_peer_t *p = &e->peers[w];
        rmpi_mq_elem_t *el = p->pending.head.next;
        while (el != &p->pending.head) {
            rmp_request_t req = rmpi_container_of(el, struct rmp_request, mq);
            el = el->next;
            if (!(req->flags & RMPI_REQF_ORPHAN))
                continue;
            rmpi_mq_remove(&p->pending, &req->mq);
            if (rmpi_mq_empty(&p->pending))
                e->p2p.npending--;
            rmpi_req_free(req);
        }
    }
}

RMPI_MT_BODY int send_ctrl_locked(int peer, const void *msg, size_t len, const void *payload,
                                  size_t plen)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmp_request_t req = rmpi_req_alloc(e, RMPI_REQ_CTRL);
    if (!req)
        return RMP_ERR_NOMEM;
    req->peer = peer;
    memcpy(&req->wire, msg, len);
    req->hlen = (uint8_t)len;
    req->payload = payload;
    req->plen = plen;
    return send_post(e, req);
}

RMPI_MT_ENTRY(, rmpi_send_ctrl, send_ctrl_locked,
    (int peer, const void *msg, size_t len, const void *payload, size_t plen),
    (peer, msg, len, payload, plen))

RMPI_MT_BODY int send_fin_locked(int peer, uint64_t target_req, int status)
{
    rmpi_fin_t f;
    memset(&f, 0, sizeof(f));
    f.type = RMPI_MSG_FIN;
    f.status = status;
    f.req = target_req;
    return rmpi_send_ctrl(peer, &f, sizeof(f), NULL, 0);
}

RMPI_MT_ENTRY(, rmpi_send_fin, send_fin_locked,
    (int peer, uint64_t target_req, int status),
    (peer, target_req, status))

/* Fill req's wire for a message of its buf/bytes and choose the protocol. */
static int send_start(rmpi_engine_t *e, rmp_request_t req, rmp_comm_t comm, uint32_t cid, int tag,
                      int sync)
{
    rmpi_peer_t *p = &e->peers[req->peer];
    rmpi_hdr_t *h = &req->wire.h;
    h->flags = 0;
    h->reserved = 0;
    h->cid = cid;
    h->src = comm->rank;
    h->tag = tag;
    int rc;
    /* A synchronous send never goes eager: a rendezvous completes after the
     * match anyway; a fragmented one asks the receiver for a FIN. Data in a
     * layout that fits goes as one fragment, packed as it leaves; larger, by
     * rendezvous where the transport has one: the sender writes what the
     * receiver's CTS asks, piece by piece (core/layout.h). */
    int fits = rmpi_eager_fits(p, req->bytes);
    if (!sync && !req->lay && fits) {
        rc = rmpi_eager_start(e, p, req);
    } else {
        /* Rendezvous and fragmentation both open with an RTS header. */
        rmpi_rts_t *r = &req->wire.rts;
        r->size = req->bytes;
        r->sreq = (uint64_t)(uintptr_t)req;
        r->addr = (uint64_t)(uintptr_t)req->buf;
        r->key = 0;
        req->mr = NULL;
        req->hlen = sizeof(rmpi_rts_t);
        if ((p->rndv_mode == RMPI_RNDV_GET || p->rndv_mode == RMPI_RNDV_PUT) &&
            !(req->lay && fits)) {
            /* A layout of at most one piece is packed at once into the request's own
             * buffer and goes as contiguous data: the receiver reads it in one go
             * (RNDV_GET) instead of asking for it (CTS), a round trip less. */
            if (req->lay && req->bytes <= RMPI_LAYOUT_PIECE) {
                void *b = rmpi_layout_send_bounce(req);
                if (!b)
                    return RMP_ERR_NOMEM;
                req->lay->pack(req->lay->ctx, 0, b, req->bytes);
                req->buf = b;
                req->lay = NULL;
                r->addr = (uint64_t)(uintptr_t)b;
            }
            rc = rmpi_rndv_start(e, p, req);
        } else {
            rc = rmpi_frag_start(e, p, req);
            if (sync) {
                h->flags |= RMPI_HDR_SYNC;
                req->flags |= RMPI_REQF_WAIT_FIN;
            }
        }
    }
    if (rc != RMP_SUCCESS)
        return rc;
    return send_post(e, req);
}

RMPI_MT_BODY int send_isend_locked(const void *buf, const rmp_layout_t *lay, size_t bytes,
                                   int dest, int tag, rmp_comm_t comm, uint32_t cid, int sync,
                                   rmp_request_t *out)
{
    rmpi_engine_t *e = &rmpi_eng;
    int w = rmpi_comm_world_rank(comm, dest);
    if (RMPI_UNLIKELY(e->peers[w].failed))
        return RMP_ERR_PEER_FAILED;
    rmp_request_t req = rmpi_req_alloc(e, RMPI_REQ_SEND);
    if (RMPI_UNLIKELY(!req))
        return RMP_ERR_NOMEM;
    req->peer = w;
    req->buf = (void *)buf;
    req->lay = lay;
    req->bytes = bytes;
    req->status.comm = comm;
    int rc = send_start(e, req, comm, cid, tag, sync);
    if (rc != RMP_SUCCESS && !req->done) {
        rmpi_req_free(req);
        return rc;
    }
    *out = req;
    return RMP_SUCCESS;
}

RMPI_MT_ENTRY(static, send_isend, send_isend_locked,
    (const void *buf, const rmp_layout_t *lay, size_t bytes, int dest, int tag, rmp_comm_t comm,
     uint32_t cid, int sync, rmp_request_t *out),
    (buf, lay, bytes, dest, tag, comm, cid, sync, out))

int rmpi_isend_cid(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                   uint32_t cid, rmp_request_t *out)
{
    return send_isend(buf, NULL, bytes, dest, tag, comm, cid, 0, out);
}

int rmpi_issend_cid(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                    uint32_t cid, rmp_request_t *out)
{
    return send_isend(buf, NULL, bytes, dest, tag, comm, cid, 1, out);
}

int rmpi_isend_layout_cid(const rmp_layout_t *lay, size_t bytes, int dest, int tag,
                          rmp_comm_t comm, uint32_t cid, int sync, rmp_request_t *out)
{
    return send_isend(NULL, lay, bytes, dest, tag, comm, cid, sync, out);
}

/* An eager message that fits now, without a request: RMP_SUCCESS, an error, or
 * RMPI_AGAIN (no room, or older sends to p still queued). */
RMPI_MT_BODY int send_now(rmpi_engine_t *e, rmpi_peer_t *p, const void *buf, size_t bytes,
                          uint32_t cid, int src, int tag)
{
    if (RMPI_UNLIKELY(p->failed))
        return RMP_ERR_PEER_FAILED;
    if (!rmpi_mq_empty(&p->pending))
        return RMPI_AGAIN;
    return rmpi_eager_send_now(e, p, buf, bytes, cid, src, tag);
}

static __attribute__((noinline)) int send_now_mt(rmpi_engine_t *e, rmpi_peer_t *p, const void *buf,
                                                 size_t bytes, uint32_t cid, int src, int tag)
{
    rmpi_mt_lock_take(e);
    int rc = send_now(e, p, buf, bytes, cid, src, tag);
    rmpi_mt_unlock(e);
    return rc;
}

int rmpi_send_cid(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                  uint32_t cid)
{
    rmpi_engine_t *e = &rmpi_eng;
    int w = rmpi_comm_world_rank(comm, dest);
    rmpi_peer_t *p = &e->peers[w];
    /* Fast path: an eager message that fits now needs no request at all. */
    if (rmpi_eager_fits(p, bytes)) {
        int rc = RMPI_UNLIKELY(e->thr.multiple)
                     ? send_now_mt(e, p, buf, bytes, cid, comm->rank, tag)
                     : send_now(e, p, buf, bytes, cid, comm->rank, tag);
        if (RMPI_LIKELY(rc == RMP_SUCCESS))
            return RMP_SUCCESS;
        if (rc < 0)
            return rc;
    }
    rmp_request_t req;
    int rc = rmpi_isend_cid(buf, bytes, dest, tag, comm, cid, &req);
    if (rc != RMP_SUCCESS)
        return rc;
    rc = rmpi_req_wait(req);
    if (rc != RMP_SUCCESS) {
        rmpi_req_abandon(req); /* a send is never posted: marked, freed at completion */
        return rc;
    }
    rc = req->status.error;
    rmpi_req_free(req);
    return rc;
}
