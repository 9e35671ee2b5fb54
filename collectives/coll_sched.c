/* SPDX-License-Identifier: BSD-3-Clause */
/* Round-based schedules run by the progress engine (the libNBC model): the nonblocking
 * collectives build the whole schedule up front, then a generic request's poll function
 * advances it without ever blocking. */
#include <stdlib.h>
#include <string.h>

#include "coll_core.h"
#include "coll_op.h"
#include "coll_p2p.h"
#include "coll_sched.h"
#include "coll_vlayout.h"

enum { SOP_SEND, SOP_RECV, SOP_REDUCE3, SOP_COPY, SOP_SEND_LAY, SOP_RECV_LAY, SOP_COPY_LAY };

typedef struct coll_sop {
    int kind;
    int peer;
    int tag;
    size_t n; /* bytes (send, recv, copy) or elements (reduce) */
    void *out;
    const void *a, *b;
} coll_sop_t;

struct coll_sched {
    rmp_comm_t comm;
    rmp_datatype_t dt;
    rmp_op_t op;
    int tag;
    coll_sop_t *ops;
    int nops, cap;
    int *rend; /* rend[k]: one past the last operation of round k */
    int nrounds, rcap;
    int round;  /* round in flight; nrounds when finished */
    int maxreq; /* most sends + receives in one round */
    int cur;    /* sends + receives in the round being built */
    rmp_request_t *reqs;
    int nreqs;
    int error;
    void **scratch;
    int nscratch;
};

coll_sched_t *coll_sched_new(rmp_comm_t comm, rmp_datatype_t dt, rmp_op_t op, int tag)
{
    coll_sched_t *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->comm = comm;
    rmpi_comm_retain(comm); /* MPI_Comm_free may come before the schedule completes */
    s->dt = dt;
    s->op = op;
    s->tag = tag;
    return s;
}

void coll_sched_free(coll_sched_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nscratch; i++)
        free(s->scratch[i]);
    free(s->scratch);
    free(s->ops);
    free(s->rend);
    free(s->reqs);
    rmpi_comm_release(s->comm);
    free(s);
}

void *coll_sched_scratch(coll_sched_t *s, size_t bytes)
{
    void **v = realloc(s->scratch, (size_t)(s->nscratch + 1) * sizeof(void *));
    void *p = malloc(bytes ? bytes : 1);
    if (v)
        s->scratch = v;
    if (!v || !p) {
        free(p);
        s->error = RMP_ERR_NOMEM;
        return NULL;
    }
    s->scratch[s->nscratch++] = p;
    return p;
}

static void sched_add(coll_sched_t *s, coll_sop_t op)
{
    if (s->error)
        return;
    if (s->nops == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        coll_sop_t *ops = realloc(s->ops, (size_t)cap * sizeof(*ops));
        if (!ops) {
            s->error = RMP_ERR_NOMEM;
            return;
        }
        s->ops = ops;
        s->cap = cap;
    }
    s->ops[s->nops++] = op;
    if (op.kind == SOP_SEND || op.kind == SOP_RECV || op.kind == SOP_SEND_LAY ||
        op.kind == SOP_RECV_LAY)
        s->cur++;
}

void coll_sched_send(coll_sched_t *s, const void *buf, size_t bytes, int peer, int sub)
{
    sched_add(s, (coll_sop_t){SOP_SEND, peer, s->tag + sub, bytes, NULL, buf, NULL});
}

void coll_sched_recv(coll_sched_t *s, void *buf, size_t bytes, int peer, int sub)
{
    sched_add(s, (coll_sop_t){SOP_RECV, peer, s->tag + sub, bytes, buf, NULL, NULL});
}

void coll_sched_send_layout(coll_sched_t *s, const rmp_layout_t *lay, size_t bytes, int peer,
                            int sub)
{
    if (coll_layout_plain(lay))
        coll_sched_send(s, lay->ctx, bytes, peer, sub);
    else
        sched_add(s, (coll_sop_t){SOP_SEND_LAY, peer, s->tag + sub, bytes, NULL, lay, NULL});
}

void coll_sched_recv_layout(coll_sched_t *s, const rmp_layout_t *lay, size_t bytes, int peer,
                            int sub)
{
    if (coll_layout_plain(lay))
        coll_sched_recv(s, lay->ctx, bytes, peer, sub);
    else
        sched_add(s, (coll_sop_t){SOP_RECV_LAY, peer, s->tag + sub, bytes, NULL, lay, NULL});
}

void coll_sched_copy_layout(coll_sched_t *s, const rmp_layout_t *dst, const rmp_layout_t *src,
                            size_t bytes)
{
    if (coll_layout_plain(dst) && coll_layout_plain(src))
        coll_sched_copy(s, dst->ctx, src->ctx, bytes);
    else if (bytes)
        sched_add(s, (coll_sop_t){SOP_COPY_LAY, -1, 0, bytes, NULL, src, dst});
}

