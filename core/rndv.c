/* SPDX-License-Identifier: BSD-3-Clause */
/* Rendezvous protocols, get and put (core/rndv.h, docs/protocols.md). */
#include <string.h>

#include "am.h"
#include "engine.h"
#include "failure.h"
#include "layout.h"
#include "log.h"
#include "rndv.h"
#include "send.h"

int rmpi_rndv_start(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req)
{
    rmpi_rts_t *r = &req->wire.rts;
    r->h.type = RMPI_MSG_RTS;
    if (req->lay) { /* the receiver answers with CTS whatever the transport's mode */
        r->h.flags |= RMPI_HDR_LAYOUT;
        r->addr = 0;
    } else if (p->rndv_mode == RMPI_RNDV_GET && p->iface->mem_reg) {
        int rc = p->iface->mem_reg(p->tl, req->buf, req->bytes, &req->mr, &r->key);
        if (rc != RMP_SUCCESS)
            return rc;
    }
    req->flags |= RMPI_REQF_WAIT_FIN;
    req->payload = NULL;
    req->plen = 0;
    RMPI_STATS_SENT(e, p, rndv, req->bytes);
    return RMP_SUCCESS;
}

static void rndv_release(rmpi_engine_t *e, rmp_request_t req)
{
    if (req->mr) {
        e->peers[req->peer].iface->mem_dereg(e->peers[req->peer].tl, req->mr);
        req->mr = NULL;
    }
}

/* RNDV_GET: the data has arrived here; release the sender. */
static void rndv_get_done(void *arg, int status)
{
    rmp_request_t req = arg;
    if (status != RMP_SUCCESS) {
        rmpi_error("rendezvous read from rank %d failed: %s", req->peer, rmp_strerror(status));
        req->status.error = status;
    }
    int frc = rmpi_send_fin(req->peer, req->peer_req, status);
    if (frc != RMP_SUCCESS && req->status.error == RMP_SUCCESS)
        req->status.error = frc;
    rmpi_req_complete(req);
}

/* RNDV_PUT, receiver side: tell the sender where to write. */
static void rndv_send_cts(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req, int src,
                          const rmpi_rts_t *r)
{
    rmpi_cts_t c;
    memset(&c, 0, sizeof(c));
    c.type = RMPI_MSG_CTS;
    c.sreq = r->sreq;
    c.rreq = (uint64_t)(uintptr_t)req;
    c.addr = (uint64_t)(uintptr_t)req->buf;
    c.len = req->status.bytes;
    int rc = RMP_SUCCESS;
    if (c.len > 0 && p->iface->mem_reg)
        rc = p->iface->mem_reg(p->tl, req->buf, c.len, &req->mr, &c.key);
    if (rc != RMP_SUCCESS) {
        /* The sender still needs an answer: a CTS of 0 bytes with the error. */
        req->status.error = rc;
        c.status = rc;
        c.len = 0;
    }
    rc = rmpi_send_ctrl(src, &c, sizeof(c), NULL, 0);
    if (rc != RMP_SUCCESS) {
        req->status.error = rc;
        rndv_release(e, req);
        rmpi_req_complete(req);
    }
    /* otherwise it completes on FIN */
}

/* A matched RTS: pull the data (RNDV_GET) or tell the sender where to write
 * (RNDV_PUT). Truncation: only what fits moves. */
static void rndv_pull(rmpi_engine_t *e, rmp_request_t req, int src, const rmpi_rts_t *r)
{
    rmpi_peer_t *p = &e->peers[src];
    rmpi_recv_status(req, &r->h, r->size);
    req->peer = src;
    req->peer_req = r->sreq;
    req->mr = NULL;
    if (RMPI_UNLIKELY(p->failed)) {
        /* An RTS buffered before its sender died: the data is gone with it. */
        req->status.error = RMP_ERR_PEER_FAILED;
        rmpi_req_complete(req);
        return;
    }
    /* The sender's data in a layout cannot be read: it writes what the CTS asks. */
    int put = p->rndv_mode == RMPI_RNDV_PUT || (r->h.flags & RMPI_HDR_LAYOUT);
    if (req->lay && req->status.bytes > 0) {
        rmpi_layout_pull(e, p, req, r, put); /* piece by piece through a bounce buffer */
        return;
    }
    if (put) {
        rndv_send_cts(e, p, req, src, r);
        return;
    }
    if (req->status.bytes == 0) {
        rndv_get_done(req, RMP_SUCCESS);
        return;
    }
    int rc = p->iface->get(p->ep, req->buf, req->status.bytes, r->addr, r->key, rndv_get_done,
                           req);
    if (rc != RMP_SUCCESS)
        rndv_get_done(req, rc);
}

void rmpi_rndv_take(rmpi_engine_t *e, rmp_request_t req, const rmpi_hdr_t *h, const rmpi_ux_t *u)
{
    rmpi_rts_t r = {*h, u->size, u->sreq, u->addr, u->key};
    rndv_pull(e, req, u->peer, &r);
}

