/* SPDX-License-Identifier: BSD-3-Clause */
/* Intercommunicators: creation (Intercomm_create, from groups), queries, point-to-point
 * with remote ranks (ANY_SOURCE, probes, Sendrecv, persistent), merge high/low, dup,
 * split, create, compare, names and attributes. Two layouts of the world: the first half
 * against the rest, and the last rank against all others (uneven at 3 and 4 ranks). */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int wrank, wsize;

/* This process's group and the world ranks of both groups for layout l. */
static int in_a(int l, int r)
{
    return l == 0 ? r < wsize / 2 : r == wsize - 1;
}

static void world_list(int l, int a, int *w, int *n)
{
    *n = 0;
    for (int r = 0; r < wsize; r++)
        if (in_a(l, r) == a)
            w[(*n)++] = r;
}

static void check_p2p(MPI_Comm ic, int lsize, int lrank, int rsize)
{
    /* every process sends its local rank to every remote rank; ANY_SOURCE receives
     * report the remote rank as source */
    MPI_Request *rq = malloc((size_t)rsize * sizeof(*rq));
    int *seen = calloc((size_t)rsize, sizeof(int));
    CHECK(rq && seen, "out of memory");
    for (int j = 0; j < rsize; j++)
        CHECK_OK(MPI_Isend(&lrank, 1, MPI_INT, j, 5, ic, &rq[j]));
    for (int j = 0; j < rsize; j++) {
        int v = -1;
        MPI_Status st;
        if (j == 0) {
            CHECK_OK(MPI_Probe(MPI_ANY_SOURCE, 5, ic, &st));
            CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize, "probe source %d", st.MPI_SOURCE);
        }
        if (j == 1) {
            MPI_Message m;
            CHECK_OK(MPI_Mprobe(MPI_ANY_SOURCE, 5, ic, &m, &st));
            CHECK_OK(MPI_Mrecv(&v, 1, MPI_INT, &m, &st));
        } else if (j == 2) {
            MPI_Request r;
            CHECK_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, ic, &r));
            CHECK_OK(MPI_Wait(&r, &st));
        } else {
            CHECK_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, ic, &st));
        }
        CHECK(st.MPI_SOURCE == v && v >= 0 && v < rsize && !seen[v],
              "ANY_SOURCE receive: source %d, value %d (remote size %d)", st.MPI_SOURCE, v, rsize);
        CHECK(st.MPI_TAG == 5, "tag %d", st.MPI_TAG);
        seen[v] = 1;
    }
    CHECK_OK(MPI_Waitall(rsize, rq, MPI_STATUSES_IGNORE));
    /* Sendrecv and persistent requests between local rank i and remote rank i */
    int peer = lrank < rsize ? lrank : MPI_PROC_NULL, got = -1, out = 1000 + lrank;
    MPI_Status st;
    CHECK_OK(MPI_Sendrecv(&out, 1, MPI_INT, peer, 6, &got, 1, MPI_INT, peer, 6, ic, &st));
    if (peer != MPI_PROC_NULL)
        CHECK(got == 1000 + lrank && st.MPI_SOURCE == lrank, "sendrecv got %d from %d", got,
              st.MPI_SOURCE);
    else
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "sendrecv with PROC_NULL: source %d",
              st.MPI_SOURCE);
    MPI_Request p[2];
    CHECK_OK(MPI_Recv_init(&got, 1, MPI_INT, peer, 7, ic, &p[0]));
    CHECK_OK(MPI_Send_init(&out, 1, MPI_INT, peer, 7, ic, &p[1]));
    for (int it = 0; it < 2; it++) {
        got = -1;
        out = 2000 + lrank + it;
        MPI_Status sts[2];
        CHECK_OK(MPI_Startall(2, p));
        CHECK_OK(MPI_Waitall(2, p, sts));
        if (peer != MPI_PROC_NULL)
            CHECK(got == 2000 + lrank + it && sts[0].MPI_SOURCE == lrank, "persistent: %d", got);
    }
    CHECK_OK(MPI_Request_free(&p[0]));
    CHECK_OK(MPI_Request_free(&p[1]));
    /* a bad remote rank is refused */
    CHECK(MPI_Send(&out, 1, MPI_INT, rsize, 0, ic) == MPI_ERR_RANK, "rank %d accepted", rsize);
    (void)lsize;
    free(rq);
    free(seen);
}

