/* SPDX-License-Identifier: BSD-3-Clause */
/* Messages in the caller's layout, the receive side of a rendezvous
 * (core/layout.h, docs/protocols.md "Layouts"). */
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "log.h"
#include "send.h"

/* The piece being sent (core/frag.c), under the engine lock: whose, and which bytes. */

static void layout_send_release(rmp_request_t req)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (e->layout.req == req)
        e->layout.req = NULL;
}

const unsigned char *rmpi_layout_piece_out(rmpi_engine_t *e, rmp_request_t req, size_t off,
                                           size_t len)
{
    if (!e->layout.buf && !(e->layout.buf = malloc(RMPI_LAYOUT_PIECE)))
        return NULL;
    if (e->layout.req != req || e->layout.off != off || e->layout.len != len) {
        req->lay->pack(req->lay->ctx, off, e->layout.buf, len);
        e->layout.req = req;
        e->layout.off = off;
        e->layout.len = len;
        req->release = layout_send_release; /* a later request at this address packs anew */
    }
    return e->layout.buf;
}

static void layout_zeros(void *ctx, size_t off, void *dst, size_t len)
{
    (void)ctx, (void)off;
    memset(dst, 0, len);
}

static void layout_drop(void *ctx, size_t off, const void *src, size_t len)
{
    (void)ctx, (void)off, (void)src, (void)len;
}

const rmp_layout_t rmpi_layout_discard = {layout_zeros, layout_drop, NULL};

void rmpi_layout_fini(rmpi_engine_t *e)
{
    free(e->layout.buf);
    e->layout.buf = NULL;
    e->layout.req = NULL;
}

/* The receive's bounce buffer (req->ctx) and its registration go with the request. */
static void layout_release(rmp_request_t req)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (req->mr) {
        e->peers[req->peer].iface->mem_dereg(e->peers[req->peer].tl, req->mr);
        req->mr = NULL;
    }
    free(req->ctx);
    req->ctx = NULL;
}

void *rmpi_layout_send_bounce(rmp_request_t req)
{
    if (!req->ctx) {
        req->ctx = malloc(RMPI_LAYOUT_PIECE);
        req->release = layout_release;
    }
    return req->ctx;
}

static int layout_failed(rmp_request_t req)
{
    return req->status.error != RMP_SUCCESS && req->status.error != RMP_ERR_TRUNCATE;
}

static size_t layout_piece(rmp_request_t req)
{
    size_t left = req->status.bytes - req->frag_off;
    return left < RMPI_LAYOUT_PIECE ? left : RMPI_LAYOUT_PIECE;
}

/* ---- RNDV_GET: read a piece, unpack it, read the next; FIN the sender at the end ---- */

static void layout_get_more(rmp_request_t req);

static void layout_get_done(void *arg, int status)
{
    rmp_request_t req = arg;
    if (status == RMP_SUCCESS) {
        req->lay->unpack(req->lay->ctx, req->frag_off, req->ctx, req->plen);
        req->frag_off += req->plen;
    } else {
        rmpi_error("rendezvous read from rank %d failed: %s", req->peer, rmp_strerror(status));
        req->status.error = status;
    }
    if (req->flags & RMPI_REQF_IN_CALL) { /* completed inside get(): its loop goes on */
        req->flags |= RMPI_REQF_CALLED_BACK;
        return;
    }
    layout_get_more(req);
}

/* A loop, not recursion: a transport may complete a get before it returns. */
static void layout_get_more(rmp_request_t req)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_peer_t *p = &e->peers[req->peer];
    while (!layout_failed(req) && req->frag_off < req->status.bytes) {
        req->plen = layout_piece(req);
        req->flags |= RMPI_REQF_IN_CALL;
        int rc = p->iface->get(p->ep, req->ctx, req->plen, req->wire.rts.addr + req->frag_off,
                               req->wire.rts.key, layout_get_done, req);
        req->flags &= (uint8_t)~RMPI_REQF_IN_CALL;
        if (rc != RMP_SUCCESS) {
            rmpi_error("rendezvous read from rank %d failed: %s", req->peer, rmp_strerror(rc));
            req->status.error = rc;
            break;
        }
        if (!(req->flags & RMPI_REQF_CALLED_BACK))
            return; /* layout_get_done goes on when it completes */
        req->flags &= (uint8_t)~RMPI_REQF_CALLED_BACK;
    }
    int rc = layout_failed(req) ? req->status.error : RMP_SUCCESS;
    int frc = rmpi_send_fin(req->peer, req->peer_req, rc);
    if (frc != RMP_SUCCESS && !layout_failed(req))
        req->status.error = frc;
    rmpi_req_complete(req);
}

