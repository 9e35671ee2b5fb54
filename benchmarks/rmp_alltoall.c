/* SPDX-License-Identifier: BSD-3-Clause */
/* Alltoall latency (osu_alltoall): -m is the bytes each rank sends to each rank, -T
 * datatype (default uint8). Average over ranks of each rank's mean time per call; an
 * untimed barrier follows each call. */
#include "bench_rmp.h"

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_COLL);
    o.dtype = "uint8";
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_alltoall", NULL, 1);
    if (rc >= 0)
        return rc;
    rmp_datatype_t dt = bench_rmp_dt(&o);
    size_t esz = rmp_datatype_size(dt), np = (size_t)b.size;
    char *sbuf = bench_alloc(np * o.max_size), *rbuf = bench_alloc(np * o.max_size);
    bench_rmp_coll_header(&b, &o, "All-to-All Latency Test", 0);

    for (size_t size = bench_coll_first_size(&o, esz); size <= o.max_size; size = bench_next_size(size)) {
        size_t count = size / esz, bytes = count * esz;
        if (o.validate) {
            long bad;
            /* Block j of rank r carries seed (r, j); rank r must receive (j, r) in block j. */
            for (size_t j = 0; j < np; j++)
                bench_fill(sbuf + j * bytes, bytes, bench_seed(size, (int)(1000 * b.rank + j)));
            memset(rbuf, 0, np * bytes);
            CK(rmp_alltoall(sbuf, rbuf, count, dt, b.world));
            for (size_t j = 0; j < np; j++)
                if ((bad = bench_check(rbuf + j * bytes, bytes,
                                       bench_seed(size, (int)(1000 * j + b.rank)))) >= 0)
                    bench_rmp_bad_data("alltoall block", size, (long)(j * bytes) + bad);
        }
        bench_coll_call_t call = {BENCH_ALLTOALL, sbuf, rbuf, count, dt, RMP_SUM};
        bench_rmp_time_coll(&b, &o, size, &call);
    }
    bench_free(sbuf);
    bench_free(rbuf);
    CK(rmp_finalize());
    return 0;
}
