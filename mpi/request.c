/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI requests: completion (Wait/Test and their any/all/some forms),
 * Request_free, Request_get_status, Cancel (generalized requests: greq.c). Every function
 * takes both kinds of handle (mpii_p2p.h): an mpii_req_t, or an rmp request with
 * its low bit set, which goes straight to rmp_wait/rmp_test. */
#include <stdlib.h>

#include "mpii_base.h"
#include "mpii_p2p.h"

/* ---- completion of one handle ---- */

static void req_status_out(const mpii_req_t *r, MPI_Status *st, int with_error)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    int err = st->MPI_ERROR;
    *st = r->status;
    st->MPI_ERROR = with_error ? r->err : err;
}

/* r is done: give its status, free it or make it inactive, return its error class. */
static int req_finish(MPI_Request *h, mpii_req_t *r, MPI_Status *st, int with_error)
{
    int ferr = MPI_SUCCESS;
    if (MPII_UNLIKELY(r->kind == MPII_REQ_GREQ))
        mpii_greq_query(r);
    int err = r->err;
    req_status_out(r, st, with_error);
    if (MPII_UNLIKELY(r->kind == MPII_REQ_GREQ)) {
        ferr = mpii_greq_free_fn(r);
        mpii_req_free(r);
        *h = MPI_REQUEST_NULL;
    } else if (r->persistent) {
        r->kind = MPII_REQ_DONE; /* inactive: completes at once with an empty status */
        r->active = 0;
        r->err = MPI_SUCCESS;
        mpii_status_empty(&r->status);
    } else {
        mpii_req_free(r);
        *h = MPI_REQUEST_NULL;
    }
    return err != MPI_SUCCESS ? err : ferr;
}

static int req_bad(const char *fn, MPI_Request h)
{
    return mpii_err_comm(NULL, MPI_ERR_REQUEST, fn, "invalid request handle %p", (void *)h);
}

static int req_err(mpii_comm_t *c, int err, const char *fn)
{
    return mpii_err_comm(c, err, fn, "%s",
                         err == MPI_ERR_TRUNCATE ? "message truncated: longer than the buffer"
                                                 : "the request failed");
}

/* The standard's empty status: any source and tag, MPI_SUCCESS, count 0. */
static void req_null_status(MPI_Status *st)
{
    if (st != MPI_STATUS_IGNORE)
        mpii_status_empty(st);
}

/* ---- handles that are rmp requests ---- */

/* A completed rmp request, freed by rmp: its status out, the handle nulled, its error
 * class returned (a cancelled receive: success, the status says cancelled); *ec its
 * communicator, for the error handler. */
static int req_rr_done(MPI_Request *h, int rc, const rmp_status_t *s, MPI_Status *st,
                       int with_error, mpii_comm_t **ec)
{
    *h = MPI_REQUEST_NULL;
    int err = MPII_LIKELY(rc == RMP_SUCCESS) ? MPI_SUCCESS : mpii_err_from_rmp(rc);
    if (st != MPI_STATUS_IGNORE) {
        int keep = st->MPI_ERROR;
        if (MPII_UNLIKELY(rc == RMP_ERR_CANCELLED)) {
            mpii_status_empty(st);
            st->MPI_internal[2] = 1;
        } else {
            mpii_status_set(st, s->source, s->tag, err, (MPI_Count)s->bytes);
        }
        st->MPI_ERROR = with_error ? err : keep;
    }
    if (MPII_UNLIKELY(err != MPI_SUCCESS) && ec)
        *ec = mpii_comm_of_rr(s);
    return err;
}

/* rmp could not wait for the request (a freed handle, RMP_TIMEOUT): it is still the
 * caller's, unchanged. */
static int req_rr_fail(MPI_Request h, int rc, const char *fn)
{
    if (rc == RMP_ERR_ARG)
        return mpii_err_comm(NULL, MPI_ERR_REQUEST, fn, "invalid request handle %p (freed?)",
                             (void *)h);
    return mpii_err_comm(NULL, mpii_err_from_rmp(rc), fn, "%s", rmp_strerror(rc));
}

/* Block until the rmp request of *h completes, then as req_rr_done. *failed: rmp could
 * not wait (the error is reported already and returned). */
