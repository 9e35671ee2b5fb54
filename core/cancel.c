/* SPDX-License-Identifier: BSD-3-Clause */
/* Cancel of a send (rmp_request_cancel on a send request, MPI_Cancel).
 * Nothing here is on the message path: a send costs the same whether or not
 * it may be cancelled later. A send still in its peer's FIFO is taken back at
 * once; otherwise an RMPI_MSG_CANCEL goes to the receiver behind the message
 * (same pair, same order, so the message is there before it), which drops the
 * message if no receive has it yet and answers. The sender's request then
 * completes with RMP_ERR_CANCELLED, or as it would have anyway. A send that had
 * completed locally (eager, or fragments all out) waits for that answer again. */
#include <string.h>

#include "am.h"
#include "cancel.h"
#include "engine.h"
#include "mt.h"
#include "peer.h"
#include "recv.h"
#include "request.h"
#include "send.h"

static void cancel_release_mr(rmpi_engine_t *e, rmp_request_t req)
{
    if (req->mr) {
        e->peers[req->peer].iface->mem_dereg(e->peers[req->peer].tl, req->mr);
        req->mr = NULL;
    }
}

static void cancel_complete(rmpi_engine_t *e, rmp_request_t req)
{
    cancel_release_mr(e, req);
    req->status.source = RMP_ANY_SOURCE;
    req->status.tag = RMP_ANY_TAG;
    req->status.bytes = 0;
    req->status.error = RMP_ERR_CANCELLED;
    rmpi_req_complete(req);
}

/* Nothing of req has reached the transport: it is still whole in its FIFO. */
static int cancel_untouched(rmpi_engine_t *e, rmpi_peer_t *p, rmp_request_t req)
{
    if (req->mq.next == &req->mq || (req->flags & RMPI_REQF_NEED_PUT))
        return 0;
    if ((req->flags & RMPI_REQF_FRAG) &&
        (req->frag_off != 0 || req->hlen != sizeof(rmpi_rts_t)))
        return 0;
    rmpi_mq_remove(&p->pending, &req->mq);
    if (rmpi_mq_empty(&p->pending))
        e->p2p.npending--;
    return 1;
}

RMPI_MT_BODY int send_cancel_locked(rmp_request_t req)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_peer_t *p = &e->peers[req->peer];
    if (req->kind != RMPI_REQ_SEND || p->failed)
        return 0;
    int done = req->done;
    if (!done && cancel_untouched(e, p, req)) {
        cancel_complete(e, req);
        return 1;
    }
    int frag = (req->flags & RMPI_REQF_FRAG) != 0;
    int eager = !frag && req->wire.h.type == RMPI_MSG_EAGER;
    /* Waiting for a FIN (rendezvous, synchronous fragments): the FIN or the
     * answer completes it. Completed locally, or fragments still going out (the
     * request then waits as if for a FIN, which never comes): the answer does.
     * Anything else is moving right now and completes by itself: not cancelled. */
    int waiting;
    if (done) {
        if (!eager && !frag)
            return 0;
        waiting = 1;
    } else if (req->flags & RMPI_REQF_WAIT_FIN) {
        waiting = 0;
    } else if (frag) {
        req->flags |= RMPI_REQF_WAIT_FIN;
        waiting = 1;
    } else {
        return 0;
    }
    rmpi_cancel_t m;
    memset(&m, 0, sizeof(m));
    m.type = RMPI_MSG_CANCEL;
    m.op = RMPI_CANCEL_REQ;
    m.waiting = (uint8_t)waiting;
    m.cid = req->wire.h.cid;
    m.src = req->wire.h.src;
    m.tag = req->wire.h.tag;
    m.size = req->bytes;
    m.sreq = (uint64_t)(uintptr_t)req;
    if (done)
        __atomic_store_n(&req->done, 0, __ATOMIC_RELAXED);
    /* The payload names an eager message; req->buf stays the caller's until its wait. */
    int rc = rmpi_send_ctrl(req->peer, &m, sizeof(m), eager ? req->buf : NULL,
                            eager ? req->bytes : 0);
    if (rc != RMP_SUCCESS && waiting && !req->done)
        rmpi_req_complete(req); /* the peer failed: no answer will come */
    return 0;
}

RMPI_MT_ENTRY(, rmpi_send_cancel, send_cancel_locked, (rmp_request_t req), (req))

static void cancel_on_msg(rmpi_engine_t *e, int src, const void *hdr, size_t hlen, const void *payload,
                          size_t plen)
{
    (void)hlen;
    const rmpi_cancel_t *m = hdr;
    if (m->op == RMPI_CANCEL_REQ) {
        rmpi_cancel_t r = *m;
        r.op = RMPI_CANCEL_REP;
        r.cancelled = (uint8_t)rmpi_recv_cancel_unexp(e, src, m, payload, plen);
        rmpi_send_ctrl(src, &r, sizeof(r), NULL, 0);
        return;
    }
    rmp_request_t req = (rmp_request_t)(uintptr_t)m->sreq;
    if (m->cancelled)
        cancel_complete(e, req);
    else if (m->waiting)
        rmpi_req_complete(req); /* it had completed before the cancel: as it was */
    /* else a FIN completes it (or has) */
}

void rmpi_cancel_register(rmpi_engine_t *e)
{
    rmpi_am_register(e, RMPI_MSG_CANCEL, cancel_on_msg);
}
