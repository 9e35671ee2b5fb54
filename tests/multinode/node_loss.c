/* SPDX-License-Identifier: BSD-3-Clause */
/* A host lost under a waiting job (driven by tests/multinode/run, "linkloss"): ranks
 * 0..n-2 on the first host, rank n-1 alone on the second. Rank 0 and rank n-1 first
 * exchange a message (their tcp connection exists, then idles); then every rank prints
 * "rank R: ready" and blocks: rank 0 in a receive from rank n-1, ranks 1..n-2 in an
 * allreduce on the world (which ranks 0 and n-1 never enter), rank n-1 in a receive
 * from rank 0. The driver cuts the second host off; each rank whose call returns prints
 *   "rank R: recv|allreduce: <rmp_strerror> at <wall clock>"
 * and then waits to be killed (the job's end is the driver's business). */
#include <rmp.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); /* one clock for the ranks of both namespaces */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "rmp_init: %s\n", rmp_strerror(rc));
        return 1;
    }
    rmp_comm_t w = rmp_comm_world();
    int me = rmp_comm_rank(w), np = rmp_comm_size(w), last = np - 1;
    if (np < 3) {
        fprintf(stderr, "node_loss needs at least 3 ranks\n");
        return 1;
    }
    char c = 'x';
    if (me == 0 || me == last) {
        int other = me == 0 ? last : 0;
        if ((rc = rmp_send(&c, 1, other, 1, w)) != RMP_SUCCESS ||
            (rc = rmp_recv(&c, 1, other, 1, w, NULL)) != RMP_SUCCESS) {
            fprintf(stderr, "rank %d: exchange: %s\n", me, rmp_strerror(rc));
            return 1;
        }
    }
    printf("rank %d: ready\n", me);
    fflush(stdout);
    const char *call = "recv";
    if (me == 0 || me == last) {
        rc = rmp_recv(&c, 1, me == 0 ? last : 0, 9, w, NULL);
    } else {
        double v = me, sum;
        call = "allreduce";
        rc = rmp_allreduce(&v, &sum, 1, RMP_DOUBLE, RMP_SUM, w);
    }
    printf("rank %d: %s: %s at %.3f\n", me, call, rmp_strerror(rc), wall());
    fflush(stdout);
    for (;;)
        pause();
}
