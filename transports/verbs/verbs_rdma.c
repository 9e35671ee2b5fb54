/* SPDX-License-Identifier: BSD-3-Clause */
/* Put and get (RDMA WRITE and READ, also rendezvous): bounded pieces under a per-QP window.
 *
 * Why (issue 27, docs/verbs.md): one work request used to carry a whole transfer, up to
 * the port's max_msg_sz (8 MiB on Soft-RoCE: 8192 packets of 1 KiB). An RC requester
 * has no congestion control: it sends a message at line rate and, when a packet is lost,
 * goes back to it and sends the rest of the message again (go-back-N); a duplicate READ
 * request makes the responder send the whole rest of its answer again. Between two
 * guests whose link drops what the receiving guest cannot absorb, each loss cost up to
 * 8 MiB and every retransmission lost most of its packets too (rxe counters of rmpn1
 * in 300 s: 1.7 million packets sent, rmpn2 received 0.27 million): rma_test's 4-8 MiB
 * transfers crawled (25 s for 4 MiB, 93 s for 8 MiB) or did not end in 300 s, and a
 * requester whose tries all fall in such a storm ends with IBV_WC_RETRY_EXC_ERR, which
 * fails a live peer.
 *
 * Now a transfer is posted in pieces of at most VERBS_RDMA_CHUNK bytes with at most
 * VERBS_RDMA_WINDOW bytes in flight per queue pair: a loss costs at most the window,
 * whatever the size of the transfer. The window is one piece: with four 64 KiB pieces
 * in flight, Soft-RoCE (Linux 6.1) failed retried requests with "remote access error"
 * and "remote invalid request" on live windows at 8 MiB, in a run where one piece at a
 * time had none. A transfer that fits the free window and no queue goes out at once,
 * as before (no allocation); a larger one is queued on its endpoint and the rest
 * posted from progress() as pieces complete. Its callback runs once, after its last
 * piece, with the first error of any piece. */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "verbs_int.h"

typedef struct verbs_rdma {
    struct verbs_rdma *next;
    verbs_ep_t *ep;
    enum ibv_wr_opcode opcode;
    char *local;
    size_t len, off; /* off: the next byte to post */
    uint64_t raddr, rkey;
    rcache_region_t *reg; /* the whole local buffer, registered once */
    uint32_t lkey;
    unsigned inflight; /* pieces posted, not completed */
    int status;
    rmpi_comp_cb_t cb;
    void *arg;
} verbs_rdma_t;

/* One signalled work request of bytes at local/raddr; the slot holds reg, cb and arg. */
static int rdma_post(verbs_ep_t *ep, enum ibv_wr_opcode opcode, char *local, size_t bytes,
                     uint32_t lkey, int inl, uint64_t raddr, uint64_t rkey,
                     rcache_region_t *reg, rmpi_comp_cb_t cb, void *arg)
{
    if (ep->sq_head - ep->sq_tail >= VERBS_SQ_DEPTH)
        return RMPI_AGAIN;
    uint64_t seq = ep->sq_head;
    verbs_op_t *op =
        rmpi_verbs_slot(ep, seq, opcode == IBV_WR_RDMA_READ ? VERBS_OP_GET : VERBS_OP_PUT);
    struct ibv_sge sge = {(uint64_t)(uintptr_t)local, (uint32_t)bytes, lkey};
    struct ibv_send_wr wr;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = seq << 1;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = opcode;
    wr.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = (uint32_t)rkey;
    int rc = rmpi_verbs_post(ep, &wr);
    if (rc != RMP_SUCCESS)
        return rc;
    op->reg = reg;
    op->bytes = (uint32_t)bytes;
    op->cb = cb;
    op->arg = arg;
    ep->sq_head++;
    ep->unsignaled = 0;
    ep->rdma_bytes += bytes;
    return RMP_SUCCESS;
}

static size_t rdma_piece(const verbs_tl_t *tl)
{
    return tl->max_msg < VERBS_RDMA_CHUNK ? tl->max_msg : VERBS_RDMA_CHUNK;
}

static void rdma_complete(verbs_rdma_t *d)
{
    rcache_put(d->ep->tl->rcache, d->reg);
    rmpi_comp_cb_t cb = d->cb;
    void *arg = d->arg;
    int st = d->status;
    free(d);
    cb(arg, st);
}

/* A piece completed (from rmpi_verbs_retire: its slot is free again). */
static void rdma_piece_done(void *arg, int status)
{
    verbs_rdma_t *d = arg;
    d->inflight--;
    if (status != RMP_SUCCESS && d->status == RMP_SUCCESS)
        d->status = status;
    if (d->off == d->len && d->inflight == 0)
        rdma_complete(d);
}

static void rdma_dequeue(verbs_ep_t *ep)
{
    verbs_rdma_t *d = ep->rq_head;
    ep->rq_head = d->next;
    if (!ep->rq_head)
        ep->rq_tail = NULL;
    ep->tl->rdma_queued--;
    if (d->inflight == 0) /* nothing posted: failed before its first piece */
        rdma_complete(d);
}

