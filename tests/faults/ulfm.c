/* SPDX-License-Identifier: BSD-3-Clause */
/* Surviving a failure with the native API (docs/reliability.md), run by ulfm_test.sh
 * under rrun --enable-recovery:
 *   ulfm iter STEPS K VICTIM   an allreduce per step over a checkpointed sum; VICTIM
 *                              SIGKILLs itself at step K; the survivors revoke, shrink,
 *                              agree, restore the checkpoint and finish; each asserts the
 *                              sum (VICTIM's part up to K-1, the survivors' to the end).
 *   ulfm revoke                rank 0 revokes the world while the others are blocked in a
 *                              receive from a live rank: they return RMP_ERR_REVOKED,
 *                              later calls too; shrink and agree still work.
 *   ulfm agree VICTIM          VICTIM dies; the survivors' agreement is the AND of their
 *                              flags, RMP_ERR_PEER_FAILED on each until they acknowledge.
 * Each survivor prints "ulfm: rank R ok ..." (the script counts them). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rmp.h"

static int me;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "ulfm: rank %d: FAILED %s:%d: ", me, __FILE__, __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static int is_fault(int rc)
{
    return rc == RMP_ERR_PEER_FAILED || rc == RMP_ERR_REVOKED;
}

/* The victim dies once every other rank has finished what came before (it sent each a
 * word after it): a rank still waiting for the victim's part of the last collective
 * could otherwise learn of the death before reading that part. */
static void die_when_unneeded(int victim, rmp_comm_t comm)
{
    int n = rmp_comm_size(comm), x = 0;
    if (me != victim) {
        CHECK(rmp_send(&x, sizeof(x), victim, 99, comm) == RMP_SUCCESS, "send to the victim");
        return;
    }
    for (int i = 0; i < n - 1; i++)
        CHECK(rmp_recv(&x, sizeof(x), RMP_ANY_SOURCE, 99, comm, NULL) == RMP_SUCCESS, "recv");
    fflush(stdout);
    raise(SIGKILL);
}

static int run_iter(int steps, int k, int victim)
{
    rmp_comm_t world = rmp_comm_world(), comm = world;
    int n = rmp_comm_size(world);
    long state = 0, ckpt = 0;
    int recoveries = 0;
    for (int step = 0; step < steps;) {
        ckpt = state; /* the checkpoint of the step's start, in memory */
        if (step == k)
            die_when_unneeded(victim, comm);
        long v = (long)step * (me + 1), sum = 0;
        int rc = rmp_allreduce(&v, &sum, 1, RMP_INT64, RMP_SUM, comm);
        if (rc == RMP_SUCCESS) {
            state += sum;
            step++;
            continue;
        }
        CHECK(is_fault(rc), "allreduce at step %d: %s", step, rmp_strerror(rc));
        CHECK(step == k, "a failure at step %d, the victim dies at %d", step, k);
        CHECK(rmp_comm_revoke(comm) == RMP_SUCCESS, "revoke");
        int flag = 0;
        CHECK(rmp_comm_is_revoked(comm, &flag) == RMP_SUCCESS && flag, "is_revoked");
        rc = rmp_barrier(comm);
        CHECK(rc == RMP_ERR_REVOKED, "barrier on a revoked comm: %s", rmp_strerror(rc));
        rmp_comm_t shrunk;
        rc = rmp_comm_shrink(comm, &shrunk);
        CHECK(rc == RMP_SUCCESS, "shrink: %s", rmp_strerror(rc));
        CHECK(rmp_comm_size(shrunk) == n - 1, "shrunk to %d of %d", rmp_comm_size(shrunk), n);
        int wr = rmp_comm_world_rank(shrunk, rmp_comm_rank(shrunk));
        CHECK(wr == me, "old order: my shrunk rank maps to world %d", wr);
        /* Every survivor restores the same checkpoint: agree that each has step k's. */
        flag = step == k;
        rc = rmp_comm_agree(shrunk, &flag);
        CHECK(rc == RMP_SUCCESS && flag == 1, "agree: %s, flag %d", rmp_strerror(rc), flag);
        if (comm != world)
            rmp_comm_free(&comm);
        comm = shrunk;
        state = ckpt;
        recoveries++;
    }
    long want = 0, all = 0, surv = 0;
    for (int r = 0; r < n; r++) {
        all += r + 1;
        surv += r == victim ? 0 : r + 1;
    }
    for (int s = 0; s < steps; s++)
        want += (long)s * (s < k ? all : surv);
    CHECK(state == want, "result %ld, expected %ld", state, want);
    CHECK(recoveries == 1, "%d recoveries", recoveries);
    CHECK(rmp_barrier(comm) == RMP_SUCCESS, "final barrier");
    printf("ulfm: rank %d ok result=%ld\n", me, state);
    if (comm != world)
        rmp_comm_free(&comm);
    return 0;
}

