/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided get latency (osu_get_latency): rank 0 does blocking rmp_get from rank 1's
 * window (created once); the data is in place when rmp_get returns, so no flush. */
#include "bench_rma.h"

static void validate(bench_rma_t *r, size_t size)
{
    bench_rmp_t *b = &r->b;
    char *lbuf = r->lbuf, *base = r->base;
    rmp_win_t win = r->win;
    uint32_t seed = bench_seed(size, 22);
    long bad;
    if (b->rank == 1)
        bench_fill(base, size, seed);
    CK(rmp_barrier(b->world));
    if (b->rank == 0) {
        memset(lbuf, 0, size);
        CK(rmp_get(lbuf, size, 1, 0, win));
        if ((bad = bench_check(lbuf, size, seed)) >= 0)
            bench_rmp_bad_data("data returned by get", size, bad);
    }
    CK(rmp_barrier(b->world));
}

/* One timed step. */
static void step(bench_rma_t *r, size_t size)
{
    CK(rmp_get(r->lbuf, size, 1, 0, r->win));
}

int main(int argc, char **argv)
{
    bench_rma_t r;
    int rc = bench_rma_start(&r, &argc, &argv, BENCH_RMA_LAT, "rmp_get_latency", 1,
                             "Get Latency Test", "          Latency (us)");
    return rc >= 0 ? rc : bench_rma_run(&r, validate, step, 0);
}