static int req_rr_wait(MPI_Request *h, MPI_Status *st, int with_error, mpii_comm_t **ec,
                       int *failed, const char *fn)
{
    rmp_request_t rr = mpii_req_rr(*h);
    rmp_status_t s;
    int rc = rmp_wait(&rr, &s);
    if (MPII_UNLIKELY(rr != RMP_REQUEST_NULL)) {
        *failed = 1;
        return req_rr_fail(*h, rc, fn);
    }
    return req_rr_done(h, rc, &s, st, with_error, ec);
}

/* Has the rmp request of h completed? (No progress, nothing freed; -1: a bad handle.) */
static int req_rr_complete(MPI_Request h)
{
    int done = 0;
    if (rmp_request_get_status(mpii_req_rr(h), &done, NULL) != RMP_SUCCESS)
        return -1;
    return done;
}

/* Finish the complete (or, for an rmp request, waited-for) request *h of either kind:
 * its status out, *c its communicator; *failed when rmp could not wait (reported). */
static int req_finish_any(MPI_Request *h, MPI_Status *st, int with_error, mpii_comm_t **c,
                          int *failed, const char *fn)
{
    if (mpii_req_is_rr(*h))
        return req_rr_wait(h, st, with_error, c, failed, fn);
    mpii_req_t *r = (mpii_req_t *)*h;
    *c = r->comm;
    return req_finish(h, r, st, with_error);
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!request)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Wait", "request is NULL");
    if (MPII_LIKELY(mpii_req_is_rr(*request))) {
        if (!mpii_req_rr_plausible(*request))
            return req_bad("MPI_Wait", *request);
        mpii_comm_t *c = NULL;
        int failed = 0;
        int err = req_rr_wait(request, status, 0, &c, &failed, "MPI_Wait");
        return MPII_LIKELY(err == MPI_SUCCESS) || failed ? err : req_err(c, err, "MPI_Wait");
    }
    if (*request == MPI_REQUEST_NULL) {
        req_null_status(status);
        return MPI_SUCCESS;
    }
    mpii_req_t *r = mpii_req(*request);
    if (!r)
        return req_bad("MPI_Wait", *request);
    if (MPII_UNLIKELY(__atomic_load_n(&mpii_req_orphans, __ATOMIC_RELAXED) != NULL))
        mpii_req_reap();
    mpii_req_wait(r);
    mpii_comm_t *c = r->comm;
    int err = req_finish(request, r, status, 0);
    return MPII_LIKELY(err == MPI_SUCCESS) ? MPI_SUCCESS : req_err(c, err, "MPI_Wait");
}
MPII_WEAK(Wait)

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!request || !flag)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Test", "NULL argument");
    if (mpii_req_is_rr(*request)) {
        if (!mpii_req_rr_plausible(*request))
            return req_bad("MPI_Test", *request);
        rmp_request_t rr = mpii_req_rr(*request);
        rmp_status_t s;
        int done = 0;
        int rc = rmp_test(&rr, &done, &s);
        if (!done) {
            *flag = 0;
            return rc == RMP_SUCCESS ? MPI_SUCCESS : req_rr_fail(*request, rc, "MPI_Test");
        }
        *flag = 1;
        mpii_comm_t *c = NULL;
        int err = req_rr_done(request, rc, &s, status, 0, &c);
        return err == MPI_SUCCESS ? MPI_SUCCESS : req_err(c, err, "MPI_Test");
    }
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        req_null_status(status);
        return MPI_SUCCESS;
    }
    mpii_req_t *r = mpii_req(*request);
    if (!r)
        return req_bad("MPI_Test", *request);
    if (MPII_UNLIKELY(__atomic_load_n(&mpii_req_orphans, __ATOMIC_RELAXED) != NULL))
        mpii_req_reap();
    if (!mpii_req_test(r)) {
        *flag = 0;
        rmp_progress();
        return MPI_SUCCESS;
    }
    *flag = 1;
    mpii_comm_t *c = r->comm;
    int err = req_finish(request, r, status, 0);
    return err == MPI_SUCCESS ? MPI_SUCCESS : req_err(c, err, "MPI_Test");
}
MPII_WEAK(Test)