static void rndv_on_rts(rmpi_engine_t *e, int src, const void *hdr, size_t hlen,
                        const void *payload, size_t plen)
{
    (void)hlen;
    const rmpi_rts_t *r = hdr;
    RMPI_STATS_RECVD(e, r->size);
    rmp_request_t req = rmpi_recv_match(e, &r->h);
    if (req) {
        req->peer = src;
        rndv_pull(e, req, src, r);
        return;
    }
    rmpi_ux_t *u = rmpi_recv_buffer(e, src, &r->h, 0, r->size, payload, plen);
    if (u) {
        u->sreq = r->sreq;
        u->addr = r->addr;
        u->key = r->key;
    }
}

/* RNDV_PUT, sender side. A CTS names a range of the message and where it goes
 * (a contiguous receive: all of it; a layout receive: its next piece). The range
 * goes in one put, or for a layout sender piece by piece through its own bounce
 * buffer (core/layout.h); a FIN follows it on the same endpoint. State while it
 * moves: [frag_off, total) still to go, wire.cts the CTS, plen the piece in hand. */
static int rndv_put_more(rmpi_engine_t *e, rmp_request_t req);

/* The CTS's range is done (or failed): FIN the receiver, and unless another CTS
 * follows, the send is complete. */
static void rndv_range_done(rmp_request_t req)
{
    int status = req->status.error;
    rmpi_send_fin(req->peer, req->peer_req, status);
    if (status == RMP_SUCCESS && (req->flags & RMPI_REQF_MORE)) {
        req->flags &= (uint16_t)~RMPI_REQF_MORE; /* the next CTS asks for the next piece */
        return;
    }
    rmpi_req_complete(req);
}

/* ... and a copy that found the peer's process gone fails its other operations too. */
static void rndv_range_done_lost(rmp_request_t req)
{
    int lost = req->status.error == RMP_ERR_PEER_FAILED, peer = req->peer;
    rndv_range_done(req);
    if (lost)
        rmpi_peer_failed(peer, "process gone");
}

static void rndv_put_done(void *arg, int status)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmp_request_t req = arg;
    if (status == RMP_SUCCESS) {
        req->frag_off += req->plen;
    } else {
        req->status.error = status;
        req->frag_off = req->total; /* nothing more moves */
    }
    req->plen = 0;
    if (req->flags & RMPI_REQF_IN_CALL) { /* completed inside put(): its loop goes on */
        req->flags |= RMPI_REQF_CALLED_BACK;
        return;
    }
    rndv_put_more(e, req);
}

/* A loop, not recursion: a transport may complete a put before it returns.
 * Returns 1 when the transport had no room (req is queued on need_put). */
static int rndv_put_more(rmpi_engine_t *e, rmp_request_t req)
{
    rmpi_peer_t *p = &e->peers[req->peer];
    while (req->frag_off < req->total) {
        size_t n = req->total - req->frag_off;
        const void *src = (const char *)req->buf + req->frag_off;
        if (req->lay && p->copyv && req->plen == 0) { /* long segments: one copy */
            int rc;
            struct iovec r = {(void *)(uintptr_t)(req->wire.cts.addr +
                                                  (req->frag_off - req->wire.cts.off)), n};
            size_t got = rmpi_layout_put_direct(e, req, req->frag_off, n, &r, 1, 0, 0, &rc);
            if (rc != RMP_SUCCESS) {
                req->status.error = rc;
                break;
            }
            if (got) {
                req->frag_off += got;
                continue;
            }
        }
        if (req->lay) {
            if (n > RMPI_LAYOUT_PIECE)
                n = RMPI_LAYOUT_PIECE;
            if (!rmpi_layout_send_bounce(req)) {
                req->status.error = RMP_ERR_NOMEM;
                break;
            }
            if (req->plen == 0) /* not packed yet (a put that found no room keeps it) */
                req->lay->pack(req->lay->ctx, req->frag_off, req->ctx, n);
            src = req->ctx;
        }
        req->plen = n;
        req->flags |= RMPI_REQF_IN_CALL;
        int rc = p->iface->put(p->ep, src, n,
                               req->wire.cts.addr + (req->frag_off - req->wire.cts.off),
                               req->wire.cts.key, rndv_put_done, req);
        req->flags &= (uint16_t)~RMPI_REQF_IN_CALL;
        if (rc == RMPI_AGAIN) {
            req->flags |= RMPI_REQF_NEED_PUT;
            rmpi_mq_push(&e->p2p.need_put, &req->mq);
            return 1;
        }
        if (rc != RMP_SUCCESS) {
            req->status.error = rc;
            break;
        }
        if (!(req->flags & RMPI_REQF_CALLED_BACK))
            return 0; /* rndv_put_done goes on when it completes */
        req->flags &= (uint16_t)~RMPI_REQF_CALLED_BACK;
    }
    rndv_range_done_lost(req);
    return 0;
}

