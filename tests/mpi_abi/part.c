/* SPDX-License-Identifier: BSD-3-Clause */
/* Partitioned communication between rank pairs (0->1, 2->3, ...): send and receive
 * partition counts 1/4/16 in every combination, Pready in reverse order and by
 * range/list, Parrived polled per receive partition (never true before its data is
 * there), restarts with new data, a non-contiguous datatype, user point-to-point
 * traffic with wildcards on the same communicator at the same time (never confused),
 * two requests with the same tag matched in init order, the same tag on two
 * communicators inited in opposite orders, MPI_PROC_NULL, errors. */
#include <string.h>

#include "check.h"

enum { TOTAL = 4096 }; /* ints per message: 16 KiB, divisible by every partition count */

static int rank, size, peer, sender;

static int value(int round, int i)
{
    return round * 1000003 + i * 7 + 1;
}

/* One transfer of TOTAL ints with sp send and rp receive partitions, rounds times. */
static void transfer(int sp, int rp, int rounds, int how)
{
    static int buf[TOTAL];
    MPI_Request r;
    int tag = sp * 100 + rp;
    if (sender) {
        CHECK_OK(MPI_Psend_init(buf, sp, TOTAL / sp, MPI_INT, peer, tag, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &r));
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < TOTAL; i++)
                buf[i] = value(round, i);
            CHECK_OK(MPI_Start(&r));
            if (how == 0) /* reverse order */
                for (int k = sp - 1; k >= 0; k--)
                    CHECK_OK(MPI_Pready(k, r));
            else if (how == 1)
                CHECK_OK(MPI_Pready_range(0, sp - 1, r));
            else { /* odd partitions first, as a list, then the even ones */
                int list[16], n = 0;
                for (int k = 1; k < sp; k += 2)
                    list[n++] = k;
                CHECK_OK(MPI_Pready_list(n, list, r));
                for (int k = 0; k < sp; k += 2)
                    CHECK_OK(MPI_Pready(k, r));
            }
            CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
    } else {
        CHECK_OK(MPI_Precv_init(buf, rp, TOTAL / rp, MPI_INT, peer, tag, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &r));
        for (int round = 0; round < rounds; round++) {
            memset(buf, 0, sizeof(buf));
            CHECK_OK(MPI_Start(&r));
            /* Poll every partition until all arrived; each is complete when seen. */
            int arrived[16] = {0}, left = rp;
            while (left > 0)
                for (int j = 0; j < rp; j++) {
                    int flag = 0;
                    if (arrived[j])
                        continue;
                    CHECK_OK(MPI_Parrived(r, j, &flag));
                    if (!flag)
                        continue;
                    arrived[j] = 1;
                    left--;
                    int per = TOTAL / rp;
                    for (int i = j * per; i < (j + 1) * per; i++)
                        CHECK(buf[i] == value(round, i), "sp %d rp %d round %d part %d: [%d] = %d",
                              sp, rp, round, j, i, buf[i]);
                }
            MPI_Status st;
            CHECK_OK(MPI_Wait(&r, &st));
            int n;
            MPI_Get_count(&st, MPI_INT, &n);
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag && n == TOTAL,
                  "status %d %d %d", st.MPI_SOURCE, st.MPI_TAG, n);
            int flag = 0; /* inactive: true */
            CHECK_OK(MPI_Parrived(r, 0, &flag));
            CHECK(flag, "Parrived on an inactive request");
        }
    }
    CHECK_OK(MPI_Request_free(&r));
}

/* Parrived stays false until the sender makes the partition ready. */
static void not_early(void)
{
    int buf[64] = {0}, flag = 1, go = 0;
    MPI_Request r;
    if (sender) {
        CHECK_OK(MPI_Psend_init(buf, 4, 16, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &r));
        for (int i = 0; i < 64; i++)
            buf[i] = i;
        CHECK_OK(MPI_Start(&r));
        CHECK_OK(MPI_Pready(2, r));
        CHECK_OK(MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Pready_range(0, 1, r));
        CHECK_OK(MPI_Pready(3, r));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        CHECK_OK(MPI_Precv_init(buf, 2, 32, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &r));
        CHECK_OK(MPI_Start(&r));
        /* Send partition 2 = receive partition 1's first half: neither arrives. */
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 0.05) {
            CHECK_OK(MPI_Parrived(r, 0, &flag));
            CHECK(!flag, "receive partition 0 arrived before any of its data was ready");
            CHECK_OK(MPI_Parrived(r, 1, &flag));
            CHECK(!flag, "receive partition 1 arrived with half its data");
        }
        CHECK_OK(MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < 64; i++)
            CHECK(buf[i] == i, "not_early [%d] = %d", i, buf[i]);
    }
    CHECK_OK(MPI_Request_free(&r));
}

