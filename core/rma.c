/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided communication: windows, put/get, atomics, flush.
 *
 * Path per target, chosen at each call:
 *   1. the target is this rank, or its window is mapped here (an allocated
 *      window of a same-node rank): plain loads/stores and CPU atomics;
 *   2. the peer's transport can put/get (shm: cross-memory attach; verbs:
 *      RDMA): the transport moves the data, the target's CPU is not involved;
 *   3. otherwise emulation: the target's progress engine executes the
 *      operation (RMPI_MSG_RMA messages).
 * Atomics always run as CPU atomics on the target's memory (directly, or by
 * the target on behalf of the caller), so they are atomic with respect to
 * each other whatever transports the ranks use (docs/rma.md).
 * Every access is checked at the caller against the exchanged window table;
 * the target checks emulated ones again. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "comm.h"
#include "config.h"
#include "log.h"
#include "mt.h"
#include "p2p.h"
#include "rma_win.h"

/* Counters written under the engine lock and read by waiters outside it
 * (MULTIPLE): atomic loads and stores, never a locked read-modify-write. */
static inline long rma_count(const long *c)
{
    return __atomic_load_n(c, __ATOMIC_ACQUIRE);
}

static inline void rma_count_set(long *c, long v)
{
    __atomic_store_n(c, v, __ATOMIC_RELEASE);
}

static inline void rma_count_add(long *c, long d)
{
    rma_count_set(c, __atomic_load_n(c, __ATOMIC_RELAXED) + d);
}

typedef struct rma_op {
    long pending; /* bytes or replies still expected (rma_count) */
    int status;
    unsigned char *dst;    /* get: where the data goes */
    uint64_t off0;         /* get: offset of dst[0] at the target */
    uint64_t result;       /* atomics */
    uint64_t len;          /* get: bytes at dst, the bound for replies */
    uint64_t seq;          /* emulated: the id its replies carry */
    int orphan;            /* transport op whose waiter gave up: the callback frees it */
    struct rma_op *next;   /* emulated ops in flight */
} rma_op_t;

/* Emulated operations waiting for replies. A reply names its operation by a
 * sequence number, never by address: one that comes after its waiter gave up
 * (RMP_TIMEOUT), or a malformed one, finds nothing and touches nothing. */
static rma_op_t *rma_inflight;
static uint64_t rma_seq;

static void rma_op_begin(rma_op_t *op)
{
    op->seq = ++rma_seq;
    op->next = rma_inflight;
    rma_inflight = op;
}

static void rma_op_end(rma_op_t *op)
{
    for (rma_op_t **pp = &rma_inflight; *pp; pp = &(*pp)->next) {
        if (*pp == op) {
            *pp = op->next;
            return;
        }
    }
}

static rma_op_t *rma_op_find(uint64_t seq)
{
    for (rma_op_t *op = rma_inflight; op; op = op->next)
        if (op->seq == seq)
            return op;
    return NULL;
}

/* peer: world rank the operation waits on; -1: several, any member of comm
 * (an operation in flight towards a dead rank may never complete: a transport
 * need not report it before its own timeouts). */
