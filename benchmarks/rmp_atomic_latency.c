/* SPDX-License-Identifier: BSD-3-Clause */
/* 64-bit atomic latency (osu_fop_latency / osu_cas_latency): rank 0 does blocking
 * rmp_atomic_fetch_add and rmp_atomic_cswap on a word of rank 1's window. -t fadd|cswap
 * picks one; by default both are printed, each after a "# fetch_add" / "# cswap" line.
 * -t fadd-all: every rank at once does blocking fetch-adds on a word of rank 0's window
 * (a shared counter, tests/rma's pattern); printed: the slowest rank's time per call. */
#include "bench_rmp.h"

/* Checks the returned old values of a short sequence, using only atomics on the word. */
static void validate(rmp_win_t win)
{
    uint64_t v0, old;
    CK(rmp_atomic_fetch_add(0, &v0, 1, 0, win));
    for (uint64_t k = 0; k < 10; k++) {
        CK(rmp_atomic_fetch_add(1, &old, 1, 0, win));
        if (old != v0 + k)
            bench_rmp_bad_data("fetch_add old value", 8, (long)k);
    }
    CK(rmp_atomic_cswap(v0 + 10, 5, &old, 1, 0, win));
    if (old != v0 + 10)
        bench_rmp_bad_data("cswap (success) old value", 8, 0);
    CK(rmp_atomic_cswap(v0 + 10, 7, &old, 1, 0, win));
    if (old != 5)
        bench_rmp_bad_data("cswap (failure) old value", 8, 1);
    CK(rmp_atomic_fetch_add(0, &old, 1, 0, win));
    if (old != 5)
        bench_rmp_bad_data("value after failed cswap", 8, 2);
}

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_ATOMIC);
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_atomic_latency", "fadd, cswap, both, fadd-all", 2);
    if (rc >= 0)
        return rc;
    int do_fadd = 1, do_cswap = 1, all = 0;
    if (o.type && !strcmp(o.type, "fadd-all"))
        do_fadd = do_cswap = 0, all = 1;
    else if (o.type && !strcmp(o.type, "fadd"))
        do_cswap = 0;
    else if (o.type && !strcmp(o.type, "cswap"))
        do_fadd = 0;
    else if (o.type && strcmp(o.type, "both")) {
        if (b.rank == 0)
            fprintf(stderr, "rmp_atomic_latency: unknown -t %s\n", o.type);
        CK(rmp_finalize());
        return 2;
    }

    void *base;
    rmp_win_t win;
    CK(rmp_win_allocate(64, b.world, &base, &win));
    int iters = bench_iters(&o, 8), warm = bench_warmup(&o, 8);
    if (b.rank == 0)
        bench_header("rmp", "Atomic Latency Test", "          Latency (us)");
    CK(rmp_barrier(b.world));
    if (b.rank == 0 && o.validate)
        validate(win);
    CK(rmp_barrier(b.world));
    if (b.rank == 0 && do_fadd) {
        uint64_t old;
        double t0 = 0.0;
        for (int i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = bench_now();
            CK(rmp_atomic_fetch_add(1, &old, 1, 0, win));
        }
        double t = bench_now() - t0;
        bench_comment("fetch_add");
        bench_row(8, t * 1e6 / iters);
    }
    if (b.rank == 0 && do_cswap) {
        uint64_t cur, old;
        double t0 = 0.0;
        CK(rmp_atomic_fetch_add(0, &cur, 1, 0, win));
        for (int i = 0; i < warm + iters; i++) {
            if (i == warm)
                t0 = bench_now();
            CK(rmp_atomic_cswap(cur, cur + 1, &old, 1, 0, win));
            cur = old == cur ? cur + 1 : old;
        }
        double t = bench_now() - t0;
        bench_comment("cswap");
        bench_row(8, t * 1e6 / iters);
    }
    if (all) {
        uint64_t old, *counter = base;
        double t0 = 0.0;
        for (int i = 0; i < warm + iters; i++) {
            if (i == warm) {
                CK(rmp_barrier(b.world));
                t0 = bench_now();
            }
            CK(rmp_atomic_fetch_add(1, &old, 0, 0, win));
        }
        double t = bench_now() - t0, slowest = 0.0;
        CK(rmp_allreduce(&t, &slowest, 1, RMP_DOUBLE, RMP_MAX, b.world));
        CK(rmp_barrier(b.world));
        if (b.rank == 0 && *counter != (uint64_t)(warm + iters) * (uint64_t)b.size)
            bench_rmp_bad_data("fadd-all counter", 8, (long)*counter);
        if (b.rank == 0) {
            bench_comment("fetch_add, every rank on rank 0's word: the slowest rank");
            bench_row(8, slowest * 1e6 / iters);
        }
    }
    CK(rmp_barrier(b.world));
    CK(rmp_win_free(&win));
    CK(rmp_finalize());
    return 0;
}