/* Post what the window and the send queue allow, oldest operation first. */
static void rdma_pump_ep(verbs_ep_t *ep)
{
    size_t piece = rdma_piece(ep->tl);
    verbs_rdma_t *d;
    while (ep->state == VEP_CONNECTED && (d = ep->rq_head)) {
        size_t n = d->len - d->off < piece ? d->len - d->off : piece;
        if (ep->rdma_bytes > 0 && ep->rdma_bytes + n > VERBS_RDMA_WINDOW)
            return;
        int rc = rdma_post(ep, d->opcode, d->local + d->off, n, d->lkey, 0, d->raddr + d->off,
                           d->rkey, NULL, rdma_piece_done, d);
        if (rc == RMPI_AGAIN)
            return; /* the send queue is full: its completions make room */
        if (rc != RMP_SUCCESS) {
            if (d->status == RMP_SUCCESS)
                d->status = rc;
            d->off = d->len; /* no more pieces; the posted ones still complete */
        } else {
            d->inflight++;
            d->off += n;
        }
        if (d->off == d->len)
            rdma_dequeue(ep);
    }
}

void rmpi_verbs_rdma_pump(verbs_tl_t *tl)
{
    for (int i = 0; i < tl->neps && tl->rdma_queued > 0; i++)
        if (tl->eps[i].rq_head)
            rdma_pump_ep(&tl->eps[i]);
}

/* The connection failed: queued operations end with status once their posted pieces
 * have completed (rmpi_verbs_ep_fail retired those just before). */
void rmpi_verbs_rdma_fail(verbs_ep_t *ep, int status)
{
    while (ep->rq_head) {
        verbs_rdma_t *d = ep->rq_head;
        if (d->status == RMP_SUCCESS)
            d->status = status;
        d->off = d->len;
        rdma_dequeue(ep);
    }
}

static int ep_rdma(verbs_ep_t *ep, enum ibv_wr_opcode opcode, void *local, size_t len,
                   uint64_t raddr, uint64_t rkey, rmpi_comp_cb_t cb, void *arg)
{
    if (RMPI_UNLIKELY(ep->state != VEP_CONNECTED)) {
        int rc = rmpi_verbs_ep_ready(ep);
        if (rc != RMP_SUCCESS)
            return rc;
    }
    verbs_tl_t *tl = ep->tl;
    if (len == 0) {
        cb(arg, RMP_SUCCESS);
        return RMP_SUCCESS;
    }
    int direct = !ep->rq_head && len <= rdma_piece(tl) &&
                 (ep->rdma_bytes == 0 || ep->rdma_bytes + len <= VERBS_RDMA_WINDOW);
    if (direct && ep->sq_head - ep->sq_tail >= VERBS_SQ_DEPTH)
        return RMPI_AGAIN;
    rcache_region_t *reg = NULL;
    uint32_t lkey = 0;
    int inl = direct && opcode == IBV_WR_RDMA_WRITE && len <= tl->max_inline;
    if (!inl) {
        int rc = rmpi_verbs_local_reg(tl, local, len, opcode == IBV_WR_RDMA_READ, &reg, &lkey);
        if (rc != RMP_SUCCESS) {
            rmpi_error("verbs: cannot register the local buffer (%zu bytes at %p) of an RDMA %s "
                       "with rank %d: %s",
                       len, local, opcode == IBV_WR_RDMA_READ ? "read" : "write", ep->base.peer,
                       rmp_strerror(rc));
            return rc;
        }
    }
    if (direct) {
        int rc = rdma_post(ep, opcode, local, len, lkey, inl, raddr, rkey, reg, cb, arg);
        if (rc != RMP_SUCCESS && reg)
            rcache_put(tl->rcache, reg);
        return rc;
    }
    verbs_rdma_t *d = calloc(1, sizeof(*d));
    if (!d) {
        rcache_put(tl->rcache, reg);
        return RMP_ERR_NOMEM;
    }
    *d = (verbs_rdma_t){NULL, ep, opcode, local, len, 0, raddr, rkey, reg, lkey, 0,
                        RMP_SUCCESS, cb, arg};
    if (ep->rq_tail)
        ep->rq_tail->next = d;
    else
        ep->rq_head = d;
    ep->rq_tail = d;
    tl->rdma_queued++;
    rdma_pump_ep(ep); /* the first pieces now; the callback runs from progress() */
    return RMP_SUCCESS;
}

int rmpi_verbs_put(rmpi_ep_t *ep_, const void *src, size_t len, uint64_t raddr, uint64_t rkey,
                   rmpi_comp_cb_t cb, void *arg)
{
    verbs_ep_t *ep = (verbs_ep_t *)ep_;
    return ep_rdma(ep, IBV_WR_RDMA_WRITE, (void *)src, len, raddr, rkey, cb, arg);
}

int rmpi_verbs_get(rmpi_ep_t *ep_, void *dst, size_t len, uint64_t raddr, uint64_t rkey,
                   rmpi_comp_cb_t cb, void *arg)
{
    verbs_ep_t *ep = (verbs_ep_t *)ep_;
    return ep_rdma(ep, IBV_WR_RDMA_READ, dst, len, raddr, rkey, cb, arg);
}
