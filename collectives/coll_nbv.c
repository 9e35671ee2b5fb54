/* SPDX-License-Identifier: BSD-3-Clause */
/* Nonblocking collectives beyond allreduce/bcast/barrier, as schedules (coll_sched.c):
 * gather(v), scatter(v), allgather(v), alltoall(v), reduce, reduce_scatter(_v), scan and
 * exscan. The data-moving ones post every transfer in one round (the root's or every
 * rank's link is the bottleneck, not latency); reduce and reduce_scatter receive every
 * contribution and reduce in rank order (non-commutative ops are safe); scan runs the
 * recursive doubling of coll_scan.c. The count/displacement arrays are read while the
 * schedule is built: the caller may reuse them at once. */
#include <stdlib.h>
#include <string.h>

#include "coll_check.h"
#include "coll_core.h"
#include "coll_op.h"
#include "coll_p2p.h"
#include "coll_sched.h"
#include "coll_vlayout.h"
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

/* One side of a v-collective: block i at buf + off[i] (off NULL: at buf), or the layout
 * lay[i] (the layout forms; they must live until the request completes). */
typedef struct nb_side {
    char *buf;
    const size_t *off;
    const rmp_layout_t *lay;
} nb_side_t;

static void nb_send(coll_sched_t *s, const nb_side_t *v, int i, size_t bytes, int peer)
{
    if (v->lay)
        coll_sched_send_layout(s, &v->lay[i], bytes, peer, 0);
    else
        coll_sched_send(s, v->buf + (v->off ? v->off[i] : 0), bytes, peer, 0);
}

static void nb_recv(coll_sched_t *s, const nb_side_t *v, int i, size_t bytes, int peer)
{
    if (v->lay)
        coll_sched_recv_layout(s, &v->lay[i], bytes, peer, 0);
    else
        coll_sched_recv(s, v->buf + (v->off ? v->off[i] : 0), bytes, peer, 0);
}

/* The own block: min(sbytes, dbytes) bytes from block si of src to block di of dst. */
static void nb_copy(coll_sched_t *s, const nb_side_t *dst, int di, size_t dbytes,
                    const nb_side_t *src, int si, size_t sbytes)
{
    size_t m = sbytes < dbytes ? sbytes : dbytes;
    if (dst->lay || src->lay) {
        rmp_layout_t d = {.ctx = dst->lay ? NULL : dst->buf + (dst->off ? dst->off[di] : 0)};
        rmp_layout_t f = {.ctx = src->lay ? NULL : src->buf + (src->off ? src->off[si] : 0)};
        coll_sched_copy_layout(s, dst->lay ? &dst->lay[di] : &d, src->lay ? &src->lay[si] : &f,
                               m);
    } else {
        coll_sched_copy(s, dst->buf + (dst->off ? dst->off[di] : 0),
                        src->buf + (src->off ? src->off[si] : 0), m);
    }
}

/* gatherv (is_gather) or scatterv: `one` is this rank's block (NULL: in place at the
 * root), the root's side is big with len[i] bytes per block. */
static int nb_gsv(int is_gather, const nb_side_t *one, size_t one_bytes, const nb_side_t *big,
                  const size_t *len, int root, rmp_comm_t comm, rmp_request_t *req,
                  const char *call)
{
    int rc = nbv_begin(comm, req, call);
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc == RMP_SUCCESS && comm->rank == root)
        rc = nbv_arrays(len, big->lay ? (const void *)big->lay : (const void *)big->off, call);
    if (rc != RMP_SUCCESS)
        return rc;
    coll_sched_t *s = coll_sched_new(comm, RMP_UINT8, RMP_SUM, coll_next_tag(comm));
    if (!s)
        return RMP_ERR_NOMEM;
    int n = comm->size, rank = comm->rank;
    if (rank != root) {
        if (one_bytes && is_gather)
            nb_send(s, one, 0, one_bytes, root);
        else if (one_bytes)
            nb_recv(s, one, 0, one_bytes, root);
        return coll_sched_start(s, req);
    }
    if (one && len[rank]) {
        if (is_gather)
            nb_copy(s, big, rank, len[rank], one, 0, one_bytes);
        else
            nb_copy(s, one, 0, one_bytes, big, rank, len[rank]);
    }
    for (int k = 1; k < n; k++) {
        int p = (rank + k) % n;
        if (!len[p])
            continue;
        if (is_gather)
            nb_recv(s, big, p, len[p], p);
        else
            nb_send(s, big, p, len[p], p);
    }
    return coll_sched_start(s, req);
}

