/* SPDX-License-Identifier: BSD-3-Clause */
/* Nonblocking collectives: the blocking algorithms written as schedules (coll_sched.c),
 * chosen by the same table, so rmp_iallreduce gives the same bits as rmp_allreduce. */
#include "coll_algo.h"
#include "coll_blocks.h"
#include "coll_check.h"
#include "coll_comm.h"
#include "coll_core.h"
#include "coll_op.h"
#include "coll_p2p.h"
#include "coll_sched.h"
#include "coll_tune.h"

/* ---- iallreduce ---- */

/* Fold (see coll_allreduce.c): returns 1 when this rank sits out and is done. */
static int nb_fold(coll_sched_t *s, char *acc, char *tmp, size_t count, size_t bytes, int rank,
                   int rem)
{
    if (rank >= 2 * rem)
        return 0;
    if (!(rank & 1)) {
        coll_sched_send(s, acc, bytes, rank + 1, 0);
        coll_sched_round(s);
        coll_sched_recv(s, acc, bytes, rank + 1, 2);
        return 1;
    }
    coll_sched_recv(s, tmp, bytes, rank - 1, 0);
    coll_sched_round(s);
    coll_sched_reduce3(s, acc, tmp, acc, count);
    return 0;
}

static void nb_allreduce_rd(coll_sched_t *s, char *acc, size_t count, size_t es, int rank,
                            int n)
{
    int pof2 = coll_pof2(n), rem = n - pof2;
    size_t bytes = count * es;
    char *tmp = coll_sched_scratch(s, bytes);
    if (!tmp || nb_fold(s, acc, tmp, count, bytes, rank, rem))
        return;
    int nr = coll_fold_rank(rank, rem);
    for (int mask = 1; mask < pof2; mask <<= 1) {
        int pnr = nr ^ mask, peer = coll_fold_real(pnr, rem);
        coll_sched_send(s, acc, bytes, peer, 1);
        coll_sched_recv(s, tmp, bytes, peer, 1);
        coll_sched_round(s);
        coll_sched_reduce3(s, acc, pnr < nr ? tmp : acc, pnr < nr ? acc : tmp, count);
    }
    if (rank < 2 * rem)
        coll_sched_send(s, acc, bytes, rank - 1, 2);
}

static void nb_allreduce_rabenseifner(coll_sched_t *s, char *acc, size_t count, size_t es,
                                      int rank, int n)
{
    int pof2 = coll_pof2(n), rem = n - pof2;
    size_t bytes = count * es;
    char *tmp = coll_sched_scratch(s, bytes);
    if (!tmp || nb_fold(s, acc, tmp, count, bytes, rank, rem))
        return;
    int nr = coll_fold_rank(rank, rem), lo = 0, hi = pof2, steps = 0;
    coll_blocks_t b = coll_blocks_even(count, pof2, es);
    for (; (1 << steps) < pof2; steps++) {
        int mask = coll_halving_mask(steps, pof2, 1), pnr = nr ^ mask;
        int peer = coll_fold_real(pnr, rem), mid = lo + (hi - lo) / 2;
        int klo = nr & mask ? mid : lo, khi = nr & mask ? hi : mid;
        int slo = nr & mask ? lo : mid, shi = nr & mask ? mid : hi;
        size_t koff = coll_blk_off(&b, klo), kbytes = coll_blk_off(&b, khi) - koff;
        size_t soff = coll_blk_off(&b, slo), sbytes = coll_blk_off(&b, shi) - soff;
        if (sbytes)
            coll_sched_send(s, acc + soff, sbytes, peer, 1);
        if (kbytes)
            coll_sched_recv(s, tmp, kbytes, peer, 1);
        coll_sched_round(s);
        coll_sched_reduce3(s, acc + koff, pnr < nr ? tmp : acc + koff,
                           pnr < nr ? acc + koff : tmp, kbytes / es);
        lo = klo;
        hi = khi;
    }
    for (int i = steps - 1; i >= 0; i--) {
        int mask = coll_halving_mask(i, pof2, 1), size = hi - lo;
        int plo = nr & mask ? lo - size : hi, peer = coll_fold_real(nr ^ mask, rem);
        size_t soff = coll_blk_off(&b, lo), roff = coll_blk_off(&b, plo);
        size_t sbytes = coll_blk_off(&b, hi) - soff, rbytes = coll_blk_off(&b, plo + size) - roff;
        if (sbytes)
            coll_sched_send(s, acc + soff, sbytes, peer, 3);
        if (rbytes)
            coll_sched_recv(s, acc + roff, rbytes, peer, 3);
        coll_sched_round(s);
        if (nr & mask)
            lo = plo;
        else
            hi += size;
    }
    if (rank < 2 * rem)
        coll_sched_send(s, acc, bytes, rank - 1, 2);
}

