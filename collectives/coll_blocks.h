/* SPDX-License-Identifier: BSD-3-Clause */
/* Blocks of a vector, non-power-of-two folding and scratch buffers: the arithmetic
 * the algorithms share (no communication). */
#ifndef COLL_BLOCKS_H
#define COLL_BLOCKS_H

#include <stddef.h>
#include <stdlib.h>

/* Scratch up to this size lives on the stack. */
#define COLL_STACK_BYTES 4096
/* allgatherv with equal counts: blocks that land apart on a rank (or are layouts) go
 * through scratch up to this many bytes in all; above it, the ring (coll_v.c). */
#define COLL_V_SCRATCH ((size_t)1 << 20)

/* ---- Blocks: a vector cut into contiguous parts. ----
 * Part i has q + (i < r) elements of es bytes. With fold > 0, index i names the group of
 * parts that one rank of a folded power-of-two group owns: i < fold stands for parts
 * 2i and 2i+1, i >= fold for part i + fold (see coll_fold_*). */
typedef struct coll_blocks {
    size_t q, r, es;
    int fold;
} coll_blocks_t;

static inline coll_blocks_t coll_blocks_even(size_t count, int parts, size_t es)
{
    coll_blocks_t b = {count / (size_t)parts, count % (size_t)parts, es, 0};
    return b;
}

/* Byte offset of (group) index i; coll_blk_off(b, i + 1) - coll_blk_off(b, i) is its size. */
static inline size_t coll_blk_off(const coll_blocks_t *b, int i)
{
    size_t k = (size_t)(i < b->fold ? 2 * i : i + b->fold);
    return (k * b->q + (k < b->r ? k : b->r)) * b->es;
}

static inline size_t coll_blk_len(const coll_blocks_t *b, int i)
{
    return coll_blk_off(b, i + 1) - coll_blk_off(b, i);
}

/* ---- Non-power-of-two folding (MPICH): with pof2 the largest power of two <= n and
 * rem = n - pof2, ranks 2i and 2i+1 (i < rem) act as the single rank i of a power-of-two
 * group: the even one hands its data to the odd one and sits out. ---- */
static inline int coll_pof2(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* Rank in the folded group, or -1 for a rank that sits out. */
static inline int coll_fold_rank(int rank, int rem)
{
    if (rank < 2 * rem)
        return rank & 1 ? rank / 2 : -1;
    return rank - rem;
}

static inline int coll_fold_real(int nr, int rem)
{
    return nr < rem ? 2 * nr + 1 : nr + rem;
}

static inline size_t coll_blk_max(const coll_blocks_t *b)
{
    return (b->q + (b->r > 0)) * b->es * (b->fold > 0 ? 2 : 1);
}

/* Scratch: the stack buffer when it is big enough, else malloc. */
static inline void *coll_scratch(void *stack, size_t stack_len, size_t need)
{
    return need <= stack_len ? stack : malloc(need ? need : 1);
}

static inline void coll_scratch_free(void *p, void *stack)
{
    if (p != stack)
        free(p);
}

#endif /* COLL_BLOCKS_H */