/* ---- RNDV_PUT: one CTS per piece into the bounce buffer, its FIN brings the next ----
 * A message of several pieces gets two halves: the CTS of piece k + 1 goes out before
 * piece k is unpacked, so the sender packs and writes the next piece meanwhile. */

static int layout_halves(rmp_request_t req)
{
    return req->status.bytes > RMPI_LAYOUT_PIECE;
}

/* Where the piece starting at stream offset off lands. */
static char *layout_slot(rmp_request_t req, size_t off)
{
    char *b = req->ctx;
    return layout_halves(req) ? b + ((off / RMPI_LAYOUT_PIECE) & 1) * RMPI_LAYOUT_PIECE : b;
}

/* Ask for the piece at frag_off (or, status not RMP_SUCCESS, tell the sender this receive
 * failed). Returns the error of sending the CTS (then it is the request's). */
static int layout_send_cts(rmp_request_t req, int status)
{
    rmpi_cts_t c;
    memset(&c, 0, sizeof(c));
    c.type = RMPI_MSG_CTS;
    c.status = status;
    c.sreq = req->peer_req;
    c.rreq = (uint64_t)(uintptr_t)req;
    if (status == RMP_SUCCESS) {
        req->plen = layout_piece(req);
        c.addr = (uint64_t)(uintptr_t)layout_slot(req, req->frag_off);
        c.key = req->wire.rts.key;
        c.len = req->plen;
        c.off = req->frag_off;
        c.more = req->frag_off + req->plen < req->status.bytes;
    } else {
        req->plen = 0; /* the sender answers with a FIN that ends the receive */
    }
    int rc = rmpi_send_ctrl(req->peer, &c, sizeof(c), NULL, 0);
    if (rc != RMP_SUCCESS)
        req->status.error = rc;
    return rc;
}

void rmpi_layout_on_fin(rmp_request_t req, int status)
{
    if (status != RMP_SUCCESS && status != RMP_ERR_TRUNCATE && !layout_failed(req))
        req->status.error = status;
    if (layout_failed(req)) {
        rmpi_req_complete(req);
        return;
    }
    size_t off = req->frag_off, len = req->plen;
    req->frag_off += req->plen;
    int more = req->frag_off < req->status.bytes;
    if (more && layout_send_cts(req, RMP_SUCCESS) != RMP_SUCCESS)
        more = 0;
    req->lay->unpack(req->lay->ctx, off, layout_slot(req, off), len);
    if (!more)
        rmpi_req_complete(req);
}

void rmpi_layout_pull(rmpi_peer_t *p, rmp_request_t req, const rmpi_rts_t *r, int put)
{
    size_t piece = layout_piece(req);
    if (put && layout_halves(req))
        piece = 2 * RMPI_LAYOUT_PIECE;
    int rc = RMP_SUCCESS;
    req->frag_off = 0;
    req->wire.rts = *r;
    req->ctx = malloc(piece);
    req->release = layout_release;
    if (!req->ctx) {
        rmpi_error("no memory for a %zu-byte receive piece", piece);
        rc = RMP_ERR_NOMEM;
    }
    if (!put) {
        if (rc != RMP_SUCCESS)
            req->status.error = rc; /* layout_get_more FINs the sender with it */
        layout_get_more(req);
        return;
    }
    req->wire.rts.key = 0;
    if (rc == RMP_SUCCESS && p->iface->mem_reg)
        rc = p->iface->mem_reg(p->tl, req->ctx, piece, &req->mr, &req->wire.rts.key);
    if (rc != RMP_SUCCESS)
        req->status.error = rc;
    if (layout_send_cts(req, rc) != RMP_SUCCESS)
        rmpi_req_complete(req);
}