static int run_revoke(void)
{
    rmp_comm_t world = rmp_comm_world();
    int n = rmp_comm_size(world);
    int x = 0, rc;
    if (me == 0) {
        usleep(300000); /* the others are blocked by now */
        CHECK(rmp_comm_revoke(world) == RMP_SUCCESS, "revoke");
    } else {
        /* From a live rank that never sends. */
        double t0 = rmp_wtime();
        rc = rmp_recv(&x, sizeof(x), (me + 1) % n, 7, world, NULL);
        CHECK(rc == RMP_ERR_REVOKED, "recv: %s", rmp_strerror(rc));
        CHECK(rmp_wtime() - t0 < 10, "the revoke took %.1f s", rmp_wtime() - t0);
    }
    rc = rmp_send(&x, sizeof(x), (me + 1) % n, 7, world);
    CHECK(rc == RMP_ERR_REVOKED, "send after the revoke: %s", rmp_strerror(rc));
    rc = rmp_allreduce(&x, &x, 1, RMP_INT32, RMP_SUM, world);
    CHECK(rc == RMP_ERR_REVOKED, "allreduce after the revoke: %s", rmp_strerror(rc));
    int flag = 0;
    CHECK(rmp_comm_is_revoked(world, &flag) == RMP_SUCCESS && flag == 1, "is_revoked");
    CHECK(rmp_comm_rank(world) == me, "rank of a revoked comm");
    rmp_comm_t shrunk;
    rc = rmp_comm_shrink(world, &shrunk);
    CHECK(rc == RMP_SUCCESS && rmp_comm_size(shrunk) == n, "shrink: %s", rmp_strerror(rc));
    CHECK(rmp_comm_is_revoked(shrunk, &flag) == RMP_SUCCESS && flag == 0, "new comm revoked");
    int v = me + 1, sum = 0;
    rc = rmp_allreduce(&v, &sum, 1, RMP_INT32, RMP_SUM, shrunk);
    CHECK(rc == RMP_SUCCESS && sum == n * (n + 1) / 2, "allreduce on the shrunk comm");
    flag = me == 0 ? 6 : 7;
    rc = rmp_comm_agree(shrunk, &flag);
    CHECK(rc == RMP_SUCCESS && flag == 6, "agree: %s, flag %d", rmp_strerror(rc), flag);
    CHECK(rmp_barrier(shrunk) == RMP_SUCCESS, "final barrier");
    rmp_comm_free(&shrunk);
    printf("ulfm: rank %d ok revoked\n", me);
    return 0;
}

static int run_agree(int victim)
{
    rmp_comm_t world = rmp_comm_world();
    int n = rmp_comm_size(world);
    CHECK(rmp_barrier(world) == RMP_SUCCESS, "barrier");
    die_when_unneeded(victim, world);
    /* Bit r clear in rank r's flag: the AND has the survivors' bits clear, the dead
     * rank's set (it gave nothing). */
    int flag = ~(1 << me), want = ~0;
    for (int r = 0; r < n; r++)
        if (r != victim)
            want &= ~(1 << r);
    int rc = rmp_comm_agree(world, &flag);
    CHECK(rc == RMP_ERR_PEER_FAILED, "first agree: %s", rmp_strerror(rc));
    CHECK(flag == want, "first agree: flag %#x, expected %#x", (unsigned)flag, (unsigned)want);
    CHECK(rmp_comm_failure_ack(world) == RMP_SUCCESS, "ack");
    int acked[8], na = -1;
    rc = rmp_comm_failure_get_acked(world, acked, 8, &na);
    CHECK(rc == RMP_SUCCESS && na == 1 && acked[0] == victim, "get_acked: %d ranks", na);
    flag = me == 0 ? 1 : 3;
    rc = rmp_comm_agree(world, &flag);
    CHECK(rc == RMP_SUCCESS && flag == (victim == 0 ? 3 : 1), "second agree: %s, flag %d",
          rmp_strerror(rc), flag);
    printf("ulfm: rank %d ok agree=%#x\n", me, (unsigned)want);
    return 0;
}

int main(int argc, char **argv)
{
    if (rmp_init(&argc, &argv) != RMP_SUCCESS)
        return 2;
    me = rmp_comm_rank(rmp_comm_world());
    int rc = 2;
    if (argc == 5 && strcmp(argv[1], "iter") == 0)
        rc = run_iter(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    else if (argc == 2 && strcmp(argv[1], "revoke") == 0)
        rc = run_revoke();
    else if (argc == 3 && strcmp(argv[1], "agree") == 0)
        rc = run_agree(atoi(argv[2]));
    else
        fprintf(stderr, "usage: ulfm iter STEPS K VICTIM | revoke | agree VICTIM\n");
    rmp_finalize();
    return rc;
}
