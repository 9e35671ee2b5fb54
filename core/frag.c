/* SPDX-License-Identifier: BSD-3-Clause */
/* Fragmentation protocol (core/frag.h, docs/protocols.md). */
#include <string.h>

#include "am.h"
#include "frag.h"
#include "layout.h"
#include "log.h"
#include "send.h"

int rmpi_frag_start(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req)
{
    req->wire.h.type = RMPI_MSG_FRAG_FIRST;
    req->flags |= RMPI_REQF_FRAG;
    req->payload = req->buf;
    req->total = req->bytes;
    req->frag_off = 0;
    RMPI_STATS_SENT(e, p, frag, req->bytes);
    return RMP_SUCCESS;
}

int rmpi_frag_send(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req)
{
    size_t room = p->max_am - sizeof(rmpi_rts_t);
    if (req->lay && room > RMPI_LAYOUT_PIECE)
        room = RMPI_LAYOUT_PIECE;
    while (req->frag_off < req->total || req->hlen == sizeof(rmpi_rts_t)) {
        size_t chunk = req->total - req->frag_off;
        if (chunk > room)
            chunk = room;
        const void *data = (const char *)req->payload + req->frag_off;
        if (req->lay) { /* packed into the engine's bounce buffer as it leaves */
            data = rmpi_layout_piece_out(e, req, req->frag_off, chunk);
            if (!data)
                return RMP_ERR_NOMEM;
        }
        int rc = p->iface->send(p->ep, &req->wire, req->hlen, data, chunk);
        if (rc != RMP_SUCCESS)
            return rc;
        req->frag_off += chunk;
        req->wire.h.type = RMPI_MSG_FRAG; /* every chunk after the first */
        req->hlen = sizeof(rmpi_hdr_t);
    }
    return RMP_SUCCESS;
}

static void frag_copy(rmp_request_t req, const void *data, size_t len)
{
    if (req->frag_off < req->bytes) {
        size_t n = req->bytes - req->frag_off;
        if (n > len)
            n = len;
        if (req->lay)
            req->lay->unpack(req->lay->ctx, req->frag_off, data, n);
        else
            memcpy((char *)req->buf + req->frag_off, data, n);
    }
    req->frag_off += len;
}

/* A fragmented receive has all its bytes; a synchronous sender waits for FIN. */
static void frag_done(rmp_request_t req)
{
    if (req->flags & RMPI_REQF_SYNC_ACK) {
        int rc = rmpi_send_fin(req->peer, req->peer_req, RMP_SUCCESS);
        if (rc != RMP_SUCCESS && req->status.error == RMP_SUCCESS)
            req->status.error = rc;
    }
    rmpi_req_complete(req);
}

/* req starts receiving a message of size bytes (sender's request sreq), of
 * which len are at data. */
static void frag_begin(rmp_request_t req, const rmpi_hdr_t *h, size_t size, uint64_t sreq,
                       const void *data, size_t len)
{
    if (h->flags & RMPI_HDR_SYNC) {
        req->flags |= RMPI_REQF_SYNC_ACK;
        req->peer_req = sreq;
    }
    rmpi_recv_status(req, h, size);
    req->total = size;
    req->frag_off = 0;
    frag_copy(req, data, len);
}

void rmpi_frag_take(rmpi_engine_t *e, rmp_request_t req, const rmpi_hdr_t *h, rmpi_ux_t *u)
{
    frag_begin(req, h, u->size, u->sreq, u->data, u->have);
    rmpi_peer_t *p = &e->peers[u->peer];
    if (p->frag_ux == u) {
        p->frag_ux = NULL;
        p->frag_rx = req;
    } else {
        frag_done(req);
    }
}

static void frag_on_first(rmpi_engine_t *e, int src, const void *hdr, size_t hlen, const void *payload,
                          size_t plen)
{
    (void)hlen;
    const rmpi_rts_t *r = hdr;
    RMPI_STATS_RECVD(e, r->size);
    rmp_request_t req = rmpi_recv_match(e, &r->h);
    if (req) {
        req->peer = src;
        frag_begin(req, &r->h, r->size, r->sreq, payload, plen);
        if (req->frag_off >= req->total)
            frag_done(req);
        else
            e->peers[src].frag_rx = req;
        return;
    }
    rmpi_ux_t *u = rmpi_recv_buffer(e, src, &r->h, r->size, r->size, payload, plen);
    if (!u)
        return;
    u->sreq = r->sreq;
    u->addr = r->addr;
    u->key = r->key;
    if (u->have < u->size)
        e->peers[src].frag_ux = u;
}

static void frag_on_next(rmpi_engine_t *e, int src, const void *hdr, size_t hlen, const void *payload,
                         size_t plen)
{
    (void)hdr, (void)hlen;
    rmpi_peer_t *p = &e->peers[src];
    if (p->frag_rx) {
        rmp_request_t req = p->frag_rx;
        frag_copy(req, payload, plen);
        if (req->frag_off >= req->total) {
            p->frag_rx = NULL;
            frag_done(req);
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
}

void rmpi_frag_register(rmpi_engine_t *e)
{
    rmpi_am_register(e, RMPI_MSG_FRAG_FIRST, frag_on_first);
    rmpi_am_register(e, RMPI_MSG_FRAG, frag_on_next);
}
