/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided operations by message (RMPI_MSG_RMA), core/rma_emu.h: the origin's
 * requests and their replies, and the target side that executes them with its own
 * loads, stores and CPU atomics. core/rma.c sends an operation this way when the
 * transport cannot put/get with the target (tcp), or costs more than a message for
 * its size (shm below RMP_SHM_RMA_MSG_MAX), and for every atomic it cannot do
 * directly (docs/rma.md). */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "log.h"
#include "mt.h"
#include "p2p.h"
#include "rma_emu.h"
#include "rma_win.h"

/* Emulated operations waiting for replies, oldest first. A reply names its operation
 * by a sequence number, never by address: one that comes after its waiter gave up
 * (RMP_TIMEOUT), or a malformed one, finds nothing and touches nothing. Replies from
 * one target come in the order of the requests, so the search from the oldest finds
 * theirs first: a window of non-blocking gets costs no scan of the others. */

static void rma_op_begin(rmpi_engine_t *e, rmpi_rma_op_t *op)
{
    op->seq = ++e->rma.seq;
    op->next = NULL;
    *e->rma.inflight_tail = op;
    e->rma.inflight_tail = &op->next;
}

static void rma_op_end(rmpi_engine_t *e, rmpi_rma_op_t *op)
{
    for (rmpi_rma_op_t **pp = &e->rma.inflight; *pp; pp = &(*pp)->next) {
        if (*pp == op) {
            *pp = op->next;
            if (e->rma.inflight_tail == &op->next)
                e->rma.inflight_tail = pp;
            return;
        }
    }
}

static rmpi_rma_op_t *rma_op_find(rmpi_engine_t *e, uint64_t seq)
{
    for (rmpi_rma_op_t *op = e->rma.inflight; op; op = op->next)
        if (op->seq == seq)
            return op;
    return NULL;
}

/* peer: world rank the operation waits on; -1: several, any member of comm
 * (an operation in flight towards a dead rank may never complete: a transport
 * need not report it before its own timeouts). */
int rmpi_rma_wait(rmpi_engine_t *e, long *pending, int peer, rmp_comm_t comm, const char *call)
{
    if (rmpi_rma_count(pending) <= 0)
        return RMP_SUCCESS; /* nothing in flight: no clock read, no progress */
    rmpi_waiter_t w;
    rmpi_waiter_init(&w);
    rmpi_diag_t outer = rmpi_diag_save();
    rmpi_diag_wait(call, peer, 0, -1);
    int rc = RMP_SUCCESS;
    while (rmpi_rma_count(pending) > 0) {
        rmpi_progress();
        if (peer >= 0 ? rmpi_peer_lost(e, peer) : rmpi_comm_lost_member(comm)) {
            rc = RMP_ERR_PEER_FAILED;
            break;
        }
        rc = rmpi_waiter_poll(&w);
        if (rc != RMP_SUCCESS)
            break;
    }
    rmpi_diag_restore(outer);
    return rc;
}

/* ---- the target side of emulation ---- */

static void rma_reply(int src, const rmpi_rma_t *m, int op, int status, uint64_t operand,
                      uint64_t off, const void *payload, size_t plen)
{
    rmpi_rma_t r;
    memset(&r, 0, sizeof(r));
    r.type = RMPI_MSG_RMA;
    r.op = (uint8_t)op;
    r.status = status;
    r.win_id = m->win_id;
    r.offset = off;
    r.len = plen;
    r.req = m->req;
    r.operand = operand;
    r.compare = m->compare; /* a non-blocking put's window at its origin (rma_put_msg) */
    if (rmpi_send_ctrl(src, &r, sizeof(r), payload, plen) != RMP_SUCCESS)
        rmpi_error("cannot answer a one-sided operation of rank %d", src);
}