static void check_shape(MPI_Comm ic, const int *lw, int nl, const int *rw, int nr)
{
    int flag = 0, n = -1, r = -1;
    CHECK_OK(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "not an intercomm");
    CHECK_OK(MPI_Comm_size(ic, &n));
    CHECK(n == nl, "local size %d, want %d", n, nl);
    CHECK_OK(MPI_Comm_remote_size(ic, &n));
    CHECK(n == nr, "remote size %d, want %d", n, nr);
    CHECK_OK(MPI_Comm_rank(ic, &r));
    CHECK(r >= 0 && r < nl && lw[r] == wrank, "rank %d", r);
    MPI_Group wg, g;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int idx[64], out[64];
    for (int i = 0; i < 64; i++)
        idx[i] = i;
    CHECK_OK(MPI_Comm_remote_group(ic, &g));
    CHECK_OK(MPI_Group_translate_ranks(g, nr, idx, wg, out));
    for (int i = 0; i < nr; i++)
        CHECK(out[i] == rw[i], "remote group rank %d is world %d, want %d", i, out[i], rw[i]);
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Comm_group(ic, &g));
    CHECK_OK(MPI_Group_translate_ranks(g, nl, idx, wg, out));
    for (int i = 0; i < nl; i++)
        CHECK(out[i] == lw[i], "local group rank %d is world %d, want %d", i, out[i], lw[i]);
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Group_free(&wg));
}

static void check_merge(MPI_Comm ic, int a, int nl, int nr, int high, int a_first)
{
    MPI_Comm m;
    int r, n;
    CHECK_OK(MPI_Intercomm_merge(ic, high, &m));
    CHECK_OK(MPI_Comm_size(m, &n));
    CHECK(n == nl + nr, "merged size %d", n);
    CHECK_OK(MPI_Comm_rank(m, &r));
    int lr;
    CHECK_OK(MPI_Comm_rank(ic, &lr));
    int want = (a == a_first) ? lr : nr + lr;
    CHECK(r == want, "merged rank %d, want %d (high %d)", r, want, high);
    int sum = 0, one = 1;
    CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK(sum == n, "allreduce over the merged comm: %d", sum);
    CHECK_OK(MPI_Comm_free(&m));
}