/* User messages with wildcards interleaved with partitioned traffic of the same tag. */
static void with_user_traffic(void)
{
    static int pbuf[1024], pbuf2[1024];
    int u[4] = {0};
    MPI_Request r[2];
    if (sender) {
        CHECK_OK(MPI_Psend_init(pbuf, 4, 256, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &r[0]));
        CHECK_OK(MPI_Psend_init(pbuf2, 1, 1024, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &r[1]));
        for (int i = 0; i < 1024; i++) {
            pbuf[i] = -i;
            pbuf2[i] = i + 5000;
        }
        CHECK_OK(MPI_Startall(2, r));
        for (int k = 0; k < 4; k++) {
            CHECK_OK(MPI_Pready(k, r[0]));
            u[0] = 100 + k;
            CHECK_OK(MPI_Send(u, 1, MPI_INT, peer, 5, MPI_COMM_WORLD));
        }
        CHECK_OK(MPI_Pready(0, r[1]));
        CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    } else {
        static int a[1024], b[1024];
        CHECK_OK(MPI_Precv_init(a, 2, 512, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &r[0])); /* first init: matches the sender's first */
        CHECK_OK(MPI_Precv_init(b, 8, 128, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &r[1]));
        CHECK_OK(MPI_Startall(2, r));
        for (int k = 0; k < 4; k++) {
            MPI_Status st;
            CHECK_OK(MPI_Recv(u, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            int n;
            MPI_Get_count(&st, MPI_INT, &n);
            CHECK(n == 1 && u[0] == 100 + k && st.MPI_TAG == 5,
                  "user message %d: %d ints, value %d", k, n, u[0]);
        }
        CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 1024; i++)
            CHECK(a[i] == -i && b[i] == i + 5000, "[%d] = %d, %d", i, a[i], b[i]);
    }
    CHECK_OK(MPI_Request_free(&r[0]));
    CHECK_OK(MPI_Request_free(&r[1]));
}

/* A vector type (every other int), 3 send partitions into 2 receive partitions. */
static void noncontig(void)
{
    int buf[2 * 12];
    MPI_Datatype v;
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v)); /* 2 ints, stride 2: extent 3 ints */
    MPI_Datatype rv;
    CHECK_OK(MPI_Type_create_resized(v, 0, 4 * sizeof(int), &rv)); /* then every 4 */
    CHECK_OK(MPI_Type_commit(&rv));
    MPI_Request r;
    for (int i = 0; i < 24; i++)
        buf[i] = sender ? i : -1;
    if (sender) {
        CHECK_OK(MPI_Psend_init(buf, 3, 2, rv, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        CHECK_OK(MPI_Start(&r));
        CHECK_OK(MPI_Pready_range(0, 2, r));
    } else {
        CHECK_OK(MPI_Precv_init(buf, 2, 3, rv, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
        CHECK_OK(MPI_Start(&r));
    }
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (!sender)
        for (int i = 0; i < 24; i++)
            CHECK(buf[i] == (i % 4 == 0 || i % 4 == 2 ? i : -1), "noncontig [%d] = %d", i,
                  buf[i]);
    CHECK_OK(MPI_Request_free(&r));
    CHECK_OK(MPI_Type_free(&v));
    CHECK_OK(MPI_Type_free(&rv));
}

/* Same tag on two duplicates of world, inited in opposite orders on the two sides:
 * each matches its own communicator's (no init blocks on the peer). */
static void cross_comm(void)
{
    MPI_Comm d[2];
    int buf[2][8];
    MPI_Request r[2];
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d[0]));
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d[1]));
    for (int i = 0; i < 8; i++) {
        buf[0][i] = sender ? 100 + i : -1;
        buf[1][i] = sender ? 200 + i : -1;
    }
    if (sender) {
        CHECK_OK(MPI_Psend_init(buf[1], 2, 4, MPI_INT, peer, 0, d[1], MPI_INFO_NULL, &r[1]));
        CHECK_OK(MPI_Psend_init(buf[0], 1, 8, MPI_INT, peer, 0, d[0], MPI_INFO_NULL, &r[0]));
        CHECK_OK(MPI_Startall(2, r));
        CHECK_OK(MPI_Pready_range(0, 1, r[1]));
        CHECK_OK(MPI_Pready(0, r[0]));
    } else {
        CHECK_OK(MPI_Precv_init(buf[0], 4, 2, MPI_INT, peer, 0, d[0], MPI_INFO_NULL, &r[0]));
        CHECK_OK(MPI_Precv_init(buf[1], 8, 1, MPI_INT, peer, 0, d[1], MPI_INFO_NULL, &r[1]));
        CHECK_OK(MPI_Startall(2, r));
    }
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    if (!sender)
        for (int i = 0; i < 8; i++)
            CHECK(buf[0][i] == 100 + i && buf[1][i] == 200 + i, "cross_comm [%d] = %d %d", i,
                  buf[0][i], buf[1][i]);
    for (int k = 0; k < 2; k++) {
        CHECK_OK(MPI_Request_free(&r[k]));
        CHECK_OK(MPI_Comm_free(&d[k]));
    }
}

