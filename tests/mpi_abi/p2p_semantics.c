/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point semantics beyond what OSU touches: Mprobe/Mrecv with
 * MPI_ANY_SOURCE from every other rank, Cancel of a posted receive, Ssend
 * completing only after the match, persistent requests reused 1,000 times,
 * Bsend, MPI_PROC_NULL, Sendrecv_replace, Waitany/Waitsome/Testall,
 * Request_get_status (and its _any/_all/_some forms), generalized requests. Run with
 * 2..4 ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"

/* Point-to-point only (this program tests p2p, not collectives): everybody
 * reports to rank 0, which releases everybody, on a communicator of its own
 * (wildcard receives of the tests never see it). */
static MPI_Comm bar_comm = MPI_COMM_NULL;
static void p2p_barrier(void)
{
    int r, n, x = 0;
    if (bar_comm == MPI_COMM_NULL)
        MPI_Comm_dup(MPI_COMM_WORLD, &bar_comm);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (r == 0) {
        for (int i = 1; i < n; i++)
            MPI_Recv(&x, 1, MPI_INT, i, 32000, bar_comm, MPI_STATUS_IGNORE);
        for (int i = 1; i < n; i++)
            MPI_Send(&x, 1, MPI_INT, i, 32001, bar_comm);
    } else {
        MPI_Send(&x, 1, MPI_INT, 0, 32000, bar_comm);
        MPI_Recv(&x, 1, MPI_INT, 0, 32001, bar_comm, MPI_STATUS_IGNORE);
    }
}


static int rank, size;

/* Every other rank sends 3 messages of different sizes and tags to rank 0, which takes
 * them with Mprobe(ANY_SOURCE, ANY_TAG) + Mrecv into buffers sized from the status. A
 * second receive posted with wildcards must not steal a matched message. */
static void test_mprobe(void)
{
    const int per = 3;
    if (rank != 0) {
        for (int k = 0; k < per; k++) {
            int n = 10 + 1000 * k + rank;
            int *b = malloc(sizeof(int) * (size_t)n);
            for (int i = 0; i < n; i++)
                b[i] = rank * 1000000 + k * 10000 + i;
            MPI_Send(b, n, MPI_INT, 0, 100 + k, MPI_COMM_WORLD);
            free(b);
        }
        return;
    }
    int seen[64][3] = {{0}};
    for (int m = 0; m < per * (size - 1); m++) {
        MPI_Message msg;
        MPI_Status st;
        if (m % 2) {
            int flag = 0;
            while (!flag)
                MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
        } else {
            MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
        }
        int n, src = st.MPI_SOURCE, k = st.MPI_TAG - 100;
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(src > 0 && src < size && k >= 0 && k < per, "status source %d tag %d", src,
              st.MPI_TAG);
        CHECK(n == 10 + 1000 * k + src, "count %d from %d tag %d", n, src, st.MPI_TAG);
        /* Last message: a receive from any source with its tag, posted now, must not take
         * the matched message (nothing else carries that tag). */
        int other = -7, last = m == per * (size - 1) - 1;
        MPI_Request steal = MPI_REQUEST_NULL;
        if (last)
            MPI_Irecv(&other, 1, MPI_INT, MPI_ANY_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &steal);
        int *b = malloc(sizeof(int) * (size_t)n);
        MPI_Status st2;
        if (m % 3 == 2) {
            MPI_Request r;
            MPI_Imrecv(b, n, MPI_INT, &msg, &r);
            CHECK(msg == MPI_MESSAGE_NULL, "Imrecv did not reset the message");
            MPI_Wait(&r, &st2);
        } else {
            MPI_Mrecv(b, n, MPI_INT, &msg, &st2);
        }
        CHECK(st2.MPI_SOURCE == src && st2.MPI_TAG == st.MPI_TAG, "Mrecv status");
        for (int i = 0; i < n; i++)
            CHECK(b[i] == src * 1000000 + k * 10000 + i, "data %d from %d", i, src);
        seen[src][k]++;
        free(b);
        if (last) {
            int flag;
            MPI_Test(&steal, &flag, MPI_STATUS_IGNORE);
            CHECK(!flag && other == -7, "the wildcard receive stole the matched message");
            MPI_Cancel(&steal);
            MPI_Wait(&steal, &st2);
            MPI_Test_cancelled(&st2, &flag);
            CHECK(flag, "the wildcard receive was not cancelled");
        }
    }
    for (int s = 1; s < size; s++)
        for (int k = 0; k < per; k++)
            CHECK(seen[s][k] == 1, "message %d from %d seen %d times", k, s, seen[s][k]);
    /* MPI_PROC_NULL */
    MPI_Message msg;
    MPI_Status st;
    MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &msg, &st);
    CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "Mprobe PROC_NULL");
    int x = 3;
    MPI_Mrecv(&x, 1, MPI_INT, &msg, &st);
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 0 && x == 3 && st.MPI_TAG == MPI_ANY_TAG, "Mrecv NO_PROC");
}

