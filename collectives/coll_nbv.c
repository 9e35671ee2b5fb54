/* SPDX-License-Identifier: BSD-3-Clause */
/* Nonblocking collectives beyond allreduce/bcast/barrier, as schedules (coll_sched.c):
 * gather(v), scatter(v), allgather(v), alltoall(v), reduce, reduce_scatter(_v), scan and
 * exscan. The data-moving ones post every transfer in one round (the root's or every
 * rank's link is the bottleneck, not latency); reduce and reduce_scatter receive every
 * contribution and reduce in rank order (non-commutative ops are safe); scan runs the
 * recursive doubling of coll_scan.c. The count/displacement arrays are read while the
 * schedule is built: the caller may reuse them at once. */
#include "coll.h"
#include "log.h"

static int nbv_begin(rmp_comm_t comm, rmp_request_t *req, const char *call)
{
    int rc = coll_check_comm(comm, call);
    if (rc == RMP_SUCCESS && !req) {
        rmpi_error("%s: req is NULL", call);
        rc = RMP_ERR_ARG;
    }
    return rc;
}

static int nbv_arrays(const void *a, const void *b, const char *call)
{
    if (a && b)
        return RMP_SUCCESS;
    rmpi_error("%s: a count or displacement array is NULL", call);
    return RMP_ERR_ARG;
}

/* gatherv (is_gather) or scatterv: `one` is this rank's block, the root's side is v. */
static int nb_gsv(int is_gather, char *one, size_t one_bytes, int one_in_place, char *big,
                  const size_t *len, const size_t *off, int root, rmp_comm_t comm,
                  rmp_request_t *req, const char *call)
{
    int rc = nbv_begin(comm, req, call);
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc == RMP_SUCCESS && comm->rank == root)
        rc = nbv_arrays(len, off, call);
    if (rc != RMP_SUCCESS)
        return rc;
    coll_sched_t *s = coll_sched_new(comm, RMP_UINT8, RMP_SUM, coll_next_tag(comm));
    if (!s)
        return RMP_ERR_NOMEM;
    int n = comm->size, rank = comm->rank;
    if (rank != root) {
        if (one_bytes && is_gather)
            coll_sched_send(s, one, one_bytes, root, 0);
        else if (one_bytes)
            coll_sched_recv(s, one, one_bytes, root, 0);
        return coll_sched_start(s, req);
    }
    if (!one_in_place && len[rank]) {
        size_t m = len[rank] < one_bytes ? len[rank] : one_bytes;
        if (is_gather)
            coll_sched_copy(s, big + off[rank], one, m);
        else
            coll_sched_copy(s, one, big + off[rank], m);
    }
    for (int k = 1; k < n; k++) {
        int p = (rank + k) % n;
        if (!len[p])
            continue;
        if (is_gather)
            coll_sched_recv(s, big + off[p], len[p], p, 0);
        else
            coll_sched_send(s, big + off[p], len[p], p, 0);
    }
    return coll_sched_start(s, req);
}

RMP_EXPORT int rmp_igatherv(const void *sbuf, size_t sbytes, void *rbuf, const size_t *rbytes,
                            const size_t *rdispls, int root, rmp_comm_t comm, rmp_request_t *req)
{
    return nb_gsv(1, (char *)sbuf, sbytes, sbuf == RMP_IN_PLACE, rbuf, rbytes, rdispls, root,
                  comm, req, "rmp_igatherv");
}

RMP_EXPORT int rmp_iscatterv(const void *sbuf, const size_t *sbytes, const size_t *sdispls,
                             void *rbuf, size_t rbytes, int root, rmp_comm_t comm,
                             rmp_request_t *req)
{
    return nb_gsv(0, rbuf, rbytes, rbuf == RMP_IN_PLACE, (char *)sbuf, sbytes, sdispls, root,
                  comm, req, "rmp_iscatterv");
}

