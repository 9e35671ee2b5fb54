/* SPDX-License-Identifier: BSD-3-Clause */
/* Generalized requests in every completion call: query_fn fills the status returned
 * (and its error is the call's, MPI_ERR_IN_STATUS in the array forms), free_fn is
 * called exactly once when the request is freed (not before query_fn; at
 * Grequest_complete after a Request_free, without a query), cancel_fn is told whether
 * the request completed; completion by another thread ends a blocked wait. */
#include <pthread.h>
#include <string.h>

#include "check.h"

typedef struct {
    int queries, frees, cancels, last_complete;
    int query_err; /* returned by query_fn */
    int freed_before_query;
} gstate_t;

static int query_fn(void *extra, MPI_Status *st)
{
    gstate_t *g = extra;
    g->queries++;
    MPI_Status_set_elements(st, MPI_INT, 7);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 5;
    st->MPI_TAG = 42;
    return g->query_err;
}

static int free_fn(void *extra)
{
    gstate_t *g = extra;
    if (g->queries == 0)
        g->freed_before_query = 1;
    g->frees++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    gstate_t *g = extra;
    g->cancels++;
    g->last_complete = complete;
    return MPI_SUCCESS;
}

static void start(gstate_t *g, MPI_Request *r)
{
    memset(g, 0, sizeof(*g));
    CHECK_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, g, r));
}

static void check_status(const MPI_Status *st, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    CHECK(n == 7 && st->MPI_SOURCE == 5 && st->MPI_TAG == 42, "%s: status %d %d %d", what, n,
          st->MPI_SOURCE, st->MPI_TAG);
}

static void check_done(const gstate_t *g, MPI_Request r, const char *what)
{
    CHECK(r == MPI_REQUEST_NULL, "%s: handle not nulled", what);
    CHECK(g->queries == 1 && g->frees == 1 && !g->freed_before_query,
          "%s: %d queries, %d frees (before query %d)", what, g->queries, g->frees,
          g->freed_before_query);
}

