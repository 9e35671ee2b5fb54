/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Cancel on sends, at 2 ranks: an unmatched send of every kind (standard,
 * synchronous, buffered, non-contiguous, persistent; eager and rendezvous sizes) completes
 * cancelled and never arrives, while the same envelope sent again does; of two
 * unmatched sends with one envelope the cancelled one is the one that goes; a send
 * already received completes not cancelled. */
#include <string.h>

#include "check.h"

enum { KIND_STD, KIND_SYNC, KIND_VECTOR, KIND_PSTD, KIND_PSYNC, KIND_BUF, KIND_PBUF, NKINDS };
static const char *kind_name[NKINDS] = {"Isend", "Issend", "Isend(vector)", "Send_init",
                                        "Ssend_init", "Ibsend", "Bsend_init"};
static const int sizes[] = {1, 100, 5000, 300000}; /* ints: eager to rendezvous */
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static void fill(int *b, int n, int v)
{
    for (int i = 0; i < n; i++)
        b[i] = v + i;
}

/* Start a send of n ints of b (the vector kind: every other int of 2n) as kind. */
static void start(int kind, int *b, int n, int tag, MPI_Request *r, MPI_Datatype vec)
{
    switch (kind) {
    case KIND_STD: CHECK_OK(MPI_Isend(b, n, MPI_INT, 1, tag, MPI_COMM_WORLD, r)); break;
    case KIND_SYNC: CHECK_OK(MPI_Issend(b, n, MPI_INT, 1, tag, MPI_COMM_WORLD, r)); break;
    case KIND_VECTOR: CHECK_OK(MPI_Isend(b, 1, vec, 1, tag, MPI_COMM_WORLD, r)); break;
    case KIND_PSTD:
        CHECK_OK(MPI_Send_init(b, n, MPI_INT, 1, tag, MPI_COMM_WORLD, r));
        CHECK_OK(MPI_Start(r));
        break;
    case KIND_BUF: CHECK_OK(MPI_Ibsend(b, n, MPI_INT, 1, tag, MPI_COMM_WORLD, r)); break;
    case KIND_PBUF:
        CHECK_OK(MPI_Bsend_init(b, n, MPI_INT, 1, tag, MPI_COMM_WORLD, r));
        CHECK_OK(MPI_Start(r));
        break;
    default:
        CHECK_OK(MPI_Ssend_init(b, n, MPI_INT, 1, tag, MPI_COMM_WORLD, r));
        CHECK_OK(MPI_Start(r));
    }
}

