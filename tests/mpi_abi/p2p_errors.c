/* SPDX-License-Identifier: BSD-3-Clause */
/* Bad input to the point-to-point and datatype calls: each gives the right
 * error class through the communicator's error handler (a user handler that
 * records the class), nothing crashes, and a truncated receive writes nothing
 * past the buffer (contiguous and derived types, blocking and nonblocking).
 * Run with 2..4 ranks. */
#include <stdint.h>
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
static int last_class = -1, handler_calls;

static void record(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    MPI_Error_class(*code, &last_class);
    handler_calls++;
}

/* The call returned rc: it must be of class cls and the handler must have seen it. */
#define EXPECT(call, cls)                                                                  \
    do {                                                                                   \
        int calls0 = handler_calls, c_;                                                    \
        int rc_ = (call);                                                                  \
        MPI_Error_class(rc_, &c_);                                                         \
        CHECK(c_ == (cls), "%s returned class %d, expected %d (%s)", #call, c_, cls, #cls); \
        CHECK(handler_calls == calls0 + 1 && last_class == (cls),                          \
              "%s: handler calls %d, class %d", #call, handler_calls - calls0, last_class); \
    } while (0)

#define GUARD 64

static void truncation(void)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    /* 100 ints into room for 50, with a guard zone behind the buffer. */
    int sbuf[100];
    for (int i = 0; i < 100; i++)
        sbuf[i] = i + 1;
    unsigned char *rb = malloc(50 * sizeof(int) + GUARD);
    for (int round = 0; round < 4; round++) {
        memset(rb, 0xab, 50 * sizeof(int) + GUARD);
        MPI_Request r;
        MPI_Status st;
        if (rank % 2 == 0) {
            MPI_Send(sbuf, 100, MPI_INT, peer, 60 + round, MPI_COMM_WORLD);
            continue;
        }
        if (round == 0) {
            EXPECT(MPI_Recv(rb, 50, MPI_INT, peer, 60, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
        } else if (round == 1) {
            MPI_Irecv(rb, 50, MPI_INT, peer, 61, MPI_COMM_WORLD, &r);
            EXPECT(MPI_Wait(&r, &st), MPI_ERR_TRUNCATE);
        } else if (round == 2) {
            /* derived type: 25 blocks of 2 ints = 50 ints of room */
            MPI_Datatype v;
            MPI_Type_contiguous(2, MPI_INT, &v);
            MPI_Type_commit(&v);
            EXPECT(MPI_Recv(rb, 25, v, peer, 62, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
            MPI_Type_free(&v);
        } else {
            MPI_Datatype v;
            MPI_Type_vector(25, 2, 2, MPI_INT, &v); /* contiguous layout through a vector */
            MPI_Type_commit(&v);
            MPI_Datatype s;
            MPI_Type_create_resized(v, 0, 50 * sizeof(int), &s);
            MPI_Type_commit(&s);
            MPI_Irecv(rb, 1, s, peer, 63, MPI_COMM_WORLD, &r);
            EXPECT(MPI_Wait(&r, &st), MPI_ERR_TRUNCATE);
            MPI_Type_free(&v);
            MPI_Type_free(&s);
        }
        for (int i = 0; i < 50; i++) {
            int v;
            memcpy(&v, rb + i * sizeof(int), sizeof(int));
            CHECK(v == i + 1, "round %d: int %d is %d", round, i, v);
        }
        for (int i = 0; i < GUARD; i++)
            CHECK(rb[50 * sizeof(int) + i] == 0xab, "round %d: byte %d past the buffer written",
                  round, i);
    }
    free(rb);
}

/* 3 bytes into a receive of a non-contiguous type of MPI_INTs: not a whole element,
 * the type signatures differ (MPI_ERR_TYPE), blocking, nonblocking and persistent. */
static void partial_elements(void)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    int blens[3] = {1, 2, 1}, disps[3] = {4, 8, 16}, rb[32];
    MPI_Datatype idx;
    MPI_Type_indexed(3, blens, disps, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    char sb[3] = {1, 2, 3};
    for (int round = 0; round < 3; round++) {
        MPI_Request r;
        MPI_Status st;
        if (rank % 2 == 0) {
            MPI_Send(sb, 3, MPI_CHAR, peer, 90 + round, MPI_COMM_WORLD);
            continue;
        }
        if (round == 0) {
            EXPECT(MPI_Recv(rb, 1, idx, peer, 90, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
        } else if (round == 1) {
            MPI_Irecv(rb, 1, idx, peer, 91, MPI_COMM_WORLD, &r);
            EXPECT(MPI_Wait(&r, &st), MPI_ERR_TYPE);
        } else {
            MPI_Recv_init(rb, 1, idx, peer, 92, MPI_COMM_WORLD, &r);
            MPI_Start(&r);
            EXPECT(MPI_Wait(&r, &st), MPI_ERR_TYPE);
            MPI_Request_free(&r);
        }
    }
    MPI_Type_free(&idx);
}

/* An error completing a request goes to the handler of the request's communicator,
 * not to MPI_COMM_WORLD's: Wait, Test and Waitall of a truncated Irecv on a duplicate
 * with a handler of its own. */
static int dup_calls, dup_class;
static void record_dup(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    MPI_Error_class(*code, &dup_class);
    dup_calls++;
}

static void request_handler(void)
{
    int peer = rank ^ 1;
    MPI_Comm d; /* collective: every rank, paired or not */
    MPI_Errhandler eh;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_create_errhandler(record_dup, &eh);
    MPI_Comm_set_errhandler(d, eh);
    int big[8] = {1, 2, 3, 4, 5, 6, 7, 8}, small[2];
    for (int round = 0; round < 3 && peer < size; round++) {
        if (rank % 2 == 0) {
            MPI_Send(big, 8, MPI_INT, peer, 40 + round, d);
            continue;
        }
        MPI_Request r;
        MPI_Status st[1];
        int world0 = handler_calls, dup0 = dup_calls, rc, cls, flag = 0;
        MPI_Irecv(small, 2, MPI_INT, peer, 40 + round, d, &r);
        if (round == 0) {
            rc = MPI_Wait(&r, st);
        } else if (round == 1) {
            do
                rc = MPI_Test(&r, &flag, st);
            while (!flag && rc == MPI_SUCCESS);
        } else {
            rc = MPI_Waitall(1, &r, st);
            CHECK(st[0].MPI_ERROR == MPI_ERR_TRUNCATE, "Waitall status error %d",
                  st[0].MPI_ERROR);
        }
        MPI_Error_class(rc, &cls);
        CHECK(cls == (round == 2 ? MPI_ERR_IN_STATUS : MPI_ERR_TRUNCATE),
              "round %d: class %d", round, cls);
        CHECK(dup_calls == dup0 + 1 && handler_calls == world0,
              "round %d: the duplicate's handler ran %d times, world's %d", round,
              dup_calls - dup0, handler_calls - world0);
        CHECK(r == MPI_REQUEST_NULL, "round %d: request not freed", round);
        CHECK(small[0] == 1 && small[1] == 2, "round %d: data %d %d", round, small[0], small[1]);
    }
    /* Waitall over both kinds of request with the error in the middle: an rmp request,
     * a truncated one, a non-contiguous (MPI-layer) one after it; every status set. */
    if (peer < size && rank % 2 == 0) {
        MPI_Send(big, 2, MPI_INT, peer, 50, d);
        MPI_Send(big, 8, MPI_INT, peer, 51, d);
        MPI_Send(big, 2, MPI_INT, peer, 52, d);
    } else if (peer < size) {
        int a[2] = {0, 0}, t[2], v[3] = {0, -1, 0}, dup0 = dup_calls, cls;
        MPI_Datatype vec;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        MPI_Request r[3];
        MPI_Status st[3];
        MPI_Irecv(a, 2, MPI_INT, peer, 50, d, &r[0]);
        MPI_Irecv(t, 2, MPI_INT, peer, 51, d, &r[1]);
        MPI_Irecv(v, 1, vec, peer, 52, d, &r[2]);
        int rc = MPI_Waitall(3, r, st);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_IN_STATUS && dup_calls == dup0 + 1, "mixed Waitall: class %d, %d calls",
              cls, dup_calls - dup0);
        CHECK(st[0].MPI_ERROR == MPI_SUCCESS && st[1].MPI_ERROR == MPI_ERR_TRUNCATE &&
                  st[2].MPI_ERROR == MPI_SUCCESS,
              "mixed Waitall statuses %d %d %d", st[0].MPI_ERROR, st[1].MPI_ERROR, st[2].MPI_ERROR);
        CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL && r[2] == MPI_REQUEST_NULL,
              "mixed Waitall: requests not freed");
        CHECK(a[0] == 1 && a[1] == 2 && v[0] == 1 && v[1] == -1 && v[2] == 2,
              "mixed Waitall data %d %d / %d %d %d", a[0], a[1], v[0], v[1], v[2]);
        MPI_Type_free(&vec);
    }
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &bar_comm);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(record, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);

    int buf[16] = {0}, flag;
    MPI_Request r;
    MPI_Status st;
    /* counts, types, tags, ranks */
    EXPECT(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Recv(buf, -5, MPI_INT, 0, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Isend(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, &r), MPI_ERR_TYPE);
    EXPECT(MPI_Send(buf, 1, (MPI_Datatype)(intptr_t)0x2ff, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MPI_Datatype t, freed;
    MPI_Type_contiguous(2, MPI_INT, &t);
    EXPECT(MPI_Send(buf, 1, t, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE); /* not committed */
    MPI_Type_commit(&t);
    freed = t;
    MPI_Type_free(&t);
    EXPECT(MPI_Send(buf, 1, freed, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE); /* freed */
    EXPECT(MPI_Type_free(&freed), MPI_ERR_TYPE);
    MPI_Datatype predef = MPI_INT;
    EXPECT(MPI_Type_free(&predef), MPI_ERR_TYPE);
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, -3, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
    int *ub, ok;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &ok);
    CHECK(ok && *ub >= 32767, "MPI_TAG_UB");
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, 0, *ub + 1, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
    EXPECT(MPI_Send(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT(MPI_Ssend(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Probe(size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT(MPI_Iprobe(0, -9, MPI_COMM_WORLD, &flag, &st), MPI_ERR_TAG);
    /* requests */
    MPI_Request zero = (MPI_Request)0;
    EXPECT(MPI_Wait(&zero, &st), MPI_ERR_REQUEST);
    static uint64_t not_a_request[8]; /* readable memory without a request's magic */
    MPI_Request garbage = (MPI_Request)(void *)not_a_request;
    EXPECT(MPI_Test(&garbage, &flag, &st), MPI_ERR_REQUEST);
    MPI_Irecv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &r);
    MPI_Request stale = r;
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    EXPECT(MPI_Wait(&stale, &st), MPI_ERR_REQUEST); /* freed */
    EXPECT(MPI_Start(&stale), MPI_ERR_REQUEST);
    /* datatype constructors */
    EXPECT(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_vector(2, 1, 1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    int sizes[2] = {4, 4}, subs[2] = {5, 1}, starts[2] = {0, 0};
    EXPECT(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t),
           MPI_ERR_ARG);
    /* Pack into a buffer too small */
    int pos = 0;
    char small[8];
    EXPECT(MPI_Pack(buf, 4, MPI_INT, small, 8, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    CHECK(pos == 0, "Pack moved the position on error");
    /* a bad communicator goes to MPI_COMM_WORLD's handler */
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, (MPI_Comm)(intptr_t)0x1ff), MPI_ERR_COMM);

    p2p_barrier();
    truncation();
    p2p_barrier();
    partial_elements();
    p2p_barrier();
    request_handler();
    p2p_barrier();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    if (rank == 0)
        printf("p2p_errors: ok (%d errors reported through the handler)\n", handler_calls);
    MPI_Comm_free(&bar_comm);
    MPI_Finalize();
    return 0;
}
