/* SPDX-License-Identifier: BSD-3-Clause */
/* Nonblocking collectives: the rmp_i* schedules behind an MPI request. Packed copies of
 * derived types live in the request's context: the receive side is unpacked when the
 * request completes (fin), everything is freed with the request (release). */
#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"
#include "mpii_p2p.h"

typedef struct nbc_ctx {
    mpii_view_t sv, rv;  /* packed copies (tmp set) or plain views */
    void *rbuf;          /* unpack rv here at completion */
    MPI_Count rnum;
    mpii_dtype_t *rd;
    mpii_op_t *op;       /* a user op, kept until the request is freed */
    size_t *arr;         /* byte counts/displacements handed to rmp (copied by it) */
} nbc_ctx_t;

static int nbc_fin(mpii_req_t *r)
{
    nbc_ctx_t *x = r->ctx;
    if (x && r->err == MPI_SUCCESS && x->rv.tmp && x->rd) /* rd NULL: an input (bcast root) */
        mpii_dtype_unpack(x->rd, x->rbuf, x->rnum, 0, x->rv.tmp, x->rv.bytes);
    mpii_status_empty(&r->status);
    r->status.MPI_ERROR = r->err;
    return MPI_SUCCESS;
}

static void nbc_release(mpii_req_t *r)
{
    nbc_ctx_t *x = r->ctx;
    if (!x)
        return;
    free(x->sv.tmp);
    free(x->rv.tmp);
    free(x->arr);
    if (x->rd)
        mpii_dtype_release(x->rd);
    mpii_op_release(x->op);
    free(x);
    r->ctx = NULL;
}

static nbc_ctx_t *nbc_new(void)
{
    return calloc(1, sizeof(nbc_ctx_t));
}

/* Wrap the rmp request (or report rc); takes x. */
static int nbc_finish(mpii_comm_t *c, int rc, rmp_request_t rr, nbc_ctx_t *x, MPI_Request *req,
                      const char *fn)
{
    if (rc != RMP_SUCCESS) {
        if (x) {
            free(x->sv.tmp);
            free(x->rv.tmp);
            free(x->arr);
            free(x);
        }
        /* ULFM: a process failure (or a revoke) is raised at completion, not at the
         * start: the caller gets a request that completes with it. */
        mpii_req_t *f = rc == RMP_ERR_PEER_FAILED || rc == RMP_ERR_REVOKED
                            ? mpii_req_new(c, MPII_REQ_DONE) : NULL;
        if (f) {
            f->done = 1;
            f->err = mpii_err_from_rmp(rc);
            mpii_status_empty(&f->status);
            f->status.MPI_ERROR = f->err;
            *req = (MPI_Request)f;
            return MPI_SUCCESS;
        }
        return mpii_coll_err(c, rc, fn);
    }
    if (x && x->rd) /* unpacked into at completion: the caller may free the type before */
        mpii_dtype_retain(x->rd);
    if (x && x->op) /* so may it the op (MPI_Op_free) */
        mpii_op_retain(x->op);
    mpii_req_t *r = mpii_req_new_rmp(c, rr, nbc_fin);
    if (!r) {
        rmp_wait(&rr, NULL);
        mpii_req_t fake = {.ctx = x};
        nbc_release(&fake);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    r->ctx = x;
    r->release = nbc_release;
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}

static int nbc_reqarg(mpii_comm_t *c, MPI_Request *req, const char *fn)
{
    return req ? MPI_SUCCESS : mpii_err_comm(c, MPI_ERR_ARG, fn, "request is NULL");
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    mpii_comm_t *c;
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc;
    if ((rc = mpii_coll_comm(comm, "MPI_Ibarrier", &c)) != MPI_SUCCESS ||
        (rc = nbc_reqarg(c, req, "MPI_Ibarrier")) != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL))
        return mpii_ic_coll(MPII_IC_BARRIER, c, NULL, NULL, MPI_OP_NULL, 0, req, "MPI_Ibarrier");
    rc = rmp_ibarrier(c->rc, &rr); /* before rr is read: argument order is unspecified */
    return nbc_finish(c, rc, rr, NULL, req, "MPI_Ibarrier");
}
MPII_WEAK(Ibarrier)

