/* SPDX-License-Identifier: BSD-3-Clause */
/* Collectives over intercommunicators: every one is a single round of point-to-point
 * messages between the two groups on the intercomm's private union communicator
 * (inter->coll), under a tag of its own (the call's sequence number: members call
 * collectives in the same order), followed by local work (a reduction's fold, a copy).
 * Rooted ones follow the standard: MPI_ROOT at the root, MPI_PROC_NULL at the rest of
 * its group, the root's remote rank in the other group. Direct, not tree-shaped: each
 * process talks to every member of the remote group it exchanges data with, which is
 * right for the small groups intercomms are used with. The same round is the
 * nonblocking form (a polled request) and, waited for, the blocking one. */
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"
#include "mpii_p2p.h"

typedef struct ic_run {
    mpii_comm_t *c;
    MPI_Comm cc; /* the private union communicator */
    int tag;
    int n, cap;
    MPI_Request *reqs;
    /* A reduction: x[0..nr-1] from the remote ranks; x[nr-1] lands in acc, the others
     * in tmp, fold computes acc = x[0] op (x[1] op (... op x[nr-1])). */
    int fold;
    MPI_Op op;
    mpii_op_t *held;
    MPI_Datatype dt;
    MPI_Count count;
    char *acc, *tmp, *tmp_mem, *acc_mem;
    MPI_Aint stride;
    /* Reduce_scatter: then copy acc's segment into rbuf (through a message to self). */
    MPI_Count seg_off, seg_cnt;
    void *rbuf;
} ic_run_t;

static void ic_run_free(ic_run_t *x)
{
    if (!x)
        return;
    for (int i = 0; i < x->n; i++) /* still running only after an error */
        if (x->reqs[i] != MPI_REQUEST_NULL) {
            PMPI_Cancel(&x->reqs[i]);
            PMPI_Request_free(&x->reqs[i]);
        }
    mpii_op_release(x->held);
    free(x->reqs);
    free(x->tmp_mem);
    free(x->acc_mem);
    free(x);
}

static int ic_post(ic_run_t *x, int is_send, const void *buf, MPI_Count cnt, MPI_Datatype dt,
                   int urank)
{
    if (x->n == x->cap) {
        int cap = x->cap ? 2 * x->cap : 8;
        MPI_Request *q = realloc(x->reqs, (size_t)cap * sizeof(*q));
        if (!q)
            return MPI_ERR_NO_MEM;
        x->reqs = q;
        x->cap = cap;
    }
    MPI_Request *q = &x->reqs[x->n];
    int err = is_send ? PMPI_Isend_c(buf, cnt, dt, urank, x->tag, x->cc, q)
                      : PMPI_Irecv_c((void *)buf, cnt, dt, urank, x->tag, x->cc, q);
    if (err == MPI_SUCCESS)
        x->n++;
    return err;
}

/* Scratch for k vectors of count elements of dt: x->stride apart, first one returned
 * (its data start, lower bound applied). */
static char *ic_scratch(ic_run_t *x, MPI_Datatype dt, MPI_Count count, int k, char **mem)
{
    mpii_dtype_t *d = mpii_dtype(dt);
    if (!d)
        return NULL;
    MPI_Aint span = count > 0 ? d->true_extent + (MPI_Aint)(count - 1) * d->extent : 0;
    x->stride = (span + 15) & ~(MPI_Aint)15;
    *mem = malloc((size_t)(x->stride * k) + 16);
    return *mem ? *mem - d->true_lb : NULL;
}

/* Post the receives of a reduction of count elements from every remote rank; the last
 * lands in acc. */
static int ic_fold_recv(ic_run_t *x, char *acc, MPI_Count count, MPI_Datatype dt, MPI_Op op)
{
    mpii_inter_t *in = x->c->inter;
    int nr = in->rsize, err = MPI_SUCCESS;
    x->fold = 1;
    if (!x->held) { /* kept alive until the request is freed (MPI_Op_free may come first) */
        x->held = mpii_op(op);
        mpii_op_retain(x->held);
    }
    x->op = op;
    x->dt = dt;
    x->count = count;
    x->acc = acc;
    if (nr > 1 && !(x->tmp = ic_scratch(x, dt, count, nr - 1, &x->tmp_mem)))
        return MPI_ERR_NO_MEM;
    for (int j = 0; j < nr && err == MPI_SUCCESS; j++)
        err = ic_post(x, 0, j == nr - 1 ? acc : x->tmp + x->stride * j, count, dt, in->r2u[j]);
    return err;
}

static int ic_finish(ic_run_t *x)
{
    int err = MPI_SUCCESS;
    if (x->fold)
        for (int j = x->c->inter->rsize - 2; j >= 0 && err == MPI_SUCCESS; j--)
            err = PMPI_Reduce_local_c(x->tmp + x->stride * j, x->acc, x->count, x->dt, x->op);
    if (err == MPI_SUCCESS && x->rbuf) {
        mpii_dtype_t *d = mpii_dtype(x->dt);
        int self = x->c->inter->l2u[x->c->rank];
        err = PMPI_Sendrecv_c(x->acc + d->extent * x->seg_off, x->seg_cnt, x->dt, self, x->tag,
                              x->rbuf, x->seg_cnt, x->dt, self, x->tag, x->cc,
                              MPI_STATUS_IGNORE);
    }
    return err;
}

