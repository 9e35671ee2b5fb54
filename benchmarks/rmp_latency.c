/* SPDX-License-Identifier: BSD-3-Clause */
/* Ping-pong latency between ranks 0 and 1 (osu_latency method): rank 0 sends, rank 1
 * echoes; latency is half the round-trip time, in microseconds. Other ranks only wait. */
#include "bench_p2p.h"

#define TAG_DATA 1
#define TAG_CHECK 2

static void validate(bench_p2p_t *p, size_t size)
{
    bench_rmp_t *b = &p->b;
    char *sbuf = p->sbuf, *rbuf = p->rbuf;
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

/* One timed step: a round trip (rank 0 sends and receives the echo; rank 1 echoes). */
static void step(bench_p2p_t *p, size_t size)
{
    rmp_status_t st;
    if (p->b.rank == 0) {
        CK(rmp_send(p->sbuf, size, 1, TAG_DATA, p->b.world));
        CK(rmp_recv(p->rbuf, size, 1, TAG_DATA, p->b.world, &st));
    } else {
        CK(rmp_recv(p->rbuf, size, 0, TAG_DATA, p->b.world, &st));
        CK(rmp_send(p->sbuf, size, 0, TAG_DATA, p->b.world));
    }
}

int main(int argc, char **argv)
{
    bench_p2p_t p;
    int rc = bench_p2p_start(&p, &argc, &argv, BENCH_P2P_LAT, "rmp_latency", 1, "Latency Test",
                             "          Latency (us)");
    return rc >= 0 ? rc : bench_p2p_run(&p, validate, step, 0);
}
