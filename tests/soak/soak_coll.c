/* SPDX-License-Identifier: BSD-3-Clause */
/* Soak, collective phase: a world iallreduce and a half-communicator ibcast
 * stay outstanding across the round (p2p and one-sided traffic run under
 * them), while 1..4 blocking collectives of random kinds, datatypes, counts
 * and roots run on world and on the halves, interleaved. Every result is
 * compared exactly with what the contributions (a function of round, op,
 * rank and index) must give. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soak.h"

#define MAXCOUNT 32768

enum { K_ALLREDUCE, K_ALLREDUCE_IP, K_BCAST, K_REDUCE, K_ALLGATHER, K_ALLTOALL,
       K_REDUCE_SCATTER, K_GATHER, K_SCATTER, K_BARRIER, K_IALLREDUCE_TEST, K_DUP, K_KINDS };

static const char *const kind_name[K_KINDS] = {
    "allreduce", "allreduce(in place)", "bcast", "reduce", "allgather", "alltoall",
    "reduce_scatter", "gather", "scatter", "barrier", "iallreduce(test loop)",
    "comm_dup + allreduce + ring + comm_free"};

typedef struct {
    int kind, root;
    rmp_datatype_t dt;
    rmp_op_t op;
    size_t count;
    uint64_t key;
    rmp_comm_t comm;
} cop_t;

static unsigned char *cbuf[3];
static size_t cbuf_bytes;
/* the operations outstanding across the round */
static cop_t nb_ar, nb_bc;
static rmp_request_t nb_ar_req, nb_bc_req;
static unsigned char *nb_ar_s, *nb_ar_r, *nb_bc_buf, *nb_tmp;

/* Resident from the start (untouched pages would count only once first used). */
static unsigned char *coll_alloc(size_t n)
{
    unsigned char *p = malloc(n);
    if (p)
        memset(p, 0x5a, n);
    return p;
}

int soak_coll_init(soak_t *k)
{
    cbuf_bytes = (size_t)k->np * MAXCOUNT * 8;
    for (int i = 0; i < 3; i++)
        cbuf[i] = coll_alloc(cbuf_bytes);
    nb_ar_s = coll_alloc(MAXCOUNT * 8);
    nb_ar_r = coll_alloc(MAXCOUNT * 8);
    nb_bc_buf = coll_alloc(MAXCOUNT * 8);
    nb_tmp = coll_alloc(cbuf_bytes);
    if (!cbuf[0] || !cbuf[1] || !cbuf[2] || !nb_ar_s || !nb_ar_r || !nb_bc_buf || !nb_tmp)
        return RMP_ERR_NOMEM;
    return RMP_SUCCESS;
}

void soak_coll_fini(void)
{
    for (int i = 0; i < 3; i++)
        free(cbuf[i]);
    free(nb_ar_s);
    free(nb_ar_r);
    free(nb_bc_buf);
    free(nb_tmp);
}

/* Elements [first, first + n) of the contribution of member a, as dt: small
 * integers, so that sums are exact in double and in int32 whatever the
 * reduction order. */
static void fill(void *buf, rmp_datatype_t dt, size_t n, size_t first, uint64_t key, int a)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = soak_mix(key ^ ((uint64_t)(unsigned)a << 32) ^ (first + i));
        int64_t small = (int64_t)(v & 0xfffff) - 0x80000;
        if (dt == RMP_INT32)
            ((int32_t *)buf)[i] = (int32_t)small;
        else if (dt == RMP_DOUBLE)
            ((double *)buf)[i] = (double)small;
        else
            ((uint64_t *)buf)[i] = v;
    }
}

#define RED(T)                                                                           \
    do {                                                                                 \
        T x = ((T *)acc)[i], y = ((const T *)in)[i];                                     \
        ((T *)acc)[i] = op == RMP_SUM ? x + y : op == RMP_MAX ? (x > y ? x : y) : x;     \
    } while (0)

static void reduce_into(void *acc, const void *in, size_t n, rmp_datatype_t dt, rmp_op_t op)
{
    for (size_t i = 0; i < n; i++) {
        if (dt == RMP_INT32)
            RED(int32_t);
        else if (dt == RMP_DOUBLE)
            RED(double);
        else if (op == RMP_BXOR)
            ((uint64_t *)acc)[i] ^= ((const uint64_t *)in)[i];
        else
            RED(uint64_t);
    }
}

/* The reduction of every member's elements [first, first + n) into out. */
static void expect_reduced(void *out, const cop_t *c, int size, size_t first, size_t n)
{
    fill(out, c->dt, n, first, c->key, 0);
    for (int a = 1; a < size; a++) {
        fill(nb_tmp, c->dt, n, first, c->key, a);
        reduce_into(out, nb_tmp, n, c->dt, c->op);
    }
}

