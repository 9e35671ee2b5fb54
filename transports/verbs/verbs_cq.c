/* SPDX-License-Identifier: BSD-3-Clause */
/* Completions: one CQ for every QP's sends and the SRQ's receives, polled by
 * progress(). Receive work requests carry their buffer's address | 1, send
 * work requests their slot sequence << 1 (a failed completion has no valid
 * opcode, so the low bit is what tells them apart). */
#include <arpa/inet.h>
#include <string.h>

#include "log.h"
#include "verbs_int.h"

int rmpi_verbs_wc_status(enum ibv_wc_status s)
{
    switch (s) {
    case IBV_WC_SUCCESS:
        return RMP_SUCCESS;
    case IBV_WC_REM_ACCESS_ERR:
    case IBV_WC_LOC_PROT_ERR:
    case IBV_WC_LOC_ACCESS_ERR:
    case IBV_WC_REM_INV_REQ_ERR:
    case IBV_WC_MW_BIND_ERR:
        return RMP_ERR_ACCESS;
    default: /* retry exceeded (peer gone), flushed, remote abort, ... */
        return RMP_ERR_PEER_FAILED;
    }
}

/* Complete send-queue slots up to seq upto, in order. The slot is released
 * before its callback runs: the callback may post on this endpoint. */
void rmpi_verbs_retire(verbs_ep_t *ep, uint64_t upto, int status)
{
    verbs_tl_t *tl = ep->tl;
    while (ep->sq_tail <= upto && ep->sq_tail < ep->sq_head) {
        verbs_op_t op = ep->ops[ep->sq_tail % VERBS_SQ_DEPTH];
        ep->sq_tail++;
        ep->rdma_bytes -= op.bytes;
        if (op.buf)
            rmpi_verbs_send_buf_put(tl, op.buf);
        if (op.reg)
            rcache_put(tl->rcache, op.reg);
        if (op.cb)
            op.cb(op.arg, status);
    }
}

static void cq_recv(verbs_tl_t *tl, struct ibv_wc *wc)
{
    verbs_buf_t *b = (verbs_buf_t *)(uintptr_t)(wc->wr_id & ~(uint64_t)1);
    tl->rx_posted--;
    if (RMPI_LIKELY(wc->status == IBV_WC_SUCCESS)) {
        verbs_ep_t *ep = rmpi_verbs_qpmap_find(tl, wc->qp_num);
        verbs_imm_t m;
        if (RMPI_UNLIKELY(ep != NULL && rmpi_verbs_imm_decode(ntohl(wc->imm_data), wc->byte_len,
                                                              VERBS_BUF_SIZE, &m) != RMP_SUCCESS)) {
            /* A header longer than the message would be read past it. */
            rmpi_error("verbs: malformed message from rank %d", ep->base.peer);
            rmpi_verbs_ep_fail(ep, RMP_ERR_TRANSPORT);
        } else if (RMPI_LIKELY(ep != NULL)) {
            ep->credits += (int)m.credits;
            ep->rx_count++; /* a sign of life (verbs_live.c) */
            if (!m.only) {
                tl->cb(ep->base.peer, b->data, m.hlen, b->data + m.hlen, m.plen);
                ep->to_return++;
                if (ep->to_return >= VERBS_CREDITS / 2 && !ep->credit_listed) {
                    ep->credit_listed = 1;
                    ep->next_credit = tl->credit_list;
                    tl->credit_list = ep;
                }
            }
        } else {
            rmpi_warn("verbs: message on unknown queue pair %u dropped", wc->qp_num);
        }
    } else if (wc->status != IBV_WC_WR_FLUSH_ERR) {
        rmpi_error("verbs: receive completion error: %s", ibv_wc_status_str(wc->status));
    }
    b->next = tl->rx_free;
    tl->rx_free = b;
    if (++tl->rx_free_n >= VERBS_RECV_BATCH)
        rmpi_verbs_rx_repost(tl);
}

