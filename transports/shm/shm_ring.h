/* SPDX-License-Identifier: BSD-3-Clause */
/* Single-producer single-consumer ring of 64-byte lines in shared memory.
 *
 * A record is [shm_rec_t | header | payload], padded to whole lines and
 * contiguous (a pad record fills the end of the ring when a record would
 * wrap). The first line's seq word is written last, with release order, and
 * holds the record's absolute line position + 1: the consumer polls the
 * very line it will read, so a small message costs one cache-line transfer,
 * and stale lines from earlier laps never look valid (the consumer zeroes
 * the first word of a record's other lines, which held payload, on pop). The consumer publishes
 * its position in a line of its own; the producer reads it only when its
 * cached copy says the ring is full. */
#ifndef SHM_RING_H
#define SHM_RING_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define SHM_LINE 64
#define SHM_REC_PAD 1
#define SHM_RING_MAX_LINES 65535u /* nlines is 16 bits */

typedef struct shm_rec {
    _Atomic uint64_t seq;
    uint32_t plen;
    uint16_t nlines;
    uint8_t hlen;
    uint8_t flags;
} shm_rec_t;

typedef struct shm_ring_ctl {
    _Alignas(SHM_LINE) _Atomic uint64_t tail; /* consumer position, absolute lines */
    char pad[SHM_LINE - sizeof(uint64_t)];
} shm_ring_ctl_t;

typedef struct shm_line {
    _Alignas(SHM_LINE) unsigned char b[SHM_LINE];
} shm_line_t;

typedef struct shm_tx {
    shm_ring_ctl_t *ctl;
    shm_line_t *lines;
    uint64_t nlines; /* power of two */
    uint64_t head;   /* next line to write, absolute */
    uint64_t tail_cache;
} shm_tx_t;

typedef struct shm_rx {
    shm_ring_ctl_t *ctl;
    shm_line_t *lines;
    uint64_t nlines;
    uint64_t tail; /* next line to read, absolute */
    int corrupt;   /* the producer wrote a record that breaks the format */
} shm_rx_t;

static inline uint64_t shm_rec_lines(size_t hlen, size_t plen)
{
    return (sizeof(shm_rec_t) + hlen + plen + SHM_LINE - 1) / SHM_LINE;
}

/* Largest hlen + plen a ring of nlines lines accepts: half the ring, so that
 * a record plus the pad before it always fits in an empty ring. */
static inline size_t shm_ring_max_msg(uint64_t nlines)
{
    return (size_t)(nlines / 2) * SHM_LINE - sizeof(shm_rec_t);
}

/* 0 when the record went in, 1 when there is no room now. */
static inline int shm_ring_push(shm_tx_t *tx, const void *hdr, size_t hlen,
                                const void *payload, size_t plen)
{
    uint64_t need = shm_rec_lines(hlen, plen);
    uint64_t pos = tx->head & (tx->nlines - 1);
    uint64_t contig = tx->nlines - pos;
    uint64_t total = need <= contig ? need : contig + need;
    if (tx->head + total - tx->tail_cache > tx->nlines) {
        tx->tail_cache = atomic_load_explicit(&tx->ctl->tail, memory_order_acquire);
        if (tx->head + total - tx->tail_cache > tx->nlines)
            return 1;
    }
    if (need > contig) {
        shm_rec_t *pad = (shm_rec_t *)&tx->lines[pos];
        pad->nlines = (uint16_t)contig;
        pad->flags = SHM_REC_PAD;
        pad->plen = 0;
        pad->hlen = 0;
        atomic_store_explicit(&pad->seq, tx->head + 1, memory_order_release);
        tx->head += contig;
        pos = 0;
    }
    shm_rec_t *rec = (shm_rec_t *)&tx->lines[pos];
    rec->plen = (uint32_t)plen;
    rec->nlines = (uint16_t)need;
    rec->hlen = (uint8_t)hlen;
    rec->flags = 0;
    unsigned char *d = (unsigned char *)(rec + 1);
    memcpy(d, hdr, hlen);
    if (plen)
        memcpy(d + hlen, payload, plen);
    atomic_store_explicit(&rec->seq, tx->head + 1, memory_order_release);
    tx->head += need;
    return 0;
}

/* Is a published record at line pos of a ring of nlines lines what
 * shm_ring_push writes? The fields come from another process: a wrong one
 * must not make the consumer read past the ring or spin on a pad of 0
 * lines. 0 when sound: then the record's lines, and its hlen + plen bytes
 * after the shm_rec_t, lie within [pos, nlines). */
static inline int shm_frame_check(const shm_rec_t *rec, uint64_t pos, uint64_t nlines)
{
    uint64_t contig = nlines - pos;
    if (rec->flags == SHM_REC_PAD)
        return rec->nlines == contig ? 0 : -1;
    if (rec->flags != 0 || rec->nlines == 0 || rec->nlines > contig ||
        rec->nlines != shm_rec_lines(rec->hlen, rec->plen))
        return -1;
    return 0;
}

/* The next record, or NULL. Valid until shm_ring_pop. Skips pad records.
 * NULL with rx->corrupt set: the ring is unusable from now on. */
static inline shm_rec_t *shm_ring_peek(shm_rx_t *rx)
{
    for (;;) {
        uint64_t pos = rx->tail & (rx->nlines - 1);
        shm_rec_t *rec = (shm_rec_t *)&rx->lines[pos];
        if (rx->corrupt || atomic_load_explicit(&rec->seq, memory_order_acquire) != rx->tail + 1)
            return NULL;
        if (shm_frame_check(rec, pos, rx->nlines) != 0) {
            rx->corrupt = 1;
            return NULL;
        }
        if (!(rec->flags & SHM_REC_PAD))
            return rec;
        rx->tail += rec->nlines;
    }
}

static inline void shm_ring_pop(shm_rx_t *rx, shm_rec_t *rec)
{
    /* Lines after the first held payload, and their first word is where a
     * later lap looks for a seq: data equal to that future position would
     * pass for a record the producer never wrote. Clear it before the
     * producer may reuse the lines (one-line records: nothing to do). */
    for (unsigned i = 1; i < rec->nlines; i++)
        atomic_store_explicit(&((shm_rec_t *)&((shm_line_t *)rec)[i])->seq, 0,
                              memory_order_relaxed);
    rx->tail += rec->nlines;
    atomic_store_explicit(&rx->ctl->tail, rx->tail, memory_order_release);
}

#endif
