/* SPDX-License-Identifier: BSD-3-Clause */
/* The v-collectives: per-rank byte counts and displacements (MPI's gatherv, scatterv,
 * allgatherv, alltoallv, reduce_scatter with counts). Where every rank knows every count
 * (allgatherv, reduce_scatter_v) and they are uniform with the blocks packed, they run as
 * the regular collective (tuned algorithms, shm paths); otherwise:
 *   gatherv/scatterv: the root posts every receive (send) at once, linear (only the root
 *     knows the counts, so no tree can forward them);
 *   allgatherv: ring, n - 1 steps, each rank forwarding the block it got last;
 *   alltoallv: pairwise exchange, step k with rank +-k;
 *   reduce_scatter_v: direct, block i to rank i, reduced in rank order (non-commutative
 *     ops too).
 * RMP_IN_PLACE as in MPI: gatherv's sbuf at the root, scatterv's rbuf at the root,
 * allgatherv's sbuf (the block is at rdispls[rank]), alltoallv's sbuf (data in rbuf),
 * reduce_scatter_v's sbuf (the vector in rbuf). */
#include <stdlib.h>
#include <string.h>

#include "coll_blocks.h"
#include "coll_check.h"
#include "coll_core.h"
#include "coll_op.h"
#include "coll_p2p.h"
#include "log.h"

/* Every block len[0] bytes: known to every rank alike, so every rank takes the same
 * algorithm on it (displacements are local: they may differ between ranks). */
static int v_same_len(const size_t *len, int n)
{
    for (int i = 0; i < n; i++)
        if (len[i] != len[0])
            return 0;
    return 1;
}

/* ... and at off[i] packed in rank order from 0: the layout of the regular collective. */
static int v_packed(const size_t *off, size_t len, int n)
{
    for (int i = 0; i < n; i++)
        if (off[i] != (size_t)i * len)
            return 0;
    return 1;
}

static int v_check_arrays(const void *a, const void *b, const char *call)
{
    if (a && b)
        return RMP_SUCCESS;
    rmpi_error("%s: a count or displacement array is NULL", call);
    return RMP_ERR_ARG;
}

/* Receive the block of every rank but me (recv) or send one to each (send) at once. */
static int v_linear(char *buf, const size_t *len, const size_t *off, int is_recv,
                    rmp_comm_t comm, int tag)
{
    int n = comm->size, rank = comm->rank, nreq = 0, rc = RMP_SUCCESS;
    rmp_request_t stack[32], *reqs = stack;
    if (n > 32 && !(reqs = malloc((size_t)n * sizeof(*reqs))))
        return RMP_ERR_NOMEM;
    for (int k = 1; k < n && rc == RMP_SUCCESS; k++) {
        int p = (rank + k) % n;
        if (len[p] == 0)
            continue;
        rc = is_recv ? rmpi_irecv_cid(buf + off[p], len[p], p, tag, comm, coll_cid(comm),
                                      &reqs[nreq])
                     : rmpi_isend_cid(buf + off[p], len[p], p, tag, comm, coll_cid(comm),
                                      &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    int wrc = coll_waitn(reqs, nreq);
    if (reqs != stack)
        free(reqs);
    return rc != RMP_SUCCESS ? rc : wrc;
}

RMP_EXPORT int rmp_gatherv(const void *sbuf, size_t sbytes, void *rbuf, const size_t *rbytes,
                           const size_t *rdispls, int root, rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_gatherv");
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc != RMP_SUCCESS)
        return rc;
    int is_root = comm->rank == root;
    if (!is_root) {
        if (sbytes && (rc = coll_check_buf(sbuf, 0, "sbuf")) != RMP_SUCCESS)
            return rc;
        int tag = coll_next_tag(comm);
        return sbytes ? coll_send(sbuf, sbytes, root, tag, comm) : RMP_SUCCESS;
    }
    if ((rc = v_check_arrays(rbytes, rdispls, "rmp_gatherv")) != RMP_SUCCESS)
        return rc;
    int tag = coll_next_tag(comm);
    char *mine = (char *)rbuf + rdispls[root];
    if (sbuf != RMP_IN_PLACE && sbuf != mine && rbytes[root])
        memcpy(mine, sbuf, rbytes[root] < sbytes ? rbytes[root] : sbytes);
    return v_linear(rbuf, rbytes, rdispls, 1, comm, tag);
}

RMP_EXPORT int rmp_scatterv(const void *sbuf, const size_t *sbytes, const size_t *sdispls,
                            void *rbuf, size_t rbytes, int root, rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_scatterv");
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc != RMP_SUCCESS)
        return rc;
    int is_root = comm->rank == root;
    if (!is_root) {
        if (rbytes && (rc = coll_check_buf(rbuf, 0, "rbuf")) != RMP_SUCCESS)
            return rc;
        int tag = coll_next_tag(comm);
        return rbytes ? coll_recv(rbuf, rbytes, root, tag, comm) : RMP_SUCCESS;
    }
    if ((rc = v_check_arrays(sbytes, sdispls, "rmp_scatterv")) != RMP_SUCCESS)
        return rc;
    int tag = coll_next_tag(comm);
    const char *mine = (const char *)sbuf + sdispls[root];
    if (rbuf != RMP_IN_PLACE && rbuf != mine && sbytes[root])
        memcpy(rbuf, mine, sbytes[root] < rbytes ? sbytes[root] : rbytes);
    return v_linear((char *)sbuf, sbytes, sdispls, 0, comm, tag);
}

