/* SPDX-License-Identifier: BSD-3-Clause */
/* Broadcast latency from rank 0 (osu_bcast): -m in bytes, -T datatype (default uint8, so
 * sizes start at 1 byte like OSU). Average over ranks of each rank's mean time per call;
 * an untimed barrier follows each call. */
#include "bench_rmp.h"

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_COLL);
    o.dtype = "uint8";
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_bcast", NULL, 1);
    if (rc >= 0)
        return rc;
    rmp_datatype_t dt = bench_rmp_dt(&o);
    size_t esz = rmp_datatype_size(dt);
    char *buf = bench_alloc(o.max_size);
    bench_rmp_coll_header(&b, &o, "Broadcast Latency Test", 0);

    for (size_t size = bench_coll_first_size(&o, esz); size <= o.max_size; size = bench_next_size(size)) {
        size_t count = size / esz;
        if (o.validate) {
            uint32_t seed = bench_seed(size, 40);
            long bad;
            if (b.rank == 0)
                bench_fill(buf, size, seed);
            else
                memset(buf, 0, size);
            CK(rmp_bcast(buf, count, dt, 0, b.world));
            if ((bad = bench_check(buf, size, seed)) >= 0)
                bench_rmp_bad_data("broadcast data", size, bad);
        }
        bench_coll_call_t call = {BENCH_BCAST, NULL, buf, count, dt, RMP_SUM};
        bench_rmp_time_coll(&b, &o, size, &call);
    }
    bench_free(buf);
    CK(rmp_finalize());
    return 0;
}
