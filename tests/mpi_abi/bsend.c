/* SPDX-License-Identifier: BSD-3-Clause */
/* Buffered sends: a buffer of exactly the standard's size (bytes + MPI_BSEND_OVERHEAD
 * per message) holds the messages in blocking, nonblocking and persistent mode; one
 * byte less fails with MPI_ERR_BUFFER at the call (nothing half sent); a communicator's
 * buffer takes precedence over the process's; MPI_BUFFER_AUTOMATIC; flushes.
 * Rank 0 sends to rank 1. */
#include <string.h>

#include "check.h"

enum { N = 3, LEN = 1 << 16 }; /* 256 KiB: rendezvous, held until received */

static int rank;

static void fill(int *b, int seed)
{
    for (int i = 0; i < LEN; i++)
        b[i] = seed * 100000 + i;
}

static void expect(int src, int tag, int seed, MPI_Comm comm)
{
    static int b[LEN];
    CHECK_OK(MPI_Recv(b, LEN, MPI_INT, src, tag, comm, MPI_STATUS_IGNORE));
    for (int i = 0; i < LEN; i++)
        CHECK(b[i] == seed * 100000 + i, "tag %d seed %d: [%d] = %d", tag, seed, i, b[i]);
}

static int errclass(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

/* N messages of LEN ints fill a buffer of exactly N * (size + overhead); the next one
 * fails until the receiver took them (the receiver waits for a barrier). */
static void exact(int how)
{
    int size = (int)(LEN * sizeof(int)) + MPI_BSEND_OVERHEAD;
    char *buf = malloc((size_t)size * N);
    static int data[N + 1][LEN];
    if (rank == 0) {
        MPI_Request req[N + 1];
        CHECK_OK(MPI_Buffer_attach(buf, size * N));
        for (int k = 0; k < N; k++) {
            fill(data[k], how * 10 + k);
            if (how == 0)
                CHECK_OK(MPI_Bsend(data[k], LEN, MPI_INT, 1, k, MPI_COMM_WORLD));
            else if (how == 1)
                CHECK_OK(MPI_Ibsend(data[k], LEN, MPI_INT, 1, k, MPI_COMM_WORLD, &req[k]));
            else {
                CHECK_OK(MPI_Bsend_init(data[k], LEN, MPI_INT, 1, k, MPI_COMM_WORLD, &req[k]));
                CHECK_OK(MPI_Start(&req[k]));
            }
        }
        if (how == 2)
            CHECK_OK(MPI_Bsend_init(data[N], LEN, MPI_INT, 1, N, MPI_COMM_WORLD, &req[N]));
        /* Full: one more message (even of 0 bytes) does not fit; it is reported now. */
        int rc = MPI_Bsend(data[N], 0, MPI_INT, 1, N, MPI_COMM_WORLD);
        CHECK(errclass(rc) == MPI_ERR_BUFFER, "Bsend into a full buffer: %d", rc);
        MPI_Request r2;
        rc = MPI_Ibsend(data[N], 1, MPI_INT, 1, N, MPI_COMM_WORLD, &r2);
        CHECK(errclass(rc) == MPI_ERR_BUFFER, "Ibsend into a full buffer: %d", rc);
        if (how == 2) {
            rc = MPI_Start(&req[N]);
            CHECK(errclass(rc) == MPI_ERR_BUFFER, "Start of a Bsend_init into a full buffer");
            /* It stayed inactive: a wait returns at once, empty. */
            MPI_Status st;
            CHECK_OK(MPI_Wait(&req[N], &st));
        }
        if (how >= 1)
            CHECK_OK(MPI_Waitall(N, req, MPI_STATUSES_IGNORE));
        MPI_Barrier(MPI_COMM_WORLD);
        void *b;
        int bs;
        CHECK_OK(MPI_Buffer_detach(&b, &bs)); /* waits for the N messages */
        CHECK(b == buf && bs == size * N, "detach gave %p %d", b, bs);
        if (how == 2) { /* restarts reuse the space: each time one message fits */
            CHECK_OK(MPI_Buffer_attach(buf, size));
            for (int k = 0; k < 3; k++) {
                fill(data[0], 500 + k);
                CHECK_OK(MPI_Start(&req[0]));
                CHECK_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
                CHECK_OK(MPI_Buffer_flush());
            }
            CHECK_OK(MPI_Buffer_detach(&b, &bs));
            for (int k = 0; k <= N; k++)
                CHECK_OK(MPI_Request_free(&req[k]));
        }
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = N - 1; k >= 0; k--) /* any order: they are all buffered */
            expect(0, k, how * 10 + k, MPI_COMM_WORLD);
        if (how == 2)
            for (int k = 0; k < 3; k++)
                expect(0, 0, 500 + k, MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(buf);
}

/* A communicator's buffer is used before the process's; MPI_BUFFER_AUTOMATIC. */
static void per_comm(void)
{
    MPI_Comm dup;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int size = (int)(LEN * sizeof(int)) + MPI_BSEND_OVERHEAD;
    char *cbuf = malloc((size_t)size);
    static int data[2][LEN];
    if (rank == 0) {
        CHECK_OK(MPI_Comm_attach_buffer(dup, cbuf, size));
        int rc = MPI_Comm_attach_buffer(dup, cbuf, size);
        CHECK(errclass(rc) == MPI_ERR_BUFFER, "second attach to a communicator: %d", rc);
        fill(data[0], 70);
        CHECK_OK(MPI_Bsend(data[0], LEN, MPI_INT, 1, 0, dup));
        /* The process has no buffer: world's Bsend fails, dup's buffer is full. */
        rc = MPI_Bsend(data[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        CHECK(errclass(rc) == MPI_ERR_BUFFER, "world Bsend without a process buffer: %d", rc);
        rc = MPI_Bsend(data[0], 1, MPI_INT, 1, 0, dup);
        CHECK(errclass(rc) == MPI_ERR_BUFFER, "dup Bsend into its full buffer: %d", rc);
        /* A process buffer does not help dup, whose own buffer takes precedence. */
        CHECK_OK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
        rc = MPI_Bsend(data[0], 1, MPI_INT, 1, 0, dup);
        CHECK(errclass(rc) == MPI_ERR_BUFFER, "dup Bsend with a process buffer: %d", rc);
        fill(data[1], 71);
        CHECK_OK(MPI_Bsend(data[1], LEN, MPI_INT, 1, 1, MPI_COMM_WORLD)); /* automatic */
        MPI_Request fr;
        CHECK_OK(MPI_Comm_iflush_buffer(dup, &fr));
        int flag = 1;
        CHECK_OK(MPI_Test(&fr, &flag, MPI_STATUS_IGNORE));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_OK(MPI_Wait(&fr, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Comm_flush_buffer(dup));
        MPI_Request pf;
        CHECK_OK(MPI_Buffer_iflush(&pf));
        CHECK_OK(MPI_Wait(&pf, MPI_STATUS_IGNORE));
        void *b;
        int bs;
        CHECK_OK(MPI_Buffer_detach(&b, &bs));
        CHECK(b == MPI_BUFFER_AUTOMATIC, "automatic detach gave %p", b);
        MPI_Count cs;
        CHECK_OK(MPI_Comm_detach_buffer_c(dup, &b, &cs));
        CHECK(b == cbuf && cs == size, "comm detach gave %p %lld", b, (long long)cs);
        /* Automatic per communicator: many messages beyond any fixed size. */
        CHECK_OK(MPI_Comm_attach_buffer(dup, MPI_BUFFER_AUTOMATIC, 0));
        for (int k = 0; k < 20; k++)
            CHECK_OK(MPI_Bsend(data[k & 1], LEN, MPI_INT, 1, 2, dup));
        CHECK_OK(MPI_Barrier(dup));
        /* Freed with messages in flight: they still arrive. */
        CHECK_OK(MPI_Comm_free(&dup));
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        expect(0, 1, 71, MPI_COMM_WORLD);
        expect(0, 0, 70, dup);
        CHECK_OK(MPI_Barrier(dup));
        for (int k = 0; k < 20; k++)
            expect(0, 2, 70 + (k & 1), dup);
        CHECK_OK(MPI_Comm_free(&dup));
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_OK(MPI_Barrier(dup));
        CHECK_OK(MPI_Comm_free(&dup));
    }
    free(cbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int how = 0; how < 3; how++)
        exact(how);
    per_comm();
    MPI_Finalize();
    return 0;
}
