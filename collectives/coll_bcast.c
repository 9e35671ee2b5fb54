/* SPDX-License-Identifier: BSD-3-Clause */
/* Bcast: binomial tree (latency), linear (the root sends to every rank at once: one step,
 * for small messages on few ranks), and for large messages van de Geijn's binomial
 * scatter of n blocks followed by a ring allgather (each rank moves ~2x the message
 * instead of log2 n times at the root). Ranks are renumbered relative to the root.
 * Hier: coll_hier.c. */
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

static int bcast_binomial(char *buf, size_t bytes, int root, rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank, vr = (rank - root + n) % n, mask = 1, rc;
    for (; mask < n; mask <<= 1) {
        if (vr & mask) {
            if ((rc = coll_recv(buf, bytes, (rank - mask + n) % n, tag, comm)) != RMP_SUCCESS)
                return rc;
            break;
        }
    }
    rmp_request_t reqs[32];
    int nreq = 0;
    rc = RMP_SUCCESS;
    for (mask >>= 1; mask > 0 && rc == RMP_SUCCESS; mask >>= 1) {
        if (vr + mask >= n)
            continue;
        rc = rmpi_isend_cid(buf, bytes, (rank + mask) % n, tag, comm, coll_cid(comm),
                            &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    int wrc = coll_waitn(reqs, nreq);
    return rc != RMP_SUCCESS ? rc : wrc;
}

/* Relative rank vr ends the scatter with block vr (and those of its subtree); the ring
 * allgather then runs on relative block numbers. */
static int bcast_scatter_allgather(char *buf, size_t bytes, int root, rmp_comm_t comm,
                                   int tag)
{
    int n = comm->size, rank = comm->rank, vr = (rank - root + n) % n, mask = 1, rc;
    coll_blocks_t b = coll_blocks_even(bytes, n, 1);
    for (; mask < n; mask <<= 1) {
        if (vr & mask) {
            int hi = vr + mask < n ? vr + mask : n;
            size_t off = coll_blk_off(&b, vr);
            rc = coll_sendrecv(NULL, 0, -1, buf + off, coll_blk_off(&b, hi) - off,
                               (rank - mask + n) % n, tag, comm);
            if (rc != RMP_SUCCESS)
                return rc;
            break;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask >= n)
            continue;
        int lo = vr + mask, hi = vr + 2 * mask < n ? vr + 2 * mask : n;
        size_t off = coll_blk_off(&b, lo);
        rc = coll_sendrecv(buf + off, coll_blk_off(&b, hi) - off, (rank + mask) % n, NULL, 0,
                           -1, tag, comm);
        if (rc != RMP_SUCCESS)
            return rc;
    }
    return coll_ag_ring(buf, &b, vr, comm, tag + 1);
}

int coll_bcast_run(void *buf, size_t bytes, int root, rmp_comm_t comm, int algo)
{
    if (algo == COLL_BCAST_HIER && comm->size > 1)
        return coll_hier_bcast(buf, bytes, root, comm);
    if (algo == COLL_BCAST_SHM || algo == COLL_BCAST_HIER) {
        if (coll_shm_ready(comm)) /* the same answer on every rank */
            return coll_shm_bcast(buf, bytes, root, comm);
        algo = coll_select_flat(COLL_BCAST, bytes, comm->size);
    }
    int tag = coll_next_tag(comm);
    if (comm->size == 1)
        return RMP_SUCCESS;
    if (algo == COLL_BCAST_LINEAR)
        return comm->rank == root ? coll_exchange_all(buf, 0, bytes, NULL, 0, 0, comm, tag)
                                  : coll_recv(buf, bytes, root, tag, comm);
    if (algo == COLL_BCAST_SCATTER_ALLGATHER && bytes >= (size_t)comm->size)
        return bcast_scatter_allgather(buf, bytes, root, comm, tag);
    return bcast_binomial(buf, bytes, root, comm, tag);
}

RMP_EXPORT int rmp_bcast(void *buf, size_t count, rmp_datatype_t dt, int root, rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_bcast");
    if (RMPI_LIKELY(rc == RMP_SUCCESS))
        rc = coll_check_call(comm, "bcast", root, count, dt, -1);
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt(dt);
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc != RMP_SUCCESS || count == 0)
        return rc;
    size_t bytes;
    int algo;
    if ((rc = coll_check_buf(buf, 0, "buf")) != RMP_SUCCESS ||
        (rc = coll_bytes(count, coll_dt_size(dt), 1, &bytes)) != RMP_SUCCESS ||
        (rc = coll_select_comm(COLL_BCAST, bytes, comm, &algo)) !=
            RMP_SUCCESS)
        return rc;
    return coll_bcast_run(buf, bytes, root, comm, algo);
}