/* Equal blocks that land apart on this rank, all of them within COLL_V_SCRATCH: the
 * regular allgather into scratch, then each block copied out to its displacement. */

static int v_allgather_spread(const void *sbuf, void *rbuf, size_t blk, const size_t *rdispls,
                              rmp_comm_t comm)
{
    int n = comm->size, rank = comm->rank;
    char *tmp = malloc(blk * (size_t)n), *out = rbuf;
    if (!tmp)
        return RMP_ERR_NOMEM;
    memcpy(tmp + (size_t)rank * blk, sbuf == RMP_IN_PLACE ? out + rdispls[rank] : sbuf, blk);
    int rc = rmp_allgather(RMP_IN_PLACE, tmp, blk, RMP_UINT8, comm);
    for (int i = 0; i < n && rc == RMP_SUCCESS; i++)
        if (i != rank || sbuf != RMP_IN_PLACE)
            memcpy(out + rdispls[i], tmp + (size_t)i * blk, blk);
    free(tmp);
    return rc;
}

RMP_EXPORT int rmp_allgatherv(const void *sbuf, size_t sbytes, void *rbuf, const size_t *rbytes,
                              const size_t *rdispls, rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_allgatherv");
    if (rc == RMP_SUCCESS)
        rc = v_check_arrays(rbytes, rdispls, "rmp_allgatherv");
    if (rc != RMP_SUCCESS)
        return rc;
    int n = comm->size, rank = comm->rank;
    if (v_same_len(rbytes, n) && rbytes[0] > 0) {
        char *at = (char *)rbuf + rdispls[rank];
        if (sbuf != RMP_IN_PLACE && sbytes != rbytes[0]) { /* as the ring: what fits */
            if (sbytes && at != sbuf)
                memmove(at, sbuf, sbytes < rbytes[0] ? sbytes : rbytes[0]);
            sbuf = RMP_IN_PLACE;
        }
        /* Small: the regular collective on every rank, through scratch where the blocks
         * land apart. Large: the regular one if every rank's blocks are packed (one int
         * allreduced agrees), else the ring, straight into place. */
        int packed = v_packed(rdispls, rbytes[0], n);
        if (rbytes[0] * (size_t)n <= COLL_V_SCRATCH && !packed)
            return v_allgather_spread(sbuf, rbuf, rbytes[0], rdispls, comm);
        if (rbytes[0] * (size_t)n > COLL_V_SCRATCH &&
            (rc = rmp_allreduce(RMP_IN_PLACE, &packed, 1, RMP_INT32, RMP_MIN, comm)) !=
                RMP_SUCCESS)
            return rc;
        if (packed)
            return rmp_allgather(sbuf, rbuf, rbytes[0], RMP_UINT8, comm);
    }
    char *out = rbuf;
    if (sbuf != RMP_IN_PLACE && sbytes && out + rdispls[rank] != sbuf)
        memcpy(out + rdispls[rank], sbuf, sbytes < rbytes[rank] ? sbytes : rbytes[rank]);
    int tag = coll_next_tag(comm), right = (rank + 1) % n, left = (rank - 1 + n) % n;
    /* Step k: pass on the block of rank - k, take the block of rank - k - 1. */
    for (int k = 0; k < n - 1 && rc == RMP_SUCCESS; k++) {
        int sb = (rank - k + n) % n, rb = (rank - k - 1 + n) % n;
        rc = coll_sendrecv(out + rdispls[sb], rbytes[sb], right, out + rdispls[rb], rbytes[rb],
                           left, tag, comm);
    }
    return rc;
}