/* Validate an array of handles; *active: how many are not null. */
static int req_check_array(int count, MPI_Request reqs[], const char *fn, int *active)
{
    if (count < 0)
        return mpii_err_comm(NULL, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (count > 0 && !reqs)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "array_of_requests is NULL");
    *active = 0;
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        if (mpii_req_is_rr(reqs[i])) {
            if (!mpii_req_rr_plausible(reqs[i]))
                return mpii_err_comm(NULL, MPI_ERR_REQUEST, fn, "invalid request at index %d",
                                     i);
            (*active)++;
            continue;
        }
        mpii_req_t *r = mpii_req(reqs[i]);
        if (!r)
            return mpii_err_comm(NULL, MPI_ERR_REQUEST, fn, "invalid request at index %d", i);
        if (!(r->persistent && !r->active))
            (*active)++;
    }
    if (MPII_UNLIKELY(__atomic_load_n(&mpii_req_orphans, __ATOMIC_RELAXED) != NULL))
        mpii_req_reap();
    return MPI_SUCCESS;
}

static int req_inactive(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return 1;
    if (mpii_req_is_rr(h))
        return 0;
    mpii_req_t *r = (mpii_req_t *)h;
    return r->persistent && !r->active;
}

static int req_all_done_from(int i, int first_err, mpii_comm_t *ec, int count,
                             MPI_Request reqs[], MPI_Status sts[], int wait, const char *fn);

/* Finish every request of the array, waiting for each first when wait is set (else
 * they are all complete); errors are reported with MPI_ERR_IN_STATUS (statuses carry
 * each one's class). */
static int req_all_done(int count, MPI_Request reqs[], MPI_Status sts[], int wait,
                        const char *fn)
{
    return req_all_done_from(0, MPI_SUCCESS, NULL, count, reqs, sts, wait, fn);
}

/* req_all_done from index i on, the first i finished already (first_err, ec: their
 * first error and its communicator). */
static int req_all_done_from(int i, int first_err, mpii_comm_t *ec, int count,
                             MPI_Request reqs[], MPI_Status sts[], int wait, const char *fn)
{
    for (; i < count; i++) {
        MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
        if (req_inactive(reqs[i])) {
            if (reqs[i] != MPI_REQUEST_NULL)
                req_finish(&reqs[i], (mpii_req_t *)reqs[i], st, 1);
            else if (st)
                mpii_status_empty(st);
            continue;
        }
        mpii_comm_t *c = NULL;
        int failed = 0; /* an rmp request waits, or returns at once when complete */
        if (wait && !mpii_req_is_rr(reqs[i]))
            mpii_req_wait((mpii_req_t *)reqs[i]);
        int err = req_finish_any(&reqs[i], st, 1, &c, &failed, fn);
        if (failed)
            return err;
        if (err != MPI_SUCCESS && first_err == MPI_SUCCESS) {
            first_err = err;
            ec = c;
        }
    }
    if (first_err == MPI_SUCCESS)
        return MPI_SUCCESS;
    return mpii_err_comm(ec, MPI_ERR_IN_STATUS, fn, "a request failed: %s (see the statuses)",
                         mpii_err_name(first_err));
}

/* Is the active request h complete? (rmp requests: no progress; others: mpii_req_test.) */
static int req_complete(MPI_Request h)
{
    return mpii_req_is_rr(h) ? req_rr_complete(h) > 0 : mpii_req_test((mpii_req_t *)h);
}

int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status sts[])
{
    /* The osu_bw case first, in one pass: rmp requests, each waited for by rmp; the
     * rest of the array (another kind of handle) the general way from where it stops. */
    int i = 0, first_err = MPI_SUCCESS;
    mpii_comm_t *ec = NULL;
    if (MPII_LIKELY(count > 0 && reqs))
        for (; i < count && mpii_req_rr_plausible(reqs[i]); i++) {
            rmp_request_t rr = mpii_req_rr(reqs[i]);
            rmp_status_t s;
            int rc = rmp_wait(&rr, &s);
            if (MPII_UNLIKELY(rr != RMP_REQUEST_NULL))
                return req_rr_fail(reqs[i], rc, "MPI_Waitall");
            if (MPII_LIKELY(rc == RMP_SUCCESS && sts == MPI_STATUSES_IGNORE)) {
                reqs[i] = MPI_REQUEST_NULL;
                continue;
            }
            mpii_comm_t *c = NULL;
            int err = req_rr_done(&reqs[i], rc, &s,
                                  sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i], 1, &c);
            if (err != MPI_SUCCESS && first_err == MPI_SUCCESS) {
                first_err = err;
                ec = c;
            }
        }
    if (MPII_LIKELY(i == count && first_err == MPI_SUCCESS))
        return MPI_SUCCESS;
    int active;
    int rc = req_check_array(count - i, reqs ? reqs + i : NULL, "MPI_Waitall", &active);
    if (rc != MPI_SUCCESS)
        return rc;
    return req_all_done_from(i, first_err, ec, count, reqs, sts, 1, "MPI_Waitall");
}
MPII_WEAK(Waitall)

int PMPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    int active;
    int rc = req_check_array(count, reqs, "MPI_Testall", &active);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!flag)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Testall", "flag is NULL");
    /* Nothing is finished unless everything is complete: a first pass without progress,
     * then progress and a second one. */
    int all = 1;
    for (int pass = 0; pass < 2; pass++) {
        all = 1;
        for (int i = 0; i < count && all; i++)
            if (!req_inactive(reqs[i]) && !req_complete(reqs[i]))
                all = 0;
        if (all)
            break;
        if (pass == 0)
            rmp_progress();
    }
    *flag = all;
    if (!all)
        return MPI_SUCCESS;
    return req_all_done(count, reqs, sts, 0, "MPI_Testall");
}
MPII_WEAK(Testall)

/* One pass over the array: index of a done active request, or MPI_UNDEFINED. */
static int req_find_done(int count, MPI_Request reqs[])
{
    for (int i = 0; i < count; i++)
        if (!req_inactive(reqs[i]) && req_complete(reqs[i]))
            return i;
    return MPI_UNDEFINED;
}

static int req_any(int count, MPI_Request reqs[], int *indx, int *flag, MPI_Status *st,
                   int block, const char *fn)
{
    int active;
    int rc = req_check_array(count, reqs, fn, &active);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!indx || (!block && !flag))
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "NULL argument");
    if (active == 0) {
        *indx = MPI_UNDEFINED;
        if (flag)
            *flag = 1;
        req_null_status(st);
        return MPI_SUCCESS;
    }
    int i;
    while ((i = req_find_done(count, reqs)) == MPI_UNDEFINED) {
        rmp_progress();
        if (!block) {
            *flag = 0;
            *indx = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
    }
    if (flag)
        *flag = 1;
    *indx = i;
    mpii_comm_t *c = NULL;
    int failed = 0;
    int err = req_finish_any(&reqs[i], st, 0, &c, &failed, fn);
    if (failed)
        return err;
    return err == MPI_SUCCESS ? MPI_SUCCESS : req_err(c, err, fn);
}

int PMPI_Waitany(int count, MPI_Request reqs[], int *indx, MPI_Status *status)
{
    return req_any(count, reqs, indx, NULL, status, 1, "MPI_Waitany");
}
MPII_WEAK(Waitany)

int PMPI_Testany(int count, MPI_Request reqs[], int *indx, int *flag, MPI_Status *status)
{
    return req_any(count, reqs, indx, flag, status, 0, "MPI_Testany");
}
MPII_WEAK(Testany)

static int req_some(int incount, MPI_Request reqs[], int *outcount, int indices[],
                    MPI_Status sts[], int block, const char *fn)
{
    int active;
    int rc = req_check_array(incount, reqs, fn, &active);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!outcount || (incount > 0 && !indices))
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "NULL argument");
    if (active == 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    int n;
    for (;;) {
        n = 0;
        for (int i = 0; i < incount; i++)
            if (!req_inactive(reqs[i]) && req_complete(reqs[i]))
                indices[n++] = i;
        if (n > 0 || !block)
            break;
        rmp_progress();
    }
    int first_err = MPI_SUCCESS;
    mpii_comm_t *ec = NULL;
    for (int k = 0; k < n; k++) {
        int i = indices[k];
        MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[k];
        mpii_comm_t *c = NULL;
        int failed = 0;
        int err = req_finish_any(&reqs[i], st, 1, &c, &failed, fn);
        if (failed)
            return err;
        if (err != MPI_SUCCESS && first_err == MPI_SUCCESS) {
            first_err = err;
            ec = c;
        }
    }
    *outcount = n;
    if (n == 0)
        rmp_progress();
    if (first_err == MPI_SUCCESS)
        return MPI_SUCCESS;
    return mpii_err_comm(ec, MPI_ERR_IN_STATUS, fn, "a request failed: %s (see the statuses)",
                         mpii_err_name(first_err));
}

