/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided operations by message (core/rma_emu.c), for core/rma.c: what the two share
 * (operation records, completion counters, the wait) and the emulated operations. */
#ifndef RMPI_RMA_EMU_H
#define RMPI_RMA_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "rmp.h"

/* Counters written under the engine lock and read by waiters outside it
 * (MULTIPLE): atomic loads and stores, never a locked read-modify-write. */
static inline long rmpi_rma_count(const long *c)
{
    return __atomic_load_n(c, __ATOMIC_ACQUIRE);
}

static inline void rmpi_rma_count_set(long *c, long v)
{
    __atomic_store_n(c, v, __ATOMIC_RELEASE);
}

static inline void rmpi_rma_count_add(long *c, long d)
{
    rmpi_rma_count_set(c, __atomic_load_n(c, __ATOMIC_RELAXED) + d);
}

/* One operation: a transport put/get waited for, or an emulated one. */
typedef struct rmpi_rma_op {
    long pending; /* bytes or replies still expected (rmpi_rma_count) */
    int status;
    unsigned char *dst;    /* get: where the data goes */
    uint64_t off0;         /* get: offset of dst[0] at the target */
    uint64_t result;       /* atomics */
    uint64_t len;          /* get: bytes at dst, the bound for replies */
    uint64_t seq;          /* emulated: the id its replies carry */
    int orphan;            /* transport op whose waiter gave up: the callback frees it */
    uint32_t nbi_win;      /* non-blocking get: its window's id + 1 (0: a waited op) */
    struct rmpi_rma_op *next; /* emulated ops in flight; a free record */
} rmpi_rma_op_t;


/* Wait until *pending is 0 (progressing). peer: the world rank the operation waits
 * on; -1: several, any member of comm (an operation in flight towards a dead rank may
 * never complete: a transport need not report it before its own timeouts). */
int rmpi_rma_wait(rmpi_engine_t *e, long *pending, int peer, rmp_comm_t comm, const char *call);

/* Blocking put or get (op_code RMPI_RMA_PUT/GET) by messages, each answered. */
int rmpi_rma_emulate(rmpi_engine_t *e, rmp_win_t win, int op_code, void *buf, size_t bytes,
                     int target, size_t offset);
/* Fetch-add or compare-and-swap executed by the target; *old its previous value. */
int rmpi_rma_emulate_atomic(rmpi_engine_t *e, rmp_win_t win, int op_code, uint64_t operand,
                            uint64_t compare, uint64_t *old, int target, size_t offset);
/* Non-blocking put and get (bytes > 0) by messages: they return once handed over and
 * count in win->outstanding until acknowledged, or until all the data has arrived. */
int rmpi_rma_put_msg(rmpi_engine_t *e, rmp_win_t win, const void *buf, size_t bytes, int target,
                     size_t offset);
int rmpi_rma_get_msg(rmpi_engine_t *e, rmp_win_t win, void *buf, size_t bytes, int target,
                     size_t offset);
/* The window goes (rmp_win_free, finalize): its non-blocking gets still in flight (a
 * flush gave up on them) are forgotten, so that a late reply finds nothing and never
 * writes into a buffer its owner may have freed since. */
void rmpi_rma_forget(rmpi_engine_t *e, const struct rmp_win *win);

#endif
