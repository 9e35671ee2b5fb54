/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-receiver inbox: a bounded multi-producer single-consumer queue of
 * fixed cells in the receiver's segment, which every local sender posts to.
 *
 * One inbox per rank instead of one ring per ordered pair: the node's
 * memory grows with N, and the receiver polls one cell, not N rings. The
 * cells are few (RMP_SHM_CELLS, 128 by default) and reused round-robin, so
 * a ping-pong keeps hitting the same hot lines whatever the run's history.
 *
 * The protocol is D. Vyukov's bounded queue: cell i starts with seq = i.
 * A producer at position p (from the shared head) may claim the cell when
 * its seq == p, by CAS head p -> p + 1; it fills the cell and publishes it
 * with seq = p + 1 (release). The consumer at position t reads the cell
 * when seq == t + 1 and frees it for the next lap with seq = t + ncells.
 * seq < p means the cell is still in use a lap behind: the inbox is full.
 *
 * A cell is SHM_CELL bytes (two lines): a 16-byte descriptor, then either
 * the header and payload inline (up to SHM_CELL_DATA bytes: a 16-byte core
 * header with 96 bytes of payload) or the index of a pool buffer of the
 * sender (shm_pool.h) holding them. Fields come from another process: the
 * consumer checks every one before use (shm_cell_check). */
#ifndef SHM_INBOX_H
#define SHM_INBOX_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define SHM_LINE 64
#define SHM_CELL 128
#define SHM_CELL_DATA (SHM_CELL - 16)
#define SHM_CELLS_MIN 8u
#define SHM_CELLS_MAX 65536u

enum { SHM_CELL_INLINE = 0, SHM_CELL_POOL = 1 };

typedef struct shm_cell {
    _Alignas(SHM_CELL) _Atomic uint64_t seq;
    uint32_t plen;  /* payload bytes */
    uint16_t src;   /* the sender's local index */
    uint8_t hlen;   /* header bytes */
    uint8_t kind;   /* SHM_CELL_* */
    unsigned char data[SHM_CELL_DATA]; /* inline: header, payload; pool: uint32 buffer index */
} shm_cell_t;

typedef struct shm_inbox_ctl {
    _Alignas(SHM_LINE) _Atomic uint64_t head; /* next position a producer claims */
    char pad[SHM_LINE - sizeof(uint64_t)];
} shm_inbox_ctl_t;

/* The consumer's private state. */
typedef struct shm_inbox_rx {
    shm_inbox_ctl_t *ctl;
    shm_cell_t *cells;
    uint64_t ncells; /* power of two */
    uint64_t tail;   /* next position to read */
} shm_inbox_rx_t;

/* Owner, once, before any peer can see the inbox. */
static inline void shm_inbox_init(shm_inbox_ctl_t *ctl, shm_cell_t *cells, uint64_t ncells)
{
    atomic_store_explicit(&ctl->head, 0, memory_order_relaxed);
    for (uint64_t i = 0; i < ncells; i++)
        atomic_store_explicit(&cells[i].seq, i, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

/* Claim the next cell: NULL when the inbox is full now. The caller fills
 * it and calls shm_inbox_publish with *pos. */
static inline shm_cell_t *shm_inbox_claim(shm_inbox_ctl_t *ctl, shm_cell_t *cells,
                                          uint64_t ncells, uint64_t *pos)
{
    uint64_t p = atomic_load_explicit(&ctl->head, memory_order_relaxed);
    for (;;) {
        shm_cell_t *c = &cells[p & (ncells - 1)];
        uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        int64_t dif = (int64_t)(seq - p);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&ctl->head, &p, p + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
                *pos = p;
                return c;
            }
            /* p now holds the head another producer moved to */
        } else if (dif < 0) {
            return NULL; /* a lap behind: the consumer has not freed it */
        } else {
            p = atomic_load_explicit(&ctl->head, memory_order_relaxed);
        }
    }
}

static inline void shm_inbox_publish(shm_cell_t *c, uint64_t pos)
{
    atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
}

/* Post header and payload inline: 0, or 1 when the inbox is full. */
static inline int shm_inbox_post(shm_inbox_ctl_t *ctl, shm_cell_t *cells, uint64_t ncells,
                                 uint16_t src, const void *hdr, size_t hlen, const void *payload,
                                 size_t plen)
{
    uint64_t pos;
    shm_cell_t *c = shm_inbox_claim(ctl, cells, ncells, &pos);
    if (!c)
        return 1;
    c->plen = (uint32_t)plen;
    c->src = src;
    c->hlen = (uint8_t)hlen;
    c->kind = SHM_CELL_INLINE;
    memcpy(c->data, hdr, hlen);
    if (plen)
        memcpy(c->data + hlen, payload, plen);
    shm_inbox_publish(c, pos);
    return 0;
}

/* The next published cell, or NULL. Valid until shm_inbox_pop. */
static inline shm_cell_t *shm_inbox_peek(shm_inbox_rx_t *rx)
{
    shm_cell_t *c = &rx->cells[rx->tail & (rx->ncells - 1)];
    if (atomic_load_explicit(&c->seq, memory_order_acquire) != rx->tail + 1)
        return NULL;
    return c;
}

static inline void shm_inbox_pop(shm_inbox_rx_t *rx, shm_cell_t *c)
{
    atomic_store_explicit(&c->seq, rx->tail + rx->ncells, memory_order_release);
    rx->tail++;
}

/* Is a published cell one a sender with nlocal local ranks and a pool of
 * nbufs buffers of buf_bytes writes? 0 when sound: an inline cell's header
 * and payload lie in the cell, a pool cell names a buffer that exists and
 * whose header and payload fit in it. */
static inline int shm_cell_check(const shm_cell_t *c, int nlocal, uint32_t nbufs,
                                 size_t buf_bytes)
{
    if (c->src >= (unsigned)nlocal || c->hlen == 0)
        return -1;
    if (c->kind == SHM_CELL_INLINE)
        return (size_t)c->hlen + c->plen <= SHM_CELL_DATA ? 0 : -1;
    if (c->kind == SHM_CELL_POOL) {
        uint32_t idx;
        memcpy(&idx, c->data, sizeof(idx));
        return idx < nbufs && (size_t)c->hlen + c->plen <= buf_bytes ? 0 : -1;
    }
    return -1;
}

#endif
