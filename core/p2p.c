/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point protocols: eager, rendezvous (receiver pulls), and
 * fragmentation for transports without a rendezvous. docs/protocols.md. */
#include <sched.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "config.h"
#include "log.h"
#include "p2p.h"
#include "bootstrap.h"

#define UX_INLINE 256

typedef struct rmpi_ux {
    rmpi_mq_elem_t mq;
    int peer;       /* world rank of the sender */
    uint8_t type;   /* RMPI_MSG_EAGER, _RTS or _FRAG_FIRST */
    size_t size;    /* whole message */
    size_t have;    /* bytes buffered so far */
    uint64_t sreq, addr, key;
    unsigned char *data;
    struct rmpi_ux *next_free;
    unsigned char inline_buf[UX_INLINE];
} rmpi_ux_t;

rmpi_peer_t *rmpi_peers;
rmpi_stats_t rmpi_stats;
static rmpi_mq_t p2p_posted;
static rmpi_mq_t p2p_unexp;
static rmpi_ux_t *ux_free_list;
static int p2p_nfailed; /* peers known to have failed */
static int p2p_npending; /* peers with a non-empty pending FIFO */

/* Has a member of comm failed? (Only asked once some peer has.) */
static int p2p_comm_lost_member(rmp_comm_t comm);

int rmpi_req_progress_gen(void);
extern int rmpi_req_have_gen;
void rmpi_req_pool_fini(void);

static rmpi_ux_t *ux_alloc(size_t size)
{
    rmpi_ux_t *u = ux_free_list;
    if (u)
        ux_free_list = u->next_free;
    else if (!(u = malloc(sizeof(*u))))
        return NULL;
    u->data = u->inline_buf;
    if (size > UX_INLINE && !(u->data = malloc(size))) {
        u->next_free = ux_free_list;
        ux_free_list = u;
        return NULL;
    }
    u->have = 0;
    return u;
}

static void ux_free(rmpi_ux_t *u)
{
    if (u->data != u->inline_buf)
        free(u->data);
    u->next_free = ux_free_list;
    ux_free_list = u;
}

/* ---- sending ---- */

static void p2p_pending_push(rmpi_peer_t *p, rmp_request_t req)
{
    if (rmpi_mq_empty(&p->pending))
        p2p_npending++;
    rmpi_mq_push(&p->pending, &req->mq);
}

/* Move as much of req's wire data as the transport takes. RMP_SUCCESS when
 * all of it left, RMPI_AGAIN when the transport is full, or an error. */
static int p2p_try_send(rmpi_peer_t *p, rmp_request_t req)
{
    if (!(req->flags & RMPI_REQF_FRAG))
        return p->iface->send(p->ep, &req->wire, req->hlen, req->payload, req->plen);
    size_t room = p->max_am - sizeof(rmpi_rts_t);
    while (req->frag_off < req->total || req->hlen == sizeof(rmpi_rts_t)) {
        size_t chunk = req->total - req->frag_off;
        if (chunk > room)
            chunk = room;
        int rc = p->iface->send(p->ep, &req->wire, req->hlen,
                                (const char *)req->payload + req->frag_off, chunk);
        if (rc != RMP_SUCCESS)
            return rc;
        req->frag_off += chunk;
        req->wire.h.type = RMPI_MSG_FRAG; /* every chunk after the first */
        req->hlen = sizeof(rmpi_hdr_t);
    }
    return RMP_SUCCESS;
}

/* The wire part of req is gone: finish what that means for its kind. */
static void p2p_sent(rmp_request_t req)
{
    if (req->kind == RMPI_REQ_CTRL) {
        rmpi_req_free(req);
        return;
    }
    if (!(req->flags & RMPI_REQF_WAIT_FIN))
        rmpi_req_complete(req);
}

static int p2p_send_fail(rmp_request_t req, int rc)
{
    req->status.error = rc;
    rmpi_error("send to rank %d failed: %s", req->peer, rmp_strerror(rc));
    if (req->kind == RMPI_REQ_CTRL)
        rmpi_req_free(req);
    else
        rmpi_req_complete(req);
    return rc;
}

/* Send req now if the peer's FIFO is empty and the transport has room,
 * otherwise queue it behind the others. */
static int p2p_post_send(rmp_request_t req)
{
    rmpi_peer_t *p = &rmpi_peers[req->peer];
    if (RMPI_UNLIKELY(p->failed)) {
        /* Nobody would ever drain its FIFO again (control messages get here
         * without the entry points' check). */
        req->status.error = RMP_ERR_PEER_FAILED;
        if (req->kind == RMPI_REQ_CTRL)
            rmpi_req_free(req);
        else
            rmpi_req_complete(req);
        return RMP_ERR_PEER_FAILED;
    }
    if (rmpi_mq_empty(&p->pending)) {
        int rc = p2p_try_send(p, req);
        if (rc == RMP_SUCCESS) {
            p2p_sent(req);
            return RMP_SUCCESS;
        }
        if (rc < 0)
            return p2p_send_fail(req, rc);
    }
    p2p_pending_push(p, req);
    return RMP_SUCCESS;
}

