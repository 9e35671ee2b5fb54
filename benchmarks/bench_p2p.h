/* SPDX-License-Identifier: BSD-3-Clause */
/* The two-rank point-to-point benchmarks' shared harness (rmp_latency, rmp_bw, rmp_bibw),
 * as bench_rma.h is for the one-sided ones: start-up with send and receive buffers and a
 * request array, the loop over sizes with its validation pass, warm-up and timing, the
 * row, and the teardown. A program supplies its validation and one timed step, which
 * ranks 0 and 1 both run (each doing its side). Inline, so the step is a direct call in
 * the timed loop, not a call through a pointer. */
#ifndef BENCH_P2P_H
#define BENCH_P2P_H

#include "bench_rmp.h"

typedef struct bench_p2p {
    bench_rmp_t b;
    bench_opts_t o;
    char *sbuf, *rbuf;  /* nbuf * max_size bytes each */
    rmp_request_t *req; /* 2 * window */
} bench_p2p_t;

/* rmp_init and options (kind: BENCH_P2P_LAT or BENCH_P2P_BW), the buffers, the header on
 * rank 0. -1 to run the test; otherwise the exit status (as bench_rmp_start). */
static inline int bench_p2p_start(bench_p2p_t *p, int *argc, char ***argv, int kind,
                                  const char *prog, size_t nbuf, const char *title,
                                  const char *unit)
{
    bench_defaults(&p->o, kind);
    int rc = bench_rmp_start(&p->b, argc, argv, &p->o, prog, NULL, 2);
    if (rc >= 0)
        return rc;
    p->sbuf = bench_alloc(nbuf * p->o.max_size);
    p->rbuf = bench_alloc(nbuf * p->o.max_size);
    p->req = calloc(2 * (size_t)p->o.window, sizeof(*p->req));
    if (!p->req)
        bench_rmp_fail(RMP_ERR_NOMEM, "calloc of the request array", __FILE__, __LINE__);
    if (p->b.rank == 0)
        bench_header("rmp", title, unit);
    return -1;
}

/* Every size: validate (ranks 0 and 1, with -c), then ranks 0 and 1 run warm-up +
 * iterations of step and rank 0 prints, from its own time: with msgs_per_step 0, the
 * latency in us as half a step (a step is a round trip); otherwise MB/s (1e6 bytes/s) of
 * msgs_per_step messages of size bytes per step. Then the teardown; returns the exit
 * status. */
static inline int bench_p2p_run(bench_p2p_t *p, void (*validate)(bench_p2p_t *p, size_t size),
                                void (*step)(bench_p2p_t *p, size_t size), double msgs_per_step)
{
    for (size_t size = bench_first_size(&p->o); size <= p->o.max_size;
         size = bench_next_size(size)) {
        int iters = bench_iters(&p->o, size), warm = bench_warmup(&p->o, size);
        if (p->b.rank < 2 && p->o.validate)
            validate(p, size);
        CK(rmp_barrier(p->b.world));
        if (p->b.rank < 2) {
            double t0 = 0.0;
            for (int i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                step(p, size);
            }
            double t = bench_now() - t0;
            if (p->b.rank == 0)
                bench_row(size, msgs_per_step > 0 ? msgs_per_step * (double)size * iters / t / 1e6
                                                  : t * 1e6 / (2.0 * iters));
        }
    }
    CK(rmp_barrier(p->b.world));
    free(p->req);
    bench_free(p->sbuf);
    bench_free(p->rbuf);
    CK(rmp_finalize());
    return 0;
}

#endif
