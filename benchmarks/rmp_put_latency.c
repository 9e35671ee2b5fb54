/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided put latency (osu_put_latency with flush synchronisation): rank 0 does
 * rmp_put + rmp_win_flush to rank 1 in a loop, into a window created once. The target
 * stays passive (it only waits in barriers). */
#include "bench_rmp.h"

static void validate(bench_rmp_t *b, char *lbuf, char *base, size_t size, rmp_win_t win)
{
    uint32_t seed = bench_seed(size, 21);
    long bad;
    if (b->rank == 1)
        memset(base, 0, size);
    CK(rmp_barrier(b->world));
    if (b->rank == 0) {
        bench_fill(lbuf, size, seed);
        CK(rmp_put(lbuf, size, 1, 0, win));
        CK(rmp_win_flush(1, win));
    }
    CK(rmp_barrier(b->world));
    if (b->rank == 1 && (bad = bench_check(base, size, seed)) >= 0)
        bench_rmp_bad_data("window contents after put + flush", size, bad);
}

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_RMA_LAT);
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_put_latency", NULL, 2);
    if (rc >= 0)
        return rc;

    void *base;
    rmp_win_t win;
    CK(rmp_win_allocate(o.max_size, b.world, &base, &win));
    char *lbuf = bench_alloc(o.max_size);
    if (b.rank == 0)
        bench_header("rmp", "Put Latency Test", "          Latency (us)");

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
                CK(rmp_put(lbuf, size, 1, 0, win));
                CK(rmp_win_flush(1, win));
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