static int nbc_bcast(void *buf, MPI_Count count, MPI_Datatype datatype, int root,
                     MPI_Comm comm, MPI_Request *req, const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *d;
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc;
    if ((rc = mpii_coll_comm(comm, fn, &c)) != MPI_SUCCESS ||
        (rc = nbc_reqarg(c, req, fn)) != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL))
        return mpii_ic_coll(MPII_IC_BCAST, c, NULL, MPII_IC_ONE(buf, count, datatype),
                            MPI_OP_NULL, root, req, fn);
    if ((rc = mpii_coll_type(c, datatype, count, fn, &d)) != MPI_SUCCESS ||
        (rc = mpii_coll_root(c, root, fn)) != MPI_SUCCESS)
        return rc;
    nbc_ctx_t *x = nbc_new();
    if (!x || (c->rank == root ? mpii_view_in(buf, count, d, &x->rv)
                               : mpii_view_out(buf, count, d, &x->rv)) != MPI_SUCCESS) {
        free(x);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    if (c->rank != root) {
        x->rbuf = buf;
        x->rnum = count;
        x->rd = d;
    }
    rc = rmp_ibcast(x->rv.p, x->rv.bytes, RMP_UINT8, root, c->rc, &rr);
    return nbc_finish(c, rc, rr, x, req, fn);
}

MPII_TWINS(Ibcast, nbc_bcast(buffer, count, datatype, root, comm, request, FN))

/* ---- Reductions ---- */
typedef enum { NR_REDUCE, NR_ALLREDUCE, NR_SCAN, NR_EXSCAN, NR_RS_BLOCK } nr_kind_t;

static int nr_run(nr_kind_t kind, const void *sbuf, void *rbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *req,
                  const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *d;
    mpii_red_t r;
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc;
    if ((rc = mpii_coll_comm(comm, fn, &c)) != MPI_SUCCESS ||
        (rc = nbc_reqarg(c, req, fn)) != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL))
        return mpii_ic_coll(kind == NR_REDUCE      ? MPII_IC_REDUCE
                            : kind == NR_ALLREDUCE ? MPII_IC_ALLREDUCE
                            : kind == NR_RS_BLOCK  ? MPII_IC_RS_BLOCK
                                                   : MPII_IC_UNSUPPORTED,
                            c, MPII_IC_ONE(sbuf, count, datatype),
                            MPII_IC_ONE(rbuf, count, datatype), op, root, req, fn);
    if ((rc = mpii_coll_type(c, datatype, count, fn, &d)) != MPI_SUCCESS ||
        (kind == NR_REDUCE && (rc = mpii_coll_root(c, root, fn)) != MPI_SUCCESS))
        return rc;
    if ((rc = mpii_red_resolve(mpii_op(op), d, datatype, count > 0 ? count : 1, &r)) !=
        MPI_SUCCESS)
        return mpii_err_comm(c, rc, fn, "%s",
                             rc == MPI_ERR_OP ? "invalid op, or op not defined on the datatype"
                                              : "datatype not usable in this reduction");
    if (count == 0)
        r.count = 0;
    int is_root = kind != NR_REDUCE || c->rank == root;
    if (count > 0 && is_root && MPII_COLL_ALIASED(sbuf, rbuf))
        return mpii_coll_alias(c, fn);
    size_t n = kind == NR_RS_BLOCK ? (size_t)c->size : 1;
    nbc_ctx_t *x = nbc_new();
    if (!x)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    x->op = mpii_op(op);
    const void *s = sbuf == MPI_IN_PLACE ? RMP_IN_PLACE : mpii_coll_at(sbuf, r.shift);
    void *out = is_root ? mpii_coll_at(rbuf, r.shift) : NULL;
    if (r.packed && count > 0) {
        size_t bytes = (size_t)count * d->size;
        if (!(x->rv.tmp = malloc(bytes * n))) {
            free(x);
            return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
        }
        mpii_dtype_pack(d, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count * (MPI_Count)n, 0,
                        x->rv.tmp, bytes * n);
        x->rv.bytes = bytes;
        s = RMP_IN_PLACE;
        out = x->rv.tmp;
        if (is_root && !(kind == NR_EXSCAN && c->rank == 0)) {
            x->rbuf = rbuf;
            x->rnum = count;
            x->rd = d;
        } else {
            x->rv.bytes = 0;
        }
        if (!is_root) { /* a non-root's reduce sends from the copy */
            s = x->rv.tmp;
            out = NULL;
        }
    }
    switch (kind) {
    case NR_REDUCE: rc = rmp_ireduce(s, out, r.count, r.dt, r.op, root, c->rc, &rr); break;
    case NR_ALLREDUCE: rc = rmp_iallreduce(s, out, r.count, r.dt, r.op, c->rc, &rr); break;
    case NR_SCAN: rc = rmp_iscan(s, out, r.count, r.dt, r.op, c->rc, &rr); break;
    case NR_EXSCAN: rc = rmp_iexscan(s, out, r.count, r.dt, r.op, c->rc, &rr); break;
    default: rc = rmp_ireduce_scatter(s, out, r.count, r.dt, r.op, c->rc, &rr); break;
    }
    return nbc_finish(c, rc, rr, x, req, fn);
}

