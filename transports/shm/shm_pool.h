/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-sender pool of medium buffers, in the sender's own segment.
 *
 * A message too big for an inbox cell is copied into a free buffer of the
 * sender's pool, and the cell carries the buffer's index: the memory for
 * medium messages grows with the number of senders, not of pairs. The
 * receiver reads the buffer where it lies (it maps the sender's segment at
 * the first such message) and hands it back by clearing its state word.
 *
 * Each buffer's state word has a line of its own: the sender sets it busy
 * (it alone allocates), the receiver clears it with release order once it
 * has read the data, so the sender's acquire load of 0 means the receiver
 * is done. The sender tries the buffer it used last first: a ping-pong of
 * medium messages keeps reusing one hot buffer; then the lowest free one. */
#ifndef SHM_POOL_H
#define SHM_POOL_H

#include <stdatomic.h>
#include <stdint.h>

#include "shm_inbox.h"

#define SHM_POOL_BUFS_MAX 1024u

typedef struct shm_pool_state {
    _Alignas(SHM_LINE) _Atomic uint32_t busy;
    char pad[SHM_LINE - sizeof(uint32_t)];
} shm_pool_state_t;

/* The sender's private view of its pool. */
typedef struct shm_pool {
    shm_pool_state_t *state; /* nbufs lines */
    unsigned char *bufs;     /* nbufs x buf_bytes */
    uint32_t nbufs;
    size_t buf_bytes;
    uint32_t last; /* the buffer handed out last */
} shm_pool_t;

/* A free buffer's index, now busy, or -1 when all are in flight: the one used last (a
 * ping-pong stays on one hot buffer), else the lowest free one, so that the buffers in
 * use stay few and warm. Walking on round the pool instead cycles a stream, or a burst
 * to descheduled peers, through all of them (4 MiB with the defaults): that gave osu_bw
 * at 32 KiB twice the bandwidth but alltoall of 32 KiB at 4 ranks on 2 cores three times
 * the time, and lost 4-8 KiB bandwidth (benchmarks/results/ab-shm-pool-policy-20261129.txt). */
static inline int64_t shm_pool_get(shm_pool_t *p)
{
    uint32_t last = p->last;
    if (atomic_load_explicit(&p->state[last].busy, memory_order_acquire) == 0) {
        atomic_store_explicit(&p->state[last].busy, 1, memory_order_relaxed);
        return last;
    }
    for (uint32_t i = 0; i < p->nbufs; i++) {
        if (i != last && atomic_load_explicit(&p->state[i].busy, memory_order_acquire) == 0) {
            atomic_store_explicit(&p->state[i].busy, 1, memory_order_relaxed);
            p->last = i;
            return i;
        }
    }
    return -1;
}

static inline unsigned char *shm_pool_buf(unsigned char *bufs, size_t buf_bytes, uint32_t idx)
{
    return bufs + (size_t)idx * buf_bytes;
}

/* The receiver (or the sender taking back an unsent buffer): the data is read. */
static inline void shm_pool_put(shm_pool_state_t *state, uint32_t idx)
{
    atomic_store_explicit(&state[idx].busy, 0, memory_order_release);
}

#endif