static void pick(soak_t *k, soak_rng_t *r, cop_t *c, rmp_comm_t comm, int kind)
{
    static const rmp_datatype_t dts[] = {RMP_INT32, RMP_UINT64, RMP_DOUBLE};
    c->kind = kind;
    c->comm = comm;
    c->dt = dts[soak_below(r, 3)];
    c->op = (rmp_op_t)(c->dt == RMP_UINT64 ? (soak_below(r, 2) ? RMP_BXOR : RMP_SUM)
                                            : (soak_below(r, 2) ? RMP_MAX : RMP_SUM));
    uint64_t cls = soak_below(r, 100);
    c->count = 1 + soak_below(r, cls < 70 ? 64 : cls < 95 ? 4096 : MAXCOUNT);
    c->root = (int)soak_below(r, 1u << 16);
    c->key = soak_mix(k->seed ^ soak_rng(r));
}

static int check(soak_t *k, const cop_t *c, const void *got, const void *want, size_t n)
{
    size_t bytes = n * rmp_datatype_size(c->dt);
    if (memcmp(got, want, bytes) == 0)
        return 1;
    SOAK_FAIL(k, "coll: %s of %zu elements (dt %d op %d) on %s gives a wrong result",
              kind_name[c->kind], c->count, (int)c->dt, (int)c->op,
              c->comm == k->world ? "world" : "half");
    return 0;
}

static void rc_ok(soak_t *k, const cop_t *c, int rc)
{
    if (rc != RMP_SUCCESS)
        SOAK_FAIL(k, "coll: %s: %s", kind_name[c->kind], rmp_strerror(rc));
}

static void run_op(soak_t *k, const cop_t *c)
{
    int me = rmp_comm_rank(c->comm), n = rmp_comm_size(c->comm), root = c->root % n;
    size_t cnt = c->count, es = rmp_datatype_size(c->dt), blk = cnt * es;
    unsigned char *s = cbuf[0], *r = cbuf[1], *e = cbuf[2];
    int rc = RMP_SUCCESS;
    k->colls++;
    switch (c->kind) {
    case K_ALLREDUCE:
    case K_ALLREDUCE_IP:
    case K_REDUCE:
    case K_IALLREDUCE_TEST:
        fill(c->kind == K_ALLREDUCE_IP ? r : s, c->dt, cnt, 0, c->key, me);
        if (c->kind == K_ALLREDUCE)
            rc = rmp_allreduce(s, r, cnt, c->dt, c->op, c->comm);
        else if (c->kind == K_ALLREDUCE_IP)
            rc = rmp_allreduce(RMP_IN_PLACE, r, cnt, c->dt, c->op, c->comm);
        else if (c->kind == K_REDUCE)
            rc = rmp_reduce(s, me == root ? r : NULL, cnt, c->dt, c->op, root, c->comm);
        else {
            rmp_request_t q;
            int done = 0;
            rc = rmp_iallreduce(s, r, cnt, c->dt, c->op, c->comm, &q);
            while (rc == RMP_SUCCESS && !done)
                rc = rmp_test(&q, &done, NULL);
        }
        rc_ok(k, c, rc);
        if (c->kind != K_REDUCE || me == root) {
            expect_reduced(e, c, n, 0, cnt);
            check(k, c, r, e, cnt);
        }
        break;
    case K_BCAST:
        if (me == root)
            fill(r, c->dt, cnt, 0, c->key, root);
        else
            memset(r, 0, blk);
        rc_ok(k, c, rmp_bcast(r, cnt, c->dt, root, c->comm));
        fill(e, c->dt, cnt, 0, c->key, root);
        check(k, c, r, e, cnt);
        break;
    case K_ALLGATHER:
    case K_GATHER:
        fill(s, c->dt, cnt, 0, c->key, me);
        memset(r, 0, blk * (size_t)n);
        if (c->kind == K_ALLGATHER)
            rc = rmp_allgather(s, r, cnt, c->dt, c->comm);
        else
            rc = rmp_gather(s, me == root ? r : NULL, cnt, c->dt, root, c->comm);
        rc_ok(k, c, rc);
        for (int a = 0; a < n; a++)
            fill(e + (size_t)a * blk, c->dt, cnt, 0, c->key, a);
        if (c->kind == K_ALLGATHER || me == root)
            check(k, c, r, e, cnt * (size_t)n);
        break;
    case K_SCATTER:
        if (me == root)
            for (int a = 0; a < n; a++)
                fill(s + (size_t)a * blk, c->dt, cnt, 0, c->key, a);
        rc_ok(k, c, rmp_scatter(me == root ? s : NULL, r, cnt, c->dt, root, c->comm));
        fill(e, c->dt, cnt, 0, c->key, me);
        check(k, c, r, e, cnt);
        break;
    case K_ALLTOALL:
        /* block a of my send buffer goes to a: keyed by (sender, receiver) */
        for (int a = 0; a < n; a++)
            fill(s + (size_t)a * blk, c->dt, cnt, 0, c->key, me * 1000 + a);
        rc_ok(k, c, rmp_alltoall(s, r, cnt, c->dt, c->comm));
        for (int a = 0; a < n; a++)
            fill(e + (size_t)a * blk, c->dt, cnt, 0, c->key, a * 1000 + me);
        check(k, c, r, e, cnt * (size_t)n);
        break;
    case K_REDUCE_SCATTER:
        fill(s, c->dt, cnt * (size_t)n, 0, c->key, me);
        rc_ok(k, c, rmp_reduce_scatter(s, r, cnt, c->dt, c->op, c->comm));
        expect_reduced(e, c, n, (size_t)me * cnt, cnt);
        check(k, c, r, e, cnt);
        break;
    case K_DUP: {
        /* communicator lifecycle under load: a fresh context, used, freed */
        rmp_comm_t d = RMP_COMM_NULL;
        int64_t v = me, sum = 0, got = -1;
        rc = rmp_comm_dup(c->comm, &d);
        if (rc == RMP_SUCCESS)
            rc = rmp_allreduce(&v, &sum, 1, RMP_INT64, RMP_SUM, d);
        if (rc == RMP_SUCCESS)
            rc = rmp_sendrecv(&v, sizeof(v), (me + 1) % n, 7, &got, sizeof(got),
                              (me + n - 1) % n, 7, d, NULL);
        if (d != RMP_COMM_NULL && rmp_comm_free(&d) != RMP_SUCCESS)
            rc = RMP_ERR_INTERNAL;
        rc_ok(k, c, rc);
        if (sum != (int64_t)n * (n - 1) / 2 || got != (me + n - 1) % n)
            SOAK_FAIL(k, "coll: on a duplicated communicator: sum %lld, ring got %lld",
                      (long long)sum, (long long)got);
        break;
    }
    default:
        rc_ok(k, c, rmp_barrier(c->comm));
    }
}

