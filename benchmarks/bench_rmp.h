/* SPDX-License-Identifier: BSD-3-Clause */
/* rmp side of the benchmark harness: start-up, error checks and validation failures.
 * Every rmp call in a benchmark goes through CK(), which prints the failing call with
 * rmp_strerror and takes the whole job down with a non-zero status. */
#ifndef BENCH_RMP_H
#define BENCH_RMP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rmp.h>

#include "bench_common.h"

_Static_assert((int)BDT_BFLOAT16 == (int)RMP_BFLOAT16 && (int)BDT_DOUBLE == (int)RMP_DOUBLE &&
                   (int)BDT_COUNT == (int)RMP_DATATYPE_COUNT,
               "bench_dt_t follows rmp_datatype_t");

static inline void bench_rmp_fail(int rc, const char *what, const char *file, int line)
{
    int rank = rmp_initialized() == 1 ? rmp_comm_rank(rmp_comm_world()) : -1;
    fprintf(stderr, "[rank %d] %s:%d: %s failed: %s (%d)\n", rank, file, line, what,
            rmp_strerror(rc), rc);
    fflush(stderr);
    if (rmp_initialized() == 1)
        rmp_abort(rmp_comm_world(), 1);
    exit(1);
}

#define CK(call)                                                                           \
    do {                                                                                   \
        int ck_rc_ = (call);                                                               \
        if (ck_rc_ != RMP_SUCCESS)                                                         \
            bench_rmp_fail(ck_rc_, #call, __FILE__, __LINE__);                             \
    } while (0)

/* Reports data corruption found by a validation pass and aborts the job with status 2. */
static inline void bench_rmp_bad_data(const char *what, size_t size, long index)
{
    fprintf(stderr, "[rank %d] validation failed: %s, size %zu, first bad byte/element %ld\n",
            rmp_comm_rank(rmp_comm_world()), what, size, index);
    fflush(stderr);
    rmp_abort(rmp_comm_world(), 2);
    exit(2);
}

typedef struct {
    rmp_comm_t world;
    int rank, size;
} bench_rmp_t;

/* rmp_init, world rank and size, then option parsing. Returns -1 to run the test;
 * otherwise the job is finalized and the value is the exit status (0 after -h, 2 on bad
 * options). */
static inline int bench_rmp_start(bench_rmp_t *b, int *argc, char ***argv, bench_opts_t *o,
                                  const char *prog, const char *type_help, int min_ranks)
{
    /* BENCH_THREAD_LEVEL=multiple: the same measurement under RMP_THREAD_MULTIPLE (what
     * the engine lock costs one thread, docs/threads.md). */
    const char *lvl = getenv("BENCH_THREAD_LEVEL");
    if (lvl && strcmp(lvl, "multiple") == 0) {
        int provided;
        CK(rmp_init_thread(argc, argv, RMP_THREAD_MULTIPLE, &provided));
    } else {
        CK(rmp_init(argc, argv));
    }
    b->world = rmp_comm_world();
    b->rank = rmp_comm_rank(b->world);
    b->size = rmp_comm_size(b->world);
    if (b->rank < 0)
        bench_rmp_fail(b->rank, "rmp_comm_rank", __FILE__, __LINE__);
    if (b->size < 0)
        bench_rmp_fail(b->size, "rmp_comm_size", __FILE__, __LINE__);
    int pr = bench_parse(*argc, *argv, o, prog, type_help, b->rank == 0);
    if (pr == 0 && b->size < min_ranks) {
        if (b->rank == 0)
            fprintf(stderr, "%s: needs at least %d ranks (run under rrun -n %d)\n", prog,
                    min_ranks, min_ranks);
        pr = -1;
    }
    if (pr == 0)
        return -1;
    CK(rmp_finalize());
    return pr > 0 ? 0 : 2;
}

/* ---- collectives ---- */

static inline rmp_datatype_t bench_rmp_dt(const bench_opts_t *o)
{
    return (rmp_datatype_t)bench_dt_parse(o->dtype);
}

static inline rmp_op_t bench_rmp_op(const bench_opts_t *o)
{
    switch (bench_op_parse(o->op)) {
    case BOP_MIN: return RMP_MIN;
    case BOP_MAX: return RMP_MAX;
    default: return RMP_SUM;
    }
}

/* Header of a collective test: title, then the datatype/op/ranks as a comment. */
static inline void bench_rmp_coll_header(const bench_rmp_t *b, const bench_opts_t *o,
                                         const char *title, int reduction)
{
    char line[128];
    if (b->rank != 0)
        return;
    bench_header("rmp", title, BENCH_COLL_COLUMNS);
    if (o->dtype)
        snprintf(line, sizeof(line), "datatype %s%s%s, %d ranks", o->dtype,
                 reduction ? ", op " : "", reduction ? o->op : "", b->size);
    else
        snprintf(line, sizeof(line), "%d ranks", b->size);
    bench_comment(line);
}

/* Average, minimum and maximum over the ranks of each rank's mean time per call, printed
 * by rank 0 (osu_* -f). */
static inline void bench_rmp_coll_row(const bench_rmp_t *b, size_t size, double my_us, int iters)
{
    double sum = 0.0, min = 0.0, max = 0.0;
    CK(rmp_reduce(&my_us, &sum, 1, RMP_DOUBLE, RMP_SUM, 0, b->world));
    CK(rmp_reduce(&my_us, &min, 1, RMP_DOUBLE, RMP_MIN, 0, b->world));
    CK(rmp_reduce(&my_us, &max, 1, RMP_DOUBLE, RMP_MAX, 0, b->world));
    if (b->rank == 0)
        bench_coll_row(size, sum / b->size, min, max, iters);
}

/* One collective call of a benchmark, with its arguments. */
typedef enum { BENCH_BCAST, BENCH_ALLREDUCE, BENCH_REDUCE_SCATTER, BENCH_ALLGATHER,
               BENCH_ALLTOALL } bench_coll_kind_t;

typedef struct {
    bench_coll_kind_t kind;
    const void *sbuf;
    void *rbuf; /* bcast: the buffer */
    size_t count;
    rmp_datatype_t dt;
    rmp_op_t op;
} bench_coll_call_t;

static inline int bench_rmp_coll_call(const bench_coll_call_t *c, rmp_comm_t w)
{
    switch (c->kind) {
    case BENCH_BCAST: return rmp_bcast(c->rbuf, c->count, c->dt, 0, w);
    case BENCH_ALLREDUCE: return rmp_allreduce(c->sbuf, c->rbuf, c->count, c->dt, c->op, w);
    case BENCH_REDUCE_SCATTER:
        return rmp_reduce_scatter(c->sbuf, c->rbuf, c->count, c->dt, c->op, w);
    case BENCH_ALLGATHER: return rmp_allgather(c->sbuf, c->rbuf, c->count, c->dt, w);
    default: return rmp_alltoall(c->sbuf, c->rbuf, c->count, c->dt, w);
    }
}

/* The OSU timing loop: warm-up and timed calls, each followed by an untimed barrier;
 * prints the row (average over ranks of each rank's mean time per call). */
static inline void bench_rmp_time_coll(const bench_rmp_t *b, const bench_opts_t *o, size_t size,
                                       const bench_coll_call_t *c)
{
    int iters = bench_iters(o, size), warm = bench_warmup(o, size);
    CK(rmp_barrier(b->world));
    double total = 0.0;
    for (int i = 0; i < warm + iters; i++) {
        double t0 = bench_now();
        CK(bench_rmp_coll_call(c, b->world));
        if (i >= warm)
            total += bench_now() - t0;
        CK(rmp_barrier(b->world));
    }
    bench_rmp_coll_row(b, size, total * 1e6 / iters, iters);
}

#endif /* BENCH_RMP_H */