/* Every rank's block to every rank: one round. */
RMP_EXPORT int rmp_iallgatherv(const void *sbuf, size_t sbytes, void *rbuf,
                               const size_t *rbytes, const size_t *rdispls, rmp_comm_t comm,
                               rmp_request_t *req)
{
    int rc = nbv_begin(comm, req, "rmp_iallgatherv");
    if (rc == RMP_SUCCESS)
        rc = nbv_arrays(rbytes, rdispls, "rmp_iallgatherv");
    if (rc != RMP_SUCCESS)
        return rc;
    coll_sched_t *s = coll_sched_new(comm, RMP_UINT8, RMP_SUM, coll_next_tag(comm));
    if (!s)
        return RMP_ERR_NOMEM;
    int n = comm->size, rank = comm->rank;
    char *out = rbuf, *mine = out + rdispls[rank];
    if (sbuf != RMP_IN_PLACE && rbytes[rank])
        coll_sched_copy(s, mine, sbuf, sbytes < rbytes[rank] ? sbytes : rbytes[rank]);
    for (int k = 1; k < n; k++) {
        int from = (rank - k + n) % n, to = (rank + k) % n;
        if (rbytes[from])
            coll_sched_recv(s, out + rdispls[from], rbytes[from], from, 0);
        if (rbytes[rank])
            coll_sched_send(s, mine, rbytes[rank], to, 0);
    }
    return coll_sched_start(s, req);
}

RMP_EXPORT int rmp_ialltoallv(const void *sbuf, const size_t *sbytes, const size_t *sdispls,
                              void *rbuf, const size_t *rbytes, const size_t *rdispls,
                              rmp_comm_t comm, rmp_request_t *req)
{
    int rc = nbv_begin(comm, req, "rmp_ialltoallv");
    if (rc == RMP_SUCCESS)
        rc = nbv_arrays(rbytes, rdispls, "rmp_ialltoallv");
    if (rc == RMP_SUCCESS && sbuf != RMP_IN_PLACE)
        rc = nbv_arrays(sbytes, sdispls, "rmp_ialltoallv");
    if (rc != RMP_SUCCESS)
        return rc;
    coll_sched_t *s = coll_sched_new(comm, RMP_UINT8, RMP_SUM, coll_next_tag(comm));
    if (!s)
        return RMP_ERR_NOMEM;
    int n = comm->size, rank = comm->rank;
    char *out = rbuf;
    const char *in = sbuf;
    if (sbuf == RMP_IN_PLACE) { /* send from a copy of rbuf */
        size_t end = 0;
        for (int i = 0; i < n; i++)
            end = rdispls[i] + rbytes[i] > end ? rdispls[i] + rbytes[i] : end;
        char *copy = coll_sched_scratch(s, end);
        if (copy)
            memcpy(copy, rbuf, end);
        in = copy;
        sbytes = rbytes;
        sdispls = rdispls;
    }
    if (in && rbytes[rank])
        coll_sched_copy(s, out + rdispls[rank], in + sdispls[rank],
                        sbytes[rank] < rbytes[rank] ? sbytes[rank] : rbytes[rank]);
    for (int k = 1; k < n && in; k++) {
        int from = (rank - k + n) % n, to = (rank + k) % n;
        if (rbytes[from])
            coll_sched_recv(s, out + rdispls[from], rbytes[from], from, 0);
        if (sbytes[to])
            coll_sched_send(s, in + sdispls[to], sbytes[to], to, 0);
    }
    return coll_sched_start(s, req);
}

/* Uniform arrays for the regular variants. */
static int nbv_uniform(int n, size_t blk, size_t **len, size_t **off)
{
    size_t *a = malloc(2 * (size_t)n * sizeof(size_t));
    if (!a)
        return RMP_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        a[i] = blk;
        a[n + i] = (size_t)i * blk;
    }
    *len = a;
    *off = a + n;
    return RMP_SUCCESS;
}

typedef enum { NBU_GATHER, NBU_SCATTER, NBU_ALLGATHER, NBU_ALLTOALL } nbu_kind_t;

static int nb_uniform(nbu_kind_t kind, const void *sbuf, void *rbuf, size_t count,
                      rmp_datatype_t dt, int root, rmp_comm_t comm, rmp_request_t *req)
{
    size_t es = rmp_datatype_size(dt), blk, *len, *off;
    int rc = coll_check_comm(comm, "rmp_i*");
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt(dt);
    if (rc == RMP_SUCCESS)
        rc = coll_bytes(count, es, 1, &blk);
    if (rc != RMP_SUCCESS || (rc = nbv_uniform(comm->size, blk, &len, &off)) != RMP_SUCCESS)
        return rc;
    switch (kind) {
    case NBU_GATHER: rc = rmp_igatherv(sbuf, blk, rbuf, len, off, root, comm, req); break;
    case NBU_SCATTER: rc = rmp_iscatterv(sbuf, len, off, rbuf, blk, root, comm, req); break;
    case NBU_ALLGATHER:
        rc = rmp_iallgatherv(sbuf, blk, rbuf, len, off, comm, req);
        break;
    default: rc = rmp_ialltoallv(sbuf, len, off, rbuf, len, off, comm, req); break;
    }
    free(len);
    return rc;
}