static void run_layout(int l)
{
    int a = in_a(l, wrank), lw[64], rw[64], nl, nr;
    world_list(l, a, lw, &nl);
    world_list(l, !a, rw, &nr);
    MPI_Comm local, ic;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, a, wrank, &local));
    CHECK_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rw[0], 77, &ic));
    CHECK_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    check_shape(ic, lw, nl, rw, nr);
    int lrank;
    CHECK_OK(MPI_Comm_rank(ic, &lrank));
    check_p2p(ic, nl, lrank, nr);

    /* merge: the group with high = 0 first; equal flags: either order, but one */
    check_merge(ic, a, nl, nr, a ? 0 : 1, 1);
    check_merge(ic, a, nl, nr, a ? 1 : 0, 0);
    {
        MPI_Comm m;
        int r0w = -1, r;
        CHECK_OK(MPI_Intercomm_merge(ic, 0, &m));
        CHECK_OK(MPI_Comm_rank(m, &r));
        int w = wrank, *all = malloc((size_t)wsize * sizeof(int));
        CHECK_OK(MPI_Allgather(&w, 1, MPI_INT, all, 1, MPI_INT, m));
        r0w = all[0];
        int first_a = in_a(l, r0w);
        for (int i = 0; i < wsize; i++)
            CHECK(in_a(l, all[i]) == (first_a ? i < (a ? nl : nr) : i >= (a ? nr : nl)),
                  "merge with equal flags interleaves the groups");
        free(all);
        CHECK_OK(MPI_Comm_free(&m));
    }

    /* dup: same shape, a context of its own, congruent */
    MPI_Comm d;
    int res = -1;
    CHECK_OK(MPI_Comm_dup(ic, &d));
    check_shape(d, lw, nl, rw, nr);
    CHECK_OK(MPI_Comm_compare(ic, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare(intercomm, dup) = %d", res);
    CHECK_OK(MPI_Comm_compare(ic, local, &res));
    CHECK(res == MPI_UNEQUAL, "compare(intercomm, intracomm) = %d", res);
    check_p2p(d, nl, lrank, nr);
    CHECK_OK(MPI_Comm_free(&d));
    MPI_Request q;
    CHECK_OK(MPI_Comm_idup(ic, &d, &q));
    CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    check_shape(d, lw, nl, rw, nr);
    CHECK_OK(MPI_Comm_free(&d));

    /* names and attributes */
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0, key, flag = 0, *val = NULL, v = 42;
    CHECK_OK(MPI_Comm_set_name(ic, "inter"));
    CHECK_OK(MPI_Comm_get_name(ic, name, &len));
    CHECK(len == 5 && !strcmp(name, "inter"), "name %s", name);
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    CHECK_OK(MPI_Comm_set_attr(ic, key, &v));
    CHECK_OK(MPI_Comm_dup(ic, &d));
    CHECK_OK(MPI_Comm_get_attr(d, key, &val, &flag));
    CHECK(flag && val == &v, "attribute not copied to the dup");
    CHECK_OK(MPI_Comm_free(&d));
    CHECK_OK(MPI_Comm_free_keyval(&key));

    /* split: color by world rank parity, key reverses the order */
    CHECK_OK(MPI_Comm_split(ic, wrank % 2, -wrank, &d));
    int lsame = 0, rsame = 0;
    for (int i = 0; i < nl; i++)
        lsame += lw[i] % 2 == wrank % 2;
    for (int i = 0; i < nr; i++)
        rsame += rw[i] % 2 == wrank % 2;
    if (rsame == 0) {
        CHECK(d == MPI_COMM_NULL, "split with an empty remote group is not MPI_COMM_NULL");
    } else {
        int n, r, before = 0;
        CHECK(d != MPI_COMM_NULL, "split gave MPI_COMM_NULL");
        CHECK_OK(MPI_Comm_size(d, &n));
        CHECK(n == lsame, "split local size %d, want %d", n, lsame);
        CHECK_OK(MPI_Comm_remote_size(d, &n));
        CHECK(n == rsame, "split remote size %d, want %d", n, rsame);
        for (int i = 0; i < nl; i++)
            before += lw[i] % 2 == wrank % 2 && lw[i] > wrank;
        CHECK_OK(MPI_Comm_rank(d, &r));
        CHECK(r == before, "split rank %d, want %d", r, before);
        int lr, rs;
        CHECK_OK(MPI_Comm_rank(d, &lr));
        CHECK_OK(MPI_Comm_remote_size(d, &rs));
        check_p2p(d, lsame, lr, rs);
        CHECK_OK(MPI_Comm_free(&d));
    }

    /* create: local rank 0 of each group */
    MPI_Group g, g0;
    int zero = 0;
    CHECK_OK(MPI_Comm_group(ic, &g));
    CHECK_OK(MPI_Group_incl(g, 1, &zero, &g0));
    CHECK_OK(MPI_Comm_create(ic, g0, &d));
    if (lrank == 0) {
        int n;
        CHECK(d != MPI_COMM_NULL, "create gave MPI_COMM_NULL to a member");
        CHECK_OK(MPI_Comm_remote_size(d, &n));
        CHECK(n == 1, "create: remote size %d", n);
        CHECK_OK(MPI_Comm_free(&d));
    } else {
        CHECK(d == MPI_COMM_NULL, "create gave a non-member a communicator");
    }
    CHECK_OK(MPI_Group_free(&g0));
    CHECK_OK(MPI_Group_free(&g));

    /* scan is not defined on an intercomm */
    int x = 1, y;
    CHECK(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM, "scan on an intercomm");
    CHECK(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM, "exscan");

    /* the same intercomm from groups */
    MPI_Group wg, lg, rg;
    MPI_Comm ic2;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_OK(MPI_Group_incl(wg, nl, lw, &lg));
    CHECK_OK(MPI_Group_incl(wg, nr, rw, &rg));
    CHECK_OK(MPI_Intercomm_create_from_groups(lg, 0, rg, 0, "rmp-intercomm-test", MPI_INFO_NULL,
                                              MPI_ERRORS_RETURN, &ic2));
    check_shape(ic2, lw, nl, rw, nr);
    check_p2p(ic2, nl, lrank, nr);
    CHECK_OK(MPI_Comm_free(&ic2));
    MPI_Comm c2;
    CHECK_OK(MPI_Comm_create_from_group(lg, "rmp-local", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c2));
    int n2;
    CHECK_OK(MPI_Comm_size(c2, &n2));
    CHECK(n2 == nl, "create_from_group size %d", n2);
    CHECK_OK(MPI_Barrier(c2));
    CHECK_OK(MPI_Comm_free(&c2));
    CHECK_OK(MPI_Group_free(&lg));
    CHECK_OK(MPI_Group_free(&rg));
    CHECK_OK(MPI_Group_free(&wg));

    CHECK_OK(MPI_Comm_free(&ic));
    CHECK_OK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize >= 2 && wsize <= 64, "needs 2..64 ranks");
    int flag = 1;
    CHECK_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(!flag, "MPI_COMM_WORLD is an intercomm");
    run_layout(0);
    run_layout(1);
    MPI_Finalize();
    if (wrank == 0)
        printf("intercomm: OK\n");
    return 0;
}
