/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided get latency (osu_get_latency): rank 0 does blocking rmp_get from rank 1's
 * window (created once); the data is in place when rmp_get returns, so no flush. */
#include "bench_rmp.h"

static void validate(bench_rmp_t *b, char *lbuf, char *base, size_t size, rmp_win_t win)
{
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

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_RMA_LAT);
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_get_latency", NULL, 2);
    if (rc >= 0)
        return rc;

    void *base;
    rmp_win_t win;
    CK(rmp_win_allocate(o.max_size, b.world, &base, &win));
    char *lbuf = bench_alloc(o.max_size);
    if (b.rank == 0)
        bench_header("rmp", "Get Latency Test", "          Latency (us)");

    for (size_t size = bench_first_size(&o); size <= o.max_size; size = bench_next_size(size)) {
        int iters = bench_iters(&o, size), warm = bench_warmup(&o, size);
        if (o.validate)
            validate(&b, lbuf, base, size, win);
        CK(rmp_barrier(b.world));
        if (b.rank == 0) {
            double t0 = 0.0;
            for (int i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                CK(rmp_get(lbuf, size, 1, 0, win));
            }
            bench_row(size, (bench_now() - t0) * 1e6 / iters);
        }
    }
    CK(rmp_barrier(b.world));
    CK(rmp_win_free(&win));
    bench_free(lbuf);
    CK(rmp_finalize());
    return 0;
}