static int p2p_drain_pending(void)
{
    int n = 0;
    for (int w = 0; w < rmpi_g.size && p2p_npending > 0; w++) {
        rmpi_peer_t *p = &rmpi_peers[w];
        while (!rmpi_mq_empty(&p->pending)) {
            rmp_request_t req = rmpi_container_of(p->pending.head.next, struct rmp_request, mq);
            int rc = p2p_try_send(p, req);
            if (rc == RMPI_AGAIN)
                break;
            rmpi_mq_remove(&p->pending, &req->mq);
            if (rmpi_mq_empty(&p->pending))
                p2p_npending--;
            n++;
            if (rc < 0)
                p2p_send_fail(req, rc);
            else
                p2p_sent(req);
        }
    }
    return n;
}

int rmpi_send_ctrl(int peer, const void *msg, size_t len, const void *payload, size_t plen)
{
    rmp_request_t req = rmpi_req_alloc(RMPI_REQ_CTRL);
    if (!req)
        return RMP_ERR_NOMEM;
    req->peer = peer;
    memcpy(&req->wire, msg, len);
    req->hlen = (uint8_t)len;
    req->payload = payload;
    req->plen = plen;
    return p2p_post_send(req);
}

static int p2p_send_ctrl_fin(int peer, uint64_t target_req, int status)
{
    rmpi_fin_t f;
    memset(&f, 0, sizeof(f));
    f.type = RMPI_MSG_FIN;
    f.status = status;
    f.req = target_req;
    return rmpi_send_ctrl(peer, &f, sizeof(f), NULL, 0);
}

/* Send requests whose CTS arrived while the transport had no room to put. */
static rmpi_mq_t p2p_need_put;

/* Fill req's wire for a message of its buf/bytes and choose the protocol. */
static int p2p_start_send(rmp_request_t req, rmp_comm_t comm, uint32_t cid, int tag)
{
    rmpi_peer_t *p = &rmpi_peers[req->peer];
    rmpi_hdr_t *h = &req->wire.h;
    h->flags = 0;
    h->reserved = 0;
    h->cid = cid;
    h->src = comm->rank;
    h->tag = tag;
    if (req->bytes + sizeof(rmpi_hdr_t) <= p->max_am && req->bytes < p->rndv_threshold) {
        h->type = RMPI_MSG_EAGER;
        req->hlen = sizeof(rmpi_hdr_t);
        req->payload = req->buf;
        req->plen = req->bytes;
        rmpi_stats.eager_sent++;
        rmpi_stats.eager_bytes += req->bytes;
        rmpi_stats.tl_msgs[p->slot]++;
        rmpi_stats.tl_bytes[p->slot] += req->bytes;
    } else {
        rmpi_rts_t *r = &req->wire.rts;
        r->size = req->bytes;
        r->sreq = (uint64_t)(uintptr_t)req;
        r->addr = (uint64_t)(uintptr_t)req->buf;
        r->key = 0;
        req->mr = NULL;
        req->hlen = sizeof(rmpi_rts_t);
        if (p->rndv_mode == RMPI_RNDV_GET || p->rndv_mode == RMPI_RNDV_PUT) {
            h->type = RMPI_MSG_RTS;
            if (p->rndv_mode == RMPI_RNDV_GET && p->iface->mem_reg) {
                int rc = p->iface->mem_reg(p->tl, req->buf, req->bytes, &req->mr, &r->key);
                if (rc != RMP_SUCCESS)
                    return rc;
            }
            req->flags |= RMPI_REQF_WAIT_FIN;
            req->payload = NULL;
            req->plen = 0;
            rmpi_stats.rndv_sent++;
            rmpi_stats.rndv_bytes += req->bytes;
            rmpi_stats.tl_msgs[p->slot]++;
            rmpi_stats.tl_bytes[p->slot] += req->bytes;
        } else {
            h->type = RMPI_MSG_FRAG_FIRST;
            req->flags |= RMPI_REQF_FRAG;
            req->payload = req->buf;
            req->total = req->bytes;
            req->frag_off = 0;
            rmpi_stats.frag_sent++;
            rmpi_stats.frag_bytes += req->bytes;
            rmpi_stats.tl_msgs[p->slot]++;
            rmpi_stats.tl_bytes[p->slot] += req->bytes;
        }
    }
    return p2p_post_send(req);
}

static int p2p_check_send(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm)
{
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (RMPI_UNLIKELY(dest < 0 || dest >= comm->size || tag < 0 || tag > RMP_TAG_UB ||
                      (buf == NULL && bytes > 0))) {
        rmpi_warn("send: invalid argument (dest %d of %d, tag %d, buf %p, %zu bytes)", dest,
                  comm->size, tag, buf, bytes);
        return RMP_ERR_ARG;
    }
    return RMP_SUCCESS;
}

static int p2p_check_recv(const void *buf, size_t bytes, int src, int tag, rmp_comm_t comm)
{
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (RMPI_UNLIKELY((src != RMP_ANY_SOURCE && (src < 0 || src >= comm->size)) ||
                      (tag != RMP_ANY_TAG && (tag < 0 || tag > RMP_TAG_UB)) ||
                      (buf == NULL && bytes > 0))) {
        rmpi_warn("recv: invalid argument (source %d of %d, tag %d, buf %p, %zu bytes)", src,
                  comm->size, tag, buf, bytes);
        return RMP_ERR_ARG;
    }
    return RMP_SUCCESS;
}

