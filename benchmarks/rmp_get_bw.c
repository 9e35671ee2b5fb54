/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided get bandwidth (osu_get_bw with flush): per iteration rank 0 issues a window
 * of rmp_get_nbi from rank 1 into one buffer, then rmp_win_flush. MB/s = 1e6 bytes/s. */
#include "bench_rmp.h"

#define NCHECK 2

static void validate(bench_rmp_t *b, char *lbuf, char *base, size_t size, rmp_win_t win)
{
    long bad;
    if (b->rank == 1)
        for (int j = 0; j < NCHECK; j++)
            bench_fill(base + j * size, size, bench_seed(size, 25 + j));
    CK(rmp_barrier(b->world));
    if (b->rank == 0) {
        memset(lbuf, 0, NCHECK * size);
        for (int j = 0; j < NCHECK; j++)
            CK(rmp_get_nbi(lbuf + j * size, size, 1, j * size, win));
        CK(rmp_win_flush(1, win));
        for (int j = 0; j < NCHECK; j++)
            if ((bad = bench_check(lbuf + j * size, size, bench_seed(size, 25 + j))) >= 0)
                bench_rmp_bad_data("data returned by get_nbi + flush", size, bad);
    }
    CK(rmp_barrier(b->world));
}

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_RMA_BW);
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_get_bw", NULL, 2);
    if (rc >= 0)
        return rc;

    void *base;
    rmp_win_t win;
    CK(rmp_win_allocate(NCHECK * o.max_size, b.world, &base, &win));
    char *lbuf = bench_alloc(NCHECK * o.max_size);
    if (b.rank == 0)
        bench_header("rmp", "Get Bandwidth Test", "      Bandwidth (MB/s)");

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
                for (int j = 0; j < o.window; j++)
                    CK(rmp_get_nbi(lbuf, size, 1, 0, win));
                CK(rmp_win_flush(1, win));
            }
            bench_row(size, (double)size * o.window * iters / (bench_now() - t0) / 1e6);
        }
    }
    CK(rmp_barrier(b.world));
    CK(rmp_win_free(&win));
    bench_free(lbuf);
    CK(rmp_finalize());
    return 0;
}