RMP_EXPORT int rmp_igatherv(const void *sbuf, size_t sbytes, void *rbuf, const size_t *rbytes,
                            const size_t *rdispls, int root, rmp_comm_t comm, rmp_request_t *req)
{
    nb_side_t one = {(char *)sbuf, NULL, NULL}, big = {rbuf, rdispls, NULL};
    return nb_gsv(1, sbuf == RMP_IN_PLACE ? NULL : &one, sbytes, &big, rbytes, root, comm, req,
                  "rmp_igatherv");
}

RMP_EXPORT int rmp_iscatterv(const void *sbuf, const size_t *sbytes, const size_t *sdispls,
                             void *rbuf, size_t rbytes, int root, rmp_comm_t comm,
                             rmp_request_t *req)
{
    nb_side_t one = {rbuf, NULL, NULL}, big = {(char *)sbuf, sdispls, NULL};
    return nb_gsv(0, rbuf == RMP_IN_PLACE ? NULL : &one, rbytes, &big, sbytes, root, comm, req,
                  "rmp_iscatterv");
}

/* The layout forms' layouts: the n-block side where it matters (root < 0: everywhere;
 * else at the root only), the one block if any. */
static int nbl_check(rmp_comm_t comm, const rmp_layout_t *one, size_t one_bytes,
                     const rmp_layout_t *lays, const size_t *bytes, int root, const char *call)
{
    int rc = coll_check_comm(comm, call);
    if (rc == RMP_SUCCESS && (root < 0 || root == comm->rank))
        rc = coll_layouts_check(lays, bytes, comm->size, call);
    if (rc == RMP_SUCCESS && one && one_bytes)
        rc = coll_layouts_check(one, &one_bytes, 1, call);
    return rc;
}

RMP_EXPORT int rmp_igatherv_layout(const rmp_layout_t *slay, size_t sbytes,
                                   const rmp_layout_t *rlays, const size_t *rbytes, int root,
                                   rmp_comm_t comm, rmp_request_t *req)
{
    nb_side_t one = {NULL, NULL, slay}, big = {NULL, NULL, rlays};
    int rc = nbl_check(comm, slay, sbytes, rlays, rbytes, root, "rmp_igatherv_layout");
    if (rc != RMP_SUCCESS)
        return rc;
    return nb_gsv(1, slay ? &one : NULL, sbytes, &big, rbytes, root, comm, req,
                  "rmp_igatherv_layout");
}

RMP_EXPORT int rmp_iscatterv_layout(const rmp_layout_t *slays, const size_t *sbytes,
                                    const rmp_layout_t *rlay, size_t rbytes, int root,
                                    rmp_comm_t comm, rmp_request_t *req)
{
    nb_side_t one = {NULL, NULL, rlay}, big = {NULL, NULL, slays};
    int rc = nbl_check(comm, rlay, rbytes, slays, sbytes, root, "rmp_iscatterv_layout");
    if (rc != RMP_SUCCESS)
        return rc;
    return nb_gsv(0, rlay ? &one : NULL, rbytes, &big, sbytes, root, comm, req,
                  "rmp_iscatterv_layout");
}

/* Every rank's block to every rank: one round. mine: the send block (NULL: in place). */
static int nb_allgatherv(const nb_side_t *mine, size_t sbytes, const nb_side_t *out,
                         const size_t *rbytes, rmp_comm_t comm, rmp_request_t *req,
                         const char *call)
{
    int rc = nbv_begin(comm, req, call);
    if (rc == RMP_SUCCESS)
        rc = nbv_arrays(rbytes, out->lay ? (const void *)out->lay : (const void *)out->off, call);
    if (rc != RMP_SUCCESS)
        return rc;
    coll_sched_t *s = coll_sched_new(comm, RMP_UINT8, RMP_SUM, coll_next_tag(comm));
    if (!s)
        return RMP_ERR_NOMEM;
    int n = comm->size, rank = comm->rank;
    if (mine && rbytes[rank])
        nb_copy(s, out, rank, rbytes[rank], mine, 0, sbytes);
    for (int k = 1; k < n; k++) {
        int from = (rank - k + n) % n, to = (rank + k) % n;
        if (rbytes[from])
            nb_recv(s, out, from, rbytes[from], from);
        if (rbytes[rank])
            nb_send(s, out, rank, rbytes[rank], to);
    }
    return coll_sched_start(s, req);
}

RMP_EXPORT int rmp_iallgatherv(const void *sbuf, size_t sbytes, void *rbuf,
                               const size_t *rbytes, const size_t *rdispls, rmp_comm_t comm,
                               rmp_request_t *req)
{
    nb_side_t mine = {(char *)sbuf, NULL, NULL}, out = {rbuf, rdispls, NULL};
    return nb_allgatherv(sbuf == RMP_IN_PLACE ? NULL : &mine, sbytes, &out, rbytes, comm, req,
                         "rmp_iallgatherv");
}

