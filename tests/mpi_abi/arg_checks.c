/* SPDX-License-Identifier: BSD-3-Clause */
/* Argument checks that MPICH's errors/ tests found missing (issue 26), under
 * MPI_ERRORS_RETURN at real ranks: each erroneous call returns its class, nothing
 * crashes or hangs, and the correct call beside it still works. Run with 2..4 ranks. */
#include <string.h>

#include "check.h"

#define EXPECT(call, cls)                                                              \
    do {                                                                               \
        int rc_ = (call), c_ = -1;                                                     \
        MPI_Error_class(rc_, &c_);                                                     \
        CHECK(c_ == (cls), "%s gave class %d, expected %s", #call, c_, #cls);          \
    } while (0)

static int rank, size;

/* groups: a NULL result is MPI_ERR_ARG even when the ranges are out of range */
static void groups(void)
{
    MPI_Group g;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    int range[1][3] = {{size, size - 1, 1}}; /* also a bad range */
    EXPECT(MPI_Group_range_incl(g, 1, range, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Group_range_excl(g, 1, range, NULL), MPI_ERR_ARG);
    CHECK_OK(MPI_Group_free(&g));
}

/* MPI_Comm_create with a group that is not a subgroup: every member finds it alone */
static void comm_create(void)
{
    MPI_Comm half, n;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    CHECK_OK(MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN));
    MPI_Group wg, other;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int peer = rank % 2 ? 0 : 1; /* a rank of the other half */
    CHECK_OK(MPI_Group_incl(wg, 1, &peer, &other));
    EXPECT(MPI_Comm_create(half, other, &n), MPI_ERR_GROUP);
    /* a correct one still works afterwards */
    MPI_Group hg;
    CHECK_OK(MPI_Comm_group(half, &hg));
    CHECK_OK(MPI_Comm_create(half, hg, &n));
    int s;
    CHECK_OK(MPI_Comm_size(n, &s));
    CHECK(s == (size + 1 - rank % 2) / 2, "created size %d", s);
    CHECK_OK(MPI_Comm_free(&n));
    CHECK_OK(MPI_Group_free(&hg));
    CHECK_OK(MPI_Group_free(&other));
    CHECK_OK(MPI_Group_free(&wg));
    CHECK_OK(MPI_Comm_free(&half));
}

/* MPI_Reduce_local: MPI_IN_PLACE for either buffer, or one buffer twice */
static void reduce_local(void)
{
    int a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
    CHECK_OK(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_SUM));
    CHECK(b[3] == 44, "reduce_local gave %d", b[3]);
    EXPECT(MPI_Reduce_local(MPI_IN_PLACE, b, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce_local(a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce_local(b, b, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    CHECK(b[3] == 44, "a refused reduce_local changed the buffer: %d", b[3]);
}

/* MPI_Compare_and_swap: predefined integer, logical, byte types only */
static void cas_types(void)
{
    long long buf = 0;
    MPI_Win win;
    CHECK_OK(MPI_Win_create(&buf, sizeof(buf), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Datatype my_int;
    CHECK_OK(MPI_Type_contiguous(sizeof(int), MPI_BYTE, &my_int));
    CHECK_OK(MPI_Type_commit(&my_int));
    CHECK_OK(MPI_Win_fence(0, win));
    long long o = rank + 1, c = 0, r = -1;
    double d = 1, dc = 0, dr;
    EXPECT(MPI_Compare_and_swap(&d, &dc, &dr, MPI_DOUBLE, 0, 0, win), MPI_ERR_TYPE);
    EXPECT(MPI_Compare_and_swap(&d, &dc, &dr, MPI_FLOAT, 0, 0, win), MPI_ERR_TYPE);
    EXPECT(MPI_Compare_and_swap(&o, &c, &r, my_int, 0, 0, win), MPI_ERR_TYPE);
    CHECK_OK(MPI_Compare_and_swap(&o, &c, &r, MPI_LONG_LONG, 0, 0, win));
    CHECK_OK(MPI_Win_fence(0, win));
    if (rank == 0)
        CHECK(buf >= 1 && buf <= size, "compare_and_swap stored %lld", buf);
    CHECK_OK(MPI_Type_free(&my_int));
    CHECK_OK(MPI_Win_free(&win));
}

/* One buffer as send and receive buffer without MPI_IN_PLACE: MPI_ERR_BUFFER on every rank
 * that passes both (here all of them, so none waits), before any communication; then the
 * same collective with distinct buffers still matches on every rank. */
static void noalias(void)
{
    int n = 2 * size, b[2 * 8], r[2 * 8], counts[8], displs[8];
    MPI_Datatype types[8];
    MPI_Request q;
    CHECK(size <= 8, "at most 8 ranks");
    for (int i = 0; i < size; i++) {
        counts[i] = 2;
        displs[i] = 2 * i;
        types[i] = MPI_INT;
    }
    for (int i = 0; i < n; i++)
        b[i] = i;
    EXPECT(MPI_Allreduce(b, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Scan(b, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Exscan(b, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce_scatter_block(b, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce_scatter(b, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    /* this rank's block of the receive buffer as the send buffer */
    EXPECT(MPI_Allgather(b + 2 * rank, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_BUFFER);
    EXPECT(MPI_Allgatherv(b + 2 * rank, 2, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoall(b, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoallv(b, counts, displs, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoallw(b, counts, displs, types, b, counts, displs, types, MPI_COMM_WORLD),
           MPI_ERR_BUFFER);
    EXPECT(MPI_Iallreduce(b, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q), MPI_ERR_BUFFER);
    EXPECT(MPI_Iallgather(b + 2 * rank, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD, &q),
           MPI_ERR_BUFFER);
    EXPECT(MPI_Iallgatherv(b + 2 * rank, 2, MPI_INT, b, counts, displs, MPI_INT,
                           MPI_COMM_WORLD, &q), MPI_ERR_BUFFER);
    EXPECT(MPI_Ialltoallv(b, counts, displs, MPI_INT, b, counts, displs, MPI_INT,
                          MPI_COMM_WORLD, &q), MPI_ERR_BUFFER);
    EXPECT(MPI_Ireduce_scatter(b, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q),
           MPI_ERR_BUFFER);
    /* the real ones still match everywhere */
    CHECK_OK(MPI_Allgather(b + 2 * rank, 2, MPI_INT, r, 2, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(r[i] == i, "allgather after refused ones: r[%d] = %d", i, r[i]);
    CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(b[1] == size, "allreduce in place after refused ones: %d", b[1]);
    /* the root alone refuses a rooted one; the others then meet its correct call */
    for (int i = 0; i < n; i++)
        b[i] = rank;
    int e = MPI_Gather(b, 2, MPI_INT, rank == 0 ? b : r, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        EXPECT(e, MPI_ERR_BUFFER);
        CHECK_OK(MPI_Gather(b, 2, MPI_INT, r, 2, MPI_INT, 0, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            CHECK(r[i] == i / 2, "gather after a refused one: r[%d] = %d", i, r[i]);
    } else {
        CHECK_OK(e);
    }
    e = MPI_Iscatter(r, 2, MPI_INT, rank == 0 ? r : b, 2, MPI_INT, 0, MPI_COMM_WORLD, &q);
    if (rank == 0) {
        EXPECT(e, MPI_ERR_BUFFER);
        CHECK_OK(MPI_Iscatter(r, 2, MPI_INT, b, 2, MPI_INT, 0, MPI_COMM_WORLD, &q));
    }
    CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(b[0] == rank && b[1] == rank, "scatter after a refused one: %d %d", b[0], b[1]);
}

/* A keyval of one object kind is refused on another */
static void keyvals(void)
{
    int ck, wk, tk, v = 0, flag;
    void *got;
    MPI_Win win;
    MPI_Datatype t;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL));
    CHECK_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wk, NULL));
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL));
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_OK(MPI_Win_create(&v, sizeof(v), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, wk, &v), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, tk, &v), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, wk, &got, &flag), MPI_ERR_KEYVAL);
    EXPECT(MPI_Type_set_attr(t, wk, &v), MPI_ERR_KEYVAL);
    EXPECT(MPI_Type_set_attr(t, ck, &v), MPI_ERR_KEYVAL);
    EXPECT(MPI_Win_set_attr(win, ck, &v), MPI_ERR_KEYVAL);
    EXPECT(MPI_Win_set_attr(win, tk, &v), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_free_keyval(&wk), MPI_ERR_KEYVAL);
    EXPECT(MPI_Type_free_keyval(&ck), MPI_ERR_KEYVAL);
    EXPECT(MPI_Win_free_keyval(&tk), MPI_ERR_KEYVAL);
    CHECK_OK(MPI_Win_set_attr(win, wk, &v));
    CHECK_OK(MPI_Win_free(&win));
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Comm_free_keyval(&ck));
    CHECK_OK(MPI_Win_free_keyval(&wk));
    CHECK_OK(MPI_Type_free_keyval(&tk));
}

/* Erroneous synchronisation is MPI_ERR_RMA_SYNC, found locally (no rank left waiting) */
static void win_sync(void)
{
    int buf = rank, x;
    MPI_Win win;
    MPI_Group wg;
    CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_OK(MPI_Win_create(&buf, sizeof(buf), sizeof(buf), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &win));
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    /* no epoch yet; MPI_PROC_NULL is still a no-op */
    EXPECT(MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    CHECK_OK(MPI_Get(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
    /* an argument error is still reported as such */
    EXPECT(MPI_Get(&x, 1, MPI_INT, -5, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    /* a lock after a fence closes the fence's epoch */
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_OK(MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    EXPECT(MPI_Win_free(&win), MPI_ERR_RMA_SYNC); /* locked */
    CHECK_OK(MPI_Win_unlock(0, win));
    CHECK(x == 0, "get under lock read %d", x);
    EXPECT(MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    CHECK_OK(MPI_Win_fence(0, win));
    CHECK_OK(MPI_Get(&x, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(x == (rank + 1) % size, "get in a fence epoch read %d", x);
    EXPECT(MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    /* PSCW: a lock or free inside the access epoch is refused */
    CHECK_OK(MPI_Win_post(wg, 0, win));
    CHECK_OK(MPI_Win_start(wg, 0, win));
    CHECK_OK(MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    CHECK_OK(MPI_Win_complete(win));
    CHECK_OK(MPI_Win_wait(win));
    EXPECT(MPI_Get(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    /* lock_all: a start inside is refused */
    CHECK_OK(MPI_Win_lock_all(0, win));
    CHECK_OK(MPI_Get(&x, 1, MPI_INT, size - 1, 0, 1, MPI_INT, win));
    EXPECT(MPI_Win_start(wg, 0, win), MPI_ERR_RMA_SYNC);
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK(x == size - 1, "get under lock_all read %d", x);
    CHECK_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "Win_free did not reset the handle");
    CHECK_OK(MPI_Group_free(&wg));
}

/* MPI_DATATYPE_NULL with count 0 is an empty message (MPICH and Open MPI accept it); with
 * a count it is still MPI_ERR_TYPE */
static void null_type(void)
{
    MPI_Status st;
    MPI_Request q;
    int peer = rank ^ 1, n = -1;
    CHECK_OK(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "status %d %d",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK_OK(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &q));
    CHECK_OK(MPI_Wait(&q, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Irecv status source %d", st.MPI_SOURCE);
    EXPECT(MPI_Send(&n, 1, MPI_DATATYPE_NULL, 0, 3, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(&n, 1, MPI_DATATYPE_NULL, 0, 3, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
    if (peer >= size)
        return;
    if (rank % 2 == 0) {
        CHECK_OK(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, peer, 4, MPI_COMM_WORLD));
        CHECK_OK(MPI_Isend(NULL, 0, MPI_DATATYPE_NULL, peer, 5, MPI_COMM_WORLD, &q));
        CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    } else {
        CHECK_OK(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, peer, 4, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(st.MPI_SOURCE == peer && n == 0, "empty message: source %d count %d",
              st.MPI_SOURCE, n);
        CHECK_OK(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, peer, 5, MPI_COMM_WORLD, &q));
        CHECK_OK(MPI_Wait(&q, &st));
        CHECK(st.MPI_TAG == 5, "empty message tag %d", st.MPI_TAG);
    }
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "run with at least 2 ranks");
    groups();
    comm_create();
    reduce_local();
    cas_types();
    noalias();
    keyvals();
    win_sync();
    null_type();
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("arg_checks: OK\n");
    CHECK_OK(MPI_Finalize());
    return 0;
}
