/* SPDX-License-Identifier: BSD-3-Clause */
/* Allreduce: direct (one step: every rank sends its vector to every other), recursive
 * doubling (log2 n exchanges of the whole vector), Rabenseifner (recursive-halving
 * reduce-scatter + recursive-doubling allgather: 2x the vector on the wire, 2 log2 n
 * steps) and ring (2x the vector, 2(n-1) steps, no folding). Non-power-of-two rank counts
 * fold the first 2*rem ranks pairwise (MPICH).
 *
 * Bitwise identity: recursive doubling and Rabenseifner (halving nearest ranks first)
 * combine the same tree, lower ranks on the left: ((x0 op x1) op (x2 op x3)) op ..., with
 * the folded pairs (x2i op x2i+1) at the leaves. In recursive doubling both partners of a
 * step compute op(lower, higher), the same bits; in Rabenseifner and ring each element is
 * reduced by one rank and then copied; direct reduces x0 .. xn-1 left to right on every
 * rank. So every rank gets the same bits, and recursive doubling and Rabenseifner even
 * give the same result. */
#include <string.h>

#include "coll_algo.h"
#include "coll_blocks.h"
#include "coll_check.h"
#include "coll_comm.h"
#include "coll_core.h"
#include "coll_hier.h"
#include "coll_op.h"
#include "coll_p2p.h"
#include "coll_shm.h"
#include "coll_tune.h"

/* Fold: the even rank of a pair hands its vector to the odd one (sub-tag 0), which
 * combines it on the left. Unfold: the odd rank returns the result (sub-tag 2). */
static int allreduce_fold(char *acc, char *tmp, size_t count, rmp_datatype_t dt,
                          rmp_op_t op, rmp_comm_t comm, int tag)
{
    int rank = comm->rank;
    size_t bytes = count * coll_dt_size(dt);
    if (rank & 1) {
        int rc = coll_recv(tmp, bytes, rank - 1, tag, comm);
        if (rc == RMP_SUCCESS)
            coll_op_reduce3(acc, tmp, acc, count, dt, op);
        return rc;
    }
    int rc = coll_send(acc, bytes, rank + 1, tag, comm);
    return rc != RMP_SUCCESS ? rc : coll_recv(acc, bytes, rank + 1, tag + 2, comm);
}

static int allreduce_rd(char *acc, size_t count, rmp_datatype_t dt, rmp_op_t op,
                        rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank, pof2 = coll_pof2(n), rem = n - pof2;
    size_t bytes = count * coll_dt_size(dt);
    _Alignas(64) char stack[COLL_STACK_BYTES];
    char *tmp = coll_scratch(stack, sizeof(stack), bytes);
    if (!tmp)
        return RMP_ERR_NOMEM;
    int rc = RMP_SUCCESS;
    if (rank < 2 * rem) {
        rc = allreduce_fold(acc, tmp, count, dt, op, comm, tag);
        if (rc != RMP_SUCCESS || !(rank & 1))
            goto out;
    }
    int nr = coll_fold_rank(rank, rem);
    for (int mask = 1; mask < pof2; mask <<= 1) {
        int pnr = nr ^ mask;
        rc = coll_sendrecv(acc, bytes, coll_fold_real(pnr, rem), tmp, bytes,
                           coll_fold_real(pnr, rem), tag + 1, comm);
        if (rc != RMP_SUCCESS)
            goto out;
        if (pnr < nr)
            coll_op_reduce3(acc, tmp, acc, count, dt, op);
        else
            coll_op_reduce(acc, tmp, count, dt, op);
    }
    if (rank < 2 * rem)
        rc = coll_send(acc, bytes, rank - 1, tag + 2, comm);
out:
    coll_scratch_free(tmp, stack);
    return rc;
}

static int allreduce_rabenseifner(char *acc, size_t count, rmp_datatype_t dt, rmp_op_t op,
                                  rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank, pof2 = coll_pof2(n), rem = n - pof2;
    size_t es = coll_dt_size(dt), bytes = count * es;
    _Alignas(64) char stack[COLL_STACK_BYTES];
    char *tmp = coll_scratch(stack, sizeof(stack), bytes);
    if (!tmp)
        return RMP_ERR_NOMEM;
    int rc = RMP_SUCCESS;
    if (rank < 2 * rem) {
        rc = allreduce_fold(acc, tmp, count, dt, op, comm, tag);
        if (rc != RMP_SUCCESS || !(rank & 1))
            goto out;
    }
    int nr = coll_fold_rank(rank, rem);
    coll_blocks_t b = coll_blocks_even(count, pof2, es);
    rc = coll_rs_halving(acc, tmp, &b, nr, pof2, rem, 1, dt, op, comm, tag + 1);
    if (rc == RMP_SUCCESS)
        rc = coll_ag_doubling(acc, &b, nr, pof2, rem, 1, comm, tag + 3);
    if (rc == RMP_SUCCESS && rank < 2 * rem)
        rc = coll_send(acc, bytes, rank - 1, tag + 2, comm);
out:
    coll_scratch_free(tmp, stack);
    return rc;
}

