/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicators and groups: split (order by key), split_type SHARED, create
 * from a group, compare, names, and the group operations. */
#include <string.h>

#include "check.h"

static void check_group(MPI_Group g, int n, const int *world, const char *what)
{
    int size;
    CHECK_OK(MPI_Group_size(g, &size));
    CHECK(size == n, "%s: size %d, expected %d", what, size, n);
    MPI_Group wg;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int idx[64], out[64];
    for (int i = 0; i < n; i++)
        idx[i] = i;
    CHECK_OK(MPI_Group_translate_ranks(g, n, idx, wg, out));
    for (int i = 0; i < n; i++)
        CHECK(out[i] == world[i], "%s: member %d is world %d, expected %d", what, i, out[i],
              world[i]);
    CHECK_OK(MPI_Group_free(&wg));
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    int rank, size, r, s, res;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size <= 64, "at most 64 ranks");

    /* split: by parity, ordered by descending world rank */
    MPI_Comm half;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    CHECK_OK(MPI_Comm_rank(half, &r));
    CHECK_OK(MPI_Comm_size(half, &s));
    int expect_size = (size - rank % 2 + 1) / 2;
    CHECK(s == expect_size, "split size %d, expected %d", s, expect_size);
    int above = 0; /* members of my parity with a larger world rank come first */
    for (int q = rank + 2; q < size; q += 2)
        above++;
    CHECK(r == above, "split rank %d, expected %d", r, above);
    CHECK_OK(MPI_Comm_compare(half, MPI_COMM_WORLD, &res));
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare half/world %d", res);

    /* MPI_UNDEFINED color gives MPI_COMM_NULL */
    MPI_Comm none;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none));
    CHECK((rank == 0) == (none == MPI_COMM_NULL), "UNDEFINED color");
    if (none != MPI_COMM_NULL)
        CHECK_OK(MPI_Comm_free(&none));

    /* split_type SHARED: every rank of this test runs on one host */
    MPI_Comm node;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    CHECK_OK(MPI_Comm_size(node, &s));
    CHECK_OK(MPI_Comm_rank(node, &r));
    CHECK(s == size && r == rank, "split_type SHARED: rank %d of %d", r, s);
    CHECK_OK(MPI_Comm_compare(node, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_CONGRUENT, "node comm vs world: %d", res);
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none));
    CHECK(none == MPI_COMM_NULL, "split_type UNDEFINED");
    CHECK_OK(MPI_Comm_free(&node));

    /* compare: ident, congruent (dup), similar (reversed) */
    MPI_Comm dup, rev;
    CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_IDENT, "world vs world");
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Comm_compare(dup, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_CONGRUENT, "dup vs world %d", res);
    /* idup: a usable duplicate once its request completes */
    MPI_Comm idup;
    MPI_Request ireq;
    CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &idup, &ireq));
    CHECK_OK(MPI_Wait(&ireq, MPI_STATUS_IGNORE));
    CHECK(ireq == MPI_REQUEST_NULL, "Comm_idup request freed by Wait");
    CHECK_OK(MPI_Comm_compare(idup, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_CONGRUENT, "idup vs world %d", res);
    int sum = 0;
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, idup));
    CHECK(sum == size * (size - 1) / 2, "allreduce on the idup'd communicator: %d", sum);
    CHECK_OK(MPI_Comm_free(&idup));
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    CHECK_OK(MPI_Comm_compare(rev, MPI_COMM_WORLD, &res));
    CHECK(res == (size > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "reversed vs world %d", res);

    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name '%s'", name);
    CHECK_OK(MPI_Comm_set_name(dup, "my dup"));
    CHECK_OK(MPI_Comm_get_name(dup, name, &len));
    CHECK(strcmp(name, "my dup") == 0 && len == 6, "dup name '%s'", name);

    /* groups: world = 0..size-1 */
    MPI_Group wg, g1, g2, g3;
    int all[64], evens[64], odds[64], ne = 0, no = 0;
    for (int i = 0; i < size; i++) {
        all[i] = i;
        if (i % 2)
            odds[no++] = i;
        else
            evens[ne++] = i;
    }
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    check_group(wg, size, all, "world group");
    CHECK_OK(MPI_Group_rank(wg, &r));
    CHECK(r == rank, "group rank %d", r);
    CHECK_OK(MPI_Group_incl(wg, ne, evens, &g1));
    check_group(g1, ne, evens, "incl evens");
    CHECK_OK(MPI_Group_rank(g1, &r));
    CHECK(r == (rank % 2 ? MPI_UNDEFINED : rank / 2), "rank in evens %d", r);
    CHECK_OK(MPI_Group_excl(wg, ne, evens, &g2));
    check_group(g2, no, odds, "excl evens");
    int range[1][3] = {{0, size - 1, 2}};
    CHECK_OK(MPI_Group_range_incl(wg, 1, range, &g3));
    CHECK_OK(MPI_Group_compare(g1, g3, &res));
    CHECK(res == MPI_IDENT, "range_incl evens vs incl evens %d", res);
    CHECK_OK(MPI_Group_free(&g3));
    CHECK_OK(MPI_Group_range_excl(wg, 1, range, &g3));
    check_group(g3, no, odds, "range_excl evens");
    CHECK_OK(MPI_Group_free(&g3));
    CHECK_OK(MPI_Group_union(g2, g1, &g3)); /* odds then evens */
    int uni[64], nu = 0;
    for (int i = 0; i < no; i++)
        uni[nu++] = odds[i];
    for (int i = 0; i < ne; i++)
        uni[nu++] = evens[i];
    check_group(g3, nu, uni, "union odds evens");
    CHECK_OK(MPI_Group_compare(g3, wg, &res));
    CHECK(res == (size > 2 ? MPI_SIMILAR : size == 2 ? MPI_SIMILAR : MPI_IDENT),
          "union vs world %d", res);
    CHECK_OK(MPI_Group_free(&g3));
    CHECK_OK(MPI_Group_intersection(wg, g1, &g3));
    check_group(g3, ne, evens, "world & evens");
    CHECK_OK(MPI_Group_free(&g3));
    CHECK_OK(MPI_Group_difference(wg, g1, &g3));
    check_group(g3, no, odds, "world - evens");
    CHECK_OK(MPI_Group_free(&g3));
    CHECK_OK(MPI_Group_intersection(g1, g2, &g3));
    CHECK(g3 == MPI_GROUP_EMPTY, "evens & odds is not MPI_GROUP_EMPTY");

    /* create from a group: the evens, in group order */
    MPI_Comm ev;
    CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, g1, &ev));
    CHECK((rank % 2 == 0) == (ev != MPI_COMM_NULL), "Comm_create membership");
    if (ev != MPI_COMM_NULL) {
        CHECK_OK(MPI_Comm_rank(ev, &r));
        CHECK_OK(MPI_Comm_size(ev, &s));
        CHECK(r == rank / 2 && s == ne, "Comm_create: rank %d size %d", r, s);
        CHECK_OK(MPI_Comm_free(&ev));
    }

    /* create_group: only the odds call it (the evens go on without them), in
     * reversed order; tag 7 */
    if (rank % 2) {
        int rodds[64];
        for (int i = 0; i < no; i++)
            rodds[i] = odds[no - 1 - i];
        MPI_Group rg;
        CHECK_OK(MPI_Group_incl(wg, no, rodds, &rg));
        MPI_Comm oc;
        CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, rg, 7, &oc));
        CHECK_OK(MPI_Comm_rank(oc, &r));
        CHECK_OK(MPI_Comm_size(oc, &s));
        CHECK(s == no && r == no - 1 - rank / 2, "Comm_create_group: rank %d size %d", r, s);
        MPI_Comm od; /* the new communicator works: a dup is collective over it */
        CHECK_OK(MPI_Comm_dup(oc, &od));
        CHECK_OK(MPI_Comm_free(&od));
        CHECK_OK(MPI_Comm_free(&oc));
        CHECK_OK(MPI_Group_free(&rg));
    } else {
        MPI_Comm oc;
        CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g2, 7, &oc));
        CHECK(oc == MPI_COMM_NULL, "a non-member got a communicator");
    }

    CHECK_OK(MPI_Group_free(&g1));
    CHECK_OK(MPI_Group_free(&g2));
    CHECK_OK(MPI_Group_free(&wg));
    CHECK_OK(MPI_Comm_free(&rev));
    CHECK_OK(MPI_Comm_free(&dup));
    CHECK_OK(MPI_Comm_free(&half));

    /* Not spawned: no parent. Disconnect: a collective free, after which a message sent
     * before it on the communicator has been received. */
    MPI_Comm parent = MPI_COMM_WORLD;
    CHECK_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "Comm_get_parent of a process rrun started");
    MPI_Comm dc;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dc));
    int token = -1, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Request rq;
    CHECK_OK(MPI_Irecv(&token, 1, MPI_INT, prev, 5, dc, &rq));
    CHECK_OK(MPI_Send(&rank, 1, MPI_INT, next, 5, dc));
    CHECK_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Comm_disconnect(&dc));
    CHECK(dc == MPI_COMM_NULL && token == prev, "Comm_disconnect: handle %s, token %d",
          dc == MPI_COMM_NULL ? "null" : "set", token);
    MPI_Comm w = MPI_COMM_WORLD;
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_disconnect(&w) == MPI_ERR_COMM, "disconnecting MPI_COMM_WORLD refused");
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_OK(MPI_Finalize());
    return 0;
}
