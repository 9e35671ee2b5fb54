/* SPDX-License-Identifier: BSD-3-Clause */
/* Request objects: a pool, so that the message path never calls malloc in
 * steady state, and the wait loop with its timeout. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "engine.h"
#include "log.h"
#include "failure.h"
#include "mt.h"
#include "progress.h"
#include "layout.h"
#include "request.h"
#include "ulfm.h"

#define REQ_CHUNK 64


static int req_grow(rmpi_engine_t *e)
{
    rmp_request_t chunk = calloc(REQ_CHUNK, sizeof(*chunk));
    void **chunks = realloc(e->req.chunks, (e->req.nchunks + 1) * sizeof(void *));
    if (!chunk || !chunks) {
        free(chunk);
        if (chunks)
            e->req.chunks = chunks;
        return RMP_ERR_NOMEM;
    }
    e->req.chunks = chunks;
    e->req.chunks[e->req.nchunks++] = chunk;
    for (int i = 0; i < REQ_CHUNK; i++) {
        chunk[i].next_active = e->req.free_list;
        e->req.free_list = &chunk[i];
    }
    return RMP_SUCCESS;
}

rmp_request_t rmpi_req_alloc(rmpi_engine_t *e, int kind)
{
    if (RMPI_UNLIKELY(e->req.free_list == NULL) && req_grow(e) != RMP_SUCCESS)
        return NULL;
    rmp_request_t r = e->req.free_list;
    e->req.free_list = r->next_active;
    r->kind = (uint8_t)kind;
    r->flags = 0;
    r->owner = rmpi_mt_tag();
    __atomic_store_n(&r->done, 0, __ATOMIC_RELAXED);
    r->status.error = RMP_SUCCESS;
    r->status.source = -1;
    r->status.tag = -1;
    r->status.bytes = 0;
    r->status.comm = NULL;
    r->frag_off = 0;
    r->lay = NULL;
    r->poll = NULL;
    r->release = NULL;
    r->ctx = NULL;
    r->mq.next = r->mq.prev = &r->mq;
    return r;
}

RMPI_MT_BODY void req_free_locked(rmp_request_t req)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (req->release)
        req->release(req);
    req->kind = 0;
    req->next_active = e->req.free_list;
    e->req.free_list = req;
}

RMPI_MT_ENTRY_VOID(, rmpi_req_free, req_free_locked, (rmp_request_t req), (req))

/* Under the engine lock, as completion is: either completion has happened and
 * the request goes now, or completion will see the flag and free it. */
RMPI_MT_BODY void req_release_locked(rmp_request_t req)
{
    if (rmpi_req_done(req)) {
        req_free_locked(req);
    } else {
        req->flags |= RMPI_REQF_ORPHAN;
        if (req->lay)
            req->lay = &rmpi_layout_discard;
    }
}

RMPI_MT_ENTRY_VOID(, rmpi_req_release, req_release_locked, (rmp_request_t req), (req))

/* The rare cases out of line, reached by a tail call: inlined, the hand-off's TLS access
 * made the compiler set up a frame on the common path of every completion. */
static __attribute__((noinline)) void req_complete_slow(rmp_request_t req)
{
    if (rmpi_eng.thr.multiple && req->owner != rmpi_mt_tag())
        rmpi_mt_handoff = 1;
    if (req->flags & RMPI_REQF_ORPHAN)
        rmpi_req_free(req);
}

void rmpi_req_complete(rmp_request_t req)
{
    __atomic_store_n(&req->done, 1, __ATOMIC_RELEASE);
    if (RMPI_UNLIKELY(rmpi_eng.thr.multiple || (req->flags & RMPI_REQF_ORPHAN)))
        req_complete_slow(req);
}

void rmpi_req_fail(rmp_request_t req, int rc)
{
    req->status.error = rc;
    if (req->kind == RMPI_REQ_CTRL)
        rmpi_req_free(req);
    else
        rmpi_req_complete(req);
}

int rmpi_req_is_done(rmp_request_t req)
{
    return rmpi_req_done(req);
}

void rmpi_req_take(rmp_request_t req, rmp_status_t *st, size_t *expect)
{
    *st = req->status;
    *expect = req->kind == RMPI_REQ_RECV ? req->bytes : SIZE_MAX;
    rmpi_req_free(req);
}

static void req_gen_release(rmp_request_t req)
{
    if (req->gen_release)
        req->gen_release(req->ctx);
    req->ctx = NULL;
}

int rmpi_req_gen(int (*poll)(void *ctx, int *error), void *ctx, void (*release)(void *ctx),
                 rmp_request_t *out)
{
    rmpi_engine_t *e = &rmpi_eng;
    rmpi_mt_enter(e);
    rmp_request_t r = rmpi_req_alloc(e, RMPI_REQ_GEN);
    if (!r) {
        rmpi_mt_leave(e);
        return RMP_ERR_NOMEM;
    }
    r->poll = poll;
    r->ctx = ctx;
    r->gen_release = release;
    r->release = req_gen_release;
    r->next_active = e->req.active_gen;
    e->req.active_gen = r;
    e->req.have_gen = 1;
    rmpi_mt_leave(e);
    *out = r;
    return RMP_SUCCESS;
}