int rmpi_isend_cid(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                   uint32_t cid, rmp_request_t *out)
{
    int w = rmpi_comm_world_rank(comm, dest);
    if (RMPI_UNLIKELY(rmpi_peers[w].failed))
        return RMP_ERR_PEER_FAILED;
    rmp_request_t req = rmpi_req_alloc(RMPI_REQ_SEND);
    if (RMPI_UNLIKELY(!req))
        return RMP_ERR_NOMEM;
    req->peer = w;
    req->buf = (void *)buf;
    req->bytes = bytes;
    int rc = p2p_start_send(req, comm, cid, tag);
    if (rc != RMP_SUCCESS && !req->done) {
        rmpi_req_free(req);
        return rc;
    }
    *out = req;
    return RMP_SUCCESS;
}

int rmpi_send_cid(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                  uint32_t cid)
{
    int w = rmpi_comm_world_rank(comm, dest);
    rmpi_peer_t *p = &rmpi_peers[w];
    if (RMPI_UNLIKELY(p->failed))
        return RMP_ERR_PEER_FAILED;
    /* Fast path: an eager message that fits now needs no request at all. */
    if (bytes + sizeof(rmpi_hdr_t) <= p->max_am && bytes < p->rndv_threshold &&
        rmpi_mq_empty(&p->pending)) {
        rmpi_hdr_t h = {RMPI_MSG_EAGER, 0, 0, cid, comm->rank, tag};
        int rc = p->iface->send(p->ep, &h, sizeof(h), buf, bytes);
        if (RMPI_LIKELY(rc == RMP_SUCCESS)) {
            rmpi_stats.eager_sent++;
            rmpi_stats.eager_bytes += bytes;
            rmpi_stats.tl_msgs[p->slot]++;
            rmpi_stats.tl_bytes[p->slot] += bytes;
            return RMP_SUCCESS;
        }
        if (rc < 0)
            return rc;
    }
    rmp_request_t req;
    int rc = rmpi_isend_cid(buf, bytes, dest, tag, comm, cid, &req);
    if (rc != RMP_SUCCESS)
        return rc;
    rc = rmpi_req_wait(req);
    if (rc != RMP_SUCCESS) {
        req->flags |= RMPI_REQF_ORPHAN;
        return rc;
    }
    rc = req->status.error;
    rmpi_req_free(req);
    return rc;
}

/* ---- receiving ---- */

static void p2p_recv_status(rmp_request_t req, const rmpi_hdr_t *h, size_t size)
{
    req->status.source = h->src;
    req->status.tag = h->tag;
    if (size > req->bytes) {
        req->status.bytes = req->bytes;
        req->status.error = RMP_ERR_TRUNCATE;
    } else {
        req->status.bytes = size;
    }
}

static void p2p_rndv_release(rmp_request_t req)
{
    if (req->mr) {
        rmpi_peers[req->peer].iface->mem_dereg(rmpi_peers[req->peer].tl, req->mr);
        req->mr = NULL;
    }
}

/* RNDV_GET: the data has arrived here; release the sender. */
static void p2p_get_done(void *arg, int status)
{
    rmp_request_t req = arg;
    if (status != RMP_SUCCESS) {
        rmpi_error("rendezvous read from rank %d failed: %s", req->peer, rmp_strerror(status));
        req->status.error = status;
    }
    int frc = p2p_send_ctrl_fin(req->peer, req->peer_req, status);
    if (frc != RMP_SUCCESS && req->status.error == RMP_SUCCESS)
        req->status.error = frc;
    rmpi_req_complete(req);
}

/* A matched RTS: pull the data (RNDV_GET) or tell the sender where to write
 * (RNDV_PUT). Truncation: only what fits moves. */
static void p2p_rndv_pull(rmp_request_t req, int src, const rmpi_rts_t *r)
{
    rmpi_peer_t *p = &rmpi_peers[src];
    p2p_recv_status(req, &r->h, r->size);
    req->peer = src;
    req->peer_req = r->sreq;
    req->mr = NULL;
    if (RMPI_UNLIKELY(p->failed)) {
        /* An RTS buffered before its sender died: the data is gone with it. */
        req->status.error = RMP_ERR_PEER_FAILED;
        rmpi_req_complete(req);
        return;
    }
    if (p->rndv_mode == RMPI_RNDV_PUT) {
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
            p2p_rndv_release(req);
            rmpi_req_complete(req);
        }
        return; /* completes on FIN */
    }
    if (req->status.bytes == 0) {
        p2p_get_done(req, RMP_SUCCESS);
        return;
    }
    int rc = p->iface->get(p->ep, req->buf, req->status.bytes, r->addr, r->key, p2p_get_done, req);
    if (rc != RMP_SUCCESS)
        p2p_get_done(req, rc);
}

/* RNDV_PUT, sender side: the data is placed at the receiver; FIN follows it
 * on the same endpoint. */
static void p2p_put_done(void *arg, int status)
{
    rmp_request_t req = arg;
    if (status != RMP_SUCCESS)
        req->status.error = status;
    p2p_send_ctrl_fin(req->peer, req->peer_req, status);
    rmpi_req_complete(req);
}

