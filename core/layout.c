/* SPDX-License-Identifier: BSD-3-Clause */
/* Messages in the caller's layout, the receive side of a rendezvous
 * (core/layout.h, docs/protocols.md "Layouts"). */
#include <stdlib.h>
#include <string.h>

#include "failure.h"
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

const rmp_layout_t rmpi_layout_discard = {.pack = layout_zeros, .unpack = layout_drop};

void rmpi_layout_fini(rmpi_engine_t *e)
{
    free(e->layout.buf);
    e->layout.buf = NULL;
    e->layout.req = NULL;
}

/* ---- Straight copies between the two processes' segments (transport copyv) ---- */

size_t rmpi_layout_segs(const rmp_layout_t *lay, size_t off, size_t len, struct iovec *iov,
                        size_t max, size_t *n, size_t min)
{
    *n = 0;
    if (!lay->segments || len == 0 || max == 0)
        return 0;
    size_t got = lay->segments(lay->ctx, off, len, iov, max, n);
    if (got == 0 || got > len || *n == 0 || *n > max || got / *n < min) {
        *n = 0;
        return 0;
    }
    return got;
}

/* The part of the segment list r[0..nr) that holds its bytes [pos, pos + len). */
static size_t layout_slice(const struct iovec *r, size_t nr, size_t pos, size_t len,
                           struct iovec *out)
{
    size_t i = 0, k = 0;
    while (i < nr && pos >= r[i].iov_len)
        pos -= r[i++].iov_len;
    for (; i < nr && len > 0; i++, pos = 0) {
        size_t l = r[i].iov_len - pos < len ? r[i].iov_len - pos : len;
        out[k].iov_base = (char *)r[i].iov_base + pos;
        out[k++].iov_len = l;
        len -= l;
    }
    return k;
}

static int layout_copyv(rmpi_peer_t *p, int peer, int write, const struct iovec *l, size_t nl,
                        const struct iovec *r, size_t nr)
{
    int rc = p->iface->copyv(p->ep, write, l, nl, r, nr);
    if (rc != RMP_SUCCESS)
        rmpi_error("rendezvous copy %s rank %d failed: %s", write ? "to" : "from", peer,
                   rmp_strerror(rc));
    return rc;
}

size_t rmpi_layout_put_direct(rmpi_engine_t *e, rmp_request_t req, size_t off, size_t len,
                              const struct iovec *remote, size_t nr, size_t rpos, int pack,
                              int *rc)
{
    struct iovec l[RMPI_IOV_MAX], r[RMPI_IOV_MAX];
    size_t nl = 0, got = len;
    *rc = RMP_SUCCESS;
    rmpi_peer_t *p = &e->peers[req->peer];
    if (!req->lay) {
        l[0].iov_base = (char *)req->buf + off;
        l[0].iov_len = len;
        nl = 1;
    } else if (!(got = rmpi_layout_segs(req->lay, off, len, l, RMPI_IOV_MAX, &nl,
                                        p->copyv_local_min))) {
        if (!pack)
            return 0;
        void *b = rmpi_layout_send_bounce(req); /* short segments: pack, then one copy */
        if (!b) {
            *rc = RMP_ERR_NOMEM;
            return 0;
        }
        got = len < RMPI_LAYOUT_PIECE ? len : RMPI_LAYOUT_PIECE;
        req->lay->pack(req->lay->ctx, off, b, got);
        l[0].iov_base = b;
        l[0].iov_len = got;
        nl = 1;
    }
    size_t rn = layout_slice(remote, nr, rpos, got, r);
    *rc = layout_copyv(p, req->peer, 1, l, nl, r, rn);
    if (*rc != RMP_SUCCESS)
        return 0;
    if (req->lay && l[0].iov_base != req->ctx)
        e->stats.direct_bytes += got;
    return got;
}

/* RNDV_GET into the receive's own segments where they are long: moves from frag_off on
 * and returns 1 when all (or an error) is done, 0 to go on through the bounce buffer. */
static int layout_get_direct(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req)
{
    while (req->frag_off < req->status.bytes) {
        struct iovec l[RMPI_IOV_MAX];
        size_t n;
        size_t got = rmpi_layout_segs(req->lay, req->frag_off, req->status.bytes - req->frag_off,
                                      l, RMPI_IOV_MAX, &n, p->copyv_local_min);
        if (!got)
            return 0;
        struct iovec r = {(void *)(uintptr_t)(req->wire.rts.addr + req->frag_off), got};
        int rc = layout_copyv(p, req->peer, 0, l, n, &r, 1);
        if (rc != RMP_SUCCESS) {
            req->status.error = rc;
            return 1;
        }
        req->frag_off += got;
        e->stats.direct_bytes += got;
    }
    return 1;
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

/* All read (or failed): FIN the sender, complete. */
static void layout_get_end(rmp_request_t req)
{
    int rc = layout_failed(req) ? req->status.error : RMP_SUCCESS;
    int frc = rmpi_send_fin(req->peer, req->peer_req, rc);
    if (frc != RMP_SUCCESS && !layout_failed(req))
        req->status.error = frc;
    int lost = req->status.error == RMP_ERR_PEER_FAILED;
    int peer = req->peer;
    rmpi_req_complete(req);
    if (lost) /* a copy found the process gone: its other operations fail too */
        rmpi_peer_failed(peer, "process gone");
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
        req->flags &= (uint16_t)~RMPI_REQF_IN_CALL;
        if (rc != RMP_SUCCESS) {
            rmpi_error("rendezvous read from rank %d failed: %s", req->peer, rmp_strerror(rc));
            req->status.error = rc;
            break;
        }
        if (!(req->flags & RMPI_REQF_CALLED_BACK))
            return; /* layout_get_done goes on when it completes */
        req->flags &= (uint16_t)~RMPI_REQF_CALLED_BACK;
    }
    layout_get_end(req);
}