int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status sts[])
{
    return req_some(incount, reqs, outcount, indices, sts, 1, "MPI_Waitsome");
}
MPII_WEAK(Waitsome)

int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status sts[])
{
    return req_some(incount, reqs, outcount, indices, sts, 0, "MPI_Testsome");
}
MPII_WEAK(Testsome)

/* ---- Request_free, Request_get_status, Cancel ---- */

int PMPI_Request_free(MPI_Request *request)
{
    if (!request)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Request_free", "request is NULL");
    if (mpii_req_is_rr(*request) && mpii_req_rr_plausible(*request)) {
        rmp_request_t rr = mpii_req_rr(*request);
        int rc = rmp_request_free(&rr); /* a send still goes out, a receive still lands */
        if (rc != RMP_SUCCESS)
            return req_rr_fail(*request, rc, "MPI_Request_free");
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    mpii_req_t *r = mpii_req(*request);
    if (!r)
        return req_bad("MPI_Request_free", *request);
    *request = MPI_REQUEST_NULL;
    if (mpii_req_test(r)) {
        mpii_req_free(r);
        return MPI_SUCCESS;
    }
    /* Still running: it completes in the background (a send's data still goes out). */
    r->persistent = 0;
    r->freed = 1;
    MPII_LOCK();
    r->next = mpii_req_orphans;
    __atomic_store_n(&mpii_req_orphans, r, __ATOMIC_RELAXED);
    MPII_UNLOCK();
    return MPI_SUCCESS;
}
MPII_WEAK(Request_free)

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (!flag)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Request_get_status", "flag is NULL");
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        req_null_status(status);
        return MPI_SUCCESS;
    }
    if (mpii_req_is_rr(request) && mpii_req_rr_plausible(request)) {
        rmp_status_t s;
        int done = 0;
        int rc = rmp_request_get_status(mpii_req_rr(request), &done, &s);
        if (rc == RMP_SUCCESS && !done) {
            rmp_progress();
            rc = rmp_request_get_status(mpii_req_rr(request), &done, &s);
        }
        if (rc != RMP_SUCCESS)
            return req_rr_fail(request, rc, "MPI_Request_get_status");
        *flag = done;
        if (done) {
            MPI_Request copy = request; /* the request stays: only the copy is nulled */
            req_rr_done(&copy, s.error, &s, status, 0, NULL);
        }
        return MPI_SUCCESS;
    }
    mpii_req_t *r = mpii_req(request);
    if (!r)
        return req_bad("MPI_Request_get_status", request);
    *flag = mpii_req_test(r);
    if (!*flag) {
        rmp_progress();
        return MPI_SUCCESS;
    }
    if (r->kind == MPII_REQ_GREQ)
        mpii_greq_query(r);
    req_status_out(r, status, 0);
    return MPI_SUCCESS;
}
MPII_WEAK(Request_get_status)

/* The MPI 4.1 forms over an array: MPI_Request_get_status on each (nothing is freed or
 * made inactive); null requests are inactive. */
static int req_status_args(int count, const MPI_Request *reqs, const void *out, const char *fn)
{
    if (count < 0 || (count > 0 && !reqs) || !out)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "negative count or NULL array or output");
    return MPI_SUCCESS;
}

int PMPI_Request_get_status_any(int count, const MPI_Request reqs[], int *indx, int *flag,
                                MPI_Status *status)
{
    int rc = req_status_args(count, reqs, indx, "MPI_Request_get_status_any"), active = 0;
    if (rc == MPI_SUCCESS && !flag)
        rc = mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Request_get_status_any", "flag is NULL");
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        active++;
        if ((rc = PMPI_Request_get_status(reqs[i], flag, status)) == MPI_SUCCESS && *flag) {
            *indx = i;
            return MPI_SUCCESS;
        }
    }
    if (rc != MPI_SUCCESS)
        return rc;
    *indx = MPI_UNDEFINED;
    *flag = active == 0; /* nothing active: true, with an empty status */
    if (!active)
        req_null_status(status);
    return MPI_SUCCESS;
}
MPII_WEAK(Request_get_status_any)