static int p2p_start_put(rmp_request_t req, size_t len, uint64_t addr, uint64_t key)
{
    rmpi_peer_t *p = &rmpi_peers[req->peer];
    int rc = p->iface->put(p->ep, req->buf, len, addr, key, p2p_put_done, req);
    if (rc == RMPI_AGAIN) {
        req->flags |= RMPI_REQF_NEED_PUT;
        req->total = len;
        req->wire.cts.addr = addr;
        req->wire.cts.key = key;
        rmpi_mq_push(&p2p_need_put, &req->mq);
        return RMP_SUCCESS;
    }
    if (rc != RMP_SUCCESS)
        p2p_put_done(req, rc);
    return RMP_SUCCESS;
}

static void p2p_on_cts(int src, const rmpi_cts_t *c)
{
    rmp_request_t req = (rmp_request_t)(uintptr_t)c->sreq;
    req->peer_req = c->rreq;
    /* More than the message would put bytes beyond the send buffer. */
    int bad_len = c->len > req->bytes;
    if (bad_len)
        rmpi_error("protocol error: rank %d asks for %llu bytes of a %zu-byte message", src,
                   (unsigned long long)c->len, req->bytes);
    if (c->status != RMP_SUCCESS || c->len == 0 || bad_len) {
        if (c->status != RMP_SUCCESS || bad_len)
            req->status.error = bad_len ? RMP_ERR_TRANSPORT : c->status;
        p2p_send_ctrl_fin(src, c->rreq, bad_len ? RMP_ERR_TRANSPORT : RMP_SUCCESS);
        rmpi_req_complete(req);
        return;
    }
    p2p_start_put(req, c->len, c->addr, c->key);
}

static int p2p_retry_puts(void)
{
    int n = 0;
    while (!rmpi_mq_empty(&p2p_need_put)) {
        rmp_request_t req = rmpi_container_of(p2p_need_put.head.next, struct rmp_request, mq);
        rmpi_peer_t *p = &rmpi_peers[req->peer];
        int rc = p->iface->put(p->ep, req->buf, req->total, req->wire.cts.addr,
                               req->wire.cts.key, p2p_put_done, req);
        if (rc == RMPI_AGAIN)
            break;
        rmpi_mq_remove(&p2p_need_put, &req->mq);
        req->flags &= (uint8_t)~RMPI_REQF_NEED_PUT;
        n++;
        if (rc != RMP_SUCCESS)
            p2p_put_done(req, rc);
    }
    return n;
}

static void p2p_frag_copy(rmp_request_t req, const void *data, size_t len)
{
    if (req->frag_off < req->bytes) {
        size_t n = req->bytes - req->frag_off;
        memcpy((char *)req->buf + req->frag_off, data, n < len ? n : len);
    }
    req->frag_off += len;
}

static void p2p_on_match(rmp_request_t req, int src, const rmpi_hdr_t *h, const void *payload,
                         size_t plen)
{
    req->peer = src;
    switch (h->type) {
    case RMPI_MSG_EAGER:
        p2p_recv_status(req, h, plen);
        if (req->status.bytes)
            memcpy(req->buf, payload, req->status.bytes);
        rmpi_req_complete(req);
        break;
    case RMPI_MSG_RTS:
        p2p_rndv_pull(req, src, (const rmpi_rts_t *)h);
        break;
    case RMPI_MSG_FRAG_FIRST: {
        const rmpi_rts_t *r = (const rmpi_rts_t *)h;
        p2p_recv_status(req, h, r->size);
        req->total = r->size;
        req->frag_off = 0;
        p2p_frag_copy(req, payload, plen);
        if (req->frag_off >= req->total)
            rmpi_req_complete(req);
        else
            rmpi_peers[src].frag_rx = req;
        break;
    }
    }
}

static void p2p_buffer_unexpected(int src, const rmpi_hdr_t *h, const void *payload,
                                  size_t plen)
{
    size_t size = plen;
    const rmpi_rts_t *r = (const rmpi_rts_t *)h;
    if (h->type == RMPI_MSG_FRAG_FIRST)
        size = r->size;
    else if (h->type == RMPI_MSG_RTS)
        size = 0;
    rmpi_ux_t *u = ux_alloc(size);
    if (!u) {
        /* The size comes from the peer: one that cannot be buffered fails
         * that peer's operations, not this whole process. */
        rmpi_error("out of memory buffering an unexpected message of %zu bytes from rank %d",
                   size, src);
        rmpi_peer_failed(src, "unexpected message too large to buffer");
        return;
    }
    u->mq.cid = h->cid;
    u->mq.src = h->src;
    u->mq.tag = h->tag;
    u->peer = src;
    u->type = h->type;
    u->size = h->type == RMPI_MSG_EAGER ? plen : r->size;
    if (h->type != RMPI_MSG_EAGER) {
        u->sreq = r->sreq;
        u->addr = r->addr;
        u->key = r->key;
    }
    if (plen)
        memcpy(u->data, payload, plen);
    u->have = plen;
    if (h->type == RMPI_MSG_FRAG_FIRST && u->have < u->size)
        rmpi_peers[src].frag_ux = u;
    rmpi_stats.unexpected++;
    rmpi_mq_push(&p2p_unexp, &u->mq);
}

