/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduce-scatter with equal blocks: recursive halving (MPICH, with the extra ranks of a
 * non-power-of-two count folded into their neighbours), ring, and direct (every rank
 * sends block i to rank i and reduces the n contributions to its block in rank order:
 * one step, for small blocks on few ranks). The two reduce-scatter
 * building blocks also serve allreduce and reduce.
 *
 * RMP_IN_PLACE (as sbuf, like MPI_Reduce_scatter_block): rbuf holds this rank's whole
 * contribution (size x count elements) on entry, and its first count elements hold the
 * result on return; the rest of rbuf is scratch and its contents are unspecified. */
#include <stdlib.h>
#include <string.h>

#include "coll_algo.h"
#include "coll_blocks.h"
#include "coll_check.h"
#include "coll_comm.h"
#include "coll_core.h"
#include "coll_op.h"
#include "coll_p2p.h"
#include "coll_shm.h"
#include "coll_tune.h"

void coll_halving_window(int nr, int pof2, int near_first, int *lo, int *hi)
{
    *lo = 0;
    *hi = pof2;
    for (int i = 0; (1 << i) < pof2; i++) {
        int half = (*hi - *lo) / 2;
        if (nr & coll_halving_mask(i, pof2, near_first))
            *lo += half;
        else
            *hi -= half;
    }
}

int coll_rs_halving(char *acc, char *tmp, const coll_blocks_t *b, int nr, int pof2, int rem,
                    int near_first, rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm, int tag)
{
    int lo = 0, hi = pof2;
    for (int i = 0; (1 << i) < pof2; i++) {
        int mask = coll_halving_mask(i, pof2, near_first);
        int pnr = nr ^ mask, peer = coll_fold_real(pnr, rem), mid = lo + (hi - lo) / 2;
        int klo = nr & mask ? mid : lo, khi = nr & mask ? hi : mid;
        int slo = nr & mask ? lo : mid, shi = nr & mask ? mid : hi;
        size_t koff = coll_blk_off(b, klo), kbytes = coll_blk_off(b, khi) - koff;
        size_t soff = coll_blk_off(b, slo), sbytes = coll_blk_off(b, shi) - soff;
        int rc = coll_sendrecv(acc + soff, sbytes, peer, tmp, kbytes, peer, tag, comm);
        if (rc != RMP_SUCCESS)
            return rc;
        if (pnr < nr)
            coll_op_reduce3(acc + koff, tmp, acc + koff, kbytes / b->es, dt, op);
        else
            coll_op_reduce(acc + koff, tmp, kbytes / b->es, dt, op);
        lo = klo;
        hi = khi;
    }
    return RMP_SUCCESS;
}

/* Step s sends the partial sum of block rank-s-1 to the right and receives that of block
 * rank-s-2 from the left, adding this rank's contribution; the last block received is the
 * rank's own. Partial sums alternate between the two halves of tmp so that the one being
 * sent is never the one being received into. */
int coll_rs_ring(const char *src, char *dst, char *tmp, const coll_blocks_t *b,
                 rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank;
    int right = (rank + 1) % n, left = (rank - 1 + n) % n;
    size_t maxblk = coll_blk_max(b);
    char *t[2] = {tmp, tmp + maxblk};
    if (n == 1) {
        if (dst != src)
            memmove(dst, src, coll_blk_len(b, 0));
        return RMP_SUCCESS;
    }
    for (int s = 0; s < n - 1; s++) {
        int sb = (rank - s - 1 + 2 * n) % n, rb = (rank - s - 2 + 2 * n) % n;
        const char *sp = s == 0 ? src + coll_blk_off(b, sb) : t[(s - 1) & 1];
        size_t rlen = coll_blk_len(b, rb);
        int rc = coll_sendrecv(sp, coll_blk_len(b, sb), right, t[s & 1], rlen, left, tag, comm);
        if (rc != RMP_SUCCESS)
            return rc;
        char *out = s == n - 2 ? dst : t[s & 1];
        coll_op_reduce3(out, src + coll_blk_off(b, rb), t[s & 1], rlen / b->es, dt, op);
    }
    return RMP_SUCCESS;
}

