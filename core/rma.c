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
#include "p2p.h"
#include "shmem.h"

#define RMA_MAGIC 0x726d7077696e3031ULL /* "rmpwin01" */

typedef struct rma_entry {
    uint64_t base;
    uint64_t bytes;
    uint32_t id;
    uint32_t allocated;
    uint64_t keys[RMPI_TL_MAX];  /* per transport slot of rmpi_g.tls */
    char seg[48];      /* allocated windows: shared segment name */
} rma_entry_t;

struct rmp_win {
    uint64_t magic;
    int live;
    rmp_comm_t comm;
    void *base;
    size_t bytes;
    uint32_t id;
    rma_entry_t *peers;   /* by comm rank */
    void **mapped;        /* by comm rank: the peer's window mapped here, or NULL */
    rmpi_mr_t *mr[RMPI_TL_MAX];     /* registrations with rmpi_g.tls[i] */
    int allocated;
    rmpi_shmem_t mem;     /* allocated windows */
    size_t seglen;
    long outstanding;     /* non-blocking transport operations in flight */
    int nbi_error;
    struct rmp_win *next_dead; /* released windows, oldest first (rma_release) */
};

/* Windows by id, for the target side of emulated operations.
 * A released window struct stays readable so that a stale handle is
 * recognised (live == 0), not followed: it waits in a FIFO and is reused only
 * once RMA_QUARANTINE later windows have been freed, so memory stays bounded
 * in a program that creates and frees windows in a loop. rmp_finalize frees
 * them all (every call is refused from then on before the handle is read). */
#define RMA_QUARANTINE 64
static struct rmp_win **rma_table;
static uint32_t rma_ntable;
static struct rmp_win *rma_dead_old, *rma_dead_new;
static unsigned rma_ndead;

typedef struct rma_op {
    volatile long pending; /* bytes or replies still expected */
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
static int rma_wait(volatile long *pending, int peer, rmp_comm_t comm, const char *call)
{
    if (*pending <= 0)
        return RMP_SUCCESS; /* nothing in flight: no clock read, no progress */
    rmpi_waiter_t w;
    rmpi_waiter_init(&w);
    rmpi_diag_t outer = rmpi_blocked_other;
    rmpi_blocked_other = (rmpi_diag_t){call, peer, 0, -1, 0};
    int rc = RMP_SUCCESS;
    while (*pending > 0) {
        rmpi_progress();
        if (peer >= 0 ? rmpi_peers[peer].failed : rmpi_comm_lost_member(comm)) {
            rc = RMP_ERR_PEER_FAILED;
            break;
        }
        rc = rmpi_waiter_poll(&w);
        if (rc != RMP_SUCCESS)
            break;
    }
    rmpi_blocked_other = outer;
    return rc;
}

/* ---- the target side of emulation ---- */

static struct rmp_win *rma_lookup(uint32_t id)
{
    return id < rma_ntable && rma_table[id] && rma_table[id]->live ? rma_table[id] : NULL;
}

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
    if (rmpi_send_ctrl(src, &r, sizeof(r), payload, plen) != RMP_SUCCESS)
        rmpi_error("cannot answer a one-sided operation of rank %d", src);
}

