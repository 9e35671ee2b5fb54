/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided get bandwidth (osu_get_bw with flush): per iteration rank 0 issues a window
 * of rmp_get_nbi from rank 1 into one buffer, then rmp_win_flush. MB/s = 1e6 bytes/s. */
#include "bench_rma.h"

#define NCHECK 2

static void validate(bench_rma_t *r, size_t size)
{
    bench_rmp_t *b = &r->b;
    char *lbuf = r->lbuf, *base = r->base;
    rmp_win_t win = r->win;
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

/* One timed step. */
static void step(bench_rma_t *r, size_t size)
{
    for (int j = 0; j < r->o.window; j++)
        CK(rmp_get_nbi(r->lbuf, size, 1, 0, r->win));
    CK(rmp_win_flush(1, r->win));
}

int main(int argc, char **argv)
{
    bench_rma_t r;
    int rc = bench_rma_start(&r, &argc, &argv, BENCH_RMA_BW, "rmp_get_bw", NCHECK,
                             "Get Bandwidth Test", "      Bandwidth (MB/s)");
    return rc >= 0 ? rc : bench_rma_run(&r, validate, step, 1);
}