static int rs_halving(const char *src, char *rbuf, size_t count, rmp_datatype_t dt,
                      rmp_op_t op, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank, pof2 = coll_pof2(n), rem = n - pof2;
    size_t es = coll_dt_size(dt), blk = count * es, total = blk * (size_t)n;
    int in_place = src == rbuf;
    /* acc: the working copy of the whole vector (rbuf itself when in place); tmp: what
     * the peers send, up to a whole vector when folding. */
    char *mem = malloc(in_place ? total : 2 * total);
    if (!mem)
        return RMP_ERR_NOMEM;
    char *acc = in_place ? rbuf : mem, *tmp = in_place ? mem : mem + total;
    int rc = RMP_SUCCESS;
    if (!in_place)
        memcpy(acc, src, total);
    if (rank < 2 * rem && !(rank & 1)) {
        rc = coll_send(acc, total, rank + 1, tag, comm);
        if (rc == RMP_SUCCESS)
            rc = coll_recv(rbuf, blk, rank + 1, tag + 2, comm);
        goto out;
    }
    if (rank < 2 * rem) {
        if ((rc = coll_recv(tmp, total, rank - 1, tag, comm)) != RMP_SUCCESS)
            goto out;
        coll_op_reduce3(acc, tmp, acc, count * (size_t)n, dt, op);
    }
    coll_blocks_t b = {count, 0, es, rem};
    int nr = coll_fold_rank(rank, rem);
    rc = coll_rs_halving(acc, tmp, &b, nr, pof2, rem, 0, dt, op, comm, tag + 1);
    if (rc == RMP_SUCCESS && nr < rem)
        rc = coll_send(acc + (size_t)(rank - 1) * blk, blk, rank - 1, tag + 2, comm);
    if (rc == RMP_SUCCESS && acc + (size_t)rank * blk != rbuf)
        memmove(rbuf, acc + (size_t)rank * blk, blk);
out:
    free(mem);
    return rc;
}

static int rs_ring(const char *src, char *rbuf, size_t count, rmp_datatype_t dt,
                   rmp_op_t op, rmp_comm_t comm, int tag)
{
    size_t es = coll_dt_size(dt);
    coll_blocks_t b = coll_blocks_even(count * (size_t)comm->size, comm->size, es);
    _Alignas(64) char stack[COLL_STACK_BYTES];
    char *tmp = coll_scratch(stack, sizeof(stack), 2 * count * es);
    if (!tmp)
        return RMP_ERR_NOMEM;
    int rc = coll_rs_ring(src, rbuf, tmp, &b, dt, op, comm, tag);
    coll_scratch_free(tmp, stack);
    return rc;
}

static int rs_direct(const char *src, char *rbuf, size_t count, rmp_datatype_t dt,
                     rmp_op_t op, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank;
    size_t blk = count * coll_dt_size(dt);
    _Alignas(64) char stack[COLL_STACK_BYTES];
    char *all = coll_scratch(stack, sizeof(stack), (size_t)n * blk);
    if (!all)
        return RMP_ERR_NOMEM;
    memcpy(all + (size_t)rank * blk, src + (size_t)rank * blk, blk);
    int rc = coll_exchange_all(src, blk, blk, all, blk, blk, comm, tag);
    if (rc == RMP_SUCCESS) {
        coll_op_reduce3(rbuf, all, all + blk, count, dt, op);
        for (int r = 2; r < n; r++)
            coll_op_reduce(rbuf, all + (size_t)r * blk, count, dt, op);
    }
    coll_scratch_free(all, stack);
    return rc;
}

RMP_EXPORT int rmp_reduce_scatter(const void *sbuf, void *rbuf, size_t count,
                                  rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_reduce_scatter");
    if (RMPI_LIKELY(rc == RMP_SUCCESS))
        rc = coll_check_call(comm, "reduce_scatter", -1, count, dt, (int)op);
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt_op(dt, op);
    if (rc != RMP_SUCCESS || count == 0)
        return rc;
    size_t es = coll_dt_size(dt), total;
    int algo;
    if ((rc = coll_check_buf(sbuf, 1, "sbuf")) != RMP_SUCCESS ||
        (rc = coll_check_buf(rbuf, 0, "rbuf")) != RMP_SUCCESS ||
        (rc = coll_bytes(count, es, (size_t)comm->size, &total)) != RMP_SUCCESS ||
        (rc = coll_select_comm(COLL_REDUCE_SCATTER, count * es, comm, &algo)) != RMP_SUCCESS)
        return rc;
    const char *src = sbuf == RMP_IN_PLACE ? rbuf : sbuf;
    algo = coll_algo_ordered(COLL_REDUCE_SCATTER, algo, op, -1);
    if (algo == COLL_RS_SHM) {
        /* The same answer on every rank; a step moves a slot / n of each block. */
        if (coll_shm_ready(comm) && es <= coll_shm_slot_bytes(comm) / (size_t)comm->size)
            return coll_shm_reduce_scatter(src, rbuf, count, dt, op, comm);
        algo = coll_algo_ordered(COLL_REDUCE_SCATTER,
                                 coll_select_flat(COLL_REDUCE_SCATTER, count * es, comm->size),
                                 op, -1);
    }
    int tag = coll_next_tag(comm);
    if (comm->size == 1) {
        if (src != rbuf)
            memcpy(rbuf, src, total);
        return RMP_SUCCESS;
    }
    if (algo == COLL_RS_HALVING)
        return rs_halving(src, rbuf, count, dt, op, comm, tag);
    if (algo == COLL_RS_DIRECT)
        return rs_direct(src, rbuf, count, dt, op, comm, tag);
    return rs_ring(src, rbuf, count, dt, op, comm, tag);
}