static void *completer(void *arg)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    MPI_Grequest_complete(*(MPI_Request *)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    gstate_t g[3];
    MPI_Request r[3];
    MPI_Status st[3];
    int flag, idx, out, ind[3];

    /* Wait / Test: nothing before completion, the query's status after. */
    start(&g[0], &r[0]);
    CHECK_OK(MPI_Test(&r[0], &flag, &st[0]));
    CHECK(!flag && g[0].queries == 0 && r[0] != MPI_REQUEST_NULL, "Test before complete");
    CHECK_OK(MPI_Grequest_complete(r[0]));
    CHECK_OK(MPI_Request_get_status(r[0], &flag, &st[0]));
    CHECK(flag && g[0].queries == 1 && g[0].frees == 0, "Request_get_status");
    check_status(&st[0], "Request_get_status");
    CHECK_OK(MPI_Test(&r[0], &flag, &st[0]));
    CHECK(flag && g[0].queries == 2 && g[0].frees == 1 && r[0] == MPI_REQUEST_NULL, "Test");
    check_status(&st[0], "Test");

    start(&g[0], &r[0]);
    CHECK_OK(MPI_Grequest_complete(r[0]));
    CHECK_OK(MPI_Wait(&r[0], &st[0]));
    check_status(&st[0], "Wait");
    check_done(&g[0], r[0], "Wait");

    /* Waitall / Testall over three, with an ignored status array too. */
    for (int k = 0; k < 3; k++)
        start(&g[k], &r[k]);
    CHECK_OK(MPI_Grequest_complete(r[0]));
    CHECK_OK(MPI_Grequest_complete(r[2]));
    CHECK_OK(MPI_Testall(3, r, &flag, st));
    CHECK(!flag && g[0].queries == 0 && g[0].frees == 0, "Testall with one incomplete");
    CHECK_OK(MPI_Grequest_complete(r[1]));
    CHECK_OK(MPI_Testall(3, r, &flag, st));
    CHECK(flag, "Testall all complete");
    for (int k = 0; k < 3; k++) {
        check_status(&st[k], "Testall");
        check_done(&g[k], r[k], "Testall");
    }
    for (int k = 0; k < 3; k++) {
        start(&g[k], &r[k]);
        CHECK_OK(MPI_Grequest_complete(r[k]));
    }
    CHECK_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 3; k++)
        check_done(&g[k], r[k], "Waitall");

    /* Waitany / Testany: the complete one only. */
    for (int k = 0; k < 3; k++)
        start(&g[k], &r[k]);
    CHECK_OK(MPI_Testany(3, r, &idx, &flag, &st[0]));
    CHECK(!flag && idx == MPI_UNDEFINED, "Testany none complete");
    CHECK_OK(MPI_Grequest_complete(r[1]));
    CHECK_OK(MPI_Testany(3, r, &idx, &flag, &st[0]));
    CHECK(flag && idx == 1, "Testany: %d %d", flag, idx);
    check_status(&st[0], "Testany");
    check_done(&g[1], r[1], "Testany");
    CHECK(g[0].queries == 0 && g[2].queries == 0, "Testany queried an incomplete request");
    CHECK_OK(MPI_Grequest_complete(r[2]));
    CHECK_OK(MPI_Waitany(3, r, &idx, &st[0]));
    CHECK(idx == 2, "Waitany: %d", idx);
    check_done(&g[2], r[2], "Waitany");

    /* Waitsome / Testsome. */
    start(&g[1], &r[1]);
    start(&g[2], &r[2]);
    CHECK_OK(MPI_Testsome(3, r, &out, ind, st));
    CHECK(out == 0, "Testsome none complete: %d", out);
    CHECK_OK(MPI_Grequest_complete(r[0]));
    CHECK_OK(MPI_Grequest_complete(r[2]));
    CHECK_OK(MPI_Testsome(3, r, &out, ind, st));
    CHECK(out == 2 && ind[0] == 0 && ind[1] == 2, "Testsome: %d", out);
    check_status(&st[1], "Testsome");
    check_done(&g[0], r[0], "Testsome");
    check_done(&g[2], r[2], "Testsome");
    CHECK_OK(MPI_Grequest_complete(r[1]));
    CHECK_OK(MPI_Waitsome(3, r, &out, ind, st));
    CHECK(out == 1 && ind[0] == 1, "Waitsome: %d", out);
    check_done(&g[1], r[1], "Waitsome");

    /* query_fn's error: the call's, or MPI_ERR_IN_STATUS with it in the status. */
    start(&g[0], &r[0]);
    g[0].query_err = MPI_ERR_OTHER;
    CHECK_OK(MPI_Grequest_complete(r[0]));
    int rc = MPI_Wait(&r[0], &st[0]);
    CHECK(rc == MPI_ERR_OTHER, "Wait returns query_fn's error: %d", rc);
    start(&g[0], &r[0]);
    start(&g[1], &r[1]);
    g[1].query_err = MPI_ERR_OTHER;
    CHECK_OK(MPI_Grequest_complete(r[0]));
    CHECK_OK(MPI_Grequest_complete(r[1]));
    rc = MPI_Waitall(2, r, st);
    CHECK(rc == MPI_ERR_IN_STATUS && st[0].MPI_ERROR == MPI_SUCCESS &&
              st[1].MPI_ERROR == MPI_ERR_OTHER,
          "Waitall with a failing query: %d %d %d", rc, st[0].MPI_ERROR, st[1].MPI_ERROR);

    /* Request_free: before completion, free_fn runs at Grequest_complete (no query);
     * after it, at once. */
    start(&g[0], &r[0]);
    MPI_Request keep = r[0];
    CHECK_OK(MPI_Request_free(&r[0]));
    CHECK(r[0] == MPI_REQUEST_NULL && g[0].frees == 0, "Request_free of a running greq");
    CHECK_OK(MPI_Grequest_complete(keep));
    CHECK(g[0].frees == 1 && g[0].queries == 0, "free_fn at complete: %d frees %d queries",
          g[0].frees, g[0].queries);
    start(&g[0], &r[0]);
    CHECK_OK(MPI_Grequest_complete(r[0]));
    CHECK_OK(MPI_Request_free(&r[0]));
    CHECK(g[0].frees == 1 && g[0].queries == 0, "Request_free of a complete greq");

    /* Cancel tells cancel_fn whether Grequest_complete was called. */
    start(&g[0], &r[0]);
    CHECK_OK(MPI_Cancel(&r[0]));
    CHECK(g[0].cancels == 1 && g[0].last_complete == 0, "cancel before complete");
    CHECK_OK(MPI_Grequest_complete(r[0]));
    CHECK_OK(MPI_Cancel(&r[0]));
    CHECK(g[0].cancels == 2 && g[0].last_complete == 1, "cancel after complete");
    CHECK_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(g[0].frees == 1, "free after cancel");

    /* Completing twice is an error. */
    start(&g[0], &r[0]);
    CHECK_OK(MPI_Grequest_complete(r[0]));
    CHECK(MPI_Grequest_complete(r[0]) != MPI_SUCCESS, "second Grequest_complete");
    CHECK_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));

    /* Another thread completes it while Wait blocks. */
    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t t;
        start(&g[0], &r[0]);
        MPI_Request h = r[0];
        pthread_create(&t, NULL, completer, &h);
        CHECK_OK(MPI_Wait(&r[0], &st[0]));
        pthread_join(t, NULL);
        check_done(&g[0], r[0], "Wait completed by a thread");
    }
    MPI_Finalize();
    return 0;
}
