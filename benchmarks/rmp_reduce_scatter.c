/* SPDX-License-Identifier: BSD-3-Clause */
/* Reduce-scatter latency (osu_reduce_scatter): -m is the size of the whole input vector in
 * bytes; each rank receives size / ranks of it (sizes too small to give every rank one
 * element are skipped). -T datatype (default float), -o op (default sum). Average over
 * ranks of each rank's mean time per call; an untimed barrier follows each call. */
#include "bench_rmp.h"

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_COLL);
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_reduce_scatter", NULL, 1);
    if (rc >= 0)
        return rc;
    rmp_datatype_t dt = bench_rmp_dt(&o);
    rmp_op_t op = bench_rmp_op(&o);
    size_t esz = rmp_datatype_size(dt), np = (size_t)b.size;
    char *sbuf = bench_alloc(o.max_size), *rbuf = bench_alloc(o.max_size);
    bench_rmp_coll_header(&b, &o, "Reduce_scatter Latency Test", 1);

    for (size_t size = bench_coll_first_size(&o, esz * np); size <= o.max_size;
         size = bench_next_size(size)) {
        size_t count = size / esz / np; /* per rank */
        bench_red_fill(dt, sbuf, count * np, b.rank, 0);
        if (o.validate) {
            long bad;
            memset(rbuf, 0, count * esz);
            CK(rmp_reduce_scatter(sbuf, rbuf, count, dt, op, b.world));
            if ((bad = bench_red_check(dt, bench_op_parse(o.op), rbuf, count, b.size,
                                       count * (size_t)b.rank)) >= 0)
                bench_rmp_bad_data("reduce_scatter result", size, bad);
        }
        bench_coll_call_t call = {BENCH_REDUCE_SCATTER, sbuf, rbuf, count, dt, op};
        bench_rmp_time_coll(&b, &o, size, &call);
    }
    bench_free(sbuf);
    bench_free(rbuf);
    CK(rmp_finalize());
    return 0;
}