static int allreduce_ring(const char *src, char *rbuf, size_t count, rmp_datatype_t dt,
                          rmp_op_t op, rmp_comm_t comm, int tag)
{
    int n = comm->size;
    coll_blocks_t b = coll_blocks_even(count, n, coll_dt_size(dt));
    _Alignas(64) char stack[COLL_STACK_BYTES];
    char *tmp = coll_scratch(stack, sizeof(stack), 2 * coll_blk_max(&b));
    if (!tmp)
        return RMP_ERR_NOMEM;
    int rc = coll_rs_ring(src, rbuf + coll_blk_off(&b, comm->rank), tmp, &b, dt, op, comm, tag);
    if (rc == RMP_SUCCESS)
        rc = coll_ag_ring(rbuf, &b, comm->rank, comm, tag + 1);
    coll_scratch_free(tmp, stack);
    return rc;
}

/* Direct: every rank sends its vector to every other and reduces all n in rank order,
 * ((x0 op x1) op x2) op ..., the same bits everywhere. One message latency instead of
 * log2 n: the best for small vectors on few ranks, above all when the ranks outnumber the
 * cores (every rank needs to be scheduled about twice, not once per step). */
static int allreduce_direct(const char *src, char *rbuf, size_t count, rmp_datatype_t dt,
                            rmp_op_t op, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank;
    size_t bytes = count * coll_dt_size(dt);
    _Alignas(64) char stack[COLL_STACK_BYTES];
    char *all = coll_scratch(stack, sizeof(stack), (size_t)n * bytes);
    if (!all)
        return RMP_ERR_NOMEM;
    char *mine = all + (size_t)rank * bytes;
    memcpy(mine, src, bytes);
    int rc = coll_exchange_all(mine, 0, bytes, all, bytes, bytes, comm, tag);
    if (rc == RMP_SUCCESS) {
        coll_op_reduce3(rbuf, all, all + bytes, count, dt, op);
        for (int r = 2; r < n; r++)
            coll_op_reduce(rbuf, all + (size_t)r * bytes, count, dt, op);
    }
    coll_scratch_free(all, stack);
    return rc;
}

int coll_allreduce_run(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                       rmp_op_t op, rmp_comm_t comm, int algo)
{
    const char *src = sbuf == RMP_IN_PLACE ? rbuf : sbuf;
    size_t bytes = count * coll_dt_size(dt);
    algo = coll_algo_ordered(COLL_ALLREDUCE, algo, op, -1);
    if (algo == COLL_ALLREDUCE_HIER && comm->size > 1)
        return coll_hier_allreduce(src, rbuf, count, dt, op, comm);
    if (algo == COLL_ALLREDUCE_SHM || algo == COLL_ALLREDUCE_HIER) {
        /* Forced shm on a comm that spans several nodes (or whose segment could not be
         * made), or elements larger than a slot: the flat table, the same choice on every
         * rank. */
        if (coll_shm_ready(comm) && coll_dt_size(dt) <= coll_shm_slot_bytes(comm))
            return coll_shm_allreduce(src, rbuf, count, dt, op, comm);
        algo = coll_algo_ordered(COLL_ALLREDUCE,
                                 coll_select_flat(COLL_ALLREDUCE, bytes, comm->size), op, -1);
    }
    int tag = coll_next_tag(comm);
    if (algo == COLL_ALLREDUCE_RING && comm->size > 1)
        return allreduce_ring(src, rbuf, count, dt, op, comm, tag);
    if (algo == COLL_ALLREDUCE_DIRECT && comm->size > 1)
        return allreduce_direct(src, rbuf, count, dt, op, comm, tag);
    if (src != rbuf)
        memcpy(rbuf, src, bytes);
    if (comm->size == 1)
        return RMP_SUCCESS;
    if (algo == COLL_ALLREDUCE_RABENSEIFNER && count >= (size_t)coll_pof2(comm->size))
        return allreduce_rabenseifner(rbuf, count, dt, op, comm, tag);
    return allreduce_rd(rbuf, count, dt, op, comm, tag);
}

RMP_EXPORT int rmp_allreduce(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                             rmp_op_t op, rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_allreduce");
    if (RMPI_LIKELY(rc == RMP_SUCCESS))
        rc = coll_check_call(comm, "allreduce", -1, count, dt, (int)op);
    if (RMPI_LIKELY(rc == RMP_SUCCESS))
        rc = coll_check_dt_op(dt, op);
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS || count == 0))
        return rc;
    size_t bytes;
    int algo;
    if ((rc = coll_check_buf(sbuf, 1, "sbuf")) != RMP_SUCCESS ||
        (rc = coll_check_buf(rbuf, 0, "rbuf")) != RMP_SUCCESS ||
        (rc = coll_bytes(count, coll_dt_size(dt), 1, &bytes)) != RMP_SUCCESS ||
        (rc = coll_select_comm(COLL_ALLREDUCE, bytes, comm, &algo)) !=
            RMP_SUCCESS)
        return rc;
    return coll_allreduce_run(sbuf, rbuf, count, dt, op, comm, algo);
}