void rmpi_am_handler(int src, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    const rmpi_hdr_t *h = hdr;
    const char *why;
    if (RMPI_UNLIKELY(rmpi_proto_check(hdr, hlen, plen, &why) != RMP_SUCCESS)) {
        /* Nothing more from this peer can be trusted: fail it rather than
         * read past its message or wait for what will never come. */
        rmpi_error("protocol error from rank %d: %s", src, why);
        rmpi_peer_failed(src, "protocol error");
        return;
    }
    switch (h->type) {
    case RMPI_MSG_EAGER:
    case RMPI_MSG_RTS:
    case RMPI_MSG_FRAG_FIRST: {
        rmpi_mq_elem_t *e = rmpi_mq_match_posted(&p2p_posted, h->cid, h->src, h->tag);
        if (e)
            p2p_on_match(rmpi_container_of(e, struct rmp_request, mq), src, h, payload, plen);
        else
            p2p_buffer_unexpected(src, h, payload, plen);
        break;
    }
    case RMPI_MSG_FRAG: {
        rmpi_peer_t *p = &rmpi_peers[src];
        if (p->frag_rx) {
            rmp_request_t req = p->frag_rx;
            p2p_frag_copy(req, payload, plen);
            if (req->frag_off >= req->total) {
                p->frag_rx = NULL;
                rmpi_req_complete(req);
            }
        } else if (p->frag_ux) {
            rmpi_ux_t *u = p->frag_ux;
            size_t n = u->size - u->have < plen ? u->size - u->have : plen;
            memcpy(u->data + u->have, payload, n);
            u->have += n;
            if (u->have >= u->size)
                p->frag_ux = NULL;
        } else {
            rmpi_error("protocol error: fragment from rank %d without a message", src);
        }
        break;
    }
    case RMPI_MSG_FIN: {
        const rmpi_fin_t *f = hdr;
        rmp_request_t req = (rmp_request_t)(uintptr_t)f->req;
        if (f->status != RMP_SUCCESS && f->status != RMP_ERR_TRUNCATE)
            req->status.error = f->status;
        p2p_rndv_release(req);
        rmpi_req_complete(req);
        break;
    }
    case RMPI_MSG_CTS:
        p2p_on_cts(src, hdr);
        break;
    case RMPI_MSG_RMA:
        rmpi_rma_handler(src, hdr, hlen, payload, plen);
        break;
    default:
        rmpi_error("protocol error: unknown message type %u from rank %d", h->type, src);
    }
}

/* A receive takes an unexpected message. */
static void p2p_take_unexpected(rmp_request_t req, rmpi_ux_t *u)
{
    rmpi_hdr_t h = {u->type, 0, 0, u->mq.cid, u->mq.src, u->mq.tag};
    req->peer = u->peer;
    if (u->type == RMPI_MSG_EAGER) {
        p2p_recv_status(req, &h, u->size);
        if (req->status.bytes) /* buf may be NULL for 0 bytes */
            memcpy(req->buf, u->data, req->status.bytes);
        rmpi_req_complete(req);
    } else if (u->type == RMPI_MSG_RTS) {
        rmpi_rts_t r = {h, u->size, u->sreq, u->addr, u->key};
        p2p_rndv_pull(req, u->peer, &r);
    } else {
        p2p_recv_status(req, &h, u->size);
        req->total = u->size;
        req->frag_off = 0;
        p2p_frag_copy(req, u->data, u->have);
        rmpi_peer_t *p = &rmpi_peers[u->peer];
        if (p->frag_ux == u) {
            p->frag_ux = NULL;
            p->frag_rx = req;
        } else {
            rmpi_req_complete(req);
        }
    }
    ux_free(u);
}

int rmpi_irecv_cid(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm, uint32_t cid,
                   rmp_request_t *out)
{
    rmp_request_t req = rmpi_req_alloc(RMPI_REQ_RECV);
    if (RMPI_UNLIKELY(!req))
        return RMP_ERR_NOMEM;
    req->buf = buf;
    req->bytes = bytes;
    req->mq.cid = cid;
    req->mq.src = source;
    req->mq.tag = tag;
    req->peer = source == RMP_ANY_SOURCE ? -1 : rmpi_comm_world_rank(comm, source);
    req->comm = comm;
    rmpi_mq_elem_t *e = rmpi_mq_match_unexp(&p2p_unexp, cid, source, tag, 1);
    if (e) {
        p2p_take_unexpected(req, rmpi_container_of(e, rmpi_ux_t, mq));
    } else if (RMPI_UNLIKELY(p2p_nfailed > 0 &&
                             ((req->peer >= 0 && rmpi_peers[req->peer].failed) ||
                              ((cid & 1) && p2p_comm_lost_member(comm))))) {
        rmpi_req_free(req);
        return RMP_ERR_PEER_FAILED;
    } else {
        rmpi_mq_push(&p2p_posted, &req->mq);
    }
    *out = req;
    return RMP_SUCCESS;
}

void rmpi_req_abandon(rmp_request_t req)
{
    if (req->done) {
        rmpi_req_free(req);
    } else if (req->kind == RMPI_REQ_RECV && req->mq.next != &req->mq) {
        rmpi_mq_remove(&p2p_posted, &req->mq); /* still unmatched: withdraw */
        rmpi_req_free(req);
    } else {
        req->flags |= RMPI_REQF_ORPHAN;
    }
}

