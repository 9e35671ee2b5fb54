/* SPDX-License-Identifier: BSD-3-Clause */
/* Uni-directional bandwidth between ranks 0 and 1 (osu_bw method): per iteration rank 0
 * posts a window of non-blocking sends of one buffer, waits for all of them, then waits
 * for a 4-byte acknowledgement from rank 1. MB/s = 1e6 bytes/s. */
#include "bench_rmp.h"

#define TAG_DATA 1
#define TAG_ACK 2
#define TAG_CHECK 3
#define NCHECK 2 /* messages in flight during validation, each with its own pattern */

static void validate(bench_rmp_t *b, char *sbuf, char *rbuf, size_t size)
{
    rmp_request_t req[NCHECK];
    rmp_status_t st[NCHECK];
    long bad;

    if (b->rank == 0) {
        for (int j = 0; j < NCHECK; j++) {
            bench_fill(sbuf + j * size, size, bench_seed(size, TAG_CHECK + j));
            CK(rmp_isend(sbuf + j * size, size, 1, TAG_CHECK, b->world, &req[j]));
        }
        CK(rmp_waitall(NCHECK, req, st));
    } else {
        memset(rbuf, 0, NCHECK * size);
        for (int j = 0; j < NCHECK; j++)
            CK(rmp_irecv(rbuf + j * size, size, 0, TAG_CHECK, b->world, &req[j]));
        CK(rmp_waitall(NCHECK, req, st));
        for (int j = 0; j < NCHECK; j++) {
            if (st[j].bytes != size || st[j].source != 0)
                bench_rmp_bad_data("status of windowed message", size, (long)st[j].bytes);
            if ((bad = bench_check(rbuf + j * size, size, bench_seed(size, TAG_CHECK + j))) >= 0)
                bench_rmp_bad_data("windowed message (wrong data or order)", size, bad);
        }
    }
}

int main(int argc, char **argv)
{
    bench_rmp_t b;
    bench_opts_t o;
    bench_defaults(&o, BENCH_P2P_BW);
    int rc = bench_rmp_start(&b, &argc, &argv, &o, "rmp_bw", NULL, 2);
    if (rc >= 0)
        return rc;

    char *sbuf = bench_alloc(NCHECK * o.max_size), *rbuf = bench_alloc(NCHECK * o.max_size);
    char ack[4] = {0};
    rmp_request_t *req = calloc((size_t)o.window, sizeof(*req));
    rmp_status_t st;
    if (!req)
        return 1;
    if (b.rank == 0)
        bench_header("rmp", "Bandwidth Test", "      Bandwidth (MB/s)");

    for (size_t size = bench_first_size(&o); size <= o.max_size; size = bench_next_size(size)) {
        int iters = bench_iters(&o, size), warm = bench_warmup(&o, size);
        if (b.rank < 2 && o.validate)
            validate(&b, sbuf, rbuf, size);
        CK(rmp_barrier(b.world));
        double t0 = 0.0, t;
        if (b.rank == 0) {
            for (int i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t0 = bench_now();
                for (int j = 0; j < o.window; j++)
                    CK(rmp_isend(sbuf, size, 1, TAG_DATA, b.world, &req[j]));
                CK(rmp_waitall((size_t)o.window, req, NULL));
                CK(rmp_recv(ack, sizeof(ack), 1, TAG_ACK, b.world, &st));
            }
            t = bench_now() - t0;
            bench_row(size, (double)size * o.window * iters / t / 1e6);
        } else if (b.rank == 1) {
            for (int i = 0; i < warm + iters; i++) {
                for (int j = 0; j < o.window; j++)
                    CK(rmp_irecv(rbuf, size, 0, TAG_DATA, b.world, &req[j]));
                CK(rmp_waitall((size_t)o.window, req, NULL));
                CK(rmp_send(ack, sizeof(ack), 0, TAG_ACK, b.world));
            }
        }
    }
    CK(rmp_barrier(b.world));
    free(req);
    bench_free(sbuf);
    bench_free(rbuf);
    CK(rmp_finalize());
    return 0;
}