static void nb_allreduce_ring(coll_sched_t *s, const char *src, char *rbuf, size_t count,
                              size_t es, int rank, int n)
{
    coll_blocks_t b = coll_blocks_even(count, n, es);
    size_t maxblk = coll_blk_max(&b);
    char *t[2];
    if (!(t[0] = coll_sched_scratch(s, 2 * maxblk)))
        return;
    t[1] = t[0] + maxblk;
    int right = (rank + 1) % n, left = (rank - 1 + n) % n, prev = -1;
    for (int st = 0; st < n - 1; st++) {
        int sb = (rank - st - 1 + 2 * n) % n, rb = (rank - st - 2 + 2 * n) % n;
        if (prev >= 0)
            coll_sched_reduce3(s, t[(st - 1) & 1], src + coll_blk_off(&b, prev), t[(st - 1) & 1],
                               coll_blk_len(&b, prev) / es);
        if (coll_blk_len(&b, sb))
            coll_sched_send(s, st == 0 ? src + coll_blk_off(&b, sb) : t[(st - 1) & 1],
                            coll_blk_len(&b, sb), right, 0);
        if (coll_blk_len(&b, rb))
            coll_sched_recv(s, t[st & 1], coll_blk_len(&b, rb), left, 0);
        coll_sched_round(s);
        prev = rb;
    }
    coll_sched_reduce3(s, rbuf + coll_blk_off(&b, rank), src + coll_blk_off(&b, rank),
                       t[(n - 2) & 1], coll_blk_len(&b, rank) / es);
    for (int st = 0; st < n - 1; st++) {
        int sb = (rank - st + n) % n, rb = (rank - st - 1 + n) % n;
        if (coll_blk_len(&b, sb))
            coll_sched_send(s, rbuf + coll_blk_off(&b, sb), coll_blk_len(&b, sb), right, 1);
        if (coll_blk_len(&b, rb))
            coll_sched_recv(s, rbuf + coll_blk_off(&b, rb), coll_blk_len(&b, rb), left, 1);
        coll_sched_round(s);
    }
}

static void nb_allreduce_direct(coll_sched_t *s, const char *src, char *rbuf, size_t count,
                                size_t es, int rank, int n)
{
    size_t bytes = count * es;
    char *all = coll_sched_scratch(s, (size_t)n * bytes);
    if (!all)
        return;
    coll_sched_copy(s, all + (size_t)rank * bytes, src, bytes);
    for (int k = 1; k < n; k++) {
        int from = (rank - k + n) % n;
        coll_sched_recv(s, all + (size_t)from * bytes, bytes, from, 0);
    }
    for (int k = 1; k < n; k++)
        coll_sched_send(s, all + (size_t)rank * bytes, bytes, (rank + k) % n, 0);
    coll_sched_round(s);
    coll_sched_reduce3(s, rbuf, all, all + bytes, count);
    for (int r = 2; r < n; r++)
        coll_sched_reduce3(s, rbuf, rbuf, all + (size_t)r * bytes, count);
}