static void errors(void)
{
    int buf[4], cls, flag;
    MPI_Request r;
    MPI_Error_class(MPI_Psend_init(buf, 0, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                                   &r), &cls);
    CHECK(cls == MPI_ERR_ARG, "0 partitions: %d", cls);
    MPI_Error_class(MPI_Precv_init(buf, 1, 4, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r), &cls);
    CHECK(cls == MPI_ERR_RANK, "ANY_SOURCE: %d", cls);
    MPI_Error_class(MPI_Precv_init(buf, 1, 4, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r), &cls);
    CHECK(cls == MPI_ERR_TAG, "ANY_TAG: %d", cls);
    /* MPI_PROC_NULL: completes at once; Pready on a receive, Parrived on a send fail. */
    CHECK_OK(MPI_Psend_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &r));
    MPI_Error_class(MPI_Pready(0, r), &cls);
    CHECK(cls == MPI_ERR_REQUEST, "Pready on an inactive request: %d", cls);
    CHECK_OK(MPI_Start(&r));
    MPI_Error_class(MPI_Pready(2, r), &cls);
    CHECK(cls == MPI_ERR_ARG, "Pready of partition 2 of 2: %d", cls);
    MPI_Error_class(MPI_Parrived(r, 0, &flag), &cls);
    CHECK(cls == MPI_ERR_REQUEST, "Parrived on a send: %d", cls);
    CHECK_OK(MPI_Pready_range(0, 1, r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Request_free(&r));
    CHECK_OK(MPI_Precv_init(buf, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &r));
    MPI_Error_class(MPI_Pready(0, r), &cls);
    CHECK(cls == MPI_ERR_REQUEST, "Pready on a receive: %d", cls);
    CHECK_OK(MPI_Start(&r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Request_free(&r));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(size % 2 == 0, "an even number of ranks");
    sender = rank % 2 == 0;
    peer = sender ? rank + 1 : rank - 1;
    static const int parts[3] = {1, 4, 16};
    int how = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            transfer(parts[i], parts[j], 3, how++ % 3);
    not_early();
    with_user_traffic();
    noncontig();
    cross_comm();
    errors();
    /* Init then free without a start (both sides), then a transfer still matches. */
    MPI_Request r;
    int x = 42;
    if (sender)
        CHECK_OK(MPI_Psend_init(&x, 1, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    else
        CHECK_OK(MPI_Precv_init(&x, 1, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_OK(MPI_Request_free(&r));
    transfer(4, 16, 1, 1);
    MPI_Finalize();
    return 0;
}
