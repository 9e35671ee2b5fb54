/* SPDX-License-Identifier: BSD-3-Clause */
/* Bi-directional bandwidth between ranks 0 and 1 (osu_bibw method): per iteration both
 * ranks post a window of receives and a window of sends of one buffer and wait for all;
 * the bytes of both directions count. MB/s = 1e6 bytes/s. */
#include "bench_p2p.h"

#define TAG_DATA 1
#define TAG_CHECK 3
#define NCHECK 2

static void validate(bench_p2p_t *p, size_t size)
{
    bench_rmp_t *b = &p->b;
    char *sbuf = p->sbuf, *rbuf = p->rbuf;
    rmp_request_t req[2 * NCHECK];
    rmp_status_t st[2 * NCHECK];
    int peer = 1 - b->rank;
    long bad;

    memset(rbuf, 0, NCHECK * size);
    for (int j = 0; j < NCHECK; j++)
        CK(rmp_irecv(rbuf + j * size, size, peer, TAG_CHECK, b->world, &req[j]));
    for (int j = 0; j < NCHECK; j++) {
        bench_fill(sbuf + j * size, size, bench_seed(size, 16 * b->rank + j));
        CK(rmp_isend(sbuf + j * size, size, peer, TAG_CHECK, b->world, &req[NCHECK + j]));
    }
    CK(rmp_waitall(2 * NCHECK, req, st));
    for (int j = 0; j < NCHECK; j++) {
        if (st[j].bytes != size || st[j].source != peer)
            bench_rmp_bad_data("status of windowed message", size, (long)st[j].bytes);
        if ((bad = bench_check(rbuf + j * size, size, bench_seed(size, 16 * peer + j))) >= 0)
            bench_rmp_bad_data("windowed message (wrong data or order)", size, bad);
    }
}

/* One timed step: both ranks post a window of receives and one of sends, and wait. */
static void step(bench_p2p_t *p, size_t size)
{
    int peer = 1 - p->b.rank, w = p->o.window;
    for (int j = 0; j < w; j++)
        CK(rmp_irecv(p->rbuf, size, peer, TAG_DATA, p->b.world, &p->req[j]));
    for (int j = 0; j < w; j++)
        CK(rmp_isend(p->sbuf, size, peer, TAG_DATA, p->b.world, &p->req[w + j]));
    CK(rmp_waitall(2 * (size_t)w, p->req, NULL));
}

int main(int argc, char **argv)
{
    bench_p2p_t p;
    int rc = bench_p2p_start(&p, &argc, &argv, BENCH_P2P_BW, "rmp_bibw", NCHECK,
                             "Bi-Directional Bandwidth Test", "      Bandwidth (MB/s)");
    return rc >= 0 ? rc : bench_p2p_run(&p, validate, step, 2.0 * p.o.window);
}