int PMPI_Request_get_status_all(int count, const MPI_Request reqs[], int *flag,
                                MPI_Status sts[])
{
    int rc = req_status_args(count, reqs, flag, "MPI_Request_get_status_all"), all = 1;
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        int f = 0;
        rc = PMPI_Request_get_status(reqs[i], &f,
                                     sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i]);
        all &= f;
    }
    if (rc == MPI_SUCCESS)
        *flag = all;
    return rc;
}
MPII_WEAK(Request_get_status_all)

int PMPI_Request_get_status_some(int incount, const MPI_Request reqs[], int *outcount,
                                 int indices[], MPI_Status sts[])
{
    int rc = req_status_args(incount, reqs, outcount, "MPI_Request_get_status_some");
    int active = 0, done = 0;
    if (rc == MPI_SUCCESS && incount > 0 && !indices)
        rc = mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Request_get_status_some", "indices is NULL");
    for (int i = 0; i < incount && rc == MPI_SUCCESS; i++) {
        if (reqs[i] == MPI_REQUEST_NULL)
            continue;
        active++;
        int f = 0;
        rc = PMPI_Request_get_status(reqs[i], &f,
                                     sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[done]);
        if (rc == MPI_SUCCESS && f)
            indices[done++] = i;
    }
    if (rc == MPI_SUCCESS)
        *outcount = active ? done : MPI_UNDEFINED;
    return rc;
}
MPII_WEAK(Request_get_status_some)

int PMPI_Cancel(MPI_Request *request)
{
    if (!request)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Cancel", "request is NULL");
    if (mpii_req_is_rr(*request) && mpii_req_rr_plausible(*request)) {
        int cancelled; /* completes as cancelled, at once or (a send) when the receiver says */
        int rc = rmp_request_cancel(mpii_req_rr(*request), &cancelled);
        return rc == RMP_SUCCESS ? MPI_SUCCESS : req_rr_fail(*request, rc, "MPI_Cancel");
    }
    mpii_req_t *r = mpii_req(*request);
    if (!r)
        return req_bad("MPI_Cancel", *request);
    if (r->kind == MPII_REQ_GREQ) { /* told whether Grequest_complete was called */
        int rc = r->cancel_fn ? r->cancel_fn(r->extra_state, r->done) : MPI_SUCCESS;
        return rc == MPI_SUCCESS ? rc
                                 : mpii_err_comm(r->comm, rc, "MPI_Cancel", "cancel_fn failed");
    }
    if (r->kind == MPII_REQ_DONE && r->mode == MPII_MODE_BUFFERED && r->ctx && !r->cancelled) {
        mpii_bs_cancel(r); /* completed locally, its message maybe not delivered */
        return MPI_SUCCESS;
    }
    if (r->done || r->kind != MPII_REQ_RMP)
        return MPI_SUCCESS;
    int cancelled = 0;
    if (!r->recv) { /* completes later, cancelled or not (mpii_req_take_rmp_status) */
        int rc = rmp_request_cancel(r->rr, &cancelled);
        return rc == RMP_SUCCESS ? MPI_SUCCESS : mpii_p2p_err(r->comm, rc, "MPI_Cancel");
    }
    int rc = rmp_cancel(&r->rr, &cancelled);
    if (rc != RMP_SUCCESS)
        return mpii_p2p_err(r->comm, rc, "MPI_Cancel");
    if (cancelled) {
        r->done = 1;
        r->cancelled = 1;
        r->err = MPI_SUCCESS;
        mpii_status_empty(&r->status);
        r->status.MPI_internal[2] = 1;
        free(r->tmp);
        r->tmp = NULL;
    }
    return MPI_SUCCESS;
}
MPII_WEAK(Cancel)

void mpii_p2p_fini(void)
{
    mpii_bsend_fini();
    while (mpii_req_orphans) {
        mpii_req_t *r = mpii_req_orphans;
        mpii_req_wait(r);
        mpii_req_orphans = r->next;
        mpii_req_free(r);
    }
    mpii_part_fini();
}