static int rma_wait(long *pending, int peer, rmp_comm_t comm, const char *call)
{
    if (rma_count(pending) <= 0)
        return RMP_SUCCESS; /* nothing in flight: no clock read, no progress */
    rmpi_waiter_t w;
    rmpi_waiter_init(&w);
    rmpi_diag_t outer = rmpi_diag_save();
    rmpi_diag_wait(call, peer, 0, -1);
    int rc = RMP_SUCCESS;
    while (rma_count(pending) > 0) {
        rmpi_progress();
        if (peer >= 0 ? rmpi_peer_lost(peer) : rmpi_comm_lost_member(comm)) {
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

static void rma_target(int src, const rmpi_rma_t *m, const void *payload, size_t plen)
{
    struct rmp_win *w = rmpi_win_lookup(m->win_id);
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
        size_t chunk = rmpi_peers[src].max_am - sizeof(rmpi_rma_t);
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
static void rma_put_msg_acked(int src, const rmpi_rma_t *m)
{
    struct rmp_win *w = rmpi_win_lookup((uint32_t)m->compare);
    if (!w || rma_count(&w->outstanding) <= 0) {
        rmpi_debug("one-sided acknowledgement from rank %d for no put in flight dropped", src);
        return;
    }
    if (m->status != RMP_SUCCESS && w->nbi_error == RMP_SUCCESS)
        w->nbi_error = m->status;
    rma_count_add(&w->outstanding, -1);
}

static void rma_on_msg(int src, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    const rmpi_rma_t *m = hdr;
    if (hlen < sizeof(*m)) {
        rmpi_error("protocol error: short one-sided message from rank %d", src);
        return;
    }
    if (m->op == RMPI_RMA_PUT || m->op == RMPI_RMA_GET || m->op == RMPI_RMA_FADD ||
        m->op == RMPI_RMA_CSWAP) {
        rma_target(src, m, payload, plen);
        return;
    }
    if (m->op == RMPI_RMA_ACK && m->req == 0) {
        rma_put_msg_acked(src, m);
        return;
    }
    rma_op_t *op = rma_op_find(m->req);
    const char *why;
    if (!op) {
        rmpi_debug("late or unknown one-sided reply from rank %d dropped", src);
        return;
    }
    switch (m->op) {
    case RMPI_RMA_ACK:
        if (m->status != RMP_SUCCESS)
            op->status = m->status;
        rma_count_add(&op->pending, -1);
        break;
    case RMPI_RMA_GET_REP:
        if (m->status != RMP_SUCCESS) {
            op->status = m->status;
            rma_count_set(&op->pending, 0);
        } else if (rmpi_rma_rep_check(m->offset, plen, op->off0, op->len, &why) !=
                   RMP_SUCCESS) {
            rmpi_error("protocol error from rank %d: %s", src, why);
            op->status = RMP_ERR_TRANSPORT;
            rma_count_set(&op->pending, 0);
        } else {
            if (plen)
                memcpy(op->dst + (m->offset - op->off0), payload, plen);
            rma_count_add(&op->pending, -(long)plen);
            if (plen == 0)
                rma_count_set(&op->pending, 0);
        }
        break;
    case RMPI_RMA_AMO_REP:
        if (m->status != RMP_SUCCESS)
            op->status = m->status;
        op->result = m->operand;
        rma_count_set(&op->pending, 0);
        break;
    default:
        rmpi_error("protocol error: unknown one-sided operation %u from rank %d", m->op, src);
    }
}

void rmpi_rma_register(void)
{
    rmpi_am_register(RMPI_MSG_RMA, rma_on_msg);
}

/* ---- the caller side ---- */

int rmpi_rma_check_win(rmp_win_t win)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!win)
        return RMP_ERR_ARG;
    /* Only a handle of a live window is followed: a forged or stale value is
     * refused without reading through it. */
    if (!rmpi_win_is_live(win)) {
        rmpi_warn("one-sided call on a freed or invalid window (not a live window's handle)");
        return RMP_ERR_ACCESS;
    }
    if (win->magic != RMPI_WIN_MAGIC || !win->live) {
        rmpi_warn("one-sided call on a corrupted window (magic %#llx, live %d)",
                  (unsigned long long)win->magic, win->live);
        return RMP_ERR_ACCESS;
    }
    return RMP_SUCCESS;
}

static int rma_check(rmp_win_t win, int target, size_t offset, size_t bytes, const void *buf)
{
    int rc = rmpi_rma_check_win(win);
    if (rc != RMP_SUCCESS)
        return rc;
    if (target < 0 || target >= win->comm->size || (buf == NULL && bytes > 0))
        return RMP_ERR_ARG;
    if (rmpi_peer_lost(rmpi_comm_world_rank(win->comm, target)))
        return RMP_ERR_PEER_FAILED;
    const rmpi_win_entry_t *e = &win->peers[target];
    if (win->dynamic)
        return RMP_SUCCESS; /* the target checks the address against its regions */
    if (offset > e->bytes || bytes > e->bytes - offset) {
        rmpi_warn("one-sided access of %zu bytes at offset %zu is outside rank %d's window of "
                  "%llu bytes",
                  bytes, offset, target, (unsigned long long)e->bytes);
        return RMP_ERR_ACCESS;
    }
    return RMP_SUCCESS;
}

/* Where the target's window is directly addressable from here, or NULL. */
static unsigned char *rma_direct(rmp_win_t win, int target)
{
    if (target == win->comm->rank)
        return win->base;
    return win->mapped ? win->mapped[target] : NULL;
}

/* The accessed bytes themselves when they are addressable from here, or NULL (a dynamic
 * window: only this rank's own attached regions). */
static unsigned char *rma_local(rmp_win_t win, int target, size_t offset, size_t bytes)
{
    if (RMPI_UNLIKELY(win->dynamic)) {
        rmpi_win_region_t r;
        return target == win->comm->rank && rmpi_win_region(win, offset, bytes, &r)
                   ? (unsigned char *)(uintptr_t)offset
                   : NULL;
    }
    unsigned char *d = rma_direct(win, target);
    return d ? d + offset : NULL;
}

/* A rank spinning on directly mapped memory (a lock, a flag) must still
 * serve the operations others emulate through it: progress now and then.
 * work: an atomic changed the word (an add of non-zero, a compare-and-swap that
 * swapped: a lock taken or released), which the engine never sees as an event:
 * without saying so, a rank doing nothing but direct one-sided atomics (MPI
 * accumulates take a lock word) looked idle and, with more ranks than cores,
 * slept up to 0.5 ms every 16 operations. Plain gets and puts stay idle: a
 * rank may be polling a flag with them. */
static inline void rma_direct_progress(int work)
{
    static __thread unsigned n __attribute__((tls_model("initial-exec")));
    static __thread int worked __attribute__((tls_model("initial-exec")));
    worked |= work; /* any of the 16 since the last progress */
    if ((++n & 15) == 0) {
        if (worked && RMPI_UNLIKELY(rmpi_ctx.idle || rmpi_ctx.sleep_ns))
            rmpi_progress_active();
        worked = 0;
        rmpi_progress();
    }
    rmpi_health_tick();
}

static int rma_slot_of(const rmpi_peer_t *p)
{
    for (int i = 0; i < rmpi_g.num_tls; i++)
        if (rmpi_g.tls[i].tl == p->tl)
            return i;
    return 0;
}

static void rma_nbi_done(void *arg, int status)
{
    struct rmp_win *w = arg;
    if (status != RMP_SUCCESS && w->nbi_error == RMP_SUCCESS)
        w->nbi_error = status;
    rma_count_add(&w->outstanding, -1);
}

static void rma_op_done(void *arg, int status)
{
    rma_op_t *op = arg;
    if (op->orphan) {
        free(op);
        return;
    }
    op->status = status;
    rma_count_set(&op->pending, 0);
}

/* Emulated put/get: chunks of the active-message size, each answered. */
static int rma_emulate(rmp_win_t win, int op_code, void *buf, size_t bytes, int target,
                       size_t offset)
{
    int w = rmpi_comm_world_rank(win->comm, target);
    rmpi_peer_t *p = &rmpi_peers[w];
    rma_op_t op = {0, RMP_SUCCESS, buf, offset, 0, bytes, 0, 0, NULL};
    rmpi_mt_enter();
    rma_op_begin(&op);
    rmpi_rma_t m;
    memset(&m, 0, sizeof(m));
    m.type = RMPI_MSG_RMA;
    m.op = (uint8_t)op_code;
    m.win_id = win->peers[target].id;
    m.req = op.seq;
    int rc = RMP_SUCCESS;
    if (op_code == RMPI_RMA_GET) {
        rma_count_set(&op.pending, bytes > 0 ? (long)bytes : 1);
        m.offset = offset;
        m.len = bytes;
        rc = rmpi_send_ctrl(w, &m, sizeof(m), NULL, 0);
    } else {
        size_t chunk = p->max_am - sizeof(rmpi_rma_t);
        for (size_t o = 0; rc == RMP_SUCCESS && (o < bytes || o == 0); o += chunk) {
            size_t n = bytes - o < chunk ? bytes - o : chunk;
            m.offset = offset + o;
            rma_count_add(&op.pending, 1);
            rc = rmpi_send_ctrl(w, &m, sizeof(m), (char *)buf + o, n);
            if (bytes == 0)
                break;
        }
    }
    rmpi_mt_leave();
    if (rc == RMP_SUCCESS)
        rc = rma_wait(&op.pending, w, win->comm, "a one-sided operation");
    rmpi_mt_enter();
    rma_op_end(&op);
    rmpi_mt_leave();
    return rc != RMP_SUCCESS ? rc : op.status;
}

/* A non-blocking put by messages, in chunks of the active-message size. It returns
 * once they are handed over; each counts in win->outstanding until the target's
 * acknowledgement, which names no operation (req 0) but the window here (compare). */
static int rma_put_msg(rmp_win_t win, const void *buf, size_t bytes, int target,
                       size_t offset)
{
    int w = rmpi_comm_world_rank(win->comm, target);
    size_t chunk = rmpi_peers[w].max_am - sizeof(rmpi_rma_t);
    rmpi_rma_t m;
    memset(&m, 0, sizeof(m));
    m.type = RMPI_MSG_RMA;
    m.op = RMPI_RMA_PUT;
    m.win_id = win->peers[target].id;
    m.compare = win->id;
    int rc = RMP_SUCCESS;
    rmpi_mt_enter();
    for (size_t o = 0; o < bytes; o += chunk) {
        size_t n = bytes - o < chunk ? bytes - o : chunk;
        m.offset = offset + o;
        rma_count_add(&win->outstanding, 1);
        rc = rmpi_send_ctrl(w, &m, sizeof(m), (const char *)buf + o, n);
        if (rc != RMP_SUCCESS) {
            rma_count_add(&win->outstanding, -1);
            break;
        }
    }
    rmpi_mt_leave();
    return rc;
}

static int rma_xfer(rmp_win_t win, int is_put, void *buf, size_t bytes, int target,
                    size_t offset, int nbi)
{
    int rc = rma_check(win, target, offset, bytes, buf);
    if (rc != RMP_SUCCESS || bytes == 0)
        return rc;
    unsigned char *d = rma_local(win, target, offset, bytes);
    if (d) {
        rma_direct_progress(0); /* as before: a rank may be polling a flag */
        if (is_put)
            memcpy(d, buf, bytes);
        else
            memcpy(buf, d, bytes);
        return RMP_SUCCESS;
    }
    rmpi_peer_t *p = &rmpi_peers[rmpi_comm_world_rank(win->comm, target)];
    if (!p->rma || win->dynamic || bytes <= p->rma_msg_max) {
        if (nbi && is_put)
            return rma_put_msg(win, buf, bytes, target, offset);
        return rma_emulate(win, is_put ? RMPI_RMA_PUT : RMPI_RMA_GET, buf, bytes, target,
                           offset);
    }
    uint64_t raddr = win->peers[target].base + offset;
    uint64_t key = win->peers[target].keys[rma_slot_of(p)];
    /* On the heap: if this waiter gives up (RMP_TIMEOUT, a dead target), the
     * transport still completes it later. */
    rma_op_t *op = NULL;
    if (!nbi && !(op = calloc(1, sizeof(*op))))
        return RMP_ERR_NOMEM;
    if (op)
        rma_count_set(&op->pending, 1);
    rmpi_mt_enter();
    for (;;) {
        if (nbi)
            rma_count_add(&win->outstanding, 1);
        rc = is_put ? p->iface->put(p->ep, buf, bytes, raddr, key,
                                    nbi ? rma_nbi_done : rma_op_done, nbi ? (void *)win : op)
                    : p->iface->get(p->ep, buf, bytes, raddr, key,
                                    nbi ? rma_nbi_done : rma_op_done, nbi ? (void *)win : op);
        if (rc != RMPI_AGAIN)
            break;
        if (nbi)
            rma_count_add(&win->outstanding, -1);
        rmpi_progress();
    }
    rmpi_mt_leave();
    if (rc != RMP_SUCCESS) {
        if (nbi)
            rma_count_add(&win->outstanding, -1);
        free(op);
        /* Noticed here first (a transport may report it only at its next
         * progress, which a flush with nothing in flight never makes). */
        if (rc == RMP_ERR_PEER_FAILED)
            rmpi_peer_failed(rmpi_comm_world_rank(win->comm, target), "lost by its transport");
        return rc;
    }
    if (nbi)
        return RMP_SUCCESS;
    rc = rma_wait(&op->pending, rmpi_comm_world_rank(win->comm, target), win->comm,
                  "a one-sided operation");
    if (rc != RMP_SUCCESS) {
        rmpi_mt_enter();
        op->orphan = 1; /* under the lock: the callback may run at any time */
        rmpi_mt_leave();
        return rc;
    }
    rc = op->status;
    free(op);
    if (rc == RMP_ERR_PEER_FAILED)
        rmpi_peer_failed(rmpi_comm_world_rank(win->comm, target), "lost by its transport");
    return rc;
}

RMP_EXPORT int rmp_put(const void *src, size_t bytes, int target, size_t offset, rmp_win_t win)
{
    return rma_xfer(win, 1, (void *)src, bytes, target, offset, 0);
}

RMP_EXPORT int rmp_get(void *dst, size_t bytes, int target, size_t offset, rmp_win_t win)
{
    return rma_xfer(win, 0, dst, bytes, target, offset, 0);
}

RMP_EXPORT int rmp_put_nbi(const void *src, size_t bytes, int target, size_t offset,
                           rmp_win_t win)
{
    return rma_xfer(win, 1, (void *)src, bytes, target, offset, 1);
}

RMP_EXPORT int rmp_get_nbi(void *dst, size_t bytes, int target, size_t offset, rmp_win_t win)
{
    return rma_xfer(win, 0, dst, bytes, target, offset, 1);
}

RMP_EXPORT int rmp_win_flush_all(rmp_win_t win)
{
    int rc = rmpi_rma_check_win(win);
    if (rc != RMP_SUCCESS)
        return rc;
    rmpi_health_tick();
    rc = rma_wait(&win->outstanding, -1, win->comm, "rmp_win_flush");
    if (rc != RMP_SUCCESS)
        return rc;
    if (RMPI_UNLIKELY(rmpi_comm_lost_member(win->comm)))
        return RMP_ERR_PEER_FAILED;
    rmpi_mt_enter();
    rc = win->nbi_error;
    win->nbi_error = RMP_SUCCESS;
    rmpi_mt_leave();
    return rc;
}

RMP_EXPORT int rmp_win_flush(int target, rmp_win_t win)
{
    int rc = rmpi_rma_check_win(win);
    if (rc != RMP_SUCCESS)
        return rc;
    if (target < 0 || target >= win->comm->size)
        return RMP_ERR_ARG;
    rc = rmp_win_flush_all(win); /* per-target tracking is not worth it yet */
    /* What went to a dead rank is not known to be anywhere. */
    if (rc == RMP_SUCCESS && rmpi_peer_lost(rmpi_comm_world_rank(win->comm, target)))
        rc = RMP_ERR_PEER_FAILED;
    return rc;
}

static int rma_atomic(rmp_win_t win, int op_code, uint64_t operand, uint64_t compare,
                      uint64_t *old, int target, size_t offset)
{
    int rc = rma_check(win, target, offset, 8, old);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!old)
        return RMP_ERR_ARG;
    if ((win->peers[target].base + offset) % 8 != 0) {
        rmpi_warn("atomic at offset %zu of rank %d's window is not 8-byte aligned", offset,
                  target);
        return RMP_ERR_ARG;
    }
    unsigned char *d = rma_local(win, target, offset, 8);
    if (d) {
        uint64_t *p = (uint64_t *)d;
        int work = operand != 0; /* fetch-and-add of 0 is a read (a rank polling) */
        if (op_code == RMPI_RMA_FADD) {
            *old = __atomic_fetch_add(p, operand, __ATOMIC_SEQ_CST);
        } else {
            uint64_t expected = compare;
            work = __atomic_compare_exchange_n(p, &expected, operand, 0, __ATOMIC_SEQ_CST,
                                               __ATOMIC_SEQ_CST) &&
                   compare != operand;
            *old = expected;
        }
        rma_direct_progress(work);
        return RMP_SUCCESS;
    }
    int w = rmpi_comm_world_rank(win->comm, target);
    rma_op_t op = {1, RMP_SUCCESS, NULL, 0, 0, 0, 0, 0, NULL};
    rmpi_mt_enter();
    rma_op_begin(&op);
    rmpi_rma_t m;
    memset(&m, 0, sizeof(m));
    m.type = RMPI_MSG_RMA;
    m.op = (uint8_t)op_code;
    m.win_id = win->peers[target].id;
    m.offset = offset;
    m.len = 8;
    m.req = op.seq;
    m.operand = operand;
    m.compare = compare;
    rc = rmpi_send_ctrl(w, &m, sizeof(m), NULL, 0);
    rmpi_mt_leave();
    if (rc == RMP_SUCCESS)
        rc = rma_wait(&op.pending, w, win->comm, "a one-sided atomic");
    rmpi_mt_enter();
    rma_op_end(&op);
    rmpi_mt_leave();
    if (rc == RMP_SUCCESS)
        rc = op.status;
    if (rc == RMP_SUCCESS)
        *old = op.result;
    return rc;
}

RMP_EXPORT int rmp_atomic_fetch_add(uint64_t value, uint64_t *old, int target, size_t offset,
                                    rmp_win_t win)
{
    return rma_atomic(win, RMPI_RMA_FADD, value, 0, old, target, offset);
}

RMP_EXPORT int rmp_atomic_cswap(uint64_t compare, uint64_t swap, uint64_t *old, int target,
                                size_t offset, rmp_win_t win)
{
    return rma_atomic(win, RMPI_RMA_CSWAP, swap, compare, old, target, offset);
}

/* The target's window as mapped into this process (an allocated window of a same-node
 * rank, or this rank's own): what MPI_Win_shared_query hands out. */
RMP_EXPORT int rmp_win_shared_ptr(rmp_win_t win, int target, void **ptr)
{
    int rc = rmpi_rma_check_win(win);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!ptr || target < 0 || target >= win->comm->size)
        return RMP_ERR_ARG;
    *ptr = rma_direct(win, target);
    return *ptr || win->peers[target].bytes == 0 ? RMP_SUCCESS : RMP_ERR_NOT_SUPPORTED;
}
