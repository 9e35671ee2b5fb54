/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided put bandwidth (osu_put_bw with flush): per iteration rank 0 issues a window
 * of rmp_put_nbi of one buffer to rank 1, then rmp_win_flush. MB/s = 1e6 bytes/s. */
#include "bench_rma.h"

#define NCHECK 2

static void validate(bench_rma_t *r, size_t size)
{
    bench_rmp_t *b = &r->b;
    char *lbuf = r->lbuf, *base = r->base;
    rmp_win_t win = r->win;
    long bad;
    if (b->rank == 1)
        memset(base, 0, NCHECK * size);
    CK(rmp_barrier(b->world));
    if (b->rank == 0) {
        for (int j = 0; j < NCHECK; j++) {
            bench_fill(lbuf + j * size, size, bench_seed(size, 23 + j));
            CK(rmp_put_nbi(lbuf + j * size, size, 1, j * size, win));
        }
        CK(rmp_win_flush(1, win));
    }
    CK(rmp_barrier(b->world));
    if (b->rank == 1)
        for (int j = 0; j < NCHECK; j++)
            if ((bad = bench_check(base + j * size, size, bench_seed(size, 23 + j))) >= 0)
                bench_rmp_bad_data("window contents after put_nbi + flush", size, bad);
}

/* One timed step. */
static void step(bench_rma_t *r, size_t size)
{
    for (int j = 0; j < r->o.window; j++)
        CK(rmp_put_nbi(r->lbuf, size, 1, 0, r->win));
    CK(rmp_win_flush(1, r->win));
}

int main(int argc, char **argv)
{
    bench_rma_t r;
    int rc = bench_rma_start(&r, &argc, &argv, BENCH_RMA_BW, "rmp_put_bw", NCHECK,
                             "Put Bandwidth Test", "      Bandwidth (MB/s)");
    return rc >= 0 ? rc : bench_rma_run(&r, validate, step, 1);
}
