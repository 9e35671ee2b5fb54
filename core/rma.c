/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided communication: windows, put/get, atomics, flush.
 *
 * Path per target, chosen at each call:
 *   1. the target is this rank, or its window is mapped here (an allocated
 *      window of a same-node rank): plain loads/stores and CPU atomics;
 *   2. the peer's transport can put/get (shm: cross-memory attach; verbs:
 *      RDMA): the transport moves the data, the target's CPU is not involved;
 *   3. otherwise, and for transfers a message moves faster than the transport's
 *      put/get (shm up to RMP_SHM_RMA_MSG_MAX), emulation: the target's progress
 *      engine executes the operation (RMPI_MSG_RMA messages, core/rma_emu.c).
 * Atomics always run as CPU atomics on the target's memory (directly, or by
 * the target on behalf of the caller), so they are atomic with respect to
 * each other whatever transports the ranks use (docs/rma.md).
 * Every access is checked at the caller against the exchanged window table;
 * the target checks emulated ones again. */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "config.h"
#include "log.h"
#include "mt.h"
#include "p2p.h"
#include "rma_emu.h"
#include "rma_win.h"

int rmpi_rma_check_win(rmpi_engine_t *e, rmp_win_t win)
{
    int rc = rmpi_check_state();
    if (rc != RMP_SUCCESS)
        return rc;
    if (!win)
        return RMP_ERR_ARG;
    /* Only a handle of a live window is followed: a forged or stale value is
     * refused without reading through it. */
    if (!rmpi_win_is_live(e, win)) {
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

static int rma_check(rmpi_engine_t *e, rmp_win_t win, int target, size_t offset, size_t bytes,
                     const void *buf)
{
    int rc = rmpi_rma_check_win(e, win);
    if (rc != RMP_SUCCESS)
        return rc;
    if (target < 0 || target >= win->comm->size || (buf == NULL && bytes > 0))
        return RMP_ERR_ARG;
    if (rmpi_peer_lost(e, rmpi_comm_world_rank(win->comm, target)))
        return RMP_ERR_PEER_FAILED;
    const rmpi_win_entry_t *pe = &win->peers[target];
    if (win->dynamic)
        return RMP_SUCCESS; /* the target checks the address against its regions */
    if (offset > pe->bytes || bytes > pe->bytes - offset) {
        rmpi_warn("one-sided access of %zu bytes at offset %zu is outside rank %d's window of "
                  "%llu bytes",
                  bytes, offset, target, (unsigned long long)pe->bytes);
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
static inline void rma_direct_progress(rmpi_engine_t *e, int work)
{
    static __thread unsigned n __attribute__((tls_model("initial-exec")));
    static __thread int worked __attribute__((tls_model("initial-exec")));
    worked |= work; /* any of the 16 since the last progress */
    if ((++n & 15) == 0) {
        if (worked && RMPI_UNLIKELY(e->p2p.idle || e->p2p.sleep_ns))
            rmpi_progress_active();
        worked = 0;
        rmpi_progress();
    }
    rmpi_health_tick();
}

static int rma_slot_of(rmpi_engine_t *e, const rmpi_peer_t *p)
{
    for (int i = 0; i < e->tls.num; i++)
        if (e->tls.v[i].tl == p->tl)
            return i;
    return 0;
}

static void rma_nbi_done(void *arg, int status)
{
    struct rmp_win *w = arg;
    if (status != RMP_SUCCESS && w->nbi_error == RMP_SUCCESS)
        w->nbi_error = status;
    rmpi_rma_count_add(&w->outstanding, -1);
}

static void rma_op_done(void *arg, int status)
{
    rmpi_rma_op_t *op = arg;
    if (op->orphan) {
        free(op);
        return;
    }
    op->status = status;
    rmpi_rma_count_set(&op->pending, 0);
}

static int rma_xfer(rmpi_engine_t *e, rmp_win_t win, int is_put, void *buf, size_t bytes,
                    int target, size_t offset, int nbi)
{
    int rc = rma_check(e, win, target, offset, bytes, buf);
    if (rc != RMP_SUCCESS || bytes == 0)
        return rc;
    unsigned char *d = rma_local(win, target, offset, bytes);
    if (d) {
        rma_direct_progress(e, 0); /* as before: a rank may be polling a flag */
        if (is_put)
            memcpy(d, buf, bytes);
        else
            memcpy(buf, d, bytes);
        return RMP_SUCCESS;
    }
    rmpi_peer_t *p = &e->peers[rmpi_comm_world_rank(win->comm, target)];
    if (!p->rma || win->dynamic || bytes <= p->rma_msg_max) {
        if (nbi)
            return is_put ? rmpi_rma_put_msg(e, win, buf, bytes, target, offset)
                          : rmpi_rma_get_msg(e, win, buf, bytes, target, offset);
        return rmpi_rma_emulate(e, win, is_put ? RMPI_RMA_PUT : RMPI_RMA_GET, buf, bytes, target,
                           offset);
    }
    uint64_t raddr = win->peers[target].base + offset;
    uint64_t key = win->peers[target].keys[rma_slot_of(e, p)];
    /* On the heap: if this waiter gives up (RMP_TIMEOUT, a dead target), the
     * transport still completes it later. */
    rmpi_rma_op_t *op = NULL;
    if (!nbi && !(op = calloc(1, sizeof(*op))))
        return RMP_ERR_NOMEM;
    if (op)
        rmpi_rma_count_set(&op->pending, 1);
    rmpi_mt_enter(e);
    for (;;) {
        if (nbi)
            rmpi_rma_count_add(&win->outstanding, 1);
        rc = is_put ? p->iface->put(p->ep, buf, bytes, raddr, key,
                                    nbi ? rma_nbi_done : rma_op_done, nbi ? (void *)win : op)
                    : p->iface->get(p->ep, buf, bytes, raddr, key,
                                    nbi ? rma_nbi_done : rma_op_done, nbi ? (void *)win : op);
        if (rc != RMPI_AGAIN)
            break;
        if (nbi)
            rmpi_rma_count_add(&win->outstanding, -1);
        rmpi_progress();
    }
    rmpi_mt_leave(e);
    if (rc != RMP_SUCCESS) {
        if (nbi)
            rmpi_rma_count_add(&win->outstanding, -1);
        free(op);
        /* Noticed here first (a transport may report it only at its next
         * progress, which a flush with nothing in flight never makes). */
        if (rc == RMP_ERR_PEER_FAILED)
            rmpi_peer_failed(rmpi_comm_world_rank(win->comm, target), "lost by its transport");
        return rc;
    }
    if (nbi)
        return RMP_SUCCESS;
    rc = rmpi_rma_wait(e, &op->pending, rmpi_comm_world_rank(win->comm, target), win->comm,
                  "a one-sided operation");
    if (rc != RMP_SUCCESS) {
        rmpi_mt_enter(e);
        op->orphan = 1; /* under the lock: the callback may run at any time */
        rmpi_mt_leave(e);
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
    rmpi_engine_t *e = &rmpi_eng;
    return rma_xfer(e, win, 1, (void *)src, bytes, target, offset, 0);
}

RMP_EXPORT int rmp_get(void *dst, size_t bytes, int target, size_t offset, rmp_win_t win)
{
    rmpi_engine_t *e = &rmpi_eng;
    return rma_xfer(e, win, 0, dst, bytes, target, offset, 0);
}

RMP_EXPORT int rmp_put_nbi(const void *src, size_t bytes, int target, size_t offset,
                           rmp_win_t win)
{
    rmpi_engine_t *e = &rmpi_eng;
    return rma_xfer(e, win, 1, (void *)src, bytes, target, offset, 1);
}

RMP_EXPORT int rmp_get_nbi(void *dst, size_t bytes, int target, size_t offset, rmp_win_t win)
{
    rmpi_engine_t *e = &rmpi_eng;
    return rma_xfer(e, win, 0, dst, bytes, target, offset, 1);
}

RMP_EXPORT int rmp_win_flush_all(rmp_win_t win)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_rma_check_win(e, win);
    if (rc != RMP_SUCCESS)
        return rc;
    rmpi_health_tick();
    rc = rmpi_rma_wait(e, &win->outstanding, -1, win->comm, "rmp_win_flush");
    rmpi_mt_enter(e); /* several threads may flush one window */
    win->flush_gave_up = rc == RMP_ERR_TIMEOUT;
    rmpi_mt_leave(e);
    if (rc != RMP_SUCCESS)
        return rc;
    if (RMPI_UNLIKELY(rmpi_comm_lost_member(win->comm)))
        return RMP_ERR_PEER_FAILED;
    rmpi_mt_enter(e);
    rc = win->nbi_error;
    win->nbi_error = RMP_SUCCESS;
    rmpi_mt_leave(e);
    return rc;
}

RMP_EXPORT int rmp_win_flush(int target, rmp_win_t win)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_rma_check_win(e, win);
    if (rc != RMP_SUCCESS)
        return rc;
    if (target < 0 || target >= win->comm->size)
        return RMP_ERR_ARG;
    rc = rmp_win_flush_all(win); /* per-target tracking is not worth it yet */
    /* What went to a dead rank is not known to be anywhere. */
    if (rc == RMP_SUCCESS && rmpi_peer_lost(e, rmpi_comm_world_rank(win->comm, target)))
        rc = RMP_ERR_PEER_FAILED;
    return rc;
}

static int rma_atomic(rmpi_engine_t *e, rmp_win_t win, int op_code, uint64_t operand,
                      uint64_t compare, uint64_t *old, int target, size_t offset)
{
    int rc = rma_check(e, win, target, offset, 8, old);
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
        rma_direct_progress(e, work);
        return RMP_SUCCESS;
    }
    return rmpi_rma_emulate_atomic(e, win, op_code, operand, compare, old, target, offset);
}

RMP_EXPORT int rmp_atomic_fetch_add(uint64_t value, uint64_t *old, int target, size_t offset,
                                    rmp_win_t win)
{
    rmpi_engine_t *e = &rmpi_eng;
    return rma_atomic(e, win, RMPI_RMA_FADD, value, 0, old, target, offset);
}

RMP_EXPORT int rmp_atomic_cswap(uint64_t compare, uint64_t swap, uint64_t *old, int target,
                                size_t offset, rmp_win_t win)
{
    rmpi_engine_t *e = &rmpi_eng;
    return rma_atomic(e, win, RMPI_RMA_CSWAP, swap, compare, old, target, offset);
}

/* The target's window as mapped into this process (an allocated window of a same-node
 * rank, or this rank's own): what MPI_Win_shared_query hands out. */
RMP_EXPORT int rmp_win_shared_ptr(rmp_win_t win, int target, void **ptr)
{
    rmpi_engine_t *e = &rmpi_eng;
    int rc = rmpi_rma_check_win(e, win);
    if (rc != RMP_SUCCESS)
        return rc;
    if (!ptr || target < 0 || target >= win->comm->size)
        return RMP_ERR_ARG;
    *ptr = rma_direct(win, target);
    return *ptr || win->peers[target].bytes == 0 ? RMP_SUCCESS : RMP_ERR_NOT_SUPPORTED;
}
