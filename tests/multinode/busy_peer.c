/* SPDX-License-Identifier: BSD-3-Clause */
/* A healthy rank that stays out of rmp (computing, descheduled) for longer than
 * RMP_FAILURE_TIMEOUT is never declared failed: the liveness probes are answered by its
 * kernel (tcp keepalive) or its HCA (RC ACKs), not by its process (docs/reliability.md).
 * 2 ranks, run with RMP_FAILURE_TIMEOUT=2 over tcp: rank 0 waits in a receive from
 * rank 1, which first sleeps 3 x the timeout without calling rmp, then sends; rank 0
 * must get the message, and a second exchange and the finalize must succeed. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/t.h"

int main(int argc, char **argv)
{
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w);
    const char *e = getenv("RMP_FAILURE_TIMEOUT");
    double t = e ? atof(e) : 10;
    int v = 0;
    if (rmp_comm_size(w) != 2 || t <= 0) {
        fprintf(stderr, "busy_peer: 2 ranks and RMP_FAILURE_TIMEOUT > 0\n");
        return 1;
    }
    T_RC(rmp_barrier(w)); /* connected: an idle connection the probes watch */
    if (me == 1) {
        struct timespec ts = {(time_t)(3 * t), 0};
        nanosleep(&ts, NULL); /* out of rmp for 3 x the timeout */
        v = 42;
        T_RC(rmp_send(&v, sizeof(v), 0, 5, w));
        T_RC(rmp_recv(&v, sizeof(v), 0, 6, w, NULL));
        T_CHECK(v == 43, "reply %d, want 43", v);
    } else {
        T_RC(rmp_recv(&v, sizeof(v), 1, 5, w, NULL));
        T_CHECK(v == 42, "got %d, want 42", v);
        v = 43;
        T_RC(rmp_send(&v, sizeof(v), 1, 6, w));
    }
    return t_finish(); /* finalizes */
}