static void cq_send(verbs_tl_t *tl, struct ibv_wc *wc)
{
    verbs_ep_t *ep = rmpi_verbs_qpmap_find(tl, wc->qp_num);
    uint64_t seq = wc->wr_id >> 1;
    if (!ep || seq < ep->sq_tail || seq >= ep->sq_head)
        return; /* already completed by a failure */
    if (RMPI_LIKELY(wc->status == IBV_WC_SUCCESS)) {
        rmpi_verbs_retire(ep, seq, RMP_SUCCESS);
        return;
    }
    int st = rmpi_verbs_wc_status(wc->status);
    if (wc->status != IBV_WC_WR_FLUSH_ERR)
        rmpi_error("verbs: work request to rank %d failed: %s (vendor error 0x%x)", ep->base.peer,
                   ibv_wc_status_str(wc->status), wc->vendor_err);
    /* Earlier slots completed (RC reports in order); this one failed; the QP is
     * now in the error state, so everything after it fails too. */
    if (seq > ep->sq_tail)
        rmpi_verbs_retire(ep, seq - 1, RMP_SUCCESS);
    rmpi_verbs_retire(ep, seq, st);
    rmpi_verbs_ep_fail(ep, RMP_ERR_PEER_FAILED);
}

static void cq_credits(verbs_tl_t *tl)
{
    verbs_ep_t *ep;
    while ((ep = tl->credit_list)) {
        if (ep->state == VEP_CONNECTED && ep->to_return >= VERBS_CREDITS / 2 &&
            rmpi_verbs_send_credits(ep) == RMPI_AGAIN)
            break; /* send queue full: retry next time */
        tl->credit_list = ep->next_credit;
        ep->credit_listed = 0;
    }
}

/* RMP_LOG=trace: the flow-control state of every connection, every 5 s. */
static void cq_dump(verbs_tl_t *tl)
{
    static double next;
    double now = rmpi_now();
    if (now < next)
        return;
    next = now + 5.0;
    int nfree = 0;
    for (verbs_buf_t *b = tl->send_free; b; b = b->next)
        nfree++;
    rmpi_trace("verbs: srq %d buffers, %d waiting to be reposted, %d bounce buffers free",
               tl->rx_total, tl->rx_free_n, nfree);
    for (int i = 0; i < tl->neps; i++) {
        verbs_ep_t *ep = &tl->eps[i];
        if (ep->state != VEP_IDLE)
            rmpi_trace("verbs: rank %d: state %d, credits %d, to return %d, sq %llu..%llu, "
                       "unsignaled %u",
                       i, ep->state, ep->credits, ep->to_return,
                       (unsigned long long)ep->sq_tail, (unsigned long long)ep->sq_head,
                       ep->unsignaled);
    }
}

int rmpi_verbs_progress(rmpi_tl_t *tl_)
{
    verbs_tl_t *tl = (verbs_tl_t *)tl_;
    if (RMPI_UNLIKELY(rmpi_log_level >= RMPI_LOG_TRACE))
        cq_dump(tl);
    struct ibv_wc wc[VERBS_POLL_BATCH];
    int n = ibv_poll_cq(tl->cq, VERBS_POLL_BATCH, wc);
    if (RMPI_UNLIKELY(n < 0)) {
        rmpi_error("verbs: ibv_poll_cq failed");
        n = 0;
    }
    for (int i = 0; i < n; i++) {
        if (wc[i].wr_id & 1)
            cq_recv(tl, &wc[i]);
        else
            cq_send(tl, &wc[i]);
    }
    if (RMPI_UNLIKELY(tl->credit_list != NULL))
        cq_credits(tl);
    if (RMPI_UNLIKELY(tl->rdma_queued > 0))
        rmpi_verbs_rdma_pump(tl);
    if (RMPI_UNLIKELY(tl->need_report)) {
        tl->need_report = 0;
        for (int i = 0; i < tl->neps; i++)
            if (tl->eps[i].report) {
                tl->eps[i].report = 0;
                tl->peer_failed(i, "verbs connection lost");
            }
    }
    /* rdma_cm costs a system call: poll it on every call only while a
     * connection is being made, otherwise now and then (incoming requests). */
    if (RMPI_UNLIKELY(tl->cm_busy > 0 || ++tl->cm_tick >= VERBS_CM_POLL_EVERY)) {
        tl->cm_tick = 0;
        n += rmpi_verbs_cm_progress(tl);
        if (tl->rx_free) /* a failed repost left buffers behind (or a batch is pending) */
            rmpi_verbs_rx_repost(tl);
    }
    return n;
}
