/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Comm_idup does not block: overlapping idups issued in different orders on
 * different ranks, an idup on one rank against a blocking creation on another, a rank
 * that receives before it calls idup while the others already did, idups of an
 * intercomm, waited for out of order. Each new communicator is used. */
#include <stdlib.h>

#include "check.h"

static int wrank, wsize;

static void check_comm(MPI_Comm c, int want_size)
{
    int n, one = 1, sum = 0;
    CHECK_OK(MPI_Comm_size(c, &n));
    CHECK(n == want_size, "size %d, want %d", n, want_size);
    CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == n, "allreduce over the duplicate: %d", sum);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize >= 2, "needs 2 ranks");

    /* two parents, idup'ed in opposite orders by even and odd ranks */
    MPI_Comm a, b, da, db;
    MPI_Request q[2];
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    if (wrank % 2) {
        CHECK_OK(MPI_Comm_idup(a, &da, &q[0]));
        CHECK_OK(MPI_Comm_idup(b, &db, &q[1]));
    } else {
        CHECK_OK(MPI_Comm_idup(b, &db, &q[1]));
        CHECK_OK(MPI_Comm_idup(a, &da, &q[0]));
    }
    CHECK_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    check_comm(da, wsize);
    check_comm(db, wsize);
    CHECK_OK(MPI_Comm_free(&da));
    CHECK_OK(MPI_Comm_free(&db));

    /* pairs {r, r+1}: each rank idups its two pair communicators, its own first */
    MPI_Comm mine = MPI_COMM_NULL, prev = MPI_COMM_NULL, tmp, dm, dp;
    for (int i = 0; i < wsize; i++) {
        int in = wrank == i || wrank == (i + 1) % wsize;
        CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : 1, 0, &tmp));
        if (wrank == i)
            mine = tmp;
        else if (wrank == (i + 1) % wsize)
            prev = tmp;
        else
            CHECK_OK(MPI_Comm_free(&tmp));
    }
    CHECK_OK(MPI_Comm_idup(mine, &dm, &q[0]));
    CHECK_OK(MPI_Comm_idup(prev, &dp, &q[1]));
    CHECK_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    /* used at once: blocking calls in this order would wait in a cycle */
    int one = 1, s1 = 0, s2 = 0;
    CHECK_OK(MPI_Iallreduce(&one, &s1, 1, MPI_INT, MPI_SUM, dm, &q[0]));
    CHECK_OK(MPI_Iallreduce(&one, &s2, 1, MPI_INT, MPI_SUM, dp, &q[1]));
    CHECK_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    CHECK(s1 == 2 && s2 == 2, "allreduce over the pair duplicates: %d %d", s1, s2);
    CHECK_OK(MPI_Comm_free(&dm));
    CHECK_OK(MPI_Comm_free(&dp));
    CHECK_OK(MPI_Comm_free(&mine));
    CHECK_OK(MPI_Comm_free(&prev));

    /* rank 0 creates a group communicator before its idup, the others after */
    MPI_Group wg;
    MPI_Comm gc, dw;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    if (wrank == 0) {
        CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, wg, 9, &gc));
        CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dw, &q[0]));
    } else {
        CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dw, &q[0]));
        CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, wg, 9, &gc));
    }
    CHECK_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    check_comm(dw, wsize);
    check_comm(gc, wsize);
    CHECK_OK(MPI_Comm_free(&dw));
    CHECK_OK(MPI_Comm_free(&gc));
    CHECK_OK(MPI_Group_free(&wg));

    /* rank 0 receives from every other rank before its idup; they idup first */
    int v = wrank;
    if (wrank == 0) {
        for (int r = 1; r < wsize; r++)
            CHECK_OK(MPI_Recv(&v, 1, MPI_INT, r, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dw, &q[0]));
    } else {
        CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dw, &q[0]));
        CHECK_OK(MPI_Ssend(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    check_comm(dw, wsize);

    /* an intercomm's idup, and a request freed before it completes */
    MPI_Comm local, ic, dic, d2;
    int a_side = wrank < wsize / 2 + (wsize == 3);
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, a_side, wrank, &local));
    CHECK_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, a_side ? wsize / 2 + (wsize == 3) : 0,
                                  5, &ic));
    CHECK_OK(MPI_Comm_idup(ic, &dic, &q[0]));
    CHECK_OK(MPI_Comm_idup(dw, &d2, &q[1]));
    CHECK_OK(MPI_Wait(&q[1], MPI_STATUS_IGNORE)); /* the later idup first */
    CHECK_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    int flag = 0, rs = 0, lr = 0, got = -1;
    CHECK_OK(MPI_Comm_test_inter(dic, &flag));
    CHECK(flag, "idup of an intercomm is not one");
    CHECK_OK(MPI_Comm_remote_size(dic, &rs));
    CHECK_OK(MPI_Comm_rank(dic, &lr));
    int peer = lr < rs ? lr : MPI_PROC_NULL;
    CHECK_OK(MPI_Sendrecv(&lr, 1, MPI_INT, peer, 1, &got, 1, MPI_INT, peer, 1, dic,
                          MPI_STATUS_IGNORE));
    CHECK(peer == MPI_PROC_NULL || got == lr, "sendrecv over the intercomm's idup: %d", got);
    CHECK_OK(MPI_Barrier(dic));
    check_comm(d2, wsize);
    CHECK_OK(MPI_Comm_free(&d2));
    CHECK_OK(MPI_Comm_free(&dic));
    CHECK_OK(MPI_Comm_free(&ic));
    CHECK_OK(MPI_Comm_free(&local));
    CHECK_OK(MPI_Comm_free(&dw));
    CHECK_OK(MPI_Comm_free(&a));
    CHECK_OK(MPI_Comm_free(&b));
    MPI_Finalize();
    if (wrank == 0)
        printf("intercomm_idup: OK\n");
    return 0;
}