int rmpi_recv_cid(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm, uint32_t cid,
                  rmp_status_t *st)
{
    rmp_request_t req;
    int rc = rmpi_irecv_cid(buf, bytes, source, tag, comm, cid, &req);
    if (rc != RMP_SUCCESS)
        return rc;
    rc = rmpi_req_wait(req);
    if (rc != RMP_SUCCESS) {
        rmpi_req_abandon(req);
        return rc;
    }
    if (st)
        *st = req->status;
    rc = req->status.error;
    rmpi_req_free(req);
    return rc;
}

/* ---- progress ---- */

/* Oversubscribed idling (see rmpi_progress): polls that found nothing since the last event,
 * when that streak began, and the current sleep (0: not sleeping yet). */
static unsigned p2p_idle;
static double p2p_idle_since;
static long p2p_sleep_ns;

void rmpi_progress_active(void)
{
    p2p_idle = 0;
    p2p_sleep_ns = 0;
}

int rmpi_progress(void)
{
    int n = 0;
    for (int i = 0; i < rmpi_g.num_polled; i++)
        n += rmpi_g.polled[i].progress(rmpi_g.polled[i].tl);
    if (p2p_npending)
        n += p2p_drain_pending();
    if (RMPI_UNLIKELY(!rmpi_mq_empty(&p2p_need_put)))
        n += p2p_retry_puts();
    if (rmpi_req_have_gen)
        n += rmpi_req_progress_gen();
    if (RMPI_UNLIKELY(rmpi_g.yield_when_idle)) {
        /* More ranks than cores: give the core away while idle, and once
         * idle for over 2 ms (a rank parked in a barrier or a receive while
         * others work) sleep, 20 us at first, then longer up to 0.5 ms, so
         * that ranks with work keep the cores. Active ranks never stay idle
         * that long, so they never sleep. */
        if (n > 0) {
            rmpi_progress_active();
        } else if (p2p_sleep_ns) {
            struct timespec ts = {0, p2p_sleep_ns};
            nanosleep(&ts, NULL);
            if (p2p_sleep_ns < 500000)
                p2p_sleep_ns *= 2; /* up to 0.5 ms */
        } else {
            if (p2p_idle++ == 0)
                p2p_idle_since = rmpi_now();
            else if ((p2p_idle & 255) == 0 && rmpi_now() - p2p_idle_since > 2e-3)
                p2p_sleep_ns = 20000;
            sched_yield();
        }
    }
    return n;
}

/* ---- public API ---- */

RMP_EXPORT int rmp_send(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm)
{
    int rc = p2p_check_send(buf, bytes, dest, tag, comm);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    return rmpi_send_cid(buf, bytes, dest, tag, comm, comm->cid);
}

RMP_EXPORT int rmp_isend(const void *buf, size_t bytes, int dest, int tag, rmp_comm_t comm,
                         rmp_request_t *req)
{
    int rc = p2p_check_send(buf, bytes, dest, tag, comm);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    if (RMPI_UNLIKELY(!req))
        return RMP_ERR_ARG;
    return rmpi_isend_cid(buf, bytes, dest, tag, comm, comm->cid, req);
}

RMP_EXPORT int rmp_recv(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm,
                        rmp_status_t *st)
{
    int rc = p2p_check_recv(buf, bytes, source, tag, comm);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    return rmpi_recv_cid(buf, bytes, source, tag, comm, comm->cid, st);
}

RMP_EXPORT int rmp_irecv(void *buf, size_t bytes, int source, int tag, rmp_comm_t comm,
                         rmp_request_t *req)
{
    int rc = p2p_check_recv(buf, bytes, source, tag, comm);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    if (RMPI_UNLIKELY(!req))
        return RMP_ERR_ARG;
    return rmpi_irecv_cid(buf, bytes, source, tag, comm, comm->cid, req);
}

static int p2p_finish(rmp_request_t *req, rmp_status_t *st)
{
    rmp_request_t r = *req;
    if (st)
        *st = r->status;
    int rc = r->status.error;
    rmpi_req_free(r);
    *req = RMP_REQUEST_NULL;
    return rc;
}

RMP_EXPORT int rmp_wait(rmp_request_t *req, rmp_status_t *st)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!req)
        return RMP_ERR_ARG;
    if (*req == RMP_REQUEST_NULL) {
        if (st)
            *st = (rmp_status_t){RMP_ANY_SOURCE, RMP_ANY_TAG, 0, RMP_SUCCESS};
        return RMP_SUCCESS;
    }
    rc = rmpi_req_wait(*req);
    if (rc != RMP_SUCCESS)
        return rc;
    return p2p_finish(req, st);
}

RMP_EXPORT int rmp_test(rmp_request_t *req, int *done, rmp_status_t *st)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!req || !done)
        return RMP_ERR_ARG;
    if (*req == RMP_REQUEST_NULL) {
        *done = 1;
        return RMP_SUCCESS;
    }
    if (!(*req)->done)
        rmpi_progress();
    *done = (*req)->done;
    if (!*done)
        return RMP_SUCCESS;
    return p2p_finish(req, st);
}

