/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduce: binomial tree (latency), linear (the root receives every vector at once and
 * reduces them in rank order: one step, for small vectors on few ranks), and for large
 * vectors a ring reduce-scatter followed by a gather of the reduced blocks at the root
 * (each rank moves ~2x the vector once instead of log2 n times). rbuf matters at the
 * root only; RMP_IN_PLACE as sbuf at the root takes the root's contribution from rbuf. */
#include <stdlib.h>
#include <string.h>

#include "coll_algo.h"
#include "coll_blocks.h"
#include "coll_check.h"
#include "coll_comm.h"
#include "coll_core.h"
#include "coll_op.h"
#include "coll_p2p.h"
#include "coll_tune.h"

/* Ranks are renumbered relative to the root (vr = 0 at the root); vr receives from
 * vr + mask for every mask below its lowest set bit, then sends to vr - lowbit. Lower
 * relative ranks are the left operand. */
static int reduce_binomial(const char *src, char *rbuf, size_t count, rmp_datatype_t dt,
                           rmp_op_t op, int root, rmp_comm_t comm, int tag)
{
    int n = comm->size, vr = (comm->rank - root + n) % n;
    size_t bytes = count * coll_dt_size(dt);
    int leaf = (vr & 1) || vr + 1 >= n;
    _Alignas(64) char stack[COLL_STACK_BYTES];
    /* tmp receives a child's partial result; acc accumulates (rbuf at the root). */
    size_t need = leaf ? 0 : (vr == 0 ? bytes : 2 * bytes);
    char *mem = coll_scratch(stack, sizeof(stack), need);
    if (!mem)
        return RMP_ERR_NOMEM;
    char *tmp = mem, *acc = vr == 0 ? rbuf : mem + bytes;
    const char *cur = src;
    int rc = RMP_SUCCESS;
    for (int mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            rc = coll_send(cur, bytes, (vr - mask + root) % n, tag, comm);
            break;
        }
        if ((vr | mask) >= n)
            continue;
        if ((rc = coll_recv(tmp, bytes, ((vr | mask) + root) % n, tag, comm)) != RMP_SUCCESS)
            break;
        coll_op_reduce3(acc, cur, tmp, count, dt, op);
        cur = acc;
    }
    if (rc == RMP_SUCCESS && vr == 0 && cur != rbuf)
        memcpy(rbuf, cur, bytes);
    coll_scratch_free(mem, stack);
    return rc;
}

static int reduce_rs_gather(const char *src, char *rbuf, size_t count, rmp_datatype_t dt,
                            rmp_op_t op, int root, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank;
    coll_blocks_t b = coll_blocks_even(count, n, coll_dt_size(dt));
    size_t maxblk = coll_blk_max(&b);
    char *tmp = malloc(3 * maxblk + 1);
    rmp_request_t *reqs = rank == root ? malloc((size_t)n * sizeof(*reqs)) : NULL;
    int rc = RMP_ERR_NOMEM, nreq = 0;
    if (!tmp || (rank == root && !reqs))
        goto out;
    char *mine = rank == root ? rbuf + coll_blk_off(&b, rank) : tmp + 2 * maxblk;
    if ((rc = coll_rs_ring(src, mine, tmp, &b, dt, op, comm, tag)) != RMP_SUCCESS)
        goto out;
    if (rank != root) {
        if (coll_blk_len(&b, rank) > 0)
            rc = coll_send(mine, coll_blk_len(&b, rank), root, tag + 1, comm);
        goto out;
    }
    for (int i = 0; i < n && rc == RMP_SUCCESS; i++) {
        if (i == root || coll_blk_len(&b, i) == 0)
            continue;
        rc = rmpi_irecv_cid(rbuf + coll_blk_off(&b, i), coll_blk_len(&b, i), i, tag + 1, comm,
                            coll_cid(comm), &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    int wrc = coll_waitn(reqs, nreq);
    rc = rc != RMP_SUCCESS ? rc : wrc;
out:
    free(reqs);
    free(tmp);
    return rc;
}

static int reduce_linear(const char *src, char *rbuf, size_t count, rmp_datatype_t dt,
                         rmp_op_t op, int root, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank;
    size_t bytes = count * coll_dt_size(dt);
    if (rank != root)
        return coll_send(src, bytes, root, tag, comm);
    _Alignas(64) char stack[COLL_STACK_BYTES];
    char *all = coll_scratch(stack, sizeof(stack), (size_t)n * bytes);
    if (!all)
        return RMP_ERR_NOMEM;
    memcpy(all + (size_t)rank * bytes, src, bytes);
    int rc = coll_exchange_all(NULL, 0, 0, all, bytes, bytes, comm, tag);
    if (rc == RMP_SUCCESS) {
        coll_op_reduce3(rbuf, all, all + bytes, count, dt, op);
        for (int r = 2; r < n; r++)
            coll_op_reduce(rbuf, all + (size_t)r * bytes, count, dt, op);
    }
    coll_scratch_free(all, stack);
    return rc;
}

RMP_EXPORT int rmp_reduce(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                          rmp_op_t op, int root, rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_reduce");
    if (RMPI_LIKELY(rc == RMP_SUCCESS))
        rc = coll_check_call(comm, "reduce", root, count, dt, (int)op);
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt_op(dt, op);
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc != RMP_SUCCESS || count == 0)
        return rc;
    int is_root = comm->rank == root, algo;
    size_t bytes;
    if ((rc = coll_check_buf(sbuf, is_root, "sbuf")) != RMP_SUCCESS ||
        (is_root && (rc = coll_check_buf(rbuf, 0, "rbuf")) != RMP_SUCCESS) ||
        (rc = coll_bytes(count, coll_dt_size(dt), 1, &bytes)) != RMP_SUCCESS ||
        (rc = coll_select_comm(COLL_REDUCE, bytes, comm, &algo)) != RMP_SUCCESS)
        return rc;
    const char *src = sbuf == RMP_IN_PLACE ? rbuf : sbuf;
    int tag = coll_next_tag(comm);
    if (comm->size == 1) {
        if (src != rbuf)
            memcpy(rbuf, src, bytes);
        return RMP_SUCCESS;
    }
    algo = coll_algo_ordered(COLL_REDUCE, algo, op, root);
    if (algo == COLL_REDUCE_RS_GATHER)
        return reduce_rs_gather(src, rbuf, count, dt, op, root, comm, tag);
    if (algo == COLL_REDUCE_LINEAR)
        return reduce_linear(src, rbuf, count, dt, op, root, comm, tag);
    return reduce_binomial(src, rbuf, count, dt, op, root, comm, tag);
}
