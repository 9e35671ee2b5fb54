/* SPDX-License-Identifier: BSD-3-Clause */
/* The life of a request (2 ranks, any transport): rmp_request_cancel keeps a
 * cancelled receive until its wait, rmp_request_free lets a send or receive finish
 * in the background, rmp_request_get_status reports without freeing, a status
 * names its communicator (rmp_comm_user finds the caller's object again), and a
 * request waited for or freed twice is refused rather than freed twice. */
#include <rmp.h>
#include <string.h>
#include <unistd.h>

#include "../common/t.h"

static int me;
static rmp_comm_t W;

/* Progress until *flag-like condition holds at the receiver: a barrier is not
 * allowed to complete a freed request for us, so poll. */
static void progress_for(double seconds)
{
    double end = rmp_wtime() + seconds;
    while (rmp_wtime() < end)
        rmp_progress();
}

static void test_cancel_keeps(rmp_comm_t c)
{
    if (me == 1) {
        char b[8];
        rmp_request_t r, stale;
        T_RC(rmp_irecv(b, sizeof(b), 0, 77, c, &r));
        int cancelled = -1;
        T_RC(rmp_request_cancel(r, &cancelled));
        T_CHECK(cancelled == 1, "posted receive not cancelled (%d)", cancelled);
        int done = 0;
        rmp_status_t st;
        T_RC(rmp_request_get_status(r, &done, &st));
        T_CHECK(done == 1 && st.error == RMP_ERR_CANCELLED, "cancelled: done %d error %d", done,
                st.error);
        stale = r;
        int rc = rmp_wait(&r, &st);
        T_CHECK(rc == RMP_ERR_CANCELLED, "wait of a cancelled receive: %s", rmp_strerror(rc));
        T_CHECK(r == RMP_REQUEST_NULL && st.comm == c, "wait nulls it, status names its comm");
        rc = rmp_wait(&stale, NULL);
        T_CHECK(rc == RMP_ERR_ARG, "second wait of a freed request: %s", rmp_strerror(rc));
        rc = rmp_request_free(&stale);
        T_CHECK(rc == RMP_ERR_ARG, "free of a freed request: %s", rmp_strerror(rc));
        /* A receive that has matched cannot be cancelled: it completes with the data. */
        int v = 0;
        T_RC(rmp_irecv(&v, sizeof(v), 0, 78, c, &r));
        T_RC(rmp_barrier(c)); /* the sender sends before this barrier */
        done = 0;
        while (!done) { /* matched once it arrived */
            T_RC(rmp_request_get_status(r, &done, NULL));
            rmp_progress();
        }
        T_RC(rmp_request_cancel(r, &cancelled));
        T_CHECK(cancelled == 0, "matched receive cancelled");
        T_RC(rmp_wait(&r, &st));
        T_CHECK(v == 4242 && st.source == 0 && st.tag == 78, "matched receive: %d from %d", v,
                st.source);
    } else {
        int v = 4242;
        T_RC(rmp_send(&v, sizeof(v), 1, 78, c));
        T_RC(rmp_barrier(c));
    }
}

/* get_status reports without freeing; the wait after it gives the same status. */
static void test_get_status(rmp_comm_t c)
{
    if (me == 1) {
        long v = 0;
        rmp_request_t r;
        T_RC(rmp_irecv(&v, sizeof(v), 0, 90, c, &r));
        int done = 1;
        T_RC(rmp_request_get_status(r, &done, NULL));
        T_CHECK(done == 0, "done before the sender sent");
        T_RC(rmp_send(&v, 0, 0, 91, c)); /* go */
        rmp_status_t st;
        for (done = 0; !done;) {
            T_RC(rmp_request_get_status(r, &done, &st));
            rmp_progress();
        }
        T_CHECK(st.source == 0 && st.tag == 90 && st.bytes == sizeof(v) && st.comm == c,
                "get_status: source %d tag %d bytes %zu", st.source, st.tag, st.bytes);
        T_CHECK(v == 123456789L, "data %ld", v);
        rmp_status_t st2;
        T_RC(rmp_request_get_status(r, &done, &st2)); /* still there */
        T_RC(rmp_wait(&r, &st2));
        T_CHECK(st2.source == 0 && st2.tag == 90 && st2.bytes == sizeof(v),
                "wait after get_status");
    } else {
        long v = 123456789L;
        char go;
        T_RC(rmp_recv(&go, 0, 1, 91, c, NULL));
        rmp_request_t s;
        T_RC(rmp_isend(&v, sizeof(v), 1, 90, c, &s));
        rmp_status_t st;
        T_RC(rmp_wait(&s, &st));
        T_CHECK(st.comm == c, "a send's status names its comm");
    }
}

