/* SPDX-License-Identifier: BSD-3-Clause */
/* Issue 27: put/get of up to 8 MiB are posted in pieces of at most VERBS_RDMA_CHUNK
 * bytes with at most VERBS_RDMA_WINDOW bytes in flight per queue pair (verbs_rdma.c).
 * Before, one work request carried the whole transfer (8,323,072 bytes: 8,128 packets
 * on Soft-RoCE), and between two guests each lost packet made RC resend the rest of
 * it: rma_test's 4-8 MiB put/get crawled for minutes or never ended, and retries ran
 * out on live peers. Rank 0 posts many nonblocking puts and gets of up to 8 MiB to
 * rank 1 before one flush and looks at its send queue after each call and each
 * progress step: no request over a piece, never more than the window in flight, the
 * window's count equal to the requests posted; and every byte lands where it must. */
#include <stdlib.h>

#include "vt.h"

#define WB (9u << 20)
#define NOPS 6

/* The send queue towards peer: its requests' bytes add up to rdma_bytes, none is
 * larger than a piece, and the total stays within the window. */
static size_t sq_checks, sq_max;
static void check_sq(int peer)
{
    verbs_tl_t *tl = vt_tl();
    verbs_ep_t *ep = &tl->eps[peer];
    size_t sum = 0, big = 0;
    for (uint64_t s = ep->sq_tail; s < ep->sq_head; s++) {
        const verbs_op_t *op = &ep->ops[s % VERBS_SQ_DEPTH];
        sum += op->bytes;
        if (op->bytes > big)
            big = op->bytes;
    }
    sq_checks++;
    if (sum > sq_max)
        sq_max = sum;
    T_CHECK(big <= VERBS_RDMA_CHUNK, "a work request of %zu bytes (piece: %d)", big,
            VERBS_RDMA_CHUNK);
    T_CHECK(sum <= VERBS_RDMA_WINDOW, "%zu bytes in flight (window: %d)", sum,
            VERBS_RDMA_WINDOW);
    T_CHECK(sum == ep->rdma_bytes, "requests hold %zu bytes, the window counts %zu", sum,
            ep->rdma_bytes);
}

int main(int argc, char **argv)
{
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    vt_require_verbs();
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w);
    /* rmp_win_create: an allocated window is mapped by same-node ranks, and this test
     * runs on one node; created from user memory, it goes through verbs. */
    unsigned char *base = calloc(1, WB);
    rmp_win_t win;
    T_CHECK(base != NULL, "calloc %u", WB);
    T_RC(rmp_win_create(base, WB, w, &win));
    /* Sizes: odd ones, a piece exactly, a piece and one byte, rma_test's largest. */
    static const size_t sz[NOPS] = {1, 65535, 65536, 65537, 300007, 8323072};
    unsigned char *src[NOPS], *dst[NOPS];
    size_t off[NOPS], at = 0;
    for (int k = 0; k < NOPS; k++) {
        src[k] = malloc(sz[k]);
        dst[k] = malloc(sz[k]);
        T_CHECK(src[k] && dst[k], "malloc %zu", sz[k]);
        vt_fill(src[k], sz[k], k + 1);
        memset(dst[k], 0, sz[k]);
        off[k] = k == NOPS - 1 ? WB - sz[k] - 3 : at; /* the largest: near the end */
        at += sz[k] + 7;
    }
    T_RC(rmp_barrier(w));
    double t0 = vt_now();
    if (me == 0) {
        /* All the puts, then all the gets, before one flush each: the big ones wait in
         * the endpoint's queue behind the window. Offsets do not overlap except the last
         * put with nothing, so each get reads what its put wrote. */
        for (int k = 0; k < NOPS - 1; k++) {
            T_RC(rmp_put_nbi(src[k], sz[k], 1, off[k], win));
            check_sq(1);
        }
        T_RC(rmp_put_nbi(src[NOPS - 1], sz[NOPS - 1], 1, off[NOPS - 1], win));
        check_sq(1);
        for (int i = 0; i < 200; i++) { /* progress by hand, looking each time */
            rmpi_progress();
            check_sq(1);
        }
        T_RC(rmp_win_flush(1, win));
        check_sq(1);
        for (int k = 0; k < NOPS; k++) {
            T_RC(rmp_get_nbi(dst[k], sz[k], 1, off[k], win));
            check_sq(1);
        }
        for (int i = 0; i < 200; i++) {
            rmpi_progress();
            check_sq(1);
        }
        T_RC(rmp_win_flush_all(win));
        for (int k = 0; k < NOPS; k++) {
            long bad = vt_check(dst[k], sz[k], k + 1);
            T_CHECK(bad < 0, "nbi put/get of %zu bytes at %zu: byte %ld differs", sz[k], off[k],
                    bad);
        }
        /* Blocking, the largest once more, into the target's own view below. */
        vt_fill(src[NOPS - 1], sz[NOPS - 1], 99);
        T_RC(rmp_put(src[NOPS - 1], sz[NOPS - 1], 1, 5, win));
        memset(dst[NOPS - 1], 0, sz[NOPS - 1]);
        T_RC(rmp_get(dst[NOPS - 1], sz[NOPS - 1], 1, 5, win));
        long bad = vt_check(dst[NOPS - 1], sz[NOPS - 1], 99);
        T_CHECK(bad < 0, "blocking put/get of %zu bytes: byte %ld differs", sz[NOPS - 1], bad);
        T_CHECK(vt_tl()->rdma_queued == 0 && vt_tl()->eps[1].rdma_bytes == 0,
                "after the flush: %d operations queued, %zu bytes in flight",
                vt_tl()->rdma_queued, vt_tl()->eps[1].rdma_bytes);
        printf("rdma-window: %zu looks at the send queue, at most %zu bytes in flight "
               "(window %d, piece %d), %.2f s\n",
               sq_checks, sq_max, VERBS_RDMA_WINDOW, VERBS_RDMA_CHUNK, vt_now() - t0);
        T_CHECK(sq_max == VERBS_RDMA_WINDOW, "the window never filled (at most %zu bytes)",
                sq_max);
    }
    T_RC(rmp_barrier(w));
    if (me == 1) { /* the target sees the blocking put in its own memory */
        long bad = vt_check(base + 5, sz[NOPS - 1], 99);
        T_CHECK(bad < 0, "target memory: byte %ld of the 8 MiB put differs", bad);
    }
    T_RC(rmp_barrier(w));
    T_RC(rmp_win_free(&win));
    free(base);
    for (int k = 0; k < NOPS; k++) {
        free(src[k]);
        free(dst[k]);
    }
    int rc = t_finish();
    rmp_finalize();
    return rc;
}