RMP_EXPORT int rmp_iallgatherv_layout(const rmp_layout_t *slay, size_t sbytes,
                                      const rmp_layout_t *rlays, const size_t *rbytes,
                                      rmp_comm_t comm, rmp_request_t *req)
{
    nb_side_t mine = {NULL, NULL, slay}, out = {NULL, NULL, rlays};
    int rc = nbl_check(comm, slay, sbytes, rlays, rbytes, -1, "rmp_iallgatherv_layout");
    if (rc != RMP_SUCCESS)
        return rc;
    return nb_allgatherv(slay ? &mine : NULL, sbytes, &out, rbytes, comm, req,
                         "rmp_iallgatherv_layout");
}

/* in NULL: in place (the blocks to send are out's, sent from a packed copy). */
static int nb_alltoallv(const nb_side_t *in, const size_t *sbytes, const nb_side_t *out,
                        const size_t *rbytes, rmp_comm_t comm, rmp_request_t *req,
                        const char *call)
{
    int rc = nbv_begin(comm, req, call);
    if (rc == RMP_SUCCESS)
        rc = nbv_arrays(rbytes, out->lay ? (const void *)out->lay : (const void *)out->off, call);
    if (rc == RMP_SUCCESS && in)
        rc = nbv_arrays(sbytes, in->lay ? (const void *)in->lay : (const void *)in->off, call);
    if (rc == RMP_SUCCESS && !in && out->lay) {
        rmpi_error("%s: in place is not supported on layouts", call);
        rc = RMP_ERR_ARG;
    }
    if (rc != RMP_SUCCESS)
        return rc;
    coll_sched_t *s = coll_sched_new(comm, RMP_UINT8, RMP_SUM, coll_next_tag(comm));
    if (!s)
        return RMP_ERR_NOMEM;
    int n = comm->size, rank = comm->rank;
    nb_side_t packed = {NULL, NULL, NULL};
    size_t *coff = NULL;
    if (!in) { /* a packed copy of the blocks (not of the span between them) */
        size_t total = 0;
        for (int i = 0; i < n; i++)
            total += rbytes[i];
        char *copy = coll_sched_scratch(s, total);
        coff = coll_sched_scratch(s, (size_t)n * sizeof(*coff));
        for (int i = 0; copy && coff && i < n; i++) {
            coff[i] = i ? coff[i - 1] + rbytes[i - 1] : 0;
            memcpy(copy + coff[i], out->buf + out->off[i], rbytes[i]);
        }
        packed = (nb_side_t){copy, coff, NULL};
        in = &packed;
        sbytes = rbytes;
        if (!copy || !coff) {
            coll_sched_free(s);
            return RMP_ERR_NOMEM;
        }
    }
    if (rbytes[rank])
        nb_copy(s, out, rank, rbytes[rank], in, rank, sbytes[rank]);
    for (int k = 1; k < n; k++) {
        int from = (rank - k + n) % n, to = (rank + k) % n;
        if (rbytes[from])
            nb_recv(s, out, from, rbytes[from], from);
        if (sbytes[to])
            nb_send(s, in, to, sbytes[to], to);
    }
    return coll_sched_start(s, req);
}

RMP_EXPORT int rmp_ialltoallv(const void *sbuf, const size_t *sbytes, const size_t *sdispls,
                              void *rbuf, const size_t *rbytes, const size_t *rdispls,
                              rmp_comm_t comm, rmp_request_t *req)
{
    nb_side_t in = {(char *)sbuf, sdispls, NULL}, out = {rbuf, rdispls, NULL};
    return nb_alltoallv(sbuf == RMP_IN_PLACE ? NULL : &in, sbytes, &out, rbytes, comm, req,
                        "rmp_ialltoallv");
}

RMP_EXPORT int rmp_ialltoallv_layout(const rmp_layout_t *slays, const size_t *sbytes,
                                     const rmp_layout_t *rlays, const size_t *rbytes,
                                     rmp_comm_t comm, rmp_request_t *req)
{
    nb_side_t in = {NULL, NULL, slays}, out = {NULL, NULL, rlays};
    int rc = nbl_check(comm, NULL, 0, rlays, rbytes, -1, "rmp_ialltoallv_layout");
    if (rc == RMP_SUCCESS)
        rc = coll_layouts_check(slays, sbytes, comm->size, "rmp_ialltoallv_layout");
    if (rc != RMP_SUCCESS)
        return rc;
    return nb_alltoallv(&in, sbytes, &out, rbytes, comm, req, "rmp_ialltoallv_layout");
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
    size_t es = coll_dt_size(dt), blk, *len, *off;
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
    size_t es = coll_dt_size(dt), bytes = 0;
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
    size_t es = coll_dt_size(dt), mine = counts[rank] * es, total = 0, myoff = 0;
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
    size_t es = coll_dt_size(dt), bytes = 0;
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
