/* SPDX-License-Identifier: BSD-3-Clause */
/* Inclusive and exclusive prefix reductions: recursive doubling (log2 n steps of the whole
 * vector, any n). At the step with rank ^ mask, `part` is the reduction over the block of
 * 2 * mask ranks containing this rank, combined with the lower half as the left operand;
 * the result takes the partner's part only from below. So the order is rank order and
 * non-commutative ops are safe (the algorithm of MPICH). */
#include <string.h>

#include "coll_blocks.h"
#include "coll_check.h"
#include "coll_core.h"
#include "coll_op.h"
#include "coll_p2p.h"

static int scan_run(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                    rmp_op_t op, rmp_comm_t comm, int exclusive, const char *call)
{
    int rc = coll_check_comm(comm, call);
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt_op(dt, op);
    if (rc != RMP_SUCCESS || count == 0)
        return rc;
    size_t es = coll_dt_size(dt), bytes;
    if ((rc = coll_check_buf(sbuf, 1, "sbuf")) != RMP_SUCCESS ||
        (rc = coll_check_buf(rbuf, 0, "rbuf")) != RMP_SUCCESS ||
        (rc = coll_bytes(count, es, 1, &bytes)) != RMP_SUCCESS)
        return rc;
    int n = comm->size, rank = comm->rank, tag = coll_next_tag(comm), have = !exclusive;
    _Alignas(64) char stack[COLL_STACK_BYTES];
    char *mem = coll_scratch(stack, sizeof(stack), 2 * bytes);
    if (!mem)
        return RMP_ERR_NOMEM;
    char *part = mem, *tmp = mem + bytes;
    memcpy(part, sbuf == RMP_IN_PLACE ? rbuf : sbuf, bytes);
    if (!exclusive && sbuf != RMP_IN_PLACE)
        memcpy(rbuf, sbuf, bytes);
    for (int mask = 1; mask < n && rc == RMP_SUCCESS; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= n)
            continue;
        if ((rc = coll_sendrecv(part, bytes, peer, tmp, bytes, peer, tag, comm)) != RMP_SUCCESS)
            break;
        if (peer < rank) {
            if (have)
                coll_op_reduce3(rbuf, tmp, rbuf, count, dt, op);
            else
                memcpy(rbuf, tmp, bytes);
            have = 1;
            coll_op_reduce3(part, tmp, part, count, dt, op);
        } else {
            coll_op_reduce(part, tmp, count, dt, op);
        }
    }
    coll_scratch_free(mem, stack);
    return rc;
}

RMP_EXPORT int rmp_scan(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                        rmp_op_t op, rmp_comm_t comm)
{
    return scan_run(sbuf, rbuf, count, dt, op, comm, 0, "rmp_scan");
}

/* rbuf of rank 0 is left untouched (MPI: undefined). */
RMP_EXPORT int rmp_exscan(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                          rmp_op_t op, rmp_comm_t comm)
{
    return scan_run(sbuf, rbuf, count, dt, op, comm, 1, "rmp_exscan");
}
