/* SPDX-License-Identifier: BSD-3-Clause */
/* Endpoints: the operations posted on a peer's RC queue pair.
 *
 * Eager messages are SEND_WITH_IMM (imm: header length and returned credits)
 * into the receiver's SRQ: inline when they fit max_inline_data, else copied
 * into a registered bounce buffer. A sender holds one credit per receive
 * buffer the receiver has set aside for it; without credits send() returns
 * RMPI_AGAIN and the core queues, so a receiver that does not poll is never
 * driven into receiver-not-ready retries. Inline sends without resources are
 * signalled one in VERBS_SIGNAL_EVERY; anything holding a buffer, a
 * registration or a callback is signalled. A completion retires every slot up
 * to it, in order (RC completes in order). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "verbs_int.h"

int rmpi_verbs_connect(rmpi_tl_t *tl_, int peer, const void *a, size_t alen, rmpi_ep_t **out,
                       rmpi_tl_caps_t *caps)
{
    verbs_tl_t *tl = (verbs_tl_t *)tl_;
    (void)caps;
    if (peer < 0 || peer >= tl->neps)
        return RMP_ERR_INTERNAL;
    verbs_ep_t *ep = &tl->eps[peer];
    int rc = rmpi_verbs_addr_decode(a, alen, &ep->addr);
    if (rc != RMP_SUCCESS) {
        rmpi_error("verbs: rank %d published a malformed address", peer);
        return rc;
    }
    *out = &ep->base; /* connected at first use (rmpi_verbs_ep_ready) */
    return RMP_SUCCESS;
}

/* RMP_SUCCESS when ep can carry traffic; else starts or waits for the
 * connection (RMPI_AGAIN), or returns why it never will. */
int rmpi_verbs_ep_ready(verbs_ep_t *ep)
{
    switch (ep->state) {
    case VEP_CONNECTED:
        return RMP_SUCCESS;
    case VEP_IDLE: {
        int rc = rmpi_verbs_cm_connect(ep);
        if (rc != RMP_SUCCESS) {
            rmpi_verbs_ep_set_state(ep, VEP_FAILED);
            ep->fail_status = rc;
            return rc;
        }
        return RMPI_AGAIN;
    }
    case VEP_WAIT_PEER:
        if (rmpi_now() > ep->deadline) {
            rmpi_warn("verbs: rank %d did not connect as agreed; connecting to it", ep->base.peer);
            rmpi_verbs_ep_set_state(ep, VEP_IDLE);
        }
        return RMPI_AGAIN;
    case VEP_FAILED:
        return ep->fail_status;
    default:
        return RMPI_AGAIN;
    }
}

void rmpi_verbs_ep_established(verbs_ep_t *ep)
{
    rmpi_verbs_ep_set_state(ep, VEP_CONNECTED);
    ep->attempts = 0;
    rmpi_debug("verbs: connected to rank %d (qp %u, inline %u)", ep->base.peer, ep->qp->qp_num,
               ep->tl->max_inline);
}

/* The connection is gone: flush the QP and complete everything outstanding
 * with status, now (flushed completions that arrive later are ignored). */
void rmpi_verbs_ep_fail(verbs_ep_t *ep, int status)
{
    if (ep->state == VEP_FAILED)
        return;
    if (ep->state == VEP_CONNECTED)
        rmpi_warn("verbs: connection to rank %d lost: %s", ep->base.peer, rmp_strerror(status));
    else
        rmpi_error("verbs: connecting to rank %d failed: %s", ep->base.peer, rmp_strerror(status));
    if (ep->id && ep->qp)
        rdma_disconnect(ep->id);
    rmpi_verbs_ep_set_state(ep, VEP_FAILED);
    ep->fail_status = status;
    ep->report = 1; /* the core hears of it from progress(), never from inside send() */
    ep->tl->need_report = 1;
    if (ep->ops && ep->sq_head > ep->sq_tail)
        rmpi_verbs_retire(ep, ep->sq_head - 1, status);
    rmpi_verbs_rdma_fail(ep, status); /* the pieces never posted */
}