/* A CTS with the receiver's segments (layout.h): the range in straight copies. */
static void rndv_put_segs(rmpi_engine_t *e, rmp_request_t req, const rmpi_cts_t *c,
                          const void *payload, size_t plen)
{
    rmpi_peer_t *p = &e->peers[req->peer];
    struct iovec seg[RMPI_IOV_MAX];
    size_t n = c->nseg, sum = 0, pos = 0;
    int rc = RMP_SUCCESS;
    if (!p->copyv || n > RMPI_IOV_MAX || plen != n * sizeof(seg[0])) {
        rmpi_error("protocol error: rank %d sent a list of %zu segments (%zu bytes)", req->peer,
                   n, plen);
        rc = RMP_ERR_TRANSPORT;
        n = 0;
    }
    memcpy(seg, payload, n * sizeof(seg[0])); /* the payload may be unaligned */
    for (size_t i = 0; i < n; i++)
        sum += seg[i].iov_len;
    if (rc == RMP_SUCCESS && sum != c->len) {
        rmpi_error("protocol error: rank %d's segments hold %zu bytes, not %llu", req->peer, sum,
                   (unsigned long long)c->len);
        rc = RMP_ERR_TRANSPORT;
    }
    while (rc == RMP_SUCCESS && pos < c->len) {
        size_t got = rmpi_layout_put_direct(e, req, c->off + pos, c->len - pos, seg, n, pos, 1,
                                            &rc);
        if (rc == RMP_SUCCESS && got == 0)
            rc = RMP_ERR_INTERNAL;
        pos += got;
    }
    if (rc != RMP_SUCCESS)
        req->status.error = rc;
    rndv_range_done_lost(req);
}

static void rndv_on_cts(rmpi_engine_t *e, int src, const void *hdr, size_t hlen,
                        const void *payload, size_t plen)
{
    (void)hlen;
    const rmpi_cts_t *c = hdr;
    rmp_request_t req = (rmp_request_t)(uintptr_t)c->sreq;
    req->peer_req = c->rreq;
    /* More than the message would put bytes beyond the send buffer. */
    int bad_len = c->off > req->bytes || c->len > req->bytes - c->off;
    if (bad_len)
        rmpi_error("protocol error: rank %d asks for bytes %llu-%llu of a %zu-byte message", src,
                   (unsigned long long)c->off, (unsigned long long)(c->off + c->len),
                   req->bytes);
    if (c->status != RMP_SUCCESS || c->len == 0 || bad_len) {
        if (c->status != RMP_SUCCESS || bad_len)
            req->status.error = bad_len ? RMP_ERR_TRANSPORT : c->status;
        rmpi_send_fin(src, c->rreq, bad_len ? RMP_ERR_TRANSPORT : RMP_SUCCESS);
        rmpi_req_complete(req);
        return;
    }
    req->wire.cts = *c;
    req->frag_off = c->off;
    req->total = c->off + c->len;
    req->plen = 0;
    if (c->more)
        req->flags |= RMPI_REQF_MORE;
    if (c->nseg)
        rndv_put_segs(e, req, c, payload, plen);
    else
        rndv_put_more(e, req);
}

int rmpi_rndv_retry_puts(rmpi_engine_t *e)
{
    int n = 0;
    while (!rmpi_mq_empty(&e->p2p.need_put)) {
        rmp_request_t req =
            rmpi_container_of(e->p2p.need_put.head.next, struct rmp_request, mq);
        rmpi_mq_remove(&e->p2p.need_put, &req->mq);
        req->flags &= (uint16_t)~RMPI_REQF_NEED_PUT;
        if (rndv_put_more(e, req)) /* still no room: queued again */
            break;
        n++;
    }
    return n;
}

void rmpi_rndv_withdraw(rmpi_engine_t *e, rmp_request_t req)
{
    rmpi_mq_remove(&e->p2p.need_put, &req->mq);
}

/* FIN: the side that waited (sender for GET, receiver for PUT) completes. */
static void rndv_on_fin(rmpi_engine_t *e, int src, const void *hdr, size_t hlen,
                        const void *payload, size_t plen)
{
    (void)src, (void)hlen, (void)payload, (void)plen;
    const rmpi_fin_t *f = hdr;
    rmp_request_t req = (rmp_request_t)(uintptr_t)f->req;
    if (req->lay && req->kind == RMPI_REQ_RECV) { /* a layout receive's piece has landed */
        rmpi_layout_on_fin(e, req, f->status);
        return;
    }
    if (f->status != RMP_SUCCESS && f->status != RMP_ERR_TRUNCATE)
        req->status.error = f->status;
    rndv_release(e, req);
    rmpi_req_complete(req);
}

void rmpi_rndv_register(rmpi_engine_t *e)
{
    rmpi_am_register(e, RMPI_MSG_RTS, rndv_on_rts);
    rmpi_am_register(e, RMPI_MSG_CTS, rndv_on_cts);
    rmpi_am_register(e, RMPI_MSG_FIN, rndv_on_fin);
}
