/* SPDX-License-Identifier: BSD-3-Clause */
/* Ping-pong latency between ranks 0 and 1 (osu_latency method): rank 0 sends, rank 1
 * echoes; latency is half the round-trip time, in microseconds. Other ranks only wait. */
#include "bench_rmp.h"

#define TAG_DATA 1
#define TAG_CHECK 2

static void validate(bench_rmp_t *b, char *sbuf, char *rbuf, size_t size)
{
    rmp_status_t st;
    uint32_t s0 = bench_seed(size, 0), s1 = bench_seed(size, 1);
    long bad;

    memset(rbuf, 0, size);
    if (b->rank == 0) {
        bench_fill(sbuf, size, s0);
        CK(rmp_send(sbuf, size, 1, TAG_CHECK, b->world));
        CK(rmp_recv(rbuf, size, 1, TAG_CHECK, b->world, &st));
        if (st.bytes != size || st.source != 1 || st.tag != TAG_CHECK)
            bench_rmp_bad_data("status of echoed message", size, (long)st.bytes);
        if ((bad = bench_check(rbuf, size, s1)) >= 0)
            bench_rmp_bad_data("echoed message", size, bad);
    } else {
        CK(rmp_recv(rbuf, size, 0, TAG_CHECK, b->world, &st));
        if (st.bytes != size || st.source != 0 || st.tag != TAG_CHECK)
            bench_rmp_bad_data("status of ping message", size, (long)st.bytes);
        if ((bad = bench_check(rbuf, size, s0)) >= 0)
            bench_rmp_bad_data("ping message", size, bad);
        bench_fill(sbuf, size, s1);
        CK(rmp_send(sbuf, size, 0, TAG_CHECK, b->world));
    }
}

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_P2P_LAT);
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_latency", NULL, 2);
    if (rc >= 0)
        return rc;

    char *sbuf = bench_alloc(o.max_size), *rbuf = bench_alloc(o.max_size);
    if (b.rank == 0)
        bench_header("rmp", "Latency Test", "          Latency (us)");

    for (size_t size = bench_first_size(&o); size <= o.max_size; size = bench_next_size(size)) {
        int iters = bench_iters(&o, size), warm = bench_warmup(&o, size);
        if (b.rank < 2 && o.validate)
            validate(&b, sbuf, rbuf, size);
        CK(rmp_barrier(b.world));
        double t0 = 0.0, t;
        rmp_status_t st;
        if (b.rank == 0) {
            for (int i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                CK(rmp_send(sbuf, size, 1, TAG_DATA, b.world));
                CK(rmp_recv(rbuf, size, 1, TAG_DATA, b.world, &st));
            }
            t = bench_now() - t0;
            bench_row(size, t * 1e6 / (2.0 * iters));
        } else if (b.rank == 1) {
            for (int i = 0; i < warm + iters; i++) {
                CK(rmp_recv(rbuf, size, 0, TAG_DATA, b.world, &st));
                CK(rmp_send(sbuf, size, 0, TAG_DATA, b.world));
            }
        }
    }
    CK(rmp_barrier(b.world));
    bench_free(sbuf);
    bench_free(rbuf);
    CK(rmp_finalize());
    return 0;
}
