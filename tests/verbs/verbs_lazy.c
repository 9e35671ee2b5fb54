/* SPDX-License-Identifier: BSD-3-Clause */
/* Lazy connections: no queue pair exists after rmp_init; the first message
 * to a peer creates one; both sides of every pair send their first message at
 * the same moment (simultaneous connects, resolved to one connection). First
 * messages are eager to the pair partner, then rendezvous to everyone. */
#include <stdlib.h>

#include "bootstrap.h"
#include "vt.h"

#define BIG 100000

int main(int argc, char **argv)
{
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    vt_require_verbs();
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w), np = rmp_comm_size(w);
    for (int p = 0; p < np; p++)
        if (p != me)
            T_CHECK(vt_state(p) == VEP_IDLE, "rank %d connected at init (state %d)", p,
                    vt_state(p));
    /* 1: pairs (0,1), (2,3), ... exchange first messages simultaneously. */
    int partner = me ^ 1;
    if (partner < np) {
        int out = me * 1000 + 7, in = -1;
        rmp_request_t r[2];
        T_RC(rmp_irecv(&in, sizeof(in), partner, 1, w, &r[0]));
        T_RC(rmp_isend(&out, sizeof(out), partner, 1, w, &r[1]));
        T_RC(rmp_waitall(2, r, NULL));
        T_CHECK(in == partner * 1000 + 7, "pair message %d", in);
        T_CHECK(vt_state(partner) == VEP_CONNECTED, "partner state %d", vt_state(partner));
        for (int p = 0; p < np; p++)
            if (p != me && p != partner)
                T_CHECK(vt_state(p) == VEP_IDLE, "rank %d connected without traffic", p);
    }
    /* Out-of-band barrier (PMIx fence): no verbs traffic may connect anyone else
       before every rank has checked its pair. */
    rmpi_boot_fence();
    /* 2: everyone to everyone at once, rendezvous-sized: the first use of a
       fresh peer is an RTS, a CTS and an RDMA write. */
    unsigned char *sb = malloc(BIG), *rb = malloc((size_t)np * BIG);
    rmp_request_t *rq = malloc(2 * (size_t)np * sizeof(*rq));
    int n = 0;
    vt_fill(sb, BIG, me);
    for (int p = 0; p < np; p++)
        if (p != me)
            T_RC(rmp_irecv(rb + (size_t)p * BIG, BIG, p, 2, w, &rq[n++]));
    for (int k = 1; k < np; k++)
        T_RC(rmp_isend(sb, BIG, (me + k) % np, 2, w, &rq[n++]));
    T_RC(rmp_waitall((size_t)n, rq, NULL));
    for (int p = 0; p < np; p++)
        if (p != me) {
            T_CHECK(vt_check(rb + (size_t)p * BIG, BIG, p) < 0, "all-to-all data from %d", p);
            T_CHECK(vt_state(p) == VEP_CONNECTED, "rank %d state %d", p, vt_state(p));
        }
    free(sb);
    free(rb);
    free(rq);
    return t_finish();
}