MPII_TWINS(Ireduce, nr_run(NR_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, request,
           FN))

MPII_TWINS(Iallreduce, nr_run(NR_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm,
           request, FN))

MPII_TWINS(Iscan, nr_run(NR_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, request, FN))

MPII_TWINS(Iexscan, nr_run(NR_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, request, FN))

MPII_TWINS(Ireduce_scatter_block, nr_run(NR_RS_BLOCK, sendbuf, recvbuf, recvcount, datatype, op,
           0, comm, request, FN))

/* Reduce_scatter with counts: icnt (MPI_Ireduce_scatter) or cnt (MPI_Ireduce_scatter_c).
 * fit: the _c form's MPI_ERR_COUNT for a count past an int, the limit of the persistent
 * MPI_Reduce_scatter_init_c, which it keeps (tests/mpi_abi/coll_persist_c.c). */
static int nr_scatter(int fit, const void *sbuf, void *rbuf, const int *icnt,
                      const MPI_Count *cnt, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                      MPI_Request *req, const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *d;
    mpii_red_t r;
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc = fit;
    if (rc != MPI_SUCCESS || (rc = mpii_coll_comm(comm, fn, &c)) != MPI_SUCCESS ||
        (rc = nbc_reqarg(c, req, fn)) != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL)) {
        mpii_ic_side_t rs = {rbuf, 0, cnt, icnt, NULL, NULL, dt, NULL};
        return mpii_ic_coll(MPII_IC_RS, c, MPII_IC_ONE(sbuf, 0, dt), &rs, op, 0, req, fn);
    }
    if ((rc = mpii_coll_type(c, dt, 0, fn, &d)) != MPI_SUCCESS)
        return rc;
    if (!icnt && !cnt)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "recvcounts is NULL");
    if (MPII_COLL_ALIASED(sbuf, rbuf) && mpii_coll_my_count(cnt, icnt, c->rank) > 0)
        return mpii_coll_alias(c, fn);
    if ((rc = mpii_red_resolve(mpii_op(op), d, dt, 1, &r)) != MPI_SUCCESS)
        return mpii_err_comm(c, rc, fn, "invalid op, or op not defined on the datatype");
    if (r.packed)
        return mpii_err_comm(c, MPI_ERR_TYPE, fn,
                             "non-contiguous datatypes are not supported here by rmp yet");
    nbc_ctx_t *x = nbc_new();
    if (!x || !(x->arr = malloc((size_t)c->size * sizeof(size_t)))) {
        free(x);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    x->op = mpii_op(op);
    for (int i = 0; i < c->size; i++) {
        MPI_Count k = cnt ? cnt[i] : icnt[i];
        if (k < 0) {
            nbc_finish(c, RMP_ERR_ARG, rr, x, req, fn);
            return MPI_ERR_COUNT;
        }
        x->arr[i] = (size_t)k * r.count;
    }
    rc = rmp_ireduce_scatter_v(sbuf == MPI_IN_PLACE ? RMP_IN_PLACE : mpii_coll_at(sbuf, r.shift),
                               mpii_coll_at(rbuf, r.shift), x->arr, r.dt, r.op, c->rc, &rr);
    return nbc_finish(c, rc, rr, x, req, fn);
}