RMP_EXPORT int rmp_alltoallv(const void *sbuf, const size_t *sbytes, const size_t *sdispls,
                             void *rbuf, const size_t *rbytes, const size_t *rdispls,
                             rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_alltoallv");
    if (rc == RMP_SUCCESS)
        rc = v_check_arrays(rbytes, rdispls, "rmp_alltoallv");
    if (rc == RMP_SUCCESS && sbuf != RMP_IN_PLACE)
        rc = v_check_arrays(sbytes, sdispls, "rmp_alltoallv");
    if (rc != RMP_SUCCESS)
        return rc;
    int n = comm->size, rank = comm->rank;
    char *copy = NULL;
    size_t *coff = NULL;
    if (sbuf == RMP_IN_PLACE) { /* the data to send is in rbuf: copy the blocks, packed */
        size_t total = 0;
        for (int i = 0; i < n; i++)
            total += rbytes[i];
        copy = malloc(total ? total : 1);
        coff = malloc((size_t)n * sizeof(*coff));
        if (!copy || !coff) {
            free(copy);
            free(coff);
            return RMP_ERR_NOMEM;
        }
        for (int i = 0; i < n; i++) {
            coff[i] = i ? coff[i - 1] + rbytes[i - 1] : 0;
            memcpy(copy + coff[i], (const char *)rbuf + rdispls[i], rbytes[i]);
        }
        sbuf = copy;
        sbytes = rbytes;
        sdispls = coff;
    }
    const char *in = sbuf;
    char *out = rbuf;
    if (rbytes[rank] && out + rdispls[rank] != in + sdispls[rank])
        memcpy(out + rdispls[rank], in + sdispls[rank],
               sbytes[rank] < rbytes[rank] ? sbytes[rank] : rbytes[rank]);
    int tag = coll_next_tag(comm);
    for (int k = 1; k < n && rc == RMP_SUCCESS; k++) {
        int to = (rank + k) % n, from = (rank - k + n) % n;
        rc = coll_sendrecv(in + sdispls[to], sbytes[to], to, out + rdispls[from], rbytes[from],
                           from, tag, comm);
    }
    free(copy);
    free(coff);
    return rc;
}

RMP_EXPORT int rmp_reduce_scatter_v(const void *sbuf, void *rbuf, const size_t *counts,
                                    rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_reduce_scatter_v");
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt_op(dt, op);
    if (rc == RMP_SUCCESS)
        rc = v_check_arrays(counts, counts, "rmp_reduce_scatter_v");
    if (rc != RMP_SUCCESS)
        return rc;
    int n = comm->size, rank = comm->rank, uniform = 1;
    size_t es = coll_dt_size(dt), total = 0, mine = counts[rank] * es;
    for (int i = 0; i < n; i++) {
        uniform &= counts[i] == counts[0];
        total += counts[i];
    }
    if (uniform)
        return rmp_reduce_scatter(sbuf, rbuf, counts[0], dt, op, comm);
    const char *src = sbuf == RMP_IN_PLACE ? rbuf : sbuf;
    if (total && (rc = coll_check_buf(src, 0, "sbuf")) != RMP_SUCCESS)
        return rc;
    size_t *off = malloc((size_t)n * sizeof(*off));
    char *all = malloc((size_t)n * mine + 1), *copy = NULL;
    rmp_request_t *reqs = malloc(2 * (size_t)n * sizeof(*reqs));
    int nreq = 0, tag = coll_next_tag(comm);
    rc = RMP_ERR_NOMEM;
    if (!off || !all || !reqs)
        goto out;
    for (int i = 0, acc = 0; i < n; acc += (int)counts[i], i++)
        off[i] = (size_t)acc * es;
    if (sbuf == RMP_IN_PLACE) { /* rbuf is overwritten with block `rank` below */
        if (!(copy = malloc(total * es + 1)))
            goto out;
        memcpy(copy, src, total * es);
        src = copy;
    }
    rc = RMP_SUCCESS;
    for (int k = 1; k < n && mine && rc == RMP_SUCCESS; k++) {
        int p = (rank - k + n) % n;
        rc = rmpi_irecv_cid(all + (size_t)p * mine, mine, p, tag, comm, coll_cid(comm),
                            &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    for (int k = 1; k < n && rc == RMP_SUCCESS; k++) {
        int p = (rank + k) % n;
        if (!counts[p])
            continue;
        rc = rmpi_isend_cid(src + off[p], counts[p] * es, p, tag, comm, coll_cid(comm),
                            &reqs[nreq]);
        nreq += rc == RMP_SUCCESS;
    }
    int wrc = coll_waitn(reqs, nreq);
    rc = rc != RMP_SUCCESS ? rc : wrc;
    if (rc == RMP_SUCCESS && mine) {
        memcpy(all + (size_t)rank * mine, src + off[rank], mine);
        memcpy(rbuf, all, mine);
        for (int r = 1; r < n; r++)
            coll_op_reduce(rbuf, all + (size_t)r * mine, counts[rank], dt, op);
    }
out:
    free(copy);
    free(reqs);
    free(all);
    free(off);
    return rc;
}