static void rma_target(rmpi_engine_t *e, int src, const rmpi_rma_t *m, const void *payload,
                       size_t plen)
{
    struct rmp_win *w = rmpi_win_lookup(e, m->win_id);
    uint64_t len;
    const char *why;
    /* A dynamic window's offset is an address: checked against the region holding its
     * first byte, as an offset into that region. */
    rmpi_rma_t rel = *m;
    uintptr_t base = w ? (uintptr_t)w->base : 0;
    uint64_t bytes = w ? w->bytes : 0;
    if (w && w->dynamic) {
        rmpi_win_region_t r;
        int found = rmpi_win_region(w, m->offset, 0, &r);
        base = found ? r.base : 0;
        bytes = found ? r.bytes : 0;
        rel.offset = found ? m->offset - r.base : 1; /* none: outside an empty window */
    }
    int rc = rmpi_rma_access_check(&rel, plen, base, bytes, &len, &why);
    if (!w || rc != RMP_SUCCESS) {
        rmpi_warn("rank %d: one-sided access to window %u at offset %llu (%llu bytes) refused",
                  src, m->win_id, (unsigned long long)m->offset, (unsigned long long)len);
        rma_reply(src, m, m->op == RMPI_RMA_GET ? RMPI_RMA_GET_REP
                           : m->op == RMPI_RMA_PUT ? RMPI_RMA_ACK : RMPI_RMA_AMO_REP,
                  RMP_ERR_ACCESS, 0, m->offset, NULL, 0);
        return;
    }
    unsigned char *p = (unsigned char *)base + rel.offset;
    switch (m->op) {
    case RMPI_RMA_PUT:
        memcpy(p, payload, plen);
        rma_reply(src, m, RMPI_RMA_ACK, RMP_SUCCESS, plen, m->offset, NULL, 0);
        break;
    case RMPI_RMA_GET: {
        size_t chunk = e->peers[src].max_am - sizeof(rmpi_rma_t);
        for (uint64_t o = 0; o < m->len || o == 0; o += chunk) {
            size_t n = m->len - o < chunk ? (size_t)(m->len - o) : chunk;
            rma_reply(src, m, RMPI_RMA_GET_REP, RMP_SUCCESS, 0, m->offset + o, p + o, n);
            if (m->len == 0)
                break;
        }
        break;
    }
    case RMPI_RMA_FADD: {
        uint64_t old = __atomic_fetch_add((uint64_t *)p, m->operand, __ATOMIC_SEQ_CST);
        rma_reply(src, m, RMPI_RMA_AMO_REP, RMP_SUCCESS, old, m->offset, NULL, 0);
        break;
    }
    case RMPI_RMA_CSWAP: {
        uint64_t expected = m->compare;
        __atomic_compare_exchange_n((uint64_t *)p, &expected, m->operand, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
        rma_reply(src, m, RMPI_RMA_AMO_REP, RMP_SUCCESS, expected, m->offset, NULL, 0);
        break;
    }
    }
}

/* A chunk of a non-blocking put by message has landed: its window's count of
 * operations in flight goes down. The window outlives its acknowledgements (its free
 * flushes) unless a flush gave up waiting; an id reused since then must not go below
 * zero, or its window's next flush would return before its own puts landed. */
static void rma_put_msg_acked(rmpi_engine_t *e, int src, const rmpi_rma_t *m)
{
    struct rmp_win *w = rmpi_win_lookup(e, (uint32_t)m->compare);
    if (!w || rmpi_rma_count(&w->outstanding) <= 0) {
        rmpi_debug("one-sided acknowledgement from rank %d for no put in flight dropped", src);
        return;
    }
    if (m->status != RMP_SUCCESS && w->nbi_error == RMP_SUCCESS)
        w->nbi_error = m->status;
    rmpi_rma_count_add(&w->outstanding, -1);
}

/* Records of non-blocking gets by message, reused: no allocation per get once warm. */

/* A non-blocking get has all its data, or failed: its window's count goes down (the
 * window is looked up by id: it may have been freed after a flush gave up on it). */
static void rma_get_msg_done(rmpi_engine_t *e, rmpi_rma_op_t *op)
{
    struct rmp_win *w = rmpi_win_lookup(e, op->nbi_win - 1);
    if (w && rmpi_rma_count(&w->outstanding) > 0) {
        if (op->status != RMP_SUCCESS && w->nbi_error == RMP_SUCCESS)
            w->nbi_error = op->status;
        rmpi_rma_count_add(&w->outstanding, -1);
    }
    rma_op_end(e, op);
    op->next = e->rma.free_ops;
    e->rma.free_ops = op;
}

static void rma_on_msg(rmpi_engine_t *e, int src, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    const rmpi_rma_t *m = hdr;
    if (hlen < sizeof(*m)) {
        rmpi_error("protocol error: short one-sided message from rank %d", src);
        return;
    }
    if (m->op == RMPI_RMA_PUT || m->op == RMPI_RMA_GET || m->op == RMPI_RMA_FADD ||
        m->op == RMPI_RMA_CSWAP) {
        rma_target(e, src, m, payload, plen);
        return;
    }
    if (m->op == RMPI_RMA_ACK && m->req == 0) {
        rma_put_msg_acked(e, src, m);
        return;
    }
    rmpi_rma_op_t *op = rma_op_find(e, m->req);
    const char *why;
    if (!op) {
        rmpi_debug("late or unknown one-sided reply from rank %d dropped", src);
        return;
    }
    switch (m->op) {
    case RMPI_RMA_ACK:
        if (m->status != RMP_SUCCESS)
            op->status = m->status;
        rmpi_rma_count_add(&op->pending, -1);
        break;
    case RMPI_RMA_GET_REP:
        if (m->status != RMP_SUCCESS) {
            op->status = m->status;
            rmpi_rma_count_set(&op->pending, 0);
        } else if (rmpi_rma_rep_check(m->offset, plen, op->off0, op->len, &why) !=
                   RMP_SUCCESS) {
            rmpi_error("protocol error from rank %d: %s", src, why);
            op->status = RMP_ERR_TRANSPORT;
            rmpi_rma_count_set(&op->pending, 0);
        } else {
            if (plen)
                memcpy(op->dst + (m->offset - op->off0), payload, plen);
            rmpi_rma_count_add(&op->pending, -(long)plen);
            if (plen == 0)
                rmpi_rma_count_set(&op->pending, 0);
        }
        break;
    case RMPI_RMA_AMO_REP:
        if (m->status != RMP_SUCCESS)
            op->status = m->status;
        op->result = m->operand;
        rmpi_rma_count_set(&op->pending, 0);
        break;
    default:
        rmpi_error("protocol error: unknown one-sided operation %u from rank %d", m->op, src);
    }
    if (op->nbi_win && rmpi_rma_count(&op->pending) <= 0)
        rma_get_msg_done(e, op);
}

void rmpi_rma_register(rmpi_engine_t *e)
{
    rmpi_am_register(e, RMPI_MSG_RMA, rma_on_msg);
}

/* ---- the caller side ---- */

/* A waited operation whose request went out (rc: how sending it went): wait for its
 * replies, then take it off the in-flight list whatever happened. */
static int rma_wait_end(rmpi_engine_t *e, rmpi_rma_op_t *op, int rc, int w, rmp_comm_t comm,
                        const char *call)
{
    if (rc == RMP_SUCCESS)
        rc = rmpi_rma_wait(e, &op->pending, w, comm, call);
    rmpi_mt_enter(e);
    rma_op_end(e, op);
    rmpi_mt_leave(e);
    return rc;
}

/* The header of a request to target's window: the rest is the caller's. */
static rmpi_rma_t rma_msg(rmp_win_t win, int op_code, int target, uint64_t req)
{
    rmpi_rma_t m;
    memset(&m, 0, sizeof(m));
    m.type = RMPI_MSG_RMA;
    m.op = (uint8_t)op_code;
    m.win_id = win->peers[target].id;
    m.req = req;
    return m;
}

/* Emulated put/get: chunks of the active-message size, each answered. */
int rmpi_rma_emulate(rmpi_engine_t *e, rmp_win_t win, int op_code, void *buf, size_t bytes,
                     int target, size_t offset)
{
    int w = rmpi_comm_world_rank(win->comm, target);
    rmpi_peer_t *p = &e->peers[w];
    rmpi_rma_op_t op = {.status = RMP_SUCCESS, .dst = buf, .off0 = offset, .len = bytes};
    rmpi_mt_enter(e);
    rma_op_begin(e, &op);
    rmpi_rma_t m = rma_msg(win, op_code, target, op.seq);
    int rc = RMP_SUCCESS;
    if (op_code == RMPI_RMA_GET) {
        rmpi_rma_count_set(&op.pending, bytes > 0 ? (long)bytes : 1);
        m.offset = offset;
        m.len = bytes;
        rc = rmpi_send_ctrl(w, &m, sizeof(m), NULL, 0);
    } else {
        size_t chunk = p->max_am - sizeof(rmpi_rma_t);
        for (size_t o = 0; rc == RMP_SUCCESS && (o < bytes || o == 0); o += chunk) {
            size_t n = bytes - o < chunk ? bytes - o : chunk;
            m.offset = offset + o;
            rmpi_rma_count_add(&op.pending, 1);
            rc = rmpi_send_ctrl(w, &m, sizeof(m), (char *)buf + o, n);
            if (bytes == 0)
                break;
        }
    }
    rmpi_mt_leave(e);
    rc = rma_wait_end(e, &op, rc, w, win->comm, "a one-sided operation");
    return rc != RMP_SUCCESS ? rc : op.status;
}

/* A non-blocking put by messages, in chunks of the active-message size. It returns
 * once they are handed over; each counts in win->outstanding until the target's
 * acknowledgement, which names no operation (req 0) but the window here (compare). */
int rmpi_rma_put_msg(rmpi_engine_t *e, rmp_win_t win, const void *buf, size_t bytes, int target,
                     size_t offset)
{
    int w = rmpi_comm_world_rank(win->comm, target);
    size_t chunk = e->peers[w].max_am - sizeof(rmpi_rma_t);
    rmpi_rma_t m = rma_msg(win, RMPI_RMA_PUT, target, 0);
    m.compare = win->id;
    int rc = RMP_SUCCESS;
    rmpi_mt_enter(e);
    for (size_t o = 0; o < bytes; o += chunk) {
        size_t n = bytes - o < chunk ? bytes - o : chunk;
        m.offset = offset + o;
        rmpi_rma_count_add(&win->outstanding, 1);
        rc = rmpi_send_ctrl(w, &m, sizeof(m), (const char *)buf + o, n);
        if (rc != RMP_SUCCESS) {
            rmpi_rma_count_add(&win->outstanding, -1);
            break;
        }
    }
    rmpi_mt_leave(e);
    return rc;
}

int rmpi_rma_emulate_atomic(rmpi_engine_t *e, rmp_win_t win, int op_code, uint64_t operand,
                            uint64_t compare, uint64_t *old, int target, size_t offset)
{
    int rc;
    int w = rmpi_comm_world_rank(win->comm, target);
    rmpi_rma_op_t op = {.pending = 1, .status = RMP_SUCCESS};
    rmpi_mt_enter(e);
    rma_op_begin(e, &op);
    rmpi_rma_t m = rma_msg(win, op_code, target, op.seq);
    m.offset = offset;
    m.len = 8;
    m.operand = operand;
    m.compare = compare;
    rc = rmpi_send_ctrl(w, &m, sizeof(m), NULL, 0);
    rmpi_mt_leave(e);
    rc = rma_wait_end(e, &op, rc, w, win->comm, "a one-sided atomic");
    if (rc == RMP_SUCCESS)
        rc = op.status;
    if (rc == RMP_SUCCESS)
        *old = op.result;
    return rc;
}

int rmpi_rma_get_msg(rmpi_engine_t *e, rmp_win_t win, void *buf, size_t bytes, int target,
                     size_t offset)
{
    int w = rmpi_comm_world_rank(win->comm, target);
    int rc = RMP_SUCCESS;
    rmpi_mt_enter(e);
    rmpi_rma_op_t *op = e->rma.free_ops;
    if (op)
        e->rma.free_ops = op->next;
    else
        op = malloc(sizeof(*op));
    if (!op) {
        rmpi_mt_leave(e);
        return RMP_ERR_NOMEM;
    }
    *op = (rmpi_rma_op_t){.pending = (long)bytes, .status = RMP_SUCCESS, .dst = buf,
                          .off0 = offset, .len = bytes, .nbi_win = win->id + 1};
    rma_op_begin(e, op);
    rmpi_rma_t m = rma_msg(win, RMPI_RMA_GET, target, op->seq);
    m.offset = offset;
    m.len = bytes;
    rmpi_rma_count_add(&win->outstanding, 1);
    rc = rmpi_send_ctrl(w, &m, sizeof(m), NULL, 0);
    if (rc != RMP_SUCCESS) {
        rmpi_rma_count_add(&win->outstanding, -1);
        rma_op_end(e, op);
        op->next = e->rma.free_ops;
        e->rma.free_ops = op;
    }
    rmpi_mt_leave(e);
    return rc;
}

void rmpi_rma_forget(rmpi_engine_t *e, const struct rmp_win *win)
{
    rmpi_mt_enter(e);
    rmpi_rma_op_t **pp = &e->rma.inflight;
    while (*pp) {
        rmpi_rma_op_t *op = *pp;
        if (op->nbi_win != win->id + 1) {
            pp = &op->next;
            continue;
        }
        *pp = op->next;
        if (e->rma.inflight_tail == &op->next)
            e->rma.inflight_tail = pp;
        op->next = e->rma.free_ops;
        e->rma.free_ops = op;
    }
    rmpi_mt_leave(e);
}
