/* SPDX-License-Identifier: BSD-3-Clause */
/* One-sided put latency (osu_put_latency with flush synchronisation): rank 0 does
 * rmp_put + rmp_win_flush to rank 1 in a loop, into a window created once. The target
 * stays passive (it only waits in barriers). */
#include "bench_rma.h"

static void validate(bench_rma_t *r, size_t size)
{
    bench_rmp_t *b = &r->b;
    char *lbuf = r->lbuf, *base = r->base;
    rmp_win_t win = r->win;
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

/* One timed step. */
static void step(bench_rma_t *r, size_t size)
{
    CK(rmp_put(r->lbuf, size, 1, 0, r->win));
    CK(rmp_win_flush(1, r->win));
}

int main(int argc, char **argv)
{
    bench_rma_t r;
    int rc = bench_rma_start(&r, &argc, &argv, BENCH_RMA_LAT, "rmp_put_latency", 1,
                             "Put Latency Test", "          Latency (us)");
    return rc >= 0 ? rc : bench_rma_run(&r, validate, step, 0);
}