/* A receive side's buffer (the side type holds both kinds as const). */
static char *side_out(const mpii_ic_side_t *r)
{
    return (char *)(uintptr_t)r->buf;
}

static MPI_Count side_cnt(const mpii_ic_side_t *s, int j)
{
    return s->cnts ? s->cnts[j] : s->icnts ? s->icnts[j] : s->cnt;
}

static MPI_Datatype side_type(const mpii_ic_side_t *s, int j)
{
    return s->types ? s->types[j] : s->type;
}

/* Block j of a side: by counts (v: by displacements, in extents; w: in bytes). */
static const char *side_block(const mpii_ic_side_t *s, int j, int v, int w)
{
    mpii_dtype_t *d = mpii_dtype(side_type(s, j));
    MPI_Aint ext = d ? d->extent : 0;
    if (!v)
        return (const char *)s->buf + (MPI_Aint)j * (MPI_Aint)s->cnt * ext;
    MPI_Aint dsp = s->dsps ? s->dsps[j] : s->idsps[j];
    return (const char *)s->buf + (w ? dsp : dsp * ext);
}

/* Post this process's messages of collective kind. */
static int ic_start(int kind, ic_run_t *x, const mpii_ic_side_t *s, const mpii_ic_side_t *r,
                    MPI_Op op, int root)
{
    mpii_comm_t *c = x->c;
    mpii_inter_t *in = c->inter;
    int nr = in->rsize, err = MPI_SUCCESS, v = 0, w = 0;
    int am_root = root == MPI_ROOT, rooted_peer = root >= 0 ? in->r2u[root] : -1;
    switch (kind) {
    case MPII_IC_BARRIER:
        for (int j = 0; j < nr && err == MPI_SUCCESS; j++) {
            err = ic_post(x, 0, NULL, 0, MPI_BYTE, in->r2u[j]);
            if (err == MPI_SUCCESS)
                err = ic_post(x, 1, NULL, 0, MPI_BYTE, in->r2u[j]);
        }
        return err;
    case MPII_IC_BCAST:
        if (am_root)
            for (int j = 0; j < nr && err == MPI_SUCCESS; j++)
                err = ic_post(x, 1, r->buf, r->cnt, r->type, in->r2u[j]);
        else if (rooted_peer >= 0)
            err = ic_post(x, 0, r->buf, r->cnt, r->type, rooted_peer);
        return err;
    case MPII_IC_GATHERV:
        v = 1;
        /* fall through */
    case MPII_IC_GATHER:
        if (am_root)
            for (int j = 0; j < nr && err == MPI_SUCCESS; j++)
                err = ic_post(x, 0, side_block(r, j, v, 0), side_cnt(r, j), r->type,
                              in->r2u[j]);
        else if (rooted_peer >= 0)
            err = ic_post(x, 1, s->buf, s->cnt, s->type, rooted_peer);
        return err;
    case MPII_IC_SCATTERV:
        v = 1;
        /* fall through */
    case MPII_IC_SCATTER:
        if (am_root)
            for (int j = 0; j < nr && err == MPI_SUCCESS; j++)
                err = ic_post(x, 1, side_block(s, j, v, 0), side_cnt(s, j), s->type,
                              in->r2u[j]);
        else if (rooted_peer >= 0)
            err = ic_post(x, 0, r->buf, r->cnt, r->type, rooted_peer);
        return err;
    case MPII_IC_ALLGATHERV:
        v = 1;
        /* fall through */
    case MPII_IC_ALLGATHER:
        for (int j = 0; j < nr && err == MPI_SUCCESS; j++) {
            err = ic_post(x, 0, side_block(r, j, v, 0), side_cnt(r, j), r->type, in->r2u[j]);
            if (err == MPI_SUCCESS)
                err = ic_post(x, 1, s->buf, s->cnt, s->type, in->r2u[j]);
        }
        return err;
    case MPII_IC_ALLTOALLW:
        w = 1;
        /* fall through */
    case MPII_IC_ALLTOALLV:
        v = 1;
        /* fall through */
    case MPII_IC_ALLTOALL:
        for (int j = 0; j < nr && err == MPI_SUCCESS; j++) {
            err = ic_post(x, 0, side_block(r, j, v, w), side_cnt(r, j), side_type(r, j),
                          in->r2u[j]);
            if (err == MPI_SUCCESS)
                err = ic_post(x, 1, side_block(s, j, v, w), side_cnt(s, j), side_type(s, j),
                              in->r2u[j]);
        }
        return err;
    case MPII_IC_REDUCE:
        if (am_root)
            err = ic_fold_recv(x, side_out(r), r->cnt, r->type, op);
        else if (rooted_peer >= 0)
            err = ic_post(x, 1, s->buf, s->cnt, s->type, rooted_peer);
        return err;
    case MPII_IC_ALLREDUCE:
        for (int j = 0; j < nr && err == MPI_SUCCESS; j++)
            err = ic_post(x, 1, s->buf, s->cnt, s->type, in->r2u[j]);
        return err == MPI_SUCCESS ? ic_fold_recv(x, side_out(r), r->cnt, r->type, op) : err;
    case MPII_IC_RS_BLOCK: {
        /* my vector is nl * cnt elements, split evenly over the remote group */
        MPI_Count seg = (MPI_Count)c->size * r->cnt / nr;
        mpii_dtype_t *d = mpii_dtype(r->type);
        for (int j = 0; j < nr && err == MPI_SUCCESS; j++)
            err = ic_post(x, 1, (const char *)s->buf + (MPI_Aint)(seg * j) * d->extent, seg,
                          r->type, in->r2u[j]);
        return err == MPI_SUCCESS ? ic_fold_recv(x, side_out(r), r->cnt, r->type, op) : err;
    }
    default: { /* MPII_IC_RS: whole vectors both ways, my segment copied out at the end */
        MPI_Count total = 0;
        for (int i = 0; i < c->size; i++) {
            if (i == c->rank)
                x->seg_off = total;
            total += side_cnt(r, i);
        }
        x->seg_cnt = side_cnt(r, c->rank);
        x->rbuf = side_out(r);
        for (int j = 0; j < nr && err == MPI_SUCCESS; j++)
            err = ic_post(x, 1, s->buf, total, r->type, in->r2u[j]);
        char *acc = err == MPI_SUCCESS ? ic_scratch(x, r->type, total, 1, &x->acc_mem) : NULL;
        if (err == MPI_SUCCESS && !acc)
            err = MPI_ERR_NO_MEM;
        return err == MPI_SUCCESS ? ic_fold_recv(x, acc, total, r->type, op) : err;
    }
    }
}

