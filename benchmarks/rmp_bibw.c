/* SPDX-License-Identifier: BSD-3-Clause */
/* Bi-directional bandwidth between ranks 0 and 1 (osu_bibw method): per iteration both
 * ranks post a window of receives and a window of sends of one buffer and wait for all;
 * the bytes of both directions count. MB/s = 1e6 bytes/s. */
#include "bench_rmp.h"

#define TAG_DATA 1
#define TAG_CHECK 3
#define NCHECK 2

static void validate(bench_rmp_t *b, char *sbuf, char *rbuf, size_t size)
{
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

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_P2P_BW);
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_bibw", NULL, 2);
    if (rc >= 0)
        return rc;

    char *sbuf = bench_alloc(NCHECK * o.max_size), *rbuf = bench_alloc(NCHECK * o.max_size);
    rmp_request_t *req = calloc(2 * (size_t)o.window, sizeof(*req));
    if (!req)
        return 1;
    if (b.rank == 0)
        bench_header("rmp", "Bi-Directional Bandwidth Test", "      Bandwidth (MB/s)");

    for (size_t size = bench_first_size(&o); size <= o.max_size; size = bench_next_size(size)) {
        int iters = bench_iters(&o, size), warm = bench_warmup(&o, size);
        if (b.rank < 2 && o.validate)
            validate(&b, sbuf, rbuf, size);
        CK(rmp_barrier(b.world));
        if (b.rank < 2) {
            int peer = 1 - b.rank;
            double t0 = 0.0, t;
            for (int i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                for (int j = 0; j < o.window; j++)
                    CK(rmp_irecv(rbuf, size, peer, TAG_DATA, b.world, &req[j]));
                for (int j = 0; j < o.window; j++)
                    CK(rmp_isend(sbuf, size, peer, TAG_DATA, b.world, &req[o.window + j]));
                CK(rmp_waitall(2 * (size_t)o.window, req, NULL));
            }
            t = bench_now() - t0;
            if (b.rank == 0)
                bench_row(size, 2.0 * (double)size * o.window * iters / t / 1e6);
        }
    }
    CK(rmp_barrier(b.world));
    free(req);
    bench_free(sbuf);
    bench_free(rbuf);
    CK(rmp_finalize());
    return 0;
}
