/* SPDX-License-Identifier: BSD-3-Clause */
/* The one-sided benchmarks' shared harness (rmp_{put,get}_{latency,bw}): start-up with a
 * window on every rank and a local buffer on rank 0, the loop over sizes with its
 * validation pass, warm-up and timing, the row, and the teardown. A program supplies its
 * validation and one timed step: one operation completed (latency), or a window of them
 * and their flush (bandwidth). Inline, so the step is a direct call in the timed loop. */
#ifndef BENCH_RMA_H
#define BENCH_RMA_H

#include "bench_rmp.h"

typedef struct bench_rma {
    bench_rmp_t b;
    bench_opts_t o;
    char *base; /* this rank's window */
    rmp_win_t win;
    char *lbuf; /* the origin's buffer (rank 0) */
} bench_rma_t;

/* rmp_init and options (kind: BENCH_RMA_LAT or BENCH_RMA_BW), a window and a local buffer
 * of nbuf * max_size bytes each, the header on rank 0. -1 to run the test; otherwise the
 * exit status (as bench_rmp_start). */
static inline int bench_rma_start(bench_rma_t *r, int *argc, char ***argv, int kind,
                                  const char *prog, size_t nbuf, const char *title,
                                  const char *unit)
{
    bench_defaults(&r->o, kind);
    int rc = bench_rmp_start(&r->b, argc, argv, &r->o, prog, NULL, 2);
    if (rc >= 0)
        return rc;
    void *base;
    CK(rmp_win_allocate(nbuf * r->o.max_size, r->b.world, &base, &r->win));
    r->base = base;
    r->lbuf = bench_alloc(nbuf * r->o.max_size);
    if (r->b.rank == 0)
        bench_header("rmp", title, unit);
    return -1;
}

/* Every size: validate (with -c), then rank 0 times warm-up + iterations of step and
 * prints latency in us per step (bw == 0) or MB/s (1e6 bytes/s) of window operations of
 * size bytes per step; then the teardown. Returns the exit status. */
static inline int bench_rma_run(bench_rma_t *r, void (*validate)(bench_rma_t *r, size_t size),
                                void (*step)(bench_rma_t *r, size_t size), int bw)
{
    for (size_t size = bench_first_size(&r->o); size <= r->o.max_size;
         size = bench_next_size(size)) {
        int iters = bench_iters(&r->o, size), warm = bench_warmup(&r->o, size);
        if (r->o.validate)
            validate(r, size);
        CK(rmp_barrier(r->b.world));
        if (r->b.rank == 0) {
            double t0 = 0.0;
            for (int i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                step(r, size);
            }
            double t = bench_now() - t0;
            bench_row(size, bw ? (double)size * r->o.window * iters / t / 1e6 : t * 1e6 / iters);
        }
    }
    CK(rmp_barrier(r->b.world));
    CK(rmp_win_free(&r->win));
    bench_free(r->lbuf);
    CK(rmp_finalize());
    return 0;
}

#endif