/* Poll the generic requests; unlink the finished ones. */
int rmpi_req_progress_gen(rmpi_engine_t *e)
{
    int n = 0;
    rmp_request_t *pp = &e->req.active_gen;
    while (*pp) {
        rmp_request_t r = *pp;
        if (r->poll(r->ctx, &r->status.error)) {
            *pp = r->next_active;
            r->next_active = NULL;
            n++;
            rmpi_req_complete(r);
        } else {
            pp = &r->next_active;
        }
    }
    e->req.have_gen = e->req.active_gen != NULL;
    return n;
}

void rmpi_waiter_init(rmpi_waiter_t *w)
{
    rmpi_engine_t *e = &rmpi_eng;
    if (RMPI_UNLIKELY(e->thr.multiple))
        rmpi_progress_mt_reset();
    w->req = NULL;
    w->spins = 0;
    double now = rmpi_now();
    w->deadline = e->cfg.timeout > 0 ? now + e->cfg.timeout : 0;
    w->next_check = now + 0.05;
}

/* Do this thread's polls sleep: the rank's idle sleep, or under MULTIPLE the thread's
 * own (core/progress.c), which leaves rmpi_eng.p2p.sleep_ns at 0? Seeing only the former,
 * a sleeping thread read the clock once in 1024 polls of up to 0.32 ms each, about
 * 0.4 s: a failure notice was seen after rrun's 0.25 s notice period and its SIGTERM
 * (tests/threads/mt_kill.sh, flaky under TSan on a loaded machine). */
static inline int req_polls_sleep(rmpi_engine_t *e)
{
    return __atomic_load_n(&e->p2p.sleep_ns, __ATOMIC_RELAXED) ||
           (RMPI_UNLIKELY(e->thr.multiple) && rmpi_mt_sleep_ns);
}

int rmpi_waiter_poll(rmpi_waiter_t *w)
{
    rmpi_engine_t *e = &rmpi_eng;
    /* A spinning wait looks at the clock every 1024 polls; one whose polls sleep
     * (idle, oversubscribed: up to 0.5 ms each) at every poll, or a failure notice
     * would wait 0.5 s to be seen, past the launcher's notice period. */
    if (RMPI_LIKELY((++w->spins & 1023) != 0) && !req_polls_sleep(e))
        return RMP_SUCCESS;
    double now = rmpi_now();
    if (now >= w->next_check) {
        w->next_check = now + 0.05;
        rmpi_mt_enter(e);
        rmpi_check_failures(e);
        if (RMPI_UNLIKELY(e->ulfm_nrevoked))
            rmpi_ulfm_sweep(e);
        /* Once a peer has failed: a receive from any source it might have fed. */
        int stalled = w->req && RMPI_UNLIKELY(e->p2p.nfailed > 0) &&
                      rmpi_ulfm_anysrc_stalled(e, w->req);
        rmpi_mt_leave(e);
        if (stalled)
            return RMP_ERR_PEER_FAILED_PENDING;
    }
    if (w->deadline > 0 && now > w->deadline) {
        rmpi_warn("operation timed out after %g s (RMP_TIMEOUT)", e->cfg.timeout);
        return RMP_ERR_TIMEOUT;
    }
    return RMP_SUCCESS;
}

void rmpi_health_tick(void)
{
    rmpi_engine_t *e = &rmpi_eng;
    static __thread unsigned n __attribute__((tls_model("initial-exec")));
    if (RMPI_LIKELY((++n & 255) != 0) && !req_polls_sleep(e))
        return;
    rmpi_mt_enter(e);
    double now = rmpi_now();
    if (now >= e->req.next_health) {
        e->req.next_health = now + 0.05;
        rmpi_check_failures(e);
    }
    rmpi_mt_leave(e);
}

/* What this rank is blocked on, for the SIGUSR1 report (core/diag.c). */
__thread rmp_request_t rmpi_blocked_req __attribute__((tls_model("initial-exec")));

int rmpi_req_wait(rmp_request_t req)
{
    if (rmpi_req_done(req))
        return RMP_SUCCESS;
    rmpi_waiter_t w;
    rmpi_waiter_init(&w);
    if (req->kind == RMPI_REQ_RECV && req->mq.src == RMP_ANY_SOURCE)
        w.req = req;
    rmp_request_t outer = rmpi_blocked_req;
    rmpi_blocked_req = req;
    int rc = RMP_SUCCESS;
    while (!rmpi_req_done(req)) {
        rmpi_progress();
        rc = rmpi_waiter_poll(&w);
        if (rc != RMP_SUCCESS)
            break;
    }
    rmpi_blocked_req = outer;
    return rc;
}

void rmpi_req_foreach(rmpi_engine_t *e, void (*fn)(rmp_request_t req, void *arg), void *arg)
{
    for (size_t c = 0; c < e->req.nchunks; c++) {
        rmp_request_t chunk = e->req.chunks[c];
        for (int i = 0; i < REQ_CHUNK; i++)
            if (chunk[i].kind != 0 && !chunk[i].done)
                fn(&chunk[i], arg);
    }
}

void rmpi_req_pool_fini(rmpi_engine_t *e)
{
    for (size_t i = 0; i < e->req.nchunks; i++)
        free(e->req.chunks[i]);
    free(e->req.chunks);
    e->req.chunks = NULL;
    e->req.nchunks = 0;
    e->req.free_list = NULL;
    e->req.active_gen = NULL;
    e->req.have_gen = 0;
}