RMP_EXPORT int rmp_igather(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                           int root, rmp_comm_t comm, rmp_request_t *req)
{
    return nb_uniform(NBU_GATHER, sbuf, rbuf, count, dt, root, comm, req);
}

RMP_EXPORT int rmp_iscatter(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                            int root, rmp_comm_t comm, rmp_request_t *req)
{
    return nb_uniform(NBU_SCATTER, sbuf, rbuf, count, dt, root, comm, req);
}

RMP_EXPORT int rmp_iallgather(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                              rmp_comm_t comm, rmp_request_t *req)
{
    return nb_uniform(NBU_ALLGATHER, sbuf, rbuf, count, dt, 0, comm, req);
}

RMP_EXPORT int rmp_ialltoall(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                             rmp_comm_t comm, rmp_request_t *req)
{
    return nb_uniform(NBU_ALLTOALL, sbuf, rbuf, count, dt, 0, comm, req);
}

/* ---- Reductions ---- */

static int nb_red_begin(rmp_comm_t comm, rmp_datatype_t dt, rmp_op_t op, rmp_request_t *req,
                        const char *call)
{
    int rc = nbv_begin(comm, req, call);
    return rc == RMP_SUCCESS ? coll_check_dt_op(dt, op) : rc;
}

/* Every contribution to the root (reduce) or block i to rank i (reduce_scatter), then
 * reduced in rank order: out = x0 op x1 op ... */
static void nb_reduce_all(coll_sched_t *s, char *all, size_t bytes, char *out, size_t count,
                          int n)
{
    coll_sched_round(s);
    if (n == 1) {
        coll_sched_copy(s, out, all, bytes);
        return;
    }
    coll_sched_reduce3(s, out, all, all + bytes, count);
    for (int r = 2; r < n; r++)
        coll_sched_reduce3(s, out, out, all + (size_t)r * bytes, count);
}

RMP_EXPORT int rmp_ireduce(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                           rmp_op_t op, int root, rmp_comm_t comm, rmp_request_t *req)
{
    int rc = nb_red_begin(comm, dt, op, req, "rmp_ireduce");
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    size_t es = rmp_datatype_size(dt), bytes = 0;
    if (rc == RMP_SUCCESS)
        rc = coll_bytes(count, es, (size_t)comm->size, &bytes);
    if (rc != RMP_SUCCESS)
        return rc;
    bytes = count * es;
    coll_sched_t *s = coll_sched_new(comm, dt, op, coll_next_tag(comm));
    if (!s)
        return RMP_ERR_NOMEM;
    int n = comm->size, rank = comm->rank;
    const char *src = sbuf == RMP_IN_PLACE ? rbuf : sbuf;
    if (count == 0)
        return coll_sched_start(s, req);
    if (rank != root) {
        coll_sched_send(s, src, bytes, root, 0);
        return coll_sched_start(s, req);
    }
    char *all = coll_sched_scratch(s, (size_t)n * bytes);
    if (all) {
        coll_sched_copy(s, all + (size_t)rank * bytes, src, bytes);
        for (int k = 1; k < n; k++) {
            int p = (rank + k) % n;
            coll_sched_recv(s, all + (size_t)p * bytes, bytes, p, 0);
        }
        nb_reduce_all(s, all, bytes, rbuf, count, n);
    }
    return coll_sched_start(s, req);
}

