/* SPDX-License-Identifier: BSD-3-Clause */
/* A ULFM program that uses only the MPIX_ names of mpi-ext.h (as Open MPI 5 spells
 * them), run by ulfm.sh under rrun --enable-recovery:
 *   mpi_abi_ulfm iter STEPS K VICTIM  an MPI_Allreduce per step over a checkpointed sum;
 *                  VICTIM SIGKILLs itself at step K; the survivors see
 *                  MPIX_ERR_PROC_FAILED (or MPIX_ERR_REVOKED), revoke, shrink, agree,
 *                  restore and finish; each asserts the sum.
 *   mpi_abi_ulfm revoke  rank 0 revokes MPI_COMM_WORLD while the others are blocked in
 *                  MPI_Recv from a live rank: MPIX_ERR_REVOKED.
 *   mpi_abi_ulfm nbc  the last rank SIGKILLs itself; once the others know (a barrier
 *                  failed), MPI_Ibarrier and MPI_Iallreduce still start and return a
 *                  request, whose MPI_Wait reports MPIX_ERR_PROC_FAILED (ULFM raises
 *                  a nonblocking operation's failure at completion).
 *   mpi_abi_ulfm anysrc  the last rank SIGKILLs itself; until rank 0 acknowledges it
 *                  (MPIX_Comm_failure_ack), a blocking MPI_Recv from MPI_ANY_SOURCE
 *                  (contiguous and strided) fails with MPIX_ERR_PROC_FAILED, and the Test
 *                  and Wait of an MPI_Irecv from MPI_ANY_SOURCE return
 *                  MPIX_ERR_PROC_FAILED_PENDING with the request kept; a receive naming
 *                  a live rank works; the request can still match, and after the
 *                  acknowledgement its Wait succeeds and new MPI_ANY_SOURCE receives
 *                  work.
 * Each survivor prints "ulfm: rank R ok ...". */
#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "ulfm: rank %d: FAILED line %d: ", me, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static int eclass(int err)
{
    int c = -1;
    MPI_Error_class(err, &c);
    return c;
}

static int run_iter(int steps, int k, int victim)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int n;
    MPI_Comm_size(comm, &n);
    long state = 0, ckpt;
    int recoveries = 0;
    for (int step = 0; step < steps;) {
        ckpt = state;
        if (step == k) { /* the victim dies once nobody needs its part of step k-1 */
            int x = 0;
            if (me != victim) {
                CHECK(MPI_Send(&x, 1, MPI_INT, victim, 99, comm) == MPI_SUCCESS, "send");
            } else {
                for (int i = 0; i < n - 1; i++)
                    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, comm, MPI_STATUS_IGNORE);
                fflush(stdout);
                raise(SIGKILL);
            }
        }
        long v = (long)step * (me + 1), sum = 0;
        int err = MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, comm);
        if (err == MPI_SUCCESS) {
            state += sum;
            step++;
            continue;
        }
        int c = eclass(err);
        CHECK(c == MPIX_ERR_PROC_FAILED || c == MPIX_ERR_REVOKED, "allreduce: class %d", c);
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        CHECK(MPI_Error_string(err, s, &len) == MPI_SUCCESS && strstr(s, "MPIX_ERR_"),
              "Error_string: %s", s);
        CHECK(step == k, "failure at step %d, not %d", step, k);
        CHECK(MPIX_Comm_revoke(comm) == MPI_SUCCESS, "revoke");
        int flag = 0;
        CHECK(MPIX_Comm_is_revoked(comm, &flag) == MPI_SUCCESS && flag, "is_revoked");
        MPI_Comm shrunk;
        err = MPIX_Comm_shrink(comm, &shrunk);
        CHECK(err == MPI_SUCCESS, "shrink: class %d", eclass(err));
        int ns;
        MPI_Comm_size(shrunk, &ns);
        CHECK(ns == n - 1, "shrunk to %d of %d", ns, n);
        MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
        /* the failed group, acknowledged on the old communicator */
        CHECK(MPIX_Comm_failure_ack(comm) == MPI_SUCCESS, "failure_ack");
        MPI_Group fg, wg;
        CHECK(MPIX_Comm_failure_get_acked(comm, &fg) == MPI_SUCCESS, "get_acked");
        int nf = 0, vr = -1, zero = 0;
        MPI_Group_size(fg, &nf);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_translate_ranks(fg, 1, &zero, wg, &vr);
        CHECK(nf == 1 && vr == victim, "acked group: %d ranks, first %d", nf, vr);
        MPI_Group_free(&fg);
        MPI_Group_free(&wg);
        flag = step == k;
        err = MPIX_Comm_agree(shrunk, &flag);
        CHECK(err == MPI_SUCCESS && flag == 1, "agree: class %d flag %d", eclass(err), flag);
        if (comm != MPI_COMM_WORLD)
            MPI_Comm_free(&comm);
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
    CHECK(state == want && recoveries == 1, "result %ld (want %ld), %d recoveries", state,
          want, recoveries);
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS, "final barrier");
    printf("ulfm: rank %d ok result=%ld\n", me, state);
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free(&comm);
    return 0;
}