static void rma_target(int src, const rmpi_rma_t *m, const void *payload, size_t plen)
{
    struct rmp_win *w = rma_lookup(m->win_id);
    uint64_t len;
    const char *why;
    int rc = rmpi_rma_access_check(m, plen, w ? (uintptr_t)w->base : 0, w ? w->bytes : 0,
                                   &len, &why);
    if (!w || rc != RMP_SUCCESS) {
        rmpi_warn("rank %d: one-sided access to window %u at offset %llu (%llu bytes) refused",
                  src, m->win_id, (unsigned long long)m->offset, (unsigned long long)len);
        rma_reply(src, m, m->op == RMPI_RMA_GET ? RMPI_RMA_GET_REP
                           : m->op == RMPI_RMA_PUT ? RMPI_RMA_ACK : RMPI_RMA_AMO_REP,
                  RMP_ERR_ACCESS, 0, m->offset, NULL, 0);
        return;
    }
    unsigned char *p = (unsigned char *)w->base + m->offset;
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

void rmpi_rma_handler(int src, const void *hdr, size_t hlen, const void *payload, size_t plen)
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
        op->pending--;
        break;
    case RMPI_RMA_GET_REP:
        if (m->status != RMP_SUCCESS) {
            op->status = m->status;
            op->pending = 0;
        } else if (rmpi_rma_rep_check(m->offset, plen, op->off0, op->len, &why) !=
                   RMP_SUCCESS) {
            rmpi_error("protocol error from rank %d: %s", src, why);
            op->status = RMP_ERR_TRANSPORT;
            op->pending = 0;
        } else {
            if (plen)
                memcpy(op->dst + (m->offset - op->off0), payload, plen);
            op->pending -= (long)plen;
            if (plen == 0)
                op->pending = 0;
        }
        break;
    case RMPI_RMA_AMO_REP:
        if (m->status != RMP_SUCCESS)
            op->status = m->status;
        op->result = m->operand;
        op->pending = 0;
        break;
    default:
        rmpi_error("protocol error: unknown one-sided operation %u from rank %d", m->op, src);
    }
}

/* ---- the caller side ---- */

/* Is win the address of a live window? A few windows at most: a scan. */
static int rma_is_live(rmp_win_t win)
{
    for (uint32_t i = 0; i < rma_ntable; i++)
        if (rma_table[i] == win)
            return 1;
    return 0;
}

static int rma_check_win(rmp_win_t win)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!win)
        return RMP_ERR_ARG;
    /* Only a handle of a live window is followed: a forged or stale value is
     * refused without reading through it. */
    if (!rma_is_live(win) || win->magic != RMA_MAGIC || !win->live) {
        rmpi_warn("one-sided call on a freed or invalid window");
        return RMP_ERR_ACCESS;
    }
    return RMP_SUCCESS;
}