static void finish(int kind, MPI_Request *r)
{
    if (kind == KIND_PSTD || kind == KIND_PSYNC || kind == KIND_PBUF)
        CHECK_OK(MPI_Request_free(r));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    int maxn = sizes[NSIZES - 1];
    int *a = malloc(2 * (size_t)maxn * sizeof(int)), *b = malloc(2 * (size_t)maxn * sizeof(int));
    CHECK(a && b, "out of memory");
    int bsize = 2 * (maxn * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *battach = malloc((size_t)bsize);
    CHECK(battach, "out of memory");
    CHECK_OK(MPI_Buffer_attach(battach, bsize));

    /* 1. cancelled before any receive: the same envelope sent again is what arrives. */
    for (int kind = 0; kind < NKINDS; kind++) {
        for (int s = 0; s < NSIZES; s++) {
            int n = sizes[s], tag = kind * 16 + s;
            MPI_Datatype vec = MPI_DATATYPE_NULL;
            if (kind == KIND_VECTOR) {
                CHECK_OK(MPI_Type_vector(n, 1, 2, MPI_INT, &vec));
                CHECK_OK(MPI_Type_commit(&vec));
            }
            if (rank == 0) {
                MPI_Request r;
                MPI_Status st;
                int flag = 0;
                fill(a, 2 * n, 1000);
                start(kind, a, n, tag, &r, vec);
                CHECK_OK(MPI_Cancel(&r));
                CHECK_OK(MPI_Wait(&r, &st));
                CHECK_OK(MPI_Test_cancelled(&st, &flag));
                CHECK(flag, "%s of %d ints not cancelled", kind_name[kind], n);
                finish(kind, &r);
                CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); /* no receive was posted before */
                fill(b, n, 7);
                CHECK_OK(MPI_Send(b, n, MPI_INT, 1, tag, MPI_COMM_WORLD));
            } else {
                MPI_Status st;
                int cnt = -1;
                memset(b, 0, (size_t)n * sizeof(int));
                CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
                CHECK_OK(MPI_Recv(b, n, MPI_INT, 0, tag, MPI_COMM_WORLD, &st));
                CHECK_OK(MPI_Get_count(&st, MPI_INT, &cnt));
                CHECK(cnt == n && b[0] == 7 && b[n - 1] == 7 + n - 1,
                      "%s of %d ints: got the cancelled message (%d ints, first %d)",
                      kind_name[kind], n, cnt, b[0]);
            }
            if (vec != MPI_DATATYPE_NULL)
                CHECK_OK(MPI_Type_free(&vec));
        }
    }

    /* 2. two unmatched sends of one envelope: cancel either, the other arrives. */
    for (int which = 0; which < 2; which++) {
        for (int s = 0; s < NSIZES; s++) {
            int n = sizes[s], tag = 200 + which * 16 + s;
            if (rank == 0) {
                MPI_Request r[2];
                MPI_Status st;
                int flag = 0;
                fill(a, n, 10);
                fill(b, n, 20);
                CHECK_OK(MPI_Isend(a, n, MPI_INT, 1, tag, MPI_COMM_WORLD, &r[0]));
                CHECK_OK(MPI_Isend(b, n, MPI_INT, 1, tag, MPI_COMM_WORLD, &r[1]));
                CHECK_OK(MPI_Cancel(&r[which]));
                CHECK_OK(MPI_Wait(&r[which], &st));
                CHECK_OK(MPI_Test_cancelled(&st, &flag));
                CHECK(flag, "send %d of 2 (%d ints) not cancelled", which, n);
                CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
                CHECK_OK(MPI_Wait(&r[1 - which], MPI_STATUS_IGNORE));
            } else {
                int *got = malloc((size_t)n * sizeof(int));
                CHECK(got, "out of memory");
                CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
                CHECK_OK(MPI_Recv(got, n, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                int want = which == 0 ? 20 : 10;
                CHECK(got[0] == want && got[n - 1] == want + n - 1,
                      "cancelled send %d of 2 (%d ints): received data starting %d", which, n,
                      got[0]);
                free(got);
            }
        }
    }

    /* 3. a send already received completes, not cancelled. */
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], tag = 300 + s;
        if (rank == 0) {
            MPI_Request r;
            MPI_Status st;
            int flag = 1;
            fill(a, n, 30);
            CHECK_OK(MPI_Isend(a, n, MPI_INT, 1, tag, MPI_COMM_WORLD, &r));
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); /* rank 1 has received it */
            CHECK_OK(MPI_Cancel(&r));
            CHECK_OK(MPI_Wait(&r, &st));
            CHECK_OK(MPI_Test_cancelled(&st, &flag));
            CHECK(!flag, "a received send of %d ints reported cancelled", n);
        } else {
            CHECK_OK(MPI_Recv(b, n, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(b[0] == 30 && b[n - 1] == 30 + n - 1, "wrong data");
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        }
    }

    /* Nothing cancelled is left to arrive. */
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        int flag = 1;
        CHECK_OK(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "a cancelled message arrived");
    }
    void *bdet;
    int bdsize;
    CHECK_OK(MPI_Buffer_detach(&bdet, &bdsize));
    CHECK(bdet == battach && bdsize == bsize, "detach");
    free(battach);
    free(a);
    free(b);
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_cancel: ok\n");
    return 0;
}
