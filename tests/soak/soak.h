/* SPDX-License-Identifier: BSD-3-Clause */
/* Mixed soak (tests/soak): shared state of the phases. Every rank derives the
 * whole job's schedule of a round from (seed, round), so each rank knows
 * exactly what it must receive, what every collective must return and what
 * its window must contain, without any extra communication. */
#ifndef SOAK_H
#define SOAK_H

#include <rmp.h>
#include <stddef.h>
#include <stdint.h>

#define SOAK_NTAGS 4
#define SOAK_MAX_MSG (4u << 20)    /* largest p2p message: a few MiB, past every threshold */
#define SOAK_ARENA (16u << 20)     /* send and receive bytes per rank and round */
#define SOAK_MAX_MSGS 64           /* messages per rank and round, either way */
#define SOAK_NCOUNTERS 16          /* fetch-add counters per window */
#define SOAK_SLOT (32u << 10)      /* put/get bytes each writer owns in each window */

typedef struct {
    uint64_t s;
} soak_rng_t;

typedef struct {
    int me, np;
    uint64_t seed;
    uint64_t round;
    rmp_comm_t world, half; /* half: rmp_comm_split by rank parity */
    long bad;               /* lost, duplicated, reordered, corrupted or failed */
    /* p2p: next sequence number of every (src, dst, tag) stream of the job */
    uint32_t *seq_tx;
    unsigned char *sarena, *rarena;
    uint64_t msgs, bytes;
    /* rma */
    rmp_win_t win;
    unsigned char *wbase;
    uint64_t *expect_ctr;   /* what the counters of my window must end at */
    uint64_t *last_old;     /* last value fetch-add returned me, per (target, counter) */
    uint64_t atomics, puts;
    uint64_t colls;
} soak_t;

static inline uint64_t soak_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline void soak_rng_init(soak_rng_t *r, uint64_t seed, uint64_t round, uint64_t phase)
{
    r->s = soak_mix(seed ^ soak_mix(round * 8 + phase)) | 1;
}

static inline uint64_t soak_rng(soak_rng_t *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s * 0x2545f4914f6cdd1dull;
}

static inline uint64_t soak_below(soak_rng_t *r, uint64_t n)
{
    return n ? soak_rng(r) % n : 0;
}

/* Record a failure with the round, so the run can be replayed with the seed. */
#define SOAK_FAIL(k, ...) soak_fail_at((k), __FILE__, __LINE__, __VA_ARGS__)
void soak_fail_at(soak_t *k, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Deterministic content: byte i of a buffer identified by key. */
void soak_fill(unsigned char *p, size_t n, uint64_t key);
int soak_check_fill(const unsigned char *p, size_t n, uint64_t key);
uint64_t soak_csum(const unsigned char *p, size_t n);

int soak_p2p_init(soak_t *k);
void soak_p2p_fini(soak_t *k);
void soak_p2p_round(soak_t *k);
int soak_coll_init(soak_t *k);
void soak_coll_fini(void);
int soak_coll_begin(soak_t *k);      /* start the collectives outstanding across the round */
void soak_coll_round(soak_t *k);     /* 1..4 blocking collectives, world and halves */
void soak_coll_end(soak_t *k);       /* complete and check what soak_coll_begin started */
int soak_rma_init(soak_t *k);
void soak_rma_round(soak_t *k);
void soak_rma_churn(soak_t *k);     /* sometimes: create, use and free a window */
void soak_rma_check(soak_t *k);      /* after a barrier: what others put into my window */
void soak_rma_final(soak_t *k);      /* after the last barrier: counters exact */
void soak_rma_fini(soak_t *k);

/* Process resources (soak_sys.c). */
long soak_rss_kib(void);
long soak_shmem_kib(void);
long soak_heap_kib(void);
void soak_malloc_pin(void);
int soak_fd_count(void);
/* Describe the open descriptors ("fd -> target" lines) into buf. */
void soak_fd_list(char *buf, size_t len);

#endif
