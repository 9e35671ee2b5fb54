/* SPDX-License-Identifier: BSD-3-Clause */
/* Alltoall: linear (every transfer posted at once: one step, for few ranks), pairwise
 * exchange (n-1 steps, step s sends to rank + s and receives from rank - s: each block
 * moves once, one peer at a time) and Bruck (ceil(log2 n) steps, each moving about half
 * of the blocks: fewer messages for small blocks). RMP_IN_PLACE as sbuf: the blocks to
 * send are taken from rbuf (copied to scratch first). */
#include <stdlib.h>
#include <string.h>

#include "coll_blocks.h"
#include "coll_check.h"
#include "coll_comm.h"
#include "coll_core.h"
#include "coll_op.h"
#include "coll_p2p.h"
#include "coll_shm.h"
#include "coll_tune.h"

static int alltoall_pairwise(const char *src, char *rbuf, size_t blk, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank;
    memcpy(rbuf + (size_t)rank * blk, src + (size_t)rank * blk, blk);
    for (int s = 1; s < n; s++) {
        int dst = (rank + s) % n, from = (rank - s + n) % n;
        int rc = coll_sendrecv(src + (size_t)dst * blk, blk, dst, rbuf + (size_t)from * blk,
                               blk, from, tag, comm);
        if (rc != RMP_SUCCESS)
            return rc;
    }
    return RMP_SUCCESS;
}

/* Bruck: rotate so that position i holds the block for rank + i; in step k every block
 * whose position has bit k set moves k ranks ahead, keeping its position; a block from
 * rank s for rank d travels d - s ranks and ends at position d - s of rank d. */
static int alltoall_bruck(const char *src, char *rbuf, size_t blk, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank;
    size_t total = blk * (size_t)n, half = (size_t)(n + 1) / 2 * blk;
    _Alignas(64) char stack[COLL_STACK_BYTES];
    char *tmp = coll_scratch(stack, sizeof(stack), total + 2 * half);
    if (!tmp)
        return RMP_ERR_NOMEM;
    char *spack = tmp + total, *rpack = spack + half;
    size_t head = (size_t)(n - rank) * blk;
    memcpy(tmp, src + (size_t)rank * blk, head);
    memcpy(tmp + head, src, total - head);
    int rc = RMP_SUCCESS;
    for (int k = 1; k < n && rc == RMP_SUCCESS; k <<= 1) {
        size_t len = 0;
        for (int i = k; i < n; i++)
            if (i & k) {
                memcpy(spack + len, tmp + (size_t)i * blk, blk);
                len += blk;
            }
        rc = coll_sendrecv(spack, len, (rank + k) % n, rpack, len, (rank - k + n) % n, tag,
                           comm);
        len = 0;
        for (int i = k; i < n && rc == RMP_SUCCESS; i++)
            if (i & k) {
                memcpy(tmp + (size_t)i * blk, rpack + len, blk);
                len += blk;
            }
    }
    for (int i = 0; i < n && rc == RMP_SUCCESS; i++)
        memcpy(rbuf + (size_t)((rank - i + n) % n) * blk, tmp + (size_t)i * blk, blk);
    coll_scratch_free(tmp, stack);
    return rc;
}

RMP_EXPORT int rmp_alltoall(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                            rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_alltoall");
    if (RMPI_LIKELY(rc == RMP_SUCCESS))
        rc = coll_check_call(comm, "alltoall", -1, count, dt, -1);
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt(dt);
    if (rc != RMP_SUCCESS || count == 0)
        return rc;
    size_t blk = count * coll_dt_size(dt), total;
    int algo;
    if ((rc = coll_check_buf(sbuf, 1, "sbuf")) != RMP_SUCCESS ||
        (rc = coll_check_buf(rbuf, 0, "rbuf")) != RMP_SUCCESS ||
        (rc = coll_bytes(count, coll_dt_size(dt), (size_t)comm->size, &total)) !=
            RMP_SUCCESS ||
        (rc = coll_select_comm(COLL_ALLTOALL, blk, comm, &algo)) != RMP_SUCCESS)
        return rc;
    if (algo == COLL_ALLTOALL_SHM) {
        if (coll_shm_ready(comm)) /* the same answer on every rank; in place needs no copy */
            return coll_shm_alltoall(sbuf == RMP_IN_PLACE ? rbuf : sbuf, rbuf, blk, comm);
        algo = coll_select_flat(COLL_ALLTOALL, blk, comm->size);
    }
    int tag = coll_next_tag(comm);
    const char *src = sbuf;
    char *copy = NULL;
    if (sbuf == RMP_IN_PLACE) {
        if (comm->size == 1)
            return RMP_SUCCESS;
        if (!(copy = malloc(total)))
            return RMP_ERR_NOMEM;
        src = memcpy(copy, rbuf, total);
    }
    if (algo == COLL_ALLTOALL_BRUCK) {
        rc = alltoall_bruck(src, rbuf, blk, comm, tag);
    } else if (algo == COLL_ALLTOALL_LINEAR) {
        memcpy((char *)rbuf + (size_t)comm->rank * blk, src + (size_t)comm->rank * blk, blk);
        rc = coll_exchange_all(src, blk, blk, rbuf, blk, blk, comm, tag);
    }
    else {
        rc = alltoall_pairwise(src, rbuf, blk, comm, tag);
    }
    free(copy);
    return rc;
}