/* ---- RNDV_PUT: one CTS per piece into the bounce buffer, its FIN brings the next ----
 * A message of several pieces gets two halves: the CTS of piece k + 1 goes out before
 * piece k is unpacked, so the sender packs and writes the next piece meanwhile. */

static int layout_halves(rmp_request_t req)
{
    return req->status.bytes > RMPI_LAYOUT_PIECE;
}

/* Where the next piece asked into the bounce buffer lands (next), and where the one
 * asked last landed (!next): the halves alternate. */
static char *layout_slot(rmp_request_t req, int next)
{
    char *b = req->ctx;
    int slot1 = (req->flags & RMPI_REQF_SLOT1) != 0;
    int second = next ? slot1 : !slot1;
    return layout_halves(req) && second ? b + RMPI_LAYOUT_PIECE : b;
}

/* Ask for the piece at frag_off (or, status not RMP_SUCCESS, tell the sender this receive
 * failed). Returns the error of sending the CTS (then it is the request's). */
static int layout_send_cts(rmpi_engine_t *e, rmp_request_t req, int status)
{
    rmpi_cts_t c;
    memset(&c, 0, sizeof(c));
    c.type = RMPI_MSG_CTS;
    c.status = status;
    c.sreq = req->peer_req;
    c.rreq = (uint64_t)(uintptr_t)req;
    struct iovec seg[RMPI_IOV_MAX];
    size_t nseg = 0;
    if (status == RMP_SUCCESS) {
        rmpi_peer_t *p = &e->peers[req->peer];
        req->plen = layout_piece(req);
        size_t got = 0, max = (p->max_am - sizeof(c)) / sizeof(seg[0]);
        if (p->copyv && p->max_am > sizeof(c)) /* the sender writes into the segments */
            got = rmpi_layout_segs(req->lay, req->frag_off, req->plen, seg,
                                   max < RMPI_IOV_MAX ? max : RMPI_IOV_MAX, &nseg,
                                   p->copyv_remote_min);
        if (got) {
            req->plen = got;
            req->flags |= RMPI_REQF_DIRECT;
            c.nseg = (uint8_t)nseg;
        } else {
            req->flags &= (uint16_t)~RMPI_REQF_DIRECT;
            c.addr = (uint64_t)(uintptr_t)layout_slot(req, 1);
            c.key = req->wire.rts.key;
            req->flags ^= RMPI_REQF_SLOT1;
        }
        c.len = req->plen;
        c.off = req->frag_off;
        c.more = req->frag_off + req->plen < req->status.bytes;
    } else {
        req->plen = 0; /* the sender answers with a FIN that ends the receive */
    }
    int rc = rmpi_send_ctrl(req->peer, &c, sizeof(c), nseg ? seg : NULL, nseg * sizeof(seg[0]));
    if (rc != RMP_SUCCESS)
        req->status.error = rc;
    return rc;
}

void rmpi_layout_on_fin(rmpi_engine_t *e, rmp_request_t req, int status)
{
    if (status != RMP_SUCCESS && status != RMP_ERR_TRUNCATE && !layout_failed(req))
        req->status.error = status;
    if (layout_failed(req)) {
        rmpi_req_complete(req);
        return;
    }
    size_t off = req->frag_off, len = req->plen;
    const char *slot = req->flags & RMPI_REQF_DIRECT ? NULL : layout_slot(req, 0);
    req->frag_off += req->plen;
    int more = req->frag_off < req->status.bytes;
    if (more && layout_send_cts(e, req, RMP_SUCCESS) != RMP_SUCCESS)
        more = 0;
    if (slot) /* a piece that landed in place needs no unpacking */
        req->lay->unpack(req->lay->ctx, off, slot, len);
    else
        e->stats.direct_bytes += len;
    if (!more)
        rmpi_req_complete(req);
}

void rmpi_layout_pull(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req, const rmpi_rts_t *r,
                      int put)
{
    size_t piece = layout_piece(req);
    if (put && layout_halves(req))
        piece = 2 * RMPI_LAYOUT_PIECE;
    int rc = RMP_SUCCESS;
    req->frag_off = 0;
    req->wire.rts = *r;
    req->flags &= (uint16_t)~(RMPI_REQF_DIRECT | RMPI_REQF_SLOT1);
    if (!put && p->copyv && layout_get_direct(e, p, req)) {
        layout_get_end(req);
        return;
    }
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
    if (layout_send_cts(e, req, rc) != RMP_SUCCESS)
        rmpi_req_complete(req);
}
