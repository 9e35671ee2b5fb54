/* SPDX-License-Identifier: BSD-3-Clause */
/* A whole node lost (run by tests/verbs/cluster-suite.sh in the two-guest cluster, with
 * the ranks split over rmpn1 and rmpn2): every rank runs allreduces in a loop; after
 * 30 of them rank 0 prints RMP_CLUSTER_KILL_NODE2, on which the host kills rmpn2's QEMU.
 * The ranks left on rmpn1 must learn of it: each prints
 *   "nodeloss: rank R: <error> after S s"
 * (S: seconds since the kill request) for the first failing call and exits 1; the
 * launcher may end them first (its own notice of the lost daemon), which the suite tells
 * apart by the missing line. A rank that sees nothing for 60 s says so (a hang). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../common/t.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); /* one clock for every rank of rmpn1 */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 1;
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w);
    double v[64], out[64], t_kill = 0;
    for (int i = 0; i < 64; i++)
        v[i] = me + i;
    for (long it = 0;; it++) {
        if (it == 30 && me == 0) {
            t_kill = now();
            printf("RMP_CLUSTER_KILL_NODE2 at %.6f\n", t_kill);
            fflush(stdout);
        }
        if (it == 30)
            t_kill = now(); /* every rank: the kill follows within a few ms */
        int rc = rmp_allreduce(v, out, 64, RMP_DOUBLE, RMP_SUM, w);
        if (rc != RMP_SUCCESS) {
            printf("nodeloss: rank %d: %s after %.2f s\n", me, rmp_strerror(rc),
                   t_kill > 0 ? now() - t_kill : -1.0);
            fflush(stdout);
            return 1;
        }
        if (t_kill > 0 && now() - t_kill > 60) {
            printf("nodeloss: rank %d: no error 60 s after the node was lost\n", me);
            fflush(stdout);
            return 2;
        }
    }
}