static int rma_check(rmp_win_t win, int target, size_t offset, size_t bytes, const void *buf)
{
    int rc = rma_check_win(win);
    if (rc != RMP_SUCCESS)
        return rc;
    if (target < 0 || target >= win->comm->size || (buf == NULL && bytes > 0))
        return RMP_ERR_ARG;
    if (rmpi_peers[rmpi_comm_world_rank(win->comm, target)].failed)
        return RMP_ERR_PEER_FAILED;
    const rma_entry_t *e = &win->peers[target];
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

/* A rank spinning on directly mapped memory (a lock, a flag) must still
 * serve the operations others emulate through it: progress now and then. */
static inline void rma_direct_progress(void)
{
    static unsigned n;
    if ((++n & 15) == 0)
        rmpi_progress();
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
    w->outstanding--;
}

static void rma_op_done(void *arg, int status)
{
    rma_op_t *op = arg;
    if (op->orphan) {
        free(op);
        return;
    }
    op->status = status;
    op->pending = 0;
}

/* Emulated put/get: chunks of the active-message size, each answered. */
static int rma_emulate(rmp_win_t win, int op_code, void *buf, size_t bytes, int target,
                       size_t offset)
{
    int w = rmpi_comm_world_rank(win->comm, target);
    rmpi_peer_t *p = &rmpi_peers[w];
    rma_op_t op = {0, RMP_SUCCESS, buf, offset, 0, bytes, 0, 0, NULL};
    rma_op_begin(&op);
    rmpi_rma_t m;
    memset(&m, 0, sizeof(m));
    m.type = RMPI_MSG_RMA;
    m.op = (uint8_t)op_code;
    m.win_id = win->peers[target].id;
    m.req = op.seq;
    int rc = RMP_SUCCESS;
    if (op_code == RMPI_RMA_GET) {
        op.pending = bytes > 0 ? (long)bytes : 1;
        m.offset = offset;
        m.len = bytes;
        rc = rmpi_send_ctrl(w, &m, sizeof(m), NULL, 0);
    } else {
        size_t chunk = p->max_am - sizeof(rmpi_rma_t);
        for (size_t o = 0; rc == RMP_SUCCESS && (o < bytes || o == 0); o += chunk) {
            size_t n = bytes - o < chunk ? bytes - o : chunk;
            m.offset = offset + o;
            op.pending++;
            rc = rmpi_send_ctrl(w, &m, sizeof(m), (char *)buf + o, n);
            if (bytes == 0)
                break;
        }
    }
    if (rc == RMP_SUCCESS)
        rc = rma_wait(&op.pending, w, win->comm, "a one-sided operation");
    rma_op_end(&op);
    return rc != RMP_SUCCESS ? rc : op.status;
}

static int rma_xfer(rmp_win_t win, int is_put, void *buf, size_t bytes, int target,
                    size_t offset, int nbi)
{
    int rc = rma_check(win, target, offset, bytes, buf);
    if (rc != RMP_SUCCESS || bytes == 0)
        return rc;
    unsigned char *d = rma_direct(win, target);
    if (d) {
        rma_direct_progress();
        if (is_put)
            memcpy(d + offset, buf, bytes);
        else
            memcpy(buf, d + offset, bytes);
        return RMP_SUCCESS;
    }
    rmpi_peer_t *p = &rmpi_peers[rmpi_comm_world_rank(win->comm, target)];
    if (!p->rma)
        return rma_emulate(win, is_put ? RMPI_RMA_PUT : RMPI_RMA_GET, buf, bytes, target,
                           offset);
    uint64_t raddr = win->peers[target].base + offset;
    uint64_t key = win->peers[target].keys[rma_slot_of(p)];
    /* On the heap: if this waiter gives up (RMP_TIMEOUT, a dead target), the
     * transport still completes it later. */
    rma_op_t *op = NULL;
    if (!nbi && !(op = calloc(1, sizeof(*op))))
        return RMP_ERR_NOMEM;
    if (op)
        op->pending = 1;
    for (;;) {
        if (nbi)
            win->outstanding++;
        rc = is_put ? p->iface->put(p->ep, buf, bytes, raddr, key,
                                    nbi ? rma_nbi_done : rma_op_done, nbi ? (void *)win : op)
                    : p->iface->get(p->ep, buf, bytes, raddr, key,
                                    nbi ? rma_nbi_done : rma_op_done, nbi ? (void *)win : op);
        if (rc != RMPI_AGAIN)
            break;
        if (nbi)
            win->outstanding--;
        rmpi_progress();
    }
    if (rc != RMP_SUCCESS) {
        if (nbi)
            win->outstanding--;
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
        op->orphan = 1;
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
    int rc = rma_check_win(win);
    if (rc != RMP_SUCCESS)
        return rc;
    rmpi_health_tick();
    rc = rma_wait((volatile long *)&win->outstanding, -1, win->comm, "rmp_win_flush");
    if (rc != RMP_SUCCESS)
        return rc;
    if (RMPI_UNLIKELY(rmpi_comm_lost_member(win->comm)))
        return RMP_ERR_PEER_FAILED;
    rc = win->nbi_error;
    win->nbi_error = RMP_SUCCESS;
    return rc;
}

RMP_EXPORT int rmp_win_flush(int target, rmp_win_t win)
{
    int rc = rma_check_win(win);
    if (rc != RMP_SUCCESS)
        return rc;
    if (target < 0 || target >= win->comm->size)
        return RMP_ERR_ARG;
    rc = rmp_win_flush_all(win); /* per-target tracking is not worth it yet */
    /* What went to a dead rank is not known to be anywhere. */
    if (rc == RMP_SUCCESS && rmpi_peers[rmpi_comm_world_rank(win->comm, target)].failed)
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
    unsigned char *d = rma_direct(win, target);
    if (d) {
        rma_direct_progress();
        uint64_t *p = (uint64_t *)(d + offset);
        if (op_code == RMPI_RMA_FADD) {
            *old = __atomic_fetch_add(p, operand, __ATOMIC_SEQ_CST);
        } else {
            uint64_t expected = compare;
            __atomic_compare_exchange_n(p, &expected, operand, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST);
            *old = expected;
        }
        return RMP_SUCCESS;
    }
    int w = rmpi_comm_world_rank(win->comm, target);
    rma_op_t op = {1, RMP_SUCCESS, NULL, 0, 0, 0, 0, 0, NULL};
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
    if (rc == RMP_SUCCESS)
        rc = rma_wait(&op.pending, w, win->comm, "a one-sided atomic");
    rma_op_end(&op);
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

/* ---- creation and destruction ---- */

static int rma_register_id(struct rmp_win *w)
{
    for (uint32_t i = 0; i < rma_ntable; i++) {
        if (!rma_table[i]) {
            w->id = i;
            rma_table[i] = w;
            return RMP_SUCCESS;
        }
    }
    struct rmp_win **t = realloc(rma_table, (rma_ntable + 16) * sizeof(*t));
    if (!t)
        return RMP_ERR_NOMEM;
    memset(t + rma_ntable, 0, 16 * sizeof(*t));
    rma_table = t;
    w->id = rma_ntable;
    rma_table[rma_ntable] = w;
    rma_ntable += 16;
    return RMP_SUCCESS;
}

static void rma_release(struct rmp_win *w)
{
    for (int i = 0; i < rmpi_g.num_tls; i++)
        if (w->mr[i])
            rmpi_g.tls[i].iface->mem_dereg(rmpi_g.tls[i].tl, w->mr[i]);
    if (w->mapped) {
        for (int r = 0; r < (w->comm ? w->comm->size : 0); r++)
            if (w->mapped[r] && r != w->comm->rank)
                munmap(w->mapped[r], w->seglen > 0 ? (size_t)w->peers[r].bytes : 0);
    }
    if (w->allocated)
        rmpi_shmem_destroy(&w->mem);
    if (w->id < rma_ntable && rma_table[w->id] == w)
        rma_table[w->id] = NULL;
    free(w->peers);
    free(w->mapped);
    w->peers = NULL;
    w->mapped = NULL;
    w->live = 0;
    w->next_dead = NULL;
    if (rma_dead_new)
        rma_dead_new->next_dead = w;
    else
        rma_dead_old = w;
    rma_dead_new = w;
    rma_ndead++;
}

/* A zeroed window struct: the oldest released one past the quarantine, or new. */
static struct rmp_win *rma_new_struct(void)
{
    if (rma_ndead <= RMA_QUARANTINE)
        return calloc(1, sizeof(struct rmp_win));
    struct rmp_win *w = rma_dead_old;
    rma_dead_old = w->next_dead;
    rma_ndead--;
    memset(w, 0, sizeof(*w));
    return w;
}

/* At rmp_finalize, after the closing fence (nobody accesses a window any
 * more) and before the transports go: windows the program did not free are
 * released, then every window struct is freed. */
void rmpi_rma_fini(void)
{
    for (uint32_t i = 0; i < rma_ntable; i++)
        if (rma_table[i] && rma_table[i]->live)
            rma_release(rma_table[i]);
    while (rma_dead_old) {
        struct rmp_win *w = rma_dead_old;
        rma_dead_old = w->next_dead;
        free(w);
    }
    rma_dead_new = NULL;
    rma_ndead = 0;
    free(rma_table);
    rma_table = NULL;
    rma_ntable = 0;
}

static size_t rma_pagesize(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return n == 0 ? pg : (n + pg - 1) / pg * pg;
}

/* Library memory in a shared segment, so that same-node ranks map it. */
static int rma_alloc_segment(struct rmp_win *w, size_t bytes)
{
    w->seglen = rma_pagesize(bytes);
    int rc = rmpi_shmem_create(w->seglen, "rmp-win", &w->mem);
    if (rc == RMP_SUCCESS)
        w->base = w->mem.addr;
    return rc;
}

static int rma_map_peers(struct rmp_win *w)
{
    int n = w->comm->size;
    w->mapped = calloc((size_t)n, sizeof(void *));
    if (!w->mapped)
        return RMP_ERR_NOMEM;
    int mynode = rmpi_g.node_of[rmpi_g.rank];
    for (int r = 0; r < n; r++) {
        rma_entry_t *e = &w->peers[r];
        if (r == w->comm->rank || !e->allocated ||
            rmpi_g.node_of[rmpi_comm_world_rank(w->comm, r)] != mynode)
            continue;
        /* The entry comes from the peer: a name without its NUL or a size
         * that rounds past 2^64 is not mapped (the transport path checks). */
        void *p = NULL;
        if (memchr(e->seg, '\0', sizeof(e->seg)) && e->bytes <= SIZE_MAX / 2 &&
            rmpi_shmem_attach(e->seg, rma_pagesize(e->bytes), &p) == RMP_SUCCESS)
            w->mapped[r] = p; /* otherwise it goes through the transport */
    }
    return RMP_SUCCESS;
}

static int rma_create(void *base, size_t bytes, rmp_comm_t comm, int allocate, void **out_base,
                      rmp_win_t *out)
{
    int rc = rmpi_comm_check(comm);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!out || (!allocate && base == NULL && bytes > 0) || (allocate && !out_base))
        return RMP_ERR_ARG;
    struct rmp_win *w = rma_new_struct();
    if (!w)
        return RMP_ERR_NOMEM;
    w->magic = RMA_MAGIC;
    w->comm = comm;
    w->bytes = bytes;
    w->base = base;
    w->allocated = allocate;
    w->mem.fd = -1;
    rc = rma_register_id(w);
    if (rc == RMP_SUCCESS && allocate)
        rc = rma_alloc_segment(w, bytes);
    rma_entry_t me;
    memset(&me, 0, sizeof(me));
    me.base = (uint64_t)(uintptr_t)w->base;
    me.bytes = bytes;
    me.id = w->id;
    me.allocated = (uint32_t)allocate;
    snprintf(me.seg, sizeof(me.seg), "%s", w->allocated ? w->mem.name : "");
    for (int i = 0; rc == RMP_SUCCESS && i < rmpi_g.num_tls && i < 4; i++) {
        const rmpi_tl_iface_t *t = rmpi_g.tls[i].iface;
        if (t->mem_reg && bytes > 0)
            rc = t->mem_reg(rmpi_g.tls[i].tl, w->base, bytes, &w->mr[i], &me.keys[i]);
    }
    /* Live from here on: a faster peer may reach it as soon as it has our
     * entry, before this rank returns from the collective. */
    w->live = 1;
    /* Everybody learns everybody's window, even when one rank failed, so
     * that the collective ends on every rank with the same outcome. */
    int32_t myrc = rc, anyrc = 0;
    w->peers = calloc((size_t)comm->size, sizeof(rma_entry_t));
    if (!w->peers) {
        rma_release(w);
        return RMP_ERR_NOMEM;
    }
    int arc = rmp_allgather(&me, w->peers, sizeof(me), RMP_UINT8, comm);
    if (arc == RMP_SUCCESS)
        arc = rmp_allreduce(&myrc, &anyrc, 1, RMP_INT32, RMP_MIN, comm);
    rc = arc != RMP_SUCCESS ? arc : anyrc;
    if (rc == RMP_SUCCESS && allocate)
        rc = rma_map_peers(w);
    /* Once every same-node rank has mapped it, the descriptor can go. */
    if (rc == RMP_SUCCESS && allocate)
        rc = rmp_barrier(comm);
    if (allocate)
        rmpi_shmem_seal(&w->mem);
    if (rc != RMP_SUCCESS) {
        rmpi_error("window creation failed: %s", rmp_strerror(rc));
        rma_release(w);
        return rc;
    }
    if (allocate)
        *out_base = w->base; /* zero-filled: a new segment */
    *out = w;
    return RMP_SUCCESS;
}

RMP_EXPORT int rmp_win_create(void *base, size_t bytes, rmp_comm_t comm, rmp_win_t *win)
{
    return rma_create(base, bytes, comm, 0, NULL, win);
}

RMP_EXPORT int rmp_win_allocate(size_t bytes, rmp_comm_t comm, void **base, rmp_win_t *win)
{
    return rma_create(NULL, bytes, comm, 1, base, win);
}

RMP_EXPORT int rmp_win_free(rmp_win_t *win)
{
    if (!win)
        return RMP_ERR_ARG;
    int rc = rma_check_win(*win);
    if (rc != RMP_SUCCESS)
        return rc;
    struct rmp_win *w = *win;
    rc = rmp_win_flush_all(w);
    /* Nobody may still be accessing our memory when it goes. */
    int brc = rmp_barrier(w->comm);
    rma_release(w);
    *win = RMP_WIN_NULL;
    return rc != RMP_SUCCESS ? rc : brc;
}