int soak_coll_begin(soak_t *k)
{
    soak_rng_t r;
    soak_rng_init(&r, k->seed, k->round, 2);
    pick(k, &r, &nb_ar, k->world, K_IALLREDUCE_TEST);
    pick(k, &r, &nb_bc, k->half, K_BCAST);
    fill(nb_ar_s, nb_ar.dt, nb_ar.count, 0, nb_ar.key, k->me);
    int hme = rmp_comm_rank(k->half), root = nb_bc.root % rmp_comm_size(k->half);
    if (hme == root)
        fill(nb_bc_buf, nb_bc.dt, nb_bc.count, 0, nb_bc.key, root);
    else
        memset(nb_bc_buf, 0, nb_bc.count * rmp_datatype_size(nb_bc.dt));
    int rc = rmp_iallreduce(nb_ar_s, nb_ar_r, nb_ar.count, nb_ar.dt, nb_ar.op, k->world,
                            &nb_ar_req);
    if (rc == RMP_SUCCESS)
        rc = rmp_ibcast(nb_bc_buf, nb_bc.count, nb_bc.dt, root, k->half, &nb_bc_req);
    if (rc != RMP_SUCCESS)
        SOAK_FAIL(k, "coll: starting the round's nonblocking collectives: %s",
                  rmp_strerror(rc));
    k->colls += 2;
    return rc;
}

void soak_coll_end(soak_t *k)
{
    rmp_request_t q[2] = {nb_ar_req, nb_bc_req};
    int rc = rmp_waitall(2, q, NULL);
    if (rc != RMP_SUCCESS)
        SOAK_FAIL(k, "coll: waiting for iallreduce/ibcast: %s", rmp_strerror(rc));
    expect_reduced(cbuf[2], &nb_ar, k->np, 0, nb_ar.count);
    check(k, &nb_ar, nb_ar_r, cbuf[2], nb_ar.count);
    fill(cbuf[2], nb_bc.dt, nb_bc.count, 0, nb_bc.key, nb_bc.root % rmp_comm_size(k->half));
    check(k, &nb_bc, nb_bc_buf, cbuf[2], nb_bc.count);
}

void soak_coll_round(soak_t *k)
{
    soak_rng_t r;
    soak_rng_init(&r, k->seed, k->round, 3);
    int nops = 1 + (int)soak_below(&r, 4);
    for (int i = 0; i < nops; i++) {
        cop_t c;
        int kind = (int)soak_below(&r, K_KINDS);
        pick(k, &r, &c, soak_below(&r, 2) ? k->world : k->half, kind);
        run_op(k, &c);
    }
}
