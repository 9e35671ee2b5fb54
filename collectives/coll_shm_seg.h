/* SPDX-License-Identifier: BSD-3-Clause */
/* The single-node segment's layout and its waits (coll_shm.c), shared by the algorithms
 * over it (coll_shm.c, coll_shm_cma.c). */
#ifndef COLL_SHM_SEG_H
#define COLL_SHM_SEG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "coll_comm.h"

/* Up to this many bytes, the input travels in the control line itself (one per set):
 * a reader takes the line it waits on and the data in one transfer instead of two. Each
 * slot is 16-byte aligned, as a long double must be. */
#define SHM_INLINE 16

typedef struct shm_ctl {
    _Alignas(RMPI_CACHELINE) uint64_t in_seq;
    uint64_t red_seq;
    _Alignas(16) unsigned char inl[2][SHM_INLINE]; /* small inputs of chunk k: inl[k & 1] */
    uint64_t fail_seq; /* k + 1: my part of chunk k failed (coll_shm_cma.c) */
} shm_ctl_t;

_Static_assert(sizeof(shm_ctl_t) == RMPI_CACHELINE, "a control line is one cache line");

struct coll_shm {
    rmpi_shmem_t mem; /* rank 0: the segment it made */
    char *base;       /* the mapping (rank 0: mem.addr) */
    size_t len, chunk;
    size_t cma_min; /* 2 ranks: the single-copy allreduce from here (0: never); rank 0's */
    int n;
    uint64_t seq; /* chunks run so far */
    int broken;   /* why a wait failed (0: none): the peers' counters are unknown now */
    int cma;      /* 2 ranks: 0 not tried yet, 1 the peer's memory is reachable, -1 not */
    pid_t peer_pid;  /* cma == 1: the other rank's process */
    uint64_t probe;  /* what the peer reads to test cross-memory attach */
    char *piece;     /* cma == 1: the piece buffer, CMA_SLOTS slots (coll_shm_cma.c) */
};

/* Tell the core we are spinning (lets the sibling hyperthread run). */
static inline void shm_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline shm_ctl_t *shm_ctl(coll_shm_t *s, int r)
{
    return (shm_ctl_t *)(s->base + (size_t)r * sizeof(shm_ctl_t));
}

/* Slot r (r == n: the result) of set k & 1. */
static inline char *shm_slot(coll_shm_t *s, uint64_t k, int r)
{
    size_t ctl = (size_t)s->n * sizeof(shm_ctl_t);
    ctl = (ctl + 4095) & ~(size_t)4095;
    return s->base + ctl + ((size_t)(k & 1) * (size_t)(s->n + 1) + (size_t)r) * s->chunk;
}

static inline void shm_publish(coll_shm_t *s, size_t field, uint64_t v, int me)
{
    __atomic_store_n((uint64_t *)((char *)shm_ctl(s, me) + field), v, __ATOMIC_RELEASE);
}

/* Every rank's counter there is already >= want: the wait ends before it starts (the
 * common case of shm_claim), with no bookkeeping. */
static inline int shm_all_reached(coll_shm_t *s, size_t field, uint64_t want)
{
    for (int r = 0; r < s->n; r++)
        if (__atomic_load_n((uint64_t *)((char *)shm_ctl(s, r) + field), __ATOMIC_ACQUIRE) < want)
            return 0;
    return 1;
}

/* Wait until the counter at byte offset `field` of the control line of every rank (of rank
 * `only` if >= 0) is >= want: spins, runs the progress engine, checks RMP_TIMEOUT and
 * peer failures. */
int coll_shm_wait_for(coll_shm_t *s, size_t field, uint64_t want, rmp_comm_t comm, int only);

static inline int shm_wait(coll_shm_t *s, size_t field, uint64_t want, rmp_comm_t comm)
{
    if (shm_all_reached(s, field, want))
        return RMP_SUCCESS;
    return coll_shm_wait_for(s, field, want, comm, -1);
}

/* The next chunk number, once its set may be written: set k & 1 last held chunk k - 2,
 * and every rank is done reading it when every in_seq has reached k (each operation
 * publishes chunk k - 1 only after it finished with the chunks before: allreduce after its
 * copy out, a bcast reader after its copy). An allreduce running after an allreduce finds
 * this true at once; after a bcast, whose readers leave without waiting for each other, it
 * may have to wait. */
static inline int shm_claim(coll_shm_t *s, rmp_comm_t comm, uint64_t *k)
{
    *k = s->seq++;
    return shm_wait(s, offsetof(shm_ctl_t, in_seq), *k, comm);
}

#endif /* COLL_SHM_SEG_H */