RMP_EXPORT int rmp_ireduce_scatter_v(const void *sbuf, void *rbuf, const size_t *counts,
                                     rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm,
                                     rmp_request_t *req)
{
    int rc = nb_red_begin(comm, dt, op, req, "rmp_ireduce_scatter_v");
    if (rc == RMP_SUCCESS)
        rc = nbv_arrays(counts, counts, "rmp_ireduce_scatter_v");
    if (rc != RMP_SUCCESS)
        return rc;
    coll_sched_t *s = coll_sched_new(comm, dt, op, coll_next_tag(comm));
    if (!s)
        return RMP_ERR_NOMEM;
    int n = comm->size, rank = comm->rank;
    size_t es = rmp_datatype_size(dt), mine = counts[rank] * es, total = 0, myoff = 0;
    for (int i = 0; i < n; i++) {
        if (i == rank)
            myoff = total;
        total += counts[i] * es;
    }
    const char *src = sbuf == RMP_IN_PLACE ? rbuf : sbuf;
    if (sbuf == RMP_IN_PLACE) { /* rbuf's start is overwritten by the result */
        char *copy = coll_sched_scratch(s, total);
        if (copy)
            memcpy(copy, rbuf, total);
        src = copy;
    }
    char *all = coll_sched_scratch(s, (size_t)n * mine);
    if (!all || !src)
        return coll_sched_start(s, req); /* reports the allocation failure */
    coll_sched_copy(s, all + (size_t)rank * mine, src + myoff, mine);
    for (int k = 1, off; k < n; k++) {
        int p = (rank + k) % n, from = (rank - k + n) % n;
        off = 0;
        for (int i = 0; i < p; i++)
            off += (int)(counts[i] * es);
        if (mine)
            coll_sched_recv(s, all + (size_t)from * mine, mine, from, 0);
        if (counts[p])
            coll_sched_send(s, src + off, counts[p] * es, p, 0);
    }
    if (mine)
        nb_reduce_all(s, all, mine, rbuf, counts[rank], n);
    return coll_sched_start(s, req);
}

RMP_EXPORT int rmp_ireduce_scatter(const void *sbuf, void *rbuf, size_t count,
                                   rmp_datatype_t dt, rmp_op_t op, rmp_comm_t comm,
                                   rmp_request_t *req)
{
    int rc = coll_check_comm(comm, "rmp_ireduce_scatter");
    if (rc != RMP_SUCCESS)
        return rc;
    size_t *counts = malloc((size_t)comm->size * sizeof(size_t));
    if (!counts)
        return RMP_ERR_NOMEM;
    for (int i = 0; i < comm->size; i++)
        counts[i] = count;
    rc = rmp_ireduce_scatter_v(sbuf, rbuf, counts, dt, op, comm, req);
    free(counts);
    return rc;
}

static int nb_scan(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt, rmp_op_t op,
                   rmp_comm_t comm, rmp_request_t *req, int exclusive, const char *call)
{
    int rc = nb_red_begin(comm, dt, op, req, call);
    size_t es = rmp_datatype_size(dt), bytes = 0;
    if (rc == RMP_SUCCESS)
        rc = coll_bytes(count, es, 1, &bytes);
    if (rc != RMP_SUCCESS)
        return rc;
    coll_sched_t *s = coll_sched_new(comm, dt, op, coll_next_tag(comm));
    if (!s)
        return RMP_ERR_NOMEM;
    char *part = count ? coll_sched_scratch(s, 2 * bytes) : NULL, *tmp = part + bytes;
    if (!part)
        return coll_sched_start(s, req);
    int n = comm->size, rank = comm->rank, have = !exclusive;
    /* The input is read when the schedule starts (round 0 runs in this call). */
    coll_sched_copy(s, part, sbuf == RMP_IN_PLACE ? rbuf : sbuf, bytes);
    if (!exclusive && sbuf != RMP_IN_PLACE)
        coll_sched_copy(s, rbuf, sbuf, bytes);
    for (int mask = 1; mask < n; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= n)
            continue;
        coll_sched_send(s, part, bytes, peer, 0);
        coll_sched_recv(s, tmp, bytes, peer, 0);
        coll_sched_round(s);
        if (peer < rank) {
            if (have)
                coll_sched_reduce3(s, rbuf, tmp, rbuf, count);
            else
                coll_sched_copy(s, rbuf, tmp, bytes);
            have = 1;
            coll_sched_reduce3(s, part, tmp, part, count);
        } else {
            coll_sched_reduce3(s, part, part, tmp, count);
        }
    }
    return coll_sched_start(s, req);
}

RMP_EXPORT int rmp_iscan(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                         rmp_op_t op, rmp_comm_t comm, rmp_request_t *req)
{
    return nb_scan(sbuf, rbuf, count, dt, op, comm, req, 0, "rmp_iscan");
}

RMP_EXPORT int rmp_iexscan(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                           rmp_op_t op, rmp_comm_t comm, rmp_request_t *req)
{
    return nb_scan(sbuf, rbuf, count, dt, op, comm, req, 1, "rmp_iexscan");
}