/* A freed send still delivers (rendezvous-sized too); a freed receive still lands. */
static void test_free_active(rmp_comm_t c)
{
    size_t big = 4u << 20;
    unsigned char *b = malloc(big);
    T_CHECK(b != NULL, "malloc");
    if (!b)
        return;
    if (me == 0) {
        for (size_t i = 0; i < big; i++)
            b[i] = (unsigned char)(i * 7 + 1);
        rmp_request_t s;
        T_RC(rmp_isend(b, big, 1, 100, c, &s));
        T_RC(rmp_request_free(&s));
        T_CHECK(s == RMP_REQUEST_NULL, "freed request nulled");
        /* The buffer must stay untouched until the receiver says it has everything. */
        char ack;
        T_RC(rmp_recv(&ack, 1, 1, 101, c, NULL));
        int v = 31337;
        T_RC(rmp_send(&v, sizeof(v), 1, 102, c));
    } else {
        memset(b, 0, big);
        T_RC(rmp_recv(b, big, 0, 100, c, NULL));
        size_t bad = 0;
        for (size_t i = 0; i < big; i++)
            bad += b[i] != (unsigned char)(i * 7 + 1);
        T_CHECK(bad == 0, "freed send: %zu bytes wrong", bad);
        int v = 0;
        rmp_request_t r;
        T_RC(rmp_irecv(&v, sizeof(v), 0, 102, c, &r));
        T_RC(rmp_request_free(&r));
        char ack = 1;
        T_RC(rmp_send(&ack, 1, 0, 101, c));
        double end = rmp_wtime() + 10;
        while (__atomic_load_n(&v, __ATOMIC_RELAXED) != 31337 && rmp_wtime() < end)
            progress_for(0.001);
        T_CHECK(v == 31337, "freed receive never landed (%d)", v);
    }
    free(b);
}

static void test_comm_user(void)
{
    rmp_comm_t d;
    T_RC(rmp_comm_dup(W, &d));
    int obj = 5;
    T_CHECK(rmp_comm_user(d) == NULL, "user pointer set before");
    T_RC(rmp_comm_set_user(d, &obj));
    T_CHECK(rmp_comm_user(d) == &obj, "user pointer lost");
    T_CHECK(rmp_comm_set_user(RMP_COMM_NULL, &obj) != RMP_SUCCESS, "NULL comm accepted");
    T_CHECK(rmp_comm_user(RMP_COMM_NULL) == NULL, "NULL comm has a user pointer");
    test_cancel_keeps(d);
    test_get_status(d);
    test_free_active(d);
    T_RC(rmp_comm_free(&d));
}

int main(int argc, char **argv)
{
    int rc = rmp_init(&argc, &argv);
    if (rc != RMP_SUCCESS) {
        fprintf(stderr, "rmp_init: %s\n", rmp_strerror(rc));
        return 1;
    }
    W = rmp_comm_world();
    me = rmp_comm_rank(W);
    if (rmp_comm_size(W) != 2) {
        fprintf(stderr, "request_test: 2 ranks\n");
        rmp_finalize();
        return 1;
    }
    test_cancel_keeps(W);
    test_comm_user();
    return t_finish();
}