static int run_revoke(void)
{
    int n, x = 0, err;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (me == 0) {
        usleep(300000);
        CHECK(MPIX_Comm_revoke(MPI_COMM_WORLD) == MPI_SUCCESS, "revoke");
    } else {
        err = MPI_Recv(&x, 1, MPI_INT, (me + 1) % n, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(eclass(err) == MPIX_ERR_REVOKED, "recv: class %d", eclass(err));
    }
    err = MPI_Send(&x, 1, MPI_INT, (me + 1) % n, 7, MPI_COMM_WORLD);
    CHECK(eclass(err) == MPIX_ERR_REVOKED, "send after revoke: class %d", eclass(err));
    MPI_Comm shrunk;
    CHECK(MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk) == MPI_SUCCESS, "shrink");
    int flag = me + 1 == n ? 1 : 3;
    err = MPIX_Comm_agree(shrunk, &flag);
    CHECK(err == MPI_SUCCESS && flag == 1, "agree: class %d flag %d", eclass(err), flag);
    CHECK(MPI_Barrier(shrunk) == MPI_SUCCESS, "barrier");
    MPI_Comm_free(&shrunk);
    printf("ulfm: rank %d ok revoked\n", me);
    return 0;
}

static int run_nbc(void)
{
    int n, err, x = 1, y = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (me == n - 1)
        raise(SIGKILL);
    err = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(eclass(err) == MPIX_ERR_PROC_FAILED, "barrier: class %d", eclass(err));
    for (int i = 0; i < 2; i++) {
        MPI_Request req = MPI_REQUEST_NULL;
        MPI_Status st;
        err = i == 0 ? MPI_Ibarrier(MPI_COMM_WORLD, &req)
                     : MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
        CHECK(err == MPI_SUCCESS && req != MPI_REQUEST_NULL, "start %d: class %d", i,
              eclass(err));
        err = MPI_Wait(&req, &st);
        CHECK(eclass(err) == MPIX_ERR_PROC_FAILED && req == MPI_REQUEST_NULL,
              "wait %d: class %d", i, eclass(err));
    }
    printf("ulfm: rank %d ok nbc\n", me);
    return 0;
}

static int run_anysrc(void)
{
    int n, err, v = 0, go = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (me == n - 1)
        raise(SIGKILL);
    if (me != 0) { /* live senders: once rank 0 says so, twice */
        CHECK(MPI_Recv(&go, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS, "recv go");
        v = me;
        CHECK(MPI_Send(&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD) == MPI_SUCCESS, "send named");
        for (int i = 0; i < 2; i++) {
            v = 100 * i + me;
            CHECK(MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD) == MPI_SUCCESS, "send %d", i);
        }
        printf("ulfm: rank %d ok anysrc\n", me);
        return 0;
    }
    err = MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(eclass(err) == MPIX_ERR_PROC_FAILED, "blocking any-source recv: class %d",
          eclass(err));
    MPI_Datatype vec; /* a strided receive takes the layout path */
    MPI_Type_vector(1, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int two[2] = {0, 0};
    err = MPI_Recv(two, 1, vec, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(eclass(err) == MPIX_ERR_PROC_FAILED, "strided any-source recv: class %d",
          eclass(err));
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    err = MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &req);
    CHECK((err == MPI_SUCCESS || eclass(err) == MPIX_ERR_PROC_FAILED_PENDING) &&
              req != MPI_REQUEST_NULL, "irecv: class %d", eclass(err));
    int flag = 1;
    err = MPI_Test(&req, &flag, &st);
    CHECK(eclass(err) == MPIX_ERR_PROC_FAILED_PENDING && !flag && req != MPI_REQUEST_NULL,
          "test: class %d flag %d", eclass(err), flag);
    err = MPI_Wait(&req, &st);
    CHECK(eclass(err) == MPIX_ERR_PROC_FAILED_PENDING && req != MPI_REQUEST_NULL,
          "wait: class %d", eclass(err));
    for (int r = 1; r < n - 1; r++) /* a named live source is not held up */
        CHECK(MPI_Send(&go, 1, MPI_INT, r, 8, MPI_COMM_WORLD) == MPI_SUCCESS, "send go");
    int w = -1;
    CHECK(MPI_Recv(&w, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &st) == MPI_SUCCESS && w == 1,
          "named recv: %d", w);
    CHECK(MPIX_Comm_failure_ack(MPI_COMM_WORLD) == MPI_SUCCESS, "failure_ack");
    /* the pending request matches (or has matched, while pending) rank 1's first */
    err = MPI_Wait(&req, &st);
    CHECK(err == MPI_SUCCESS && req == MPI_REQUEST_NULL && st.MPI_SOURCE != n - 1 &&
              v % 100 == st.MPI_SOURCE, "wait after ack: class %d source %d value %d",
          eclass(err), st.MPI_SOURCE, v);
    int left = 2 * (n - 2) - 1; /* what the live senders still send */
    for (int i = 0; i < left; i++) {
        err = MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
        CHECK(err == MPI_SUCCESS, "any-source recv after ack: class %d", eclass(err));
    }
    MPI_Type_free(&vec);
    printf("ulfm: rank %d ok anysrc\n", me);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = 2;
    if (argc == 5 && strcmp(argv[1], "iter") == 0)
        rc = run_iter(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    else if (argc == 2 && strcmp(argv[1], "revoke") == 0)
        rc = run_revoke();
    else if (argc == 2 && strcmp(argv[1], "nbc") == 0)
        rc = run_nbc();
    else if (argc == 2 && strcmp(argv[1], "anysrc") == 0)
        rc = run_anysrc();
    else
        fprintf(stderr, "usage: mpi_abi_ulfm iter STEPS K VICTIM | revoke | nbc | anysrc\n");
    MPI_Finalize();
    return rc;
}