RMP_EXPORT int rmp_iallreduce(const void *sbuf, void *rbuf, size_t count, rmp_datatype_t dt,
                              rmp_op_t op, rmp_comm_t comm, rmp_request_t *req)
{
    int rc = coll_check_comm(comm, "rmp_iallreduce");
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt_op(dt, op);
    if (rc == RMP_SUCCESS && !req)
        rc = RMP_ERR_ARG;
    size_t bytes = 0;
    int algo = 0;
    if (rc == RMP_SUCCESS && count > 0 &&
        ((rc = coll_check_buf(sbuf, 1, "sbuf")) != RMP_SUCCESS ||
         (rc = coll_check_buf(rbuf, 0, "rbuf")) != RMP_SUCCESS ||
         (rc = coll_bytes(count, coll_dt_size(dt), 1, &bytes)) != RMP_SUCCESS ||
         (rc = coll_select_comm(COLL_ALLREDUCE, bytes, comm, &algo)) !=
             RMP_SUCCESS))
        return rc;
    if (rc != RMP_SUCCESS)
        return rc;
    if (algo == COLL_ALLREDUCE_SHM || algo == COLL_ALLREDUCE_HIER)
        algo = coll_select_flat(COLL_ALLREDUCE, bytes, comm->size); /* blocking only */
    algo = coll_algo_ordered(COLL_ALLREDUCE, algo, op, -1);
    if (algo == COLL_ALLREDUCE_SHM)
        algo = COLL_ALLREDUCE_RD;
    coll_sched_t *s = coll_sched_new(comm, dt, op, count ? coll_next_tag(comm) : 0);
    if (!s)
        return RMP_ERR_NOMEM;
    if (count > 0) {
        const char *src = sbuf == RMP_IN_PLACE ? rbuf : sbuf;
        int n = comm->size, rank = comm->rank;
        size_t es = coll_dt_size(dt);
        if (algo == COLL_ALLREDUCE_RING && n > 1) {
            nb_allreduce_ring(s, src, rbuf, count, es, rank, n);
        } else if (algo == COLL_ALLREDUCE_DIRECT && n > 1) {
            nb_allreduce_direct(s, src, rbuf, count, es, rank, n);
        } else {
            coll_sched_copy(s, rbuf, src, bytes);
            if (n == 1)
                coll_sched_round(s);
            else if (algo == COLL_ALLREDUCE_RABENSEIFNER && count >= (size_t)coll_pof2(n))
                nb_allreduce_rabenseifner(s, rbuf, count, es, rank, n);
            else
                nb_allreduce_rd(s, rbuf, count, es, rank, n);
        }
    }
    return coll_sched_start(s, req);
}

/* ---- ibcast ---- */

static void nb_bcast_binomial(coll_sched_t *s, char *buf, size_t bytes, int root, int rank,
                              int n)
{
    int vr = (rank - root + n) % n, mask = 1;
    for (; mask < n; mask <<= 1)
        if (vr & mask) {
            coll_sched_recv(s, buf, bytes, (rank - mask + n) % n, 0);
            coll_sched_round(s);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < n)
            coll_sched_send(s, buf, bytes, (rank + mask) % n, 0);
}

static void nb_bcast_scatter_allgather(coll_sched_t *s, char *buf, size_t bytes, int root,
                                       int rank, int n)
{
    int vr = (rank - root + n) % n, mask = 1;
    coll_blocks_t b = coll_blocks_even(bytes, n, 1);
    for (; mask < n; mask <<= 1)
        if (vr & mask) {
            int hi = vr + mask < n ? vr + mask : n;
            size_t off = coll_blk_off(&b, vr), len = coll_blk_off(&b, hi) - off;
            if (len)
                coll_sched_recv(s, buf + off, len, (rank - mask + n) % n, 0);
            coll_sched_round(s);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask >= n)
            continue;
        int lo = vr + mask, hi = vr + 2 * mask < n ? vr + 2 * mask : n;
        size_t off = coll_blk_off(&b, lo), len = coll_blk_off(&b, hi) - off;
        if (len)
            coll_sched_send(s, buf + off, len, (rank + mask) % n, 0);
    }
    coll_sched_round(s);
    int right = (rank + 1) % n, left = (rank - 1 + n) % n;
    for (int st = 0; st < n - 1; st++) {
        int sb = (vr - st + n) % n, rb = (vr - st - 1 + n) % n;
        if (coll_blk_len(&b, sb))
            coll_sched_send(s, buf + coll_blk_off(&b, sb), coll_blk_len(&b, sb), right, 1);
        if (coll_blk_len(&b, rb))
            coll_sched_recv(s, buf + coll_blk_off(&b, rb), coll_blk_len(&b, rb), left, 1);
        coll_sched_round(s);
    }
}

