/* SPDX-License-Identifier: BSD-3-Clause */
/* Building blocks shared by several collectives, and the collectives' bodies run by
 * others without argument checks. comm ranks are used as given; `me` is this rank's
 * block index where it differs.
 *
 * Determinism: every reducing algorithm combines partial results in an order that depends
 * only on (count, datatype, number of ranks, algorithm), and the algorithm choice depends
 * only on those too, so allreduce results are bitwise identical on every rank. Where two
 * ranks combine the same pair of partial results (recursive doubling), the partial result
 * of the lower ranks is the left operand on both.
 */
#ifndef COLL_ALGO_H
#define COLL_ALGO_H

#include "coll_blocks.h"
#include "rmp.h"

/* Ring allgather in place over the n blocks of b (b->fold == 0): buf holds block `me` (the
 * block of comm rank (rank + k) % n is (me + k) % n); on return it holds every block. */
int coll_ag_ring(char *buf, const coll_blocks_t *b, int me, rmp_comm_t comm, int tag);

/* Recursive-halving reduce-scatter among the pof2 ranks of a folded group (rank nr of the
 * group is comm rank coll_fold_real(nr, rem)): acc holds this rank's (folded) contribution
 * to the whole vector; on return the group blocks [lo, hi) of coll_halving_window() hold
 * the reduction over the group: block nr when !near_first, one block in a bit-reversed
 * order when near_first (the steps go from the nearest peer to the farthest, and combine
 * the same tree as recursive doubling). tmp: scratch of the whole vector,
 * coll_blk_off(b, pof2) bytes. Lower ranks' data is the left operand. */
int coll_rs_halving(char *acc, char *tmp, const coll_blocks_t *b, int nr, int pof2, int rem,
                    int near_first, rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm, int tag);
/* Mask of halving step i: near_first goes 1, 2, .., pof2/2 (the biggest exchanges are
 * between neighbouring ranks, usually on one node), otherwise pof2/2 .. 1. */
static inline int coll_halving_mask(int i, int pof2, int near_first)
{
    return near_first ? 1 << i : (pof2 >> 1) >> i;
}
void coll_halving_window(int nr, int pof2, int near_first, int *lo, int *hi);

/* Recursive-doubling allgather in place among the pof2 ranks of a folded group, the
 * inverse of coll_rs_halving with the same near_first: buf holds the group blocks of
 * coll_halving_window(); on return it holds all pof2 group blocks. */
int coll_ag_doubling(char *buf, const coll_blocks_t *b, int nr, int pof2, int rem,
                     int near_first, rmp_comm_t comm, int tag);

/* Ring reduce-scatter over the n blocks of b (b->fold == 0): src holds this rank's whole
 * contribution (not modified); the reduction of block `rank` is written to dst, which may
 * be src's block `rank`. tmp: scratch of 2 * the largest block. */
int coll_rs_ring(const char *src, char *dst, char *tmp, const coll_blocks_t *b,
                 rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm, int tag);


/* Allreduce body without argument checks (also used by other collectives). */
int coll_allreduce_run(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                       rmp_op_t op, rmp_comm_t comm, int algo);
/* Bcast and barrier bodies, likewise (count > 0 for bcast). */
int coll_bcast_run(void *buf, size_t bytes, int root, rmp_comm_t comm, int algo);
int coll_barrier_run(rmp_comm_t comm, int algo);

#endif /* COLL_ALGO_H */