/* A posted receive that nothing matches is cancelled; a matched one is not. */
static void test_cancel(void)
{
    int a = -1, flag;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    CHECK(r == MPI_REQUEST_NULL, "Wait did not free the cancelled request");
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag && a == -1, "receive not cancelled");
    p2p_barrier(); /* nobody sends on that tag before everybody cancelled */
    /* Later traffic on that tag goes to the next receive, not the cancelled one. */
    int peer = rank ^ 1;
    if (peer < size) {
        int v = rank + 40;
        MPI_Irecv(&a, 1, MPI_INT, peer, 999, MPI_COMM_WORLD, &r);
        MPI_Send(&v, 1, MPI_INT, peer, 999, MPI_COMM_WORLD);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(!flag && a == peer + 40, "matched receive: cancelled %d value %d", flag, a);
        /* Cancel after completion: no effect. */
        MPI_Irecv(&a, 1, MPI_INT, peer, 998, MPI_COMM_WORLD, &r);
        MPI_Send(&v, 1, MPI_INT, peer, 998, MPI_COMM_WORLD);
        do
            MPI_Request_get_status(r, &flag, &st);
        while (!flag);
        MPI_Cancel(&r);
        MPI_Wait(&r, &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(!flag && a == peer + 40, "cancel after completion took effect");
    }
}

/* Rank 0's Issend cannot complete before rank 1 posts the receive, which it
 * does only after rank 0 says so (tag 2), so Test must say "not done" until then. */
/* Request_get_status_any/all/some: report completion without freeing anything (the
 * requests are waited on afterwards), null requests inactive. */