void coll_sched_reduce3(coll_sched_t *s, void *out, const void *a, const void *b, size_t count)
{
    if (count)
        sched_add(s, (coll_sop_t){SOP_REDUCE3, -1, 0, count, out, a, b});
}

void coll_sched_copy(coll_sched_t *s, void *dst, const void *src, size_t bytes)
{
    if (bytes && dst != src)
        sched_add(s, (coll_sop_t){SOP_COPY, -1, 0, bytes, dst, src, NULL});
}

void coll_sched_round(coll_sched_t *s)
{
    int start = s->nrounds ? s->rend[s->nrounds - 1] : 0;
    if (s->error || s->nops == start)
        return;
    if (s->nrounds == s->rcap) {
        int cap = s->rcap ? 2 * s->rcap : 8;
        int *r = realloc(s->rend, (size_t)cap * sizeof(*r));
        if (!r) {
            s->error = RMP_ERR_NOMEM;
            return;
        }
        s->rend = r;
        s->rcap = cap;
    }
    s->rend[s->nrounds++] = s->nops;
    if (s->cur > s->maxreq)
        s->maxreq = s->cur;
    s->cur = 0;
}

/* Run round s->round: local operations now, sends and receives posted. */
static void sched_run_round(coll_sched_t *s)
{
    int start = s->round ? s->rend[s->round - 1] : 0, end = s->rend[s->round];
    uint32_t cid = coll_cid(s->comm);
    for (int i = start; i < end && s->error == RMP_SUCCESS; i++) {
        coll_sop_t *o = &s->ops[i];
        int rc = RMP_SUCCESS;
        switch (o->kind) {
        case SOP_SEND:
            rc = rmpi_isend_cid(o->a, o->n, o->peer, o->tag, s->comm, cid, &s->reqs[s->nreqs]);
            break;
        case SOP_RECV:
            rc = rmpi_irecv_cid(o->out, o->n, o->peer, o->tag, s->comm, cid, &s->reqs[s->nreqs]);
            break;
        case SOP_SEND_LAY:
            rc = rmpi_isend_layout_cid(o->a, o->n, o->peer, o->tag, s->comm, cid, 0,
                                       &s->reqs[s->nreqs]);
            break;
        case SOP_RECV_LAY:
            rc = rmpi_irecv_layout_cid(o->a, o->n, o->peer, o->tag, s->comm, cid,
                                       &s->reqs[s->nreqs]);
            break;
        case SOP_COPY_LAY:
            coll_layout_copy(o->b, o->a, o->n);
            continue;
        case SOP_REDUCE3:
            coll_op_reduce3(o->out, o->a, o->b, o->n, s->dt, s->op);
            continue;
        default:
            memmove(o->out, o->a, o->n);
            continue;
        }
        if (rc == RMP_SUCCESS)
            s->nreqs++;
        else
            s->error = rc;
    }
}

static int sched_poll(void *ctx, int *error)
{
    coll_sched_t *s = ctx;
    while (s->round < s->nrounds) {
        for (int i = 0; i < s->nreqs; i++)
            if (!rmpi_req_is_done(s->reqs[i]))
                return 0;
        for (int i = 0; i < s->nreqs; i++) {
            int rc = coll_req_finish(s->reqs[i]);
            if (rc != RMP_SUCCESS && s->error == RMP_SUCCESS)
                s->error = rc;
        }
        s->nreqs = 0;
        if (s->error != RMP_SUCCESS || ++s->round == s->nrounds)
            break;
        sched_run_round(s);
    }
    s->round = s->nrounds;
    *error = s->error;
    return 1;
}

static void sched_release(void *ctx)
{
    coll_sched_free(ctx);
}

int coll_sched_start(coll_sched_t *s, rmp_request_t *out)
{
    coll_sched_round(s);
    int rc = s->error;
    if (rc == RMP_SUCCESS && s->maxreq > 0 &&
        !(s->reqs = malloc((size_t)s->maxreq * sizeof(*s->reqs))))
        rc = RMP_ERR_NOMEM;
    rmp_request_t req = NULL;
    /* Under MULTIPLE another thread's progress polls the request as soon as it is
     * listed: the engine lock keeps it out until round 0 is posted (issue 26: two
     * threads ran the same schedule's rounds, completing it without its data). */
    rmpi_engine_enter();
    if (rc == RMP_SUCCESS)
        rc = rmpi_req_gen(sched_poll, s, sched_release, &req);
    if (rc != RMP_SUCCESS) {
        rmpi_engine_leave();
        coll_sched_free(s);
        return rc;
    }
    /* Round 0 starts now, so that its messages leave before the caller returns. */
    s->round = 0;
    if (s->nrounds > 0)
        sched_run_round(s);
    sched_poll(s, &(int){0}); /* progress polls it again: the error goes with that answer */
    rmpi_engine_leave();
    *out = req;
    return RMP_SUCCESS;
}
