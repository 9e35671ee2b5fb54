/* SPDX-License-Identifier: BSD-3-Clause */
/* Gather and scatter, linear: the root posts every receive (sends) at once, so the
 * transfers proceed in parallel and the root's link is the only bottleneck.
 *
 * RMP_IN_PLACE (MPI semantics), at the root only: gather with sbuf = RMP_IN_PLACE takes
 * the root's block as already in place in rbuf; scatter with rbuf = RMP_IN_PLACE leaves
 * the root's block in sbuf and copies nothing. rbuf of gather and sbuf of scatter matter
 * at the root only. */
#include <string.h>

#include "coll_check.h"
#include "coll_core.h"
#include "coll_op.h"
#include "coll_p2p.h"

static int coll_gs_check(const void *buf, int is_root, int in_place_ok, const char *what,
                         size_t count, rmp_datatype_t dt, rmp_comm_t comm, size_t *blk)
{
    int rc = coll_check_buf(buf, is_root && in_place_ok, what);
    return rc != RMP_SUCCESS ? rc
                             : coll_bytes(count, coll_dt_size(dt), (size_t)comm->size, blk);
}

RMP_EXPORT int rmp_gather(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                          int root, rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_gather");
    if (RMPI_LIKELY(rc == RMP_SUCCESS))
        rc = coll_check_call(comm, "gather", root, count, dt, -1);
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt(dt);
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc != RMP_SUCCESS || count == 0)
        return rc;
    int is_root = comm->rank == root;
    size_t total, blk = count * coll_dt_size(dt);
    if ((rc = coll_gs_check(sbuf, is_root, 1, "sbuf", count, dt, comm, &total)) != RMP_SUCCESS ||
        (is_root && (rc = coll_check_buf(rbuf, 0, "rbuf")) != RMP_SUCCESS))
        return rc;
    int tag = coll_next_tag(comm);
    if (!is_root)
        return coll_send(sbuf, blk, root, tag, comm);
    char *mine = (char *)rbuf + (size_t)root * blk;
    if (sbuf != RMP_IN_PLACE && sbuf != mine)
        memcpy(mine, sbuf, blk);
    return coll_exchange_all(NULL, 0, 0, rbuf, blk, blk, comm, tag);
}

RMP_EXPORT int rmp_scatter(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                           int root, rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_scatter");
    if (RMPI_LIKELY(rc == RMP_SUCCESS))
        rc = coll_check_call(comm, "scatter", root, count, dt, -1);
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt(dt);
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc != RMP_SUCCESS || count == 0)
        return rc;
    int is_root = comm->rank == root;
    size_t total, blk = count * coll_dt_size(dt);
    if ((rc = coll_gs_check(rbuf, is_root, 1, "rbuf", count, dt, comm, &total)) != RMP_SUCCESS ||
        (is_root && (rc = coll_check_buf(sbuf, 0, "sbuf")) != RMP_SUCCESS))
        return rc;
    int tag = coll_next_tag(comm);
    if (!is_root)
        return coll_recv(rbuf, blk, root, tag, comm);
    const char *mine = (const char *)sbuf + (size_t)root * blk;
    if (rbuf != RMP_IN_PLACE && rbuf != mine)
        memcpy(rbuf, mine, blk);
    return coll_exchange_all(sbuf, blk, blk, NULL, 0, 0, comm, tag);
}