RMP_EXPORT int rmp_ibcast(void *buf, size_t count, rmp_datatype_t dt, int root,
                          rmp_comm_t comm, rmp_request_t *req)
{
    int rc = coll_check_comm(comm, "rmp_ibcast");
    if (rc == RMP_SUCCESS)
        rc = coll_check_dt(dt);
    if (rc == RMP_SUCCESS)
        rc = coll_check_root(root, comm);
    if (rc == RMP_SUCCESS && !req)
        rc = RMP_ERR_ARG;
    size_t bytes = 0;
    int algo = 0;
    if (rc == RMP_SUCCESS && count > 0 &&
        ((rc = coll_check_buf(buf, 0, "buf")) != RMP_SUCCESS ||
         (rc = coll_bytes(count, coll_dt_size(dt), 1, &bytes)) != RMP_SUCCESS ||
         (rc = coll_select_comm(COLL_BCAST, bytes, comm, &algo)) !=
             RMP_SUCCESS))
        return rc;
    if (rc != RMP_SUCCESS)
        return rc;
    if (algo == COLL_BCAST_HIER || algo == COLL_BCAST_SHM)
        algo = coll_select_flat(COLL_BCAST, bytes, comm->size); /* blocking only */
    coll_sched_t *s = coll_sched_new(comm, dt, RMP_SUM, count ? coll_next_tag(comm) : 0);
    if (!s)
        return RMP_ERR_NOMEM;
    int n = comm->size;
    if (count > 0 && n > 1) {
        if (algo == COLL_BCAST_LINEAR) {
            for (int k = 1; k < n && comm->rank == root; k++)
                coll_sched_send(s, buf, bytes, (root + k) % n, 0);
            if (comm->rank != root)
                coll_sched_recv(s, buf, bytes, root, 0);
        } else if (algo == COLL_BCAST_SCATTER_ALLGATHER && bytes >= (size_t)n)
            nb_bcast_scatter_allgather(s, buf, bytes, root, comm->rank, n);
        else
            nb_bcast_binomial(s, buf, bytes, root, comm->rank, n);
    }
    return coll_sched_start(s, req);
}

/* ---- ibarrier: dissemination (one round per power of two) or direct ---- */

RMP_EXPORT int rmp_ibarrier(rmp_comm_t comm, rmp_request_t *req)
{
    int rc = coll_check_comm(comm, "rmp_ibarrier"), algo;
    if (rc == RMP_SUCCESS && !req)
        rc = RMP_ERR_ARG;
    if (rc != RMP_SUCCESS ||
        (rc = coll_select_comm(COLL_BARRIER, 0, comm, &algo)) !=
            RMP_SUCCESS)
        return rc;
    if (algo == COLL_BARRIER_HIER || algo == COLL_BARRIER_SHM)
        algo = coll_select_flat(COLL_BARRIER, 0, comm->size); /* blocking only */
    coll_sched_t *s = coll_sched_new(comm, RMP_UINT8, RMP_SUM, coll_next_tag(comm));
    if (!s)
        return RMP_ERR_NOMEM;
    int n = comm->size, rank = comm->rank;
    static char dummy;
    if (algo == COLL_BARRIER_DIRECT && n > 2) {
        for (int k = 1; k < n; k++)
            coll_sched_recv(s, &dummy, 0, (rank - k + n) % n, 0);
        for (int k = 1; k < n; k++)
            coll_sched_send(s, &dummy, 0, (rank + k) % n, 0);
        return coll_sched_start(s, req);
    }
    for (int k = 1, round = 0; k < n; k <<= 1, round++) {
        coll_sched_recv(s, &dummy, 0, (rank - k + n) % n, round);
        coll_sched_send(s, &dummy, 0, (rank + k) % n, round);
        coll_sched_round(s);
    }
    return coll_sched_start(s, req);
}