RMP_EXPORT int rmp_waitall(size_t n, rmp_request_t reqs[], rmp_status_t sts[])
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (n > 0 && !reqs)
        return RMP_ERR_ARG;
    int first_err = RMP_SUCCESS;
    for (size_t i = 0; i < n; i++) {
        int r = rmp_wait(&reqs[i], sts ? &sts[i] : NULL);
        if (r != RMP_SUCCESS && first_err == RMP_SUCCESS)
            first_err = r;
    }
    return first_err;
}

RMP_EXPORT int rmp_sendrecv(const void *sbuf, size_t sbytes, int dest, int stag, void *rbuf,
                            size_t rbytes, int source, int rtag, rmp_comm_t comm,
                            rmp_status_t *st)
{
    int rc = p2p_check_send(sbuf, sbytes, dest, stag, comm);
    if (rc == RMP_SUCCESS)
        rc = p2p_check_recv(rbuf, rbytes, source, rtag, comm);
    if (rc != RMP_SUCCESS)
        return rc;
    rmp_request_t rr, sr;
    rc = rmpi_irecv_cid(rbuf, rbytes, source, rtag, comm, comm->cid, &rr);
    if (rc != RMP_SUCCESS)
        return rc;
    rc = rmpi_isend_cid(sbuf, sbytes, dest, stag, comm, comm->cid, &sr);
    if (rc != RMP_SUCCESS) {
        rmp_wait(&rr, st);
        return rc;
    }
    int rc2 = rmp_wait(&sr, NULL);
    rc = rmp_wait(&rr, st);
    return rc != RMP_SUCCESS ? rc : rc2;
}

RMP_EXPORT int rmp_iprobe(int source, int tag, rmp_comm_t comm, int *flag, rmp_status_t *st)
{
    int rc = p2p_check_recv(NULL, 0, source, tag, comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!flag)
        return RMP_ERR_ARG;
    rmpi_mq_elem_t *e = rmpi_mq_match_unexp(&p2p_unexp, comm->cid, source, tag, 0);
    if (!e) {
        rmpi_progress();
        e = rmpi_mq_match_unexp(&p2p_unexp, comm->cid, source, tag, 0);
    }
    *flag = e != NULL;
    if (e && st) {
        rmpi_ux_t *u = rmpi_container_of(e, rmpi_ux_t, mq);
        *st = (rmp_status_t){e->src, e->tag, u->size, RMP_SUCCESS};
    }
    return RMP_SUCCESS;
}

int rmpi_comm_lost_member(rmp_comm_t comm)
{
    return p2p_comm_lost_member(comm);
}

RMP_EXPORT int rmp_probe(int source, int tag, rmp_comm_t comm, rmp_status_t *st)
{
    int rc = p2p_check_recv(NULL, 0, source, tag, comm);
    if (rc != RMP_SUCCESS)
        return rc;
    int peer = source == RMP_ANY_SOURCE ? -1 : rmpi_comm_world_rank(comm, source);
    rmpi_waiter_t wt;
    rmpi_waiter_init(&wt);
    /* No request to point at: tell the SIGUSR1 report by hand. */
    rmpi_diag_t outer = rmpi_blocked_other;
    rmpi_blocked_other = (rmpi_diag_t){"rmp_probe", peer, tag, (long)comm->cid, 0};
    for (;;) {
        rmpi_mq_elem_t *e = rmpi_mq_match_unexp(&p2p_unexp, comm->cid, source, tag, 0);
        if (e) {
            if (st) {
                rmpi_ux_t *u = rmpi_container_of(e, rmpi_ux_t, mq);
                *st = (rmp_status_t){e->src, e->tag, u->size, RMP_SUCCESS};
            }
            break;
        }
        /* A dead sender's message never comes (what it sent before is found above). */
        if (peer >= 0 && rmpi_peers[peer].failed) {
            rc = RMP_ERR_PEER_FAILED;
            break;
        }
        rmpi_progress();
        rc = rmpi_waiter_poll(&wt);
        if (rc != RMP_SUCCESS)
            break;
    }
    rmpi_blocked_other = outer;
    return rc;
}

RMP_EXPORT int rmp_progress(void)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    rmpi_progress();
    return RMP_SUCCESS;
}

/* ---- peer failure ---- */

void rmpi_req_foreach(void (*fn)(rmp_request_t req, void *arg), void *arg);

static int p2p_comm_has(rmp_comm_t comm, int world)
{
    if (!comm || !comm->world)
        return 1; /* the world communicator */
    for (int i = 0; i < comm->size; i++)
        if (comm->world[i] == world)
            return 1;
    return 0;
}

/* Has a member of comm failed? (Only asked once some peer has.) */
static int p2p_comm_lost_member(rmp_comm_t comm)
{
    if (RMPI_LIKELY(p2p_nfailed == 0))
        return 0;
    for (int i = 0; i < comm->size; i++)
        if (rmpi_peers[rmpi_comm_world_rank(comm, i)].failed)
            return 1;
    return 0;
}