MPII_TWINS(Ireduce_scatter, nr_scatter(TWIN(MPI_SUCCESS, mpii_pcoll_fit_counts(comm, recvcounts,
           FN)), sendbuf, recvbuf, TWIN(recvcounts, NULL), TWIN(NULL, recvcounts), datatype, op,
           comm, request, FN))

/* ---- Data movement ---- */
typedef enum { NM_GATHER, NM_SCATTER, NM_ALLGATHER, NM_ALLTOALL } nm_kind_t;

/* A non-contiguous type: the v form on uniform counts, which moves the blocks as layouts
 * (nbc_v.c) and sends the messages of the plain form (rmp_igather is rmp_igatherv on
 * uniform arrays), so ranks with contiguous types need not do the same. */
static int nm_as_v(nm_kind_t kind, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                   void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                   mpii_comm_t *c, MPI_Request *req, const char *fn)
{
    int n = c->size, rc;
    MPI_Count *cnt = malloc(2 * (size_t)n * sizeof(*cnt));
    MPI_Aint *dsp = malloc(2 * (size_t)n * sizeof(*dsp));
    if (!cnt || !dsp) {
        free(cnt);
        free(dsp);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        cnt[i] = scount;
        dsp[i] = (MPI_Aint)i * scount;
        cnt[n + i] = rcount;
        dsp[n + i] = (MPI_Aint)i * rcount;
    }
    switch (kind) {
    case NM_GATHER:
        rc = PMPI_Igatherv_c(sbuf, scount, stype, rbuf, cnt + n, dsp + n, rtype, root, comm, req);
        break;
    case NM_SCATTER:
        rc = PMPI_Iscatterv_c(sbuf, cnt, dsp, stype, rbuf, rcount, rtype, root, comm, req);
        break;
    case NM_ALLGATHER:
        rc = PMPI_Iallgatherv_c(sbuf, scount, stype, rbuf, cnt + n, dsp + n, rtype, comm, req);
        break;
    default:
        rc = PMPI_Ialltoallv_c(sbuf, cnt, dsp, stype, rbuf, cnt + n, dsp + n, rtype, comm, req);
        break;
    }
    free(cnt);
    free(dsp);
    return rc;
}