static void test_get_status_arrays(void)
{
    int peer = rank ^ 1, a = -1, v = rank + 70, flag = 0, idx = -2, out = -2, ind[3];
    MPI_Request r[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[3];
    CHECK_OK(MPI_Request_get_status_any(3, r, &idx, &flag, &st[0]));
    CHECK(flag && idx == MPI_UNDEFINED, "get_status_any on null requests: flag %d idx %d", flag,
          idx);
    CHECK_OK(MPI_Request_get_status_some(3, r, &out, ind, st));
    CHECK(out == MPI_UNDEFINED, "get_status_some on null requests: %d", out);
    if (peer >= size)
        return;
    CHECK_OK(MPI_Irecv(&a, 1, MPI_INT, peer, 997, MPI_COMM_WORLD, &r[1]));
    CHECK_OK(MPI_Request_get_status_all(3, r, &flag, st));
    CHECK(!flag || a == peer + 70, "get_status_all before the send");
    CHECK_OK(MPI_Send(&v, 1, MPI_INT, peer, 997, MPI_COMM_WORLD));
    do
        CHECK_OK(MPI_Request_get_status_any(3, r, &idx, &flag, &st[0]));
    while (!flag);
    CHECK(idx == 1 && st[0].MPI_SOURCE == peer && st[0].MPI_TAG == 997,
          "get_status_any: index %d source %d", idx, st[0].MPI_SOURCE);
    CHECK(r[1] != MPI_REQUEST_NULL, "get_status_any freed the request");
    CHECK_OK(MPI_Request_get_status_all(3, r, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "get_status_all after completion");
    CHECK_OK(MPI_Request_get_status_some(3, r, &out, ind, st));
    CHECK(out == 1 && ind[0] == 1 && st[0].MPI_SOURCE == peer, "get_status_some: %d", out);
    CHECK_OK(MPI_Wait(&r[1], &st[1]));
    CHECK(a == peer + 70 && st[1].MPI_TAG == 997, "the wait after get_status: %d", a);
}

static void test_ssend(void)
{
    for (int len = 1; len <= 1 << 20; len *= 64) {
        char *b = malloc((size_t)len);
        if (rank == 0) {
            memset(b, 'x', (size_t)len);
            MPI_Request r;
            int flag = 0;
            MPI_Issend(b, len, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &r);
            for (int i = 0; i < 2000 && !flag; i++)
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            CHECK(!flag, "Issend of %d bytes completed before the receive was posted", len);
            MPI_Send(NULL, 0, MPI_CHAR, 1, 2, MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            /* Blocking Ssend: returns once matched (rank 1 receives it after a barrier). */
            MPI_Ssend(b, len, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(NULL, 0, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(b, len, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(b[len - 1] == 'x', "Issend data");
            MPI_Recv(b, len, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        free(b);
    }
}

/* Persistent send/receive pairs between 0 and 1, restarted 1,000 times with new data. */
static void test_persistent(void)
{
    if (rank > 1)
        return;
    int peer = 1 - rank, sbuf[64], rbuf[64];
    MPI_Request reqs[2];
    MPI_Recv_init(rbuf, 64, MPI_INT, peer, 11, MPI_COMM_WORLD, &reqs[0]);
    MPI_Send_init(sbuf, 64, MPI_INT, peer, 11, MPI_COMM_WORLD, &reqs[1]);
    for (int it = 0; it < 1000; it++) {
        for (int i = 0; i < 64; i++)
            sbuf[i] = it * 100 + i + rank;
        MPI_Startall(2, reqs);
        MPI_Status sts[2];
        MPI_Waitall(2, reqs, sts);
        CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL,
              "persistent requests freed by Waitall");
        CHECK(sts[0].MPI_SOURCE == peer && sts[0].MPI_TAG == 11, "status of round %d", it);
        for (int i = 0; i < 64; i++)
            CHECK(rbuf[i] == it * 100 + i + peer, "round %d int %d: %d", it, i, rbuf[i]);
    }
    /* An inactive persistent request completes at once with an empty status. */
    MPI_Status st;
    MPI_Wait(&reqs[0], &st);
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "inactive status");
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    CHECK(reqs[0] == MPI_REQUEST_NULL, "Request_free");
}

/* Buffered sends from an attached buffer; detach waits for them. */
static void test_bsend(void)
{
    if (rank > 1)
        return;
    int peer = 1 - rank, bufsize = 10 * (4000 + MPI_BSEND_OVERHEAD);
    char *attach = malloc((size_t)bufsize);
    MPI_Buffer_attach(attach, bufsize);
    int data[1000], got[1000];
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 1000; i++)
            data[i] = k * 7 + i + rank;
        MPI_Bsend(data, 1000, MPI_INT, peer, 20 + k, MPI_COMM_WORLD);
    }
    MPI_Request r;
    MPI_Ibsend(data, 10, MPI_INT, peer, 30, MPI_COMM_WORLD, &r);
    memset(data, 0, sizeof(data)); /* the data was copied: reuse is fine */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int k = 4; k >= 0; k--) {
        MPI_Recv(got, 1000, MPI_INT, peer, 20 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got[999] == k * 7 + 999 + peer, "Bsend %d", k);
    }
    MPI_Recv(got, 10, MPI_INT, peer, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(got[9] == 4 * 7 + 9 + peer, "Ibsend data");
    void *back;
    int backsize;
    MPI_Buffer_detach(&back, &backsize);
    CHECK(back == attach && backsize == bufsize, "detach");
    free(attach);
}

static void test_misc(void)
{
    /* PROC_NULL: sends and receives complete at once. */
    int x = 5;
    MPI_Status st;
    MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(x == 5 && n == 0 && st.MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL receive");
    /* Sendrecv_replace around a ring. */
    int v[100];
    for (int i = 0; i < 100; i++)
        v[i] = rank * 1000 + i;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv_replace(v, 100, MPI_INT, right, 40, left, 40, MPI_COMM_WORLD, &st);
    CHECK(v[99] == left * 1000 + 99 && st.MPI_SOURCE == left, "Sendrecv_replace");
    /* Waitany / Waitsome / Testall over receives from every rank. */
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)size * 2);
    int *in = malloc(sizeof(int) * (size_t)size);
    for (int p = 0; p < size; p++) {
        in[p] = -1;
        MPI_Irecv(&in[p], 1, MPI_INT, p, 50, MPI_COMM_WORLD, &rq[p]);
    }
    for (int p = 0; p < size; p++)
        MPI_Isend(&rank, 1, MPI_INT, p, 50, MPI_COMM_WORLD, &rq[size + p]);
    int done = 0, idx, outc, *ind = malloc(sizeof(int) * (size_t)size * 2);
    while (done < size) {
        if (done % 2 == 0) {
            MPI_Waitany(size, rq, &idx, &st);
            CHECK(idx >= 0 && idx < size && st.MPI_SOURCE == idx, "Waitany index %d", idx);
            done++;
        } else {
            MPI_Waitsome(size, rq, &outc, ind, MPI_STATUSES_IGNORE);
            CHECK(outc != MPI_UNDEFINED && outc > 0, "Waitsome outcount %d", outc);
            done += outc;
        }
    }
    int flag = 0;
    while (!flag)
        MPI_Testall(size, rq + size, &flag, MPI_STATUSES_IGNORE);
    for (int p = 0; p < size; p++)
        CHECK(in[p] == p && rq[p] == MPI_REQUEST_NULL, "receive from %d: %d", p, in[p]);
    MPI_Waitany(size, rq, &idx, &st);
    CHECK(idx == MPI_UNDEFINED, "Waitany over null requests");
    free(rq);
    free(in);
    free(ind);
}

static int greq_query(void *extra, MPI_Status *st)
{
    MPI_Status_set_elements(st, MPI_INT, *(int *)extra);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int greq_freed;
static int greq_free(void *extra)
{
    (void)extra;
    greq_freed++;
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static void test_grequest(void)
{
    int count = 17, flag;
    MPI_Request r;
    MPI_Status st;
    MPI_Grequest_start(greq_query, greq_free, greq_cancel, &count, &r);
    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "generalized request done before Grequest_complete");
    MPI_Grequest_complete(r);
    MPI_Wait(&r, &st);
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 17 && greq_freed == 1 && r == MPI_REQUEST_NULL, "grequest count %d freed %d", n,
          greq_freed);
}

/* Isendrecv around the ring, Isendrecv_replace the other way with a strided type: data
 * and status checked, the replace buffer holding exactly what came in. */
static void test_isendrecv(void)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int out[4] = {rank, rank * 10, rank * 100, -1}, in[4] = {-1, -1, -1, -1};
    MPI_Request r[2];
    MPI_Status st[2];
    CHECK_OK(MPI_Isendrecv(out, 3, MPI_INT, right, 51, in, 4, MPI_INT, left, 51, MPI_COMM_WORLD,
                           &r[0]));
    int buf[6] = {rank, -7, rank + 1000, -7, rank + 2000, -7};
    MPI_Datatype every2;
    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &every2));
    CHECK_OK(MPI_Type_commit(&every2));
    CHECK_OK(MPI_Isendrecv_replace(buf, 1, every2, left, 52, right, 52, MPI_COMM_WORLD, &r[1]));
    CHECK_OK(MPI_Waitall(2, r, st));
    int n = -1;
    CHECK_OK(MPI_Get_count(&st[0], MPI_INT, &n));
    CHECK(in[0] == left && in[1] == left * 10 && in[2] == left * 100 && in[3] == -1 && n == 3 &&
              st[0].MPI_SOURCE == left && st[0].MPI_TAG == 51,
          "Isendrecv from %d: %d %d %d %d, count %d", left, in[0], in[1], in[2], in[3], n);
    CHECK(buf[0] == right && buf[2] == right + 1000 && buf[4] == right + 2000 && buf[1] == -7 &&
              buf[5] == -7 && st[1].MPI_SOURCE == right,
          "Isendrecv_replace from %d: %d %d %d %d", right, buf[0], buf[1], buf[2], buf[5]);
    CHECK_OK(MPI_Type_free(&every2));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &bar_comm);
    CHECK(size >= 2 && size <= 64, "needs 2..64 ranks");
    test_mprobe();
    p2p_barrier();
    test_cancel();
    p2p_barrier();
    test_get_status_arrays();
    test_ssend();
    test_persistent();
    test_bsend();
    p2p_barrier();
    test_misc();
    test_grequest();
    test_isendrecv();
    p2p_barrier();
    if (rank == 0)
        printf("p2p_semantics: ok\n");
    MPI_Comm_free(&bar_comm);
    MPI_Finalize();
    return 0;
}