/* A signalled zero-byte RDMA write: it needs no key and no receive buffer, and the peer's
 * HCA acknowledges it whatever its process is doing; its completion retires every
 * unsignalled slot before it. A dead peer makes it fail with retry exceeded. */
int rmpi_verbs_post_probe(verbs_ep_t *ep)
{
    if (ep->sq_head - ep->sq_tail >= VERBS_SQ_DEPTH)
        return RMPI_AGAIN;
    struct ibv_send_wr wr;
    memset(&wr, 0, sizeof(wr));
    rmpi_verbs_slot(ep, ep->sq_head, VERBS_OP_PUT);
    wr.wr_id = ep->sq_head << 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    int rc = rmpi_verbs_post(ep, &wr);
    if (rc == RMP_SUCCESS) {
        ep->sq_head++;
        ep->unsignaled = 0;
    }
    return rc;
}

/* Finalize: everything posted must be acknowledged by the peer before the
 * queue pairs are destroyed. Trailing unsignalled sends are retired by one
 * signalled zero-byte RDMA write (needs no key). */
int rmpi_verbs_flushed(rmpi_tl_t *tl_)
{
    verbs_tl_t *tl = (verbs_tl_t *)tl_;
    int rc = RMP_SUCCESS;
    for (int i = 0; i < tl->neps; i++) {
        verbs_ep_t *ep = &tl->eps[i];
        if (ep->state != VEP_CONNECTED || (ep->sq_tail == ep->sq_head && !ep->rq_head))
            continue;
        rc = RMPI_AGAIN;
        if (ep->unsignaled != 0)
            (void)rmpi_verbs_post_probe(ep);
    }
    return rc;
}

int rmpi_verbs_post(verbs_ep_t *ep, struct ibv_send_wr *wr)
{
    struct ibv_send_wr *bad;
    int rc = ibv_post_send(ep->qp, wr, &bad);
    if (RMPI_UNLIKELY(rc != 0)) {
        rmpi_error("verbs: ibv_post_send to rank %d: %s", ep->base.peer, strerror(rc));
        return rc == ENOMEM ? RMPI_AGAIN : RMP_ERR_TRANSPORT;
    }
    return RMP_SUCCESS;
}

verbs_op_t *rmpi_verbs_slot(verbs_ep_t *ep, uint64_t seq, int kind)
{
    verbs_op_t *op = &ep->ops[seq % VERBS_SQ_DEPTH];
    op->kind = (uint8_t)kind;
    op->buf = NULL;
    op->reg = NULL;
    op->bytes = 0;
    op->cb = NULL;
    op->arg = NULL;
    return op;
}

int rmpi_verbs_send(rmpi_ep_t *ep_, const void *hdr, size_t hlen, const void *payload,
                    size_t plen)
{
    verbs_ep_t *ep = (verbs_ep_t *)ep_;
    if (RMPI_UNLIKELY(ep->state != VEP_CONNECTED)) {
        int rc = rmpi_verbs_ep_ready(ep);
        if (rc != RMP_SUCCESS)
            return rc;
    }
    verbs_tl_t *tl = ep->tl;
    size_t len = hlen + plen;
    if (RMPI_UNLIKELY(len > VERBS_BUF_SIZE || hlen > 255 || hlen == 0))
        return RMP_ERR_INTERNAL;
    if (ep->credits <= 0 || ep->sq_head - ep->sq_tail >= VERBS_SQ_DEPTH)
        return RMPI_AGAIN;
    int credits = ep->to_return < 0xffff ? ep->to_return : 0xffff;
    struct ibv_sge sge[2];
    struct ibv_send_wr wr;
    memset(&wr, 0, sizeof(wr));
    verbs_op_t *op = rmpi_verbs_slot(ep, ep->sq_head, VERBS_OP_SEND);
    wr.wr_id = ep->sq_head << 1;
    wr.sg_list = sge;
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.imm_data = htonl(VERBS_IMM(hlen, credits, 0));
    if (len <= tl->max_inline) {
        sge[0] = (struct ibv_sge){(uint64_t)(uintptr_t)hdr, (uint32_t)hlen, 0};
        sge[1] = (struct ibv_sge){(uint64_t)(uintptr_t)payload, (uint32_t)plen, 0};
        wr.num_sge = plen ? 2 : 1;
        wr.send_flags = IBV_SEND_INLINE;
        if (ep->unsignaled + 1 >= VERBS_SIGNAL_EVERY)
            wr.send_flags |= IBV_SEND_SIGNALED;
    } else {
        verbs_buf_t *b = rmpi_verbs_send_buf(tl);
        if (!b)
            return RMPI_AGAIN; /* every bounce buffer is in flight; completions free them */
        memcpy(b->data, hdr, hlen);
        if (plen)
            memcpy(b->data + hlen, payload, plen);
        sge[0] = (struct ibv_sge){(uint64_t)(uintptr_t)b->data, (uint32_t)len, b->lkey};
        wr.num_sge = 1;
        wr.send_flags = IBV_SEND_SIGNALED;
        op->buf = b;
    }
    int rc = rmpi_verbs_post(ep, &wr);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS)) {
        if (op->buf)
            rmpi_verbs_send_buf_put(tl, op->buf);
        op->buf = NULL;
        return rc;
    }
    ep->sq_head++;
    ep->credits--;
    ep->to_return -= credits;
    ep->unsignaled = (wr.send_flags & IBV_SEND_SIGNALED) ? 0 : ep->unsignaled + 1;
    return RMP_SUCCESS;
}

