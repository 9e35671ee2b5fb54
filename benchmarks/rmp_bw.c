/* SPDX-License-Identifier: BSD-3-Clause */
/* Uni-directional bandwidth between ranks 0 and 1 (osu_bw method): per iteration rank 0
 * posts a window of non-blocking sends of one buffer, waits for all of them, then waits
 * for a 4-byte acknowledgement from rank 1. MB/s = 1e6 bytes/s. */
#include "bench_p2p.h"

#define TAG_DATA 1
#define TAG_ACK 2
#define TAG_CHECK 3
#define NCHECK 2 /* messages in flight during validation, each with its own pattern */

static void validate(bench_p2p_t *p, size_t size)
{
    bench_rmp_t *b = &p->b;
    char *sbuf = p->sbuf, *rbuf = p->rbuf;
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

/* One timed step: rank 0 sends a window and waits for rank 1's acknowledgement of it. */
static void step(bench_p2p_t *p, size_t size)
{
    rmp_status_t st;
    char ack[4] = {0};
    if (p->b.rank == 0) {
        for (int j = 0; j < p->o.window; j++)
            CK(rmp_isend(p->sbuf, size, 1, TAG_DATA, p->b.world, &p->req[j]));
        CK(rmp_waitall((size_t)p->o.window, p->req, NULL));
        CK(rmp_recv(ack, sizeof(ack), 1, TAG_ACK, p->b.world, &st));
    } else {
        for (int j = 0; j < p->o.window; j++)
            CK(rmp_irecv(p->rbuf, size, 0, TAG_DATA, p->b.world, &p->req[j]));
        CK(rmp_waitall((size_t)p->o.window, p->req, NULL));
        CK(rmp_send(ack, sizeof(ack), 0, TAG_ACK, p->b.world));
    }
}

int main(int argc, char **argv)
{
    bench_p2p_t p;
    int rc = bench_p2p_start(&p, &argc, &argv, BENCH_P2P_BW, "rmp_bw", NCHECK, "Bandwidth Test",
                             "      Bandwidth (MB/s)");
    return rc >= 0 ? rc : bench_p2p_run(&p, validate, step, p.o.window);
}