static void p2p_fail_req(rmp_request_t req, void *arg)
{
    int peer = *(int *)arg;
    if (req->kind == RMPI_REQ_GEN)
        return;
    /* A collective on a communicator that lost a member cannot complete,
     * whichever member this rank happens to wait for. */
    int coll_recv = req->kind == RMPI_REQ_RECV && (req->mq.cid & 1) &&
                    req->mq.next != &req->mq && p2p_comm_has(req->comm, peer);
    if (req->peer != peer && !coll_recv)
        return;
    if (req->kind == RMPI_REQ_RECV && req->mq.next != &req->mq)
        rmpi_mq_remove(&p2p_posted, &req->mq);
    else if (req->flags & RMPI_REQF_NEED_PUT)
        rmpi_mq_remove(&p2p_need_put, &req->mq);
    req->status.error = RMP_ERR_PEER_FAILED;
    if (req->kind == RMPI_REQ_CTRL)
        rmpi_req_free(req);
    else
        rmpi_req_complete(req);
}

void rmpi_peer_failed(int peer, const char *why)
{
    if (peer < 0 || peer >= rmpi_g.size || !rmpi_peers || rmpi_peers[peer].failed)
        return;
    rmpi_peer_t *p = &rmpi_peers[peer];
    p->failed = 1;
    p2p_nfailed++;
    rmpi_warn("rank %d failed (%s): its operations return %s", peer, why,
              rmp_strerror(RMP_ERR_PEER_FAILED));
    /* Unsent messages to it go nowhere. */
    while (!rmpi_mq_empty(&p->pending)) {
        rmp_request_t req = rmpi_container_of(p->pending.head.next, struct rmp_request, mq);
        rmpi_mq_remove(&p->pending, &req->mq);
        if (rmpi_mq_empty(&p->pending))
            p2p_npending--;
        req->status.error = RMP_ERR_PEER_FAILED;
        if (req->kind == RMPI_REQ_CTRL)
            rmpi_req_free(req);
        else
            rmpi_req_complete(req);
    }
    p->frag_rx = NULL;
    /* Receives from it, rendezvous waiting on it. */
    rmpi_req_foreach(p2p_fail_req, &peer);
}

void rmpi_check_failures(void)
{
    int ranks[16];
    int n;
    while ((n = rmpi_boot_failed_ranks(ranks, 16)) > 0)
        for (int i = 0; i < n; i++)
            rmpi_peer_failed(ranks[i], "reported by the launcher");
    for (int w = 0; w < rmpi_g.size; w++) {
        rmpi_peer_t *p = &rmpi_peers[w];
        if (w != rmpi_g.rank && !p->failed && p->iface && p->iface->ep_alive &&
            p->iface->ep_alive(p->ep) == RMP_ERR_PEER_FAILED)
            rmpi_peer_failed(w, "process gone");
    }
}

/* ---- lifetime ---- */

int rmpi_p2p_init(void)
{
    rmpi_mq_init(&p2p_posted);
    rmpi_mq_init(&p2p_unexp);
    rmpi_mq_init(&p2p_need_put);
    p2p_npending = 0;
    p2p_nfailed = 0;
    memset(&rmpi_stats, 0, sizeof(rmpi_stats));
    return RMP_SUCCESS;
}

static int p2p_tls_flushed(void)
{
    for (int i = 0; i < rmpi_g.num_tls; i++)
        if (rmpi_g.tls[i].iface->flushed &&
            rmpi_g.tls[i].iface->flushed(rmpi_g.tls[i].tl) != RMP_SUCCESS)
            return 0;
    return 1;
}

/* Sends whose caller gave up (RMP_TIMEOUT) are not pushed out at teardown:
 * the peer that never took them may be in its own finalize already. */
static void p2p_drop_orphans(void)
{
    for (int w = 0; w < rmpi_g.size && p2p_npending > 0; w++) {
        rmpi_peer_t *p = &rmpi_peers[w];
        rmpi_mq_elem_t *e = p->pending.head.next;
        while (e != &p->pending.head) {
            rmp_request_t req = rmpi_container_of(e, struct rmp_request, mq);
            e = e->next;
            if (!(req->flags & RMPI_REQF_ORPHAN))
                continue;
            rmpi_mq_remove(&p->pending, &req->mq);
            if (rmpi_mq_empty(&p->pending))
                p2p_npending--;
            rmpi_req_free(req);
        }
    }
}

/* Push out everything queued (control messages included) before teardown. */
int rmpi_p2p_drain(void)
{
    double deadline = rmpi_now() + 10.0;
    rmpi_waiter_t wt;
    rmpi_waiter_init(&wt);
    wt.deadline = 0; /* its own deadline below, not RMP_TIMEOUT */
    p2p_drop_orphans();
    while (p2p_npending > 0 || !p2p_tls_flushed()) {
        rmpi_progress();
        rmpi_waiter_poll(&wt);
        if (rmpi_now() > deadline) {
            rmpi_warn("finalize: %d peers still have unsent messages", p2p_npending);
            return RMP_ERR_TIMEOUT;
        }
    }
    return RMP_SUCCESS;
}

void rmpi_p2p_fini(void)
{
    while (!rmpi_mq_empty(&p2p_unexp)) {
        rmpi_mq_elem_t *e = p2p_unexp.head.next;
        rmpi_mq_remove(&p2p_unexp, e);
        ux_free(rmpi_container_of(e, rmpi_ux_t, mq));
    }
    while (ux_free_list) {
        rmpi_ux_t *u = ux_free_list;
        ux_free_list = u->next_free;
        free(u);
    }
    rmpi_req_pool_fini();
}

size_t rmpi_p2p_unexpected_high_water(void)
{
    return p2p_unexp.high_water;
}
