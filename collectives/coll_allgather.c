/* SPDX-License-Identifier: BSD-3-Clause */
/* Allgather: recursive doubling (power-of-two rank counts), Bruck (any count, log n steps
 * for small blocks), direct (every rank sends its block to every other: one step, for
 * small blocks on few ranks), ring (bandwidth-optimal for large blocks). The ring and doubling
 * building blocks also serve bcast and allreduce. */
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

int coll_ag_ring(char *buf, const coll_blocks_t *b, int me, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank;
    int right = (rank + 1) % n, left = (rank - 1 + n) % n;
    for (int s = 0; s < n - 1; s++) {
        int sb = (me - s + n) % n, rb = (me - s - 1 + n) % n;
        int rc = coll_sendrecv(buf + coll_blk_off(b, sb), coll_blk_len(b, sb), right,
                               buf + coll_blk_off(b, rb), coll_blk_len(b, rb), left, tag, comm);
        if (rc != RMP_SUCCESS)
            return rc;
    }
    return RMP_SUCCESS;
}

int coll_ag_doubling(char *buf, const coll_blocks_t *b, int nr, int pof2, int rem,
                     int near_first, rmp_comm_t comm, int tag)
{
    int lo, hi, steps = 0;
    coll_halving_window(nr, pof2, near_first, &lo, &hi);
    while ((1 << steps) < pof2)
        steps++;
    /* Undo the halving steps in reverse: each doubles the window with the peer's. */
    for (int i = steps - 1; i >= 0; i--) {
        int mask = coll_halving_mask(i, pof2, near_first), size = hi - lo;
        int plo = nr & mask ? lo - size : hi, peer = coll_fold_real(nr ^ mask, rem);
        size_t soff = coll_blk_off(b, lo), roff = coll_blk_off(b, plo);
        int rc = coll_sendrecv(buf + soff, coll_blk_off(b, hi) - soff, peer, buf + roff,
                               coll_blk_off(b, plo + size) - roff, peer, tag, comm);
        if (rc != RMP_SUCCESS)
            return rc;
        if (nr & mask)
            lo = plo;
        else
            hi += size;
    }
    return RMP_SUCCESS;
}

/* Bruck: after step k, tmp holds the blocks of ranks rank .. rank + 2k - 1; a final
 * rotation puts them in place. Works for any n in ceil(log2 n) steps. */
static int allgather_bruck(const char *mine, char *rbuf, size_t blk, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank;
    size_t total = blk * (size_t)n;
    _Alignas(64) char stack[COLL_STACK_BYTES];
    char *tmp = rank == 0 ? rbuf : coll_scratch(stack, sizeof(stack), total);
    if (!tmp)
        return RMP_ERR_NOMEM;
    int rc = RMP_SUCCESS;
    if (tmp + 0 != mine)
        memmove(tmp, mine, blk);
    for (int k = 1; k < n && rc == RMP_SUCCESS; k <<= 1) {
        size_t cnt = (size_t)(k < n - k ? k : n - k);
        rc = coll_sendrecv(tmp, cnt * blk, (rank - k + n) % n, tmp + (size_t)k * blk,
                           cnt * blk, (rank + k) % n, tag, comm);
    }
    if (rc == RMP_SUCCESS && tmp != rbuf) {
        /* tmp[i] is the block of rank (rank + i) % n. */
        size_t head = (size_t)(n - rank) * blk;
        memcpy(rbuf + (size_t)rank * blk, tmp, head);
        memcpy(rbuf, tmp + head, total - head);
    }
    if (tmp != rbuf)
        coll_scratch_free(tmp, stack);
    return rc;
}

RMP_EXPORT int rmp_allgather(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                             rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_allgather");
    if (RMPI_LIKELY(rc == RMP_SUCCESS))
        rc = coll_check_call(comm, "allgather", -1, count, dt, -1);
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt(dt);
    if (rc != RMP_SUCCESS || count == 0)
        return rc;
    size_t es = coll_dt_size(dt), blk = count * es, total;
    int algo;
    if ((rc = coll_check_buf(sbuf, 1, "sbuf")) != RMP_SUCCESS ||
        (rc = coll_check_buf(rbuf, 0, "rbuf")) != RMP_SUCCESS ||
        (rc = coll_bytes(count, es, (size_t)comm->size, &total)) != RMP_SUCCESS ||
        (rc = coll_select_comm(COLL_ALLGATHER, blk, comm, &algo)) != RMP_SUCCESS)
        return rc;
    char *mine = (char *)rbuf + (size_t)comm->rank * blk;
    if (algo == COLL_ALLGATHER_SHM) {
        if (coll_shm_ready(comm)) /* the same answer on every rank */
            return coll_shm_allgather(sbuf == RMP_IN_PLACE ? mine : sbuf, rbuf, blk, comm);
        algo = coll_select_flat(COLL_ALLGATHER, blk, comm->size);
    }
    int n = comm->size, rank = comm->rank, tag = coll_next_tag(comm);
    if (algo == COLL_ALLGATHER_RD && (n & (n - 1)) != 0)
        algo = COLL_ALLGATHER_BRUCK; /* recursive doubling needs a power of two */
    if (algo == COLL_ALLGATHER_BRUCK)
        return allgather_bruck(sbuf == RMP_IN_PLACE ? mine : sbuf, rbuf, blk, comm, tag);
    if (sbuf != RMP_IN_PLACE && sbuf != mine)
        memcpy(mine, sbuf, blk);
    coll_blocks_t b = coll_blocks_even(count * (size_t)n, n, es);
    if (algo == COLL_ALLGATHER_DIRECT)
        return coll_exchange_all(mine, 0, blk, rbuf, blk, blk, comm, tag);
    if (algo == COLL_ALLGATHER_RD)
        return coll_ag_doubling(rbuf, &b, rank, n, 0, 0, comm, tag);
    return coll_ag_ring(rbuf, &b, rank, comm, tag);
}
