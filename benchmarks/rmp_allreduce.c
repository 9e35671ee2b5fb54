/* SPDX-License-Identifier: BSD-3-Clause */
/* Allreduce latency (osu_allreduce): -m in bytes, -T datatype (default float), -o op
 * (default sum). Each timed call is followed by an untimed barrier; the printed value is the
 * average, min and max over ranks of each rank's mean time per call. */
#include "bench_rmp.h"

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_COLL);
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_allreduce", NULL, 1);
    if (rc >= 0)
        return rc;
    rmp_datatype_t dt = bench_rmp_dt(&o);
    rmp_op_t op = bench_rmp_op(&o);
    size_t esz = rmp_datatype_size(dt);
    char *sbuf = bench_alloc(o.max_size), *rbuf = bench_alloc(o.max_size);
    bench_rmp_coll_header(&b, &o, "Allreduce Latency Test", 1);

    for (size_t size = bench_coll_first_size(&o, esz); size <= o.max_size; size = bench_next_size(size)) {
        size_t count = size / esz;
        bench_red_fill(dt, sbuf, count, b.rank, 0);
        if (o.validate) {
            long bad;
            memset(rbuf, 0, size);
            CK(rmp_allreduce(sbuf, rbuf, count, dt, op, b.world));
            if ((bad = bench_red_check(dt, bench_op_parse(o.op), rbuf, count, b.size, 0)) >= 0)
                bench_rmp_bad_data("allreduce result", size, bad);
        }
        bench_coll_call_t call = {BENCH_ALLREDUCE, sbuf, rbuf, count, dt, op};
        bench_rmp_time_coll(&b, &o, size, &call);
    }
    bench_free(sbuf);
    bench_free(rbuf);
    CK(rmp_finalize());
    return 0;
}