/* Give credits back to a peer we have nothing else to send to. Uses no
 * credit: the receiver keeps VERBS_CREDIT_SPARE buffers for these. */
int rmpi_verbs_send_credits(verbs_ep_t *ep)
{
    if (ep->state != VEP_CONNECTED || ep->sq_head - ep->sq_tail >= VERBS_SQ_DEPTH)
        return RMPI_AGAIN;
    int credits = ep->to_return < 0xffff ? ep->to_return : 0xffff;
    struct ibv_send_wr wr;
    memset(&wr, 0, sizeof(wr));
    rmpi_verbs_slot(ep, ep->sq_head, VERBS_OP_SEND);
    wr.wr_id = ep->sq_head << 1;
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.imm_data = htonl(VERBS_IMM(0, credits, 1));
    wr.send_flags = IBV_SEND_INLINE;
    if (ep->unsignaled + 1 >= VERBS_SIGNAL_EVERY)
        wr.send_flags |= IBV_SEND_SIGNALED;
    int rc = rmpi_verbs_post(ep, &wr);
    if (rc != RMP_SUCCESS)
        return rc;
    ep->sq_head++;
    ep->to_return -= credits;
    ep->unsignaled = (wr.send_flags & IBV_SEND_SIGNALED) ? 0 : ep->unsignaled + 1;
    return RMP_SUCCESS;
}

/* QP number -> endpoint, for receive completions (the SRQ is shared). Open
 * addressing, insert only: a stale entry is recognised by its QP number. */
int rmpi_verbs_qpmap_add(verbs_tl_t *tl, uint32_t qpn, verbs_ep_t *ep)
{
    size_t h = (qpn * 2654435761u) & tl->qpmap_mask;
    for (size_t i = 0; i <= tl->qpmap_mask; i++, h = (h + 1) & tl->qpmap_mask) {
        if (!tl->qpmap[h].ep || tl->qpmap[h].qpn == qpn) {
            tl->qpmap[h].qpn = qpn;
            tl->qpmap[h].ep = ep;
            return RMP_SUCCESS;
        }
    }
    rmpi_error("verbs: queue pair table full");
    return RMP_ERR_INTERNAL;
}

verbs_ep_t *rmpi_verbs_qpmap_find(verbs_tl_t *tl, uint32_t qpn)
{
    size_t h = (qpn * 2654435761u) & tl->qpmap_mask;
    for (size_t i = 0; i <= tl->qpmap_mask; i++, h = (h + 1) & tl->qpmap_mask) {
        verbs_ep_t *ep = tl->qpmap[h].ep;
        if (!ep)
            return NULL;
        if (tl->qpmap[h].qpn == qpn)
            return ep->qp && ep->qp->qp_num == qpn ? ep : NULL;
    }
    return NULL;
}