static int nm_run(nm_kind_t kind, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                  void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                  MPI_Request *req, const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *sd = NULL, *rd = NULL;
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc, rooted = kind == NM_GATHER || kind == NM_SCATTER;
    if ((rc = mpii_coll_comm(comm, fn, &c)) != MPI_SUCCESS ||
        (rc = nbc_reqarg(c, req, fn)) != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL))
        return mpii_ic_coll(kind == NM_GATHER      ? MPII_IC_GATHER
                            : kind == NM_SCATTER   ? MPII_IC_SCATTER
                            : kind == NM_ALLGATHER ? MPII_IC_ALLGATHER
                                                   : MPII_IC_ALLTOALL,
                            c, MPII_IC_ONE(sbuf, scount, stype), MPII_IC_ONE(rbuf, rcount, rtype),
                            MPI_OP_NULL, root, req, fn);
    if (rooted && (rc = mpii_coll_root(c, root, fn)) != MPI_SUCCESS)
        return rc;
    int is_root = !rooted || c->rank == root, n = c->size;
    int use_s = kind != NM_SCATTER || is_root, use_r = kind != NM_GATHER || is_root;
    int s_in_place = sbuf == MPI_IN_PLACE && kind != NM_SCATTER;
    int r_in_place = rbuf == MPI_IN_PLACE && kind == NM_SCATTER;
    if (use_s && !s_in_place && (rc = mpii_coll_type(c, stype, scount, fn, &sd)) != MPI_SUCCESS)
        return rc;
    if (use_r && !r_in_place && (rc = mpii_coll_type(c, rtype, rcount, fn, &rd)) != MPI_SUCCESS)
        return rc;
    if (mpii_coll_mv_aliased(kind == NM_SCATTER, c->rank, sbuf, scount, sd, rbuf, rcount, rd))
        return mpii_coll_alias(c, fn);
    /* (Alltoall in place sends from a packed copy below: the v form would keep the
     * count arrays, which live only in this call.) */
    if (((sd && !sd->contig) || (rd && !rd->contig)) && !(kind == NM_ALLTOALL && s_in_place))
        return nm_as_v(kind, sbuf, scount, stype, rbuf, rcount, rtype, root, comm, c, req, fn);
    MPI_Count snum = kind == NM_SCATTER || kind == NM_ALLTOALL ? scount * n : scount;
    MPI_Count rnum = kind == NM_SCATTER ? rcount : rcount * n;
    nbc_ctx_t *x = nbc_new();
    size_t blk = 0;
    if (!x)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    if (use_r && !r_in_place) {
        rc = s_in_place ? mpii_view_in(rbuf, rnum, rd, &x->rv)
                        : mpii_view_out(rbuf, rnum, rd, &x->rv);
        blk = (size_t)rcount * rd->size;
        x->rbuf = rbuf;
        x->rnum = rnum;
        x->rd = rd;
    }
    if (rc == MPI_SUCCESS && use_s && !s_in_place) {
        rc = mpii_view_in(sbuf, snum, sd, &x->sv);
        if (!use_r || r_in_place || kind == NM_SCATTER)
            blk = (size_t)scount * sd->size;
    }
    if (rc != MPI_SUCCESS)
        return nbc_finish(c, RMP_ERR_NOMEM, rr, x, req, fn);
    void *s = s_in_place ? RMP_IN_PLACE : x->sv.p, *r = r_in_place ? RMP_IN_PLACE : x->rv.p;
    switch (kind) {
    case NM_GATHER: rc = rmp_igather(s, r, blk, RMP_UINT8, root, c->rc, &rr); break;
    case NM_SCATTER: rc = rmp_iscatter(s, r, blk, RMP_UINT8, root, c->rc, &rr); break;
    case NM_ALLGATHER: rc = rmp_iallgather(s, r, blk, RMP_UINT8, c->rc, &rr); break;
    default: rc = rmp_ialltoall(s, r, blk, RMP_UINT8, c->rc, &rr); break;
    }
    return nbc_finish(c, rc, rr, x, req, fn);
}

MPII_TWINS(Igather, nm_run(NM_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
           root, comm, request, FN))

MPII_TWINS(Iscatter, nm_run(NM_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
           recvtype, root, comm, request, FN))

MPII_TWINS(Iallgather, nm_run(NM_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
           recvtype, 0, comm, request, FN))

MPII_TWINS(Ialltoall, nm_run(NM_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount,
           recvtype, 0, comm, request, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "nbc.twins.h"
