/* SPDX-License-Identifier: BSD-3-Clause */
/* SRQ repost failure (by injection): RMPI_FAULT_SRQ_POST=K makes the first K receive
 * buffer chains this process posts fail half-way (verbs_mr.c). No buffer may be lost:
 * both ranks exchange 3,000 eager messages each way (more than the pool, so buffers are
 * reposted many times; with the pool shrinking at every failure the senders would stall
 * on receiver-not-ready), then every buffer of the pool must be back in the SRQ. */
#include <stdlib.h>

#include "vt.h"

#define N 3000
#define WIN 32

static size_t msg_size(int i) { return 8 + (size_t)(i * 37 % 2000); }

int main(int argc, char **argv)
{
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    vt_require_verbs();
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w), np = rmp_comm_size(w);
    const char *k = getenv("RMPI_FAULT_SRQ_POST");
    T_CHECK(k && atoi(k) > 0, "RMPI_FAULT_SRQ_POST is set (the injection is armed)");
    if (me < 2 && np >= 2) {
        int peer = 1 - me, bad = 0;
        unsigned char *sb = malloc((size_t)WIN * 2048), *rb = malloc((size_t)WIN * 2048);
        rmp_request_t rq[2 * WIN];
        for (int i = 0; i < N; i += WIN) {
            int m = N - i < WIN ? N - i : WIN;
            for (int j = 0; j < m; j++) {
                T_RC(rmp_irecv(rb + (size_t)j * 2048, 2048, peer, 3, w, &rq[j]));
                vt_fill(sb + (size_t)j * 2048, msg_size(i + j), i + j + me);
                T_RC(rmp_isend(sb + (size_t)j * 2048, msg_size(i + j), peer, 3, w, &rq[WIN + j]));
            }
            rmp_status_t st[2 * WIN];
            T_RC(rmp_waitall(m, rq, st));
            T_RC(rmp_waitall(m, rq + WIN, NULL));
            for (int j = 0; j < m; j++)
                if (st[j].bytes != msg_size(i + j) ||
                    vt_check(rb + (size_t)j * 2048, st[j].bytes, i + j + peer) >= 0)
                    bad++;
        }
        T_CHECK(bad == 0, "%d messages each way arrived intact (%d wrong)", N, bad);
        free(sb);
        free(rb);
    }
    T_RC(rmp_barrier(w));
    verbs_tl_t *tl = vt_tl();
    /* The periodic retry in progress posts whatever is left; give it a few rounds. */
    for (int i = 0; i < 100000 && tl->rx_free; i++)
        rmpi_verbs_progress(&tl->base);
    T_CHECK(tl->rx_post_failures > 0, "injected post failures seen: %llu",
            tl->rx_post_failures);
    T_CHECK(tl->rx_posted == tl->rx_total && tl->rx_free_n == 0,
            "every receive buffer is back in the SRQ: %d posted, %d waiting, %d in the pool",
            tl->rx_posted, tl->rx_free_n, tl->rx_total);
    if (me == 0)
        printf("srq-fault: %llu injected failures, %d of %d buffers posted at the end\n",
               tl->rx_post_failures, tl->rx_posted, tl->rx_total);
    return t_finish();
}
