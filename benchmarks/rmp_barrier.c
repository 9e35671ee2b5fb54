/* SPDX-License-Identifier: BSD-3-Clause */
/* Barrier latency (osu_barrier): back-to-back barriers, average, min and max over ranks of each rank's
 * mean time per barrier, printed as one row of size 0. */
#include "bench_rmp.h"

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_COLL);
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_barrier", NULL, 1);
    if (rc >= 0)
        return rc;
    o.dtype = NULL;
    bench_rmp_coll_header(&b, &o, "Barrier Latency Test", 0);
    int iters = bench_iters(&o, 0), warm = bench_warmup(&o, 0);
    for (int i = 0; i < warm; i++)
        CK(rmp_barrier(b.world));
    double t0 = bench_now();
    for (int i = 0; i < iters; i++)
        CK(rmp_barrier(b.world));
    bench_rmp_coll_row(&b, 0, (bench_now() - t0) * 1e6 / iters, iters);
    CK(rmp_finalize());
    return 0;
}