static int ic_poll(mpii_req_t *r)
{
    ic_run_t *x = r->ctx;
    int flag = 1, err = x->n ? PMPI_Testall(x->n, x->reqs, &flag, MPI_STATUSES_IGNORE)
                             : MPI_SUCCESS;
    if (err == MPI_SUCCESS && !flag)
        return 0;
    if (err == MPI_SUCCESS)
        err = ic_finish(x);
    r->err = err;
    mpii_status_empty(&r->status);
    r->status.MPI_ERROR = err;
    return 1;
}

static void ic_release(mpii_req_t *r)
{
    ic_run_free(r->ctx);
    r->ctx = NULL;
}

static int ic_root_ok(int kind, const mpii_inter_t *in, int root)
{
    int rooted = kind == MPII_IC_BCAST || kind == MPII_IC_GATHER || kind == MPII_IC_GATHERV ||
                 kind == MPII_IC_SCATTER || kind == MPII_IC_SCATTERV || kind == MPII_IC_REDUCE;
    return !rooted || root == MPI_ROOT || root == MPI_PROC_NULL ||
           (root >= 0 && root < in->rsize);
}

int mpii_ic_coll(int kind, mpii_comm_t *c, const mpii_ic_side_t *s, const mpii_ic_side_t *r,
                 MPI_Op op, int root, MPI_Request *req, const char *fn)
{
    if (kind == MPII_IC_UNSUPPORTED)
        return mpii_err_comm(c, MPI_ERR_COMM, fn, "not defined on an intercommunicator");
    mpii_inter_t *in = c->inter;
    if (!ic_root_ok(kind, in, root))
        return mpii_err_comm(c, MPI_ERR_ROOT, fn, "invalid root %d (remote size %d)", root,
                             in->rsize);
    if ((s && s->buf == MPI_IN_PLACE) || (r && r->buf == MPI_IN_PLACE))
        return mpii_err_comm(c, MPI_ERR_BUFFER, fn,
                             "MPI_IN_PLACE is not allowed on an intercommunicator");
    if (r && kind >= MPII_IC_REDUCE && (root == MPI_ROOT || kind != MPII_IC_REDUCE) &&
        !mpii_dtype(r->type))
        return mpii_err_comm(c, MPI_ERR_TYPE, fn, "invalid datatype");
    ic_run_t *x = calloc(1, sizeof(*x));
    if (!x)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    x->c = c;
    x->cc = mpii_comm_handle(in->coll);
    x->tag = (int)(in->seq++ & RMP_TAG_UB);
    int err = ic_start(kind, x, s, r, op, root);
    if (err == MPI_SUCCESS && req) {
        mpii_req_t *q = mpii_req_new_poll(c, ic_poll, ic_release, x);
        if (q) {
            *req = (MPI_Request)q;
            return MPI_SUCCESS;
        }
        err = MPI_ERR_NO_MEM;
    }
    if (err == MPI_SUCCESS && x->n)
        err = PMPI_Waitall(x->n, x->reqs, MPI_STATUSES_IGNORE);
    if (err == MPI_SUCCESS)
        err = ic_finish(x);
    ic_run_free(x);
    return err == MPI_SUCCESS ? MPI_SUCCESS : mpii_err_comm(c, err, fn, "failed");
}
