/* SPDX-License-Identifier: BSD-3-Clause */
/* Persistent collectives (MPI_<Coll>_init, MPI 4): the request keeps the call's arguments
 * and each MPI_Start runs the nonblocking collective (MPI_I<coll>) behind it; the
 * persistent request completes when that one does. MPI requires the arguments, arrays
 * included, to stay valid and unchanged until the request is freed, so they are kept by
 * reference. The large-count forms (_c) keep to int counts (MPI_ERR_COUNT past one): their
 * count arrays become int copies the request owns. The info argument carries no hint rmp
 * uses. */
#include <limits.h>

#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_inter.h"
#include "mpii_p2p.h"

typedef enum {
    PC_BARRIER, PC_BCAST, PC_GATHER, PC_GATHERV, PC_SCATTER, PC_SCATTERV, PC_ALLGATHER,
    PC_ALLGATHERV, PC_ALLTOALL, PC_ALLTOALLV, PC_ALLTOALLW, PC_REDUCE, PC_ALLREDUCE,
    PC_REDUCE_SCATTER, PC_REDUCE_SCATTER_BLOCK, PC_SCAN, PC_EXSCAN, PC_CUSTOM
} pc_kind_t;

typedef struct pc_args {
    pc_kind_t kind;
    const void *sbuf;
    void *rbuf;
    int scount, rcount, root;
    MPI_Datatype stype, rtype;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Datatype *stypes, *rtypes;
    MPI_Op op;
    MPI_Comm comm;
    /* A private context made at init: MPI matches persistent collectives in the order
     * of their init calls, whatever order each rank starts them in. */
    mpii_comm_t *priv;
    MPI_Request inner; /* the running nonblocking collective */
    /* PC_CUSTOM: another module's collective (neighbor_persist.c) */
    int (*launch)(void *ctx, MPI_Request *q);
    void (*ctx_free)(void *ctx);
    void *ctx;
    int *own; /* the int copies of a _c form's count arrays (pc_make_v), freed with it */
} pc_args_t;

static int pc_launch(pc_args_t *a, MPI_Request *q)
{
    const void *s = a->sbuf;
    void *r = a->rbuf;
    MPI_Comm c = a->priv ? mpii_comm_handle(a->priv) : a->comm;
    switch (a->kind) {
    case PC_BARRIER: return PMPI_Ibarrier(c, q);
    case PC_BCAST: return PMPI_Ibcast(r, a->rcount, a->rtype, a->root, c, q);
    case PC_GATHER:
        return PMPI_Igather(s, a->scount, a->stype, r, a->rcount, a->rtype, a->root, c, q);
    case PC_GATHERV:
        return PMPI_Igatherv(s, a->scount, a->stype, r, a->rcounts, a->rdispls, a->rtype,
                             a->root, c, q);
    case PC_SCATTER:
        return PMPI_Iscatter(s, a->scount, a->stype, r, a->rcount, a->rtype, a->root, c, q);
    case PC_SCATTERV:
        return PMPI_Iscatterv(s, a->scounts, a->sdispls, a->stype, r, a->rcount, a->rtype,
                              a->root, c, q);
    case PC_ALLGATHER:
        return PMPI_Iallgather(s, a->scount, a->stype, r, a->rcount, a->rtype, c, q);
    case PC_ALLGATHERV:
        return PMPI_Iallgatherv(s, a->scount, a->stype, r, a->rcounts, a->rdispls, a->rtype,
                                c, q);
    case PC_ALLTOALL:
        return PMPI_Ialltoall(s, a->scount, a->stype, r, a->rcount, a->rtype, c, q);
    case PC_ALLTOALLV:
        return PMPI_Ialltoallv(s, a->scounts, a->sdispls, a->stype, r, a->rcounts, a->rdispls,
                               a->rtype, c, q);
    case PC_ALLTOALLW:
        return PMPI_Ialltoallw(s, a->scounts, a->sdispls, a->stypes, r, a->rcounts,
                               a->rdispls, a->rtypes, c, q);
    case PC_REDUCE: return PMPI_Ireduce(s, r, a->rcount, a->rtype, a->op, a->root, c, q);
    case PC_ALLREDUCE: return PMPI_Iallreduce(s, r, a->rcount, a->rtype, a->op, c, q);
    case PC_REDUCE_SCATTER:
        return PMPI_Ireduce_scatter(s, r, a->rcounts, a->rtype, a->op, c, q);
    case PC_REDUCE_SCATTER_BLOCK:
        return PMPI_Ireduce_scatter_block(s, r, a->rcount, a->rtype, a->op, c, q);
    case PC_SCAN: return PMPI_Iscan(s, r, a->rcount, a->rtype, a->op, c, q);
    case PC_EXSCAN: return PMPI_Iexscan(s, r, a->rcount, a->rtype, a->op, c, q);
    default: return a->launch(a->ctx, q); /* PC_CUSTOM */
    }
}

static int pc_poll(mpii_req_t *r)
{
    pc_args_t *a = r->ctx;
    mpii_req_t *in = mpii_req(a->inner);
    if (in && !mpii_req_test(in))
        return 0;
    r->err = in ? in->err : MPI_SUCCESS;
    mpii_status_empty(&r->status);
    r->status.MPI_ERROR = r->err;
    if (in)
        mpii_req_free(in);
    a->inner = MPI_REQUEST_NULL;
    return 1;
}

static void pc_release(mpii_req_t *r)
{
    pc_args_t *a = r->ctx;
    if (!a)
        return;
    mpii_req_t *in = mpii_req(a->inner);
    if (in) { /* freed while running (MPI_Request_free reaps only once done) */
        mpii_req_wait(in);
        mpii_req_free(in);
    }
    if (a->ctx_free)
        a->ctx_free(a->ctx);
    if (a->priv)
        mpii_comm_destroy(a->priv);
    free(a->own);
    free(a);
    r->ctx = NULL;
}

int mpii_pcoll_start(mpii_req_t *r, const char *fn)
{
    pc_args_t *a = r->ctx;
    MPI_Request q = MPI_REQUEST_NULL;
    int rc = pc_launch(a, &q); /* argument errors are reported by the I-call's name */
    if (rc != MPI_SUCCESS) {
        r->kind = MPII_REQ_DONE;
        r->done = 1;
        return mpii_err_comm(r->comm, rc, fn, "could not start the persistent collective");
    }
    a->inner = q;
    r->kind = MPII_REQ_POLL;
    r->poll = pc_poll;
    r->done = 0;
    r->err = MPI_SUCCESS;
    r->active = 1;
    return MPI_SUCCESS;
}

/* A new inactive persistent request holding *a. */
static int pc_init(const pc_args_t *a, MPI_Request *request, const char *fn)
{
    mpii_comm_t *c;
    int rc = mpii_coll_comm(a->comm, fn, &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->inter && (a->kind == PC_SCAN || a->kind == PC_EXSCAN || a->kind == PC_CUSTOM))
        return mpii_ic_unsupported(c, fn);
    if (!request)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "request is NULL");
    pc_args_t *x = malloc(sizeof(*x));
    mpii_req_t *r = x ? mpii_req_new(c, MPII_REQ_DONE) : NULL;
    if (!r) {
        free(x);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    *x = *a;
    x->inner = MPI_REQUEST_NULL;
    x->priv = NULL;
    if (a->kind != PC_CUSTOM && (rc = mpii_comm_dup_bare(c, &x->priv, fn)) != MPI_SUCCESS) {
        free(x);
        mpii_req_free(r);
        return rc;
    }
    r->persistent = MPII_REQ_PCOLL;
    r->done = 1; /* inactive */
    mpii_status_empty(&r->status);
    r->ctx = x;
    r->release = pc_release;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

/* The large-count forms (MPI_Name_init_c) keep to int counts: rmp's persistent collectives
 * take int counts, so one past an int is MPI_ERR_COUNT. */
static int pc_fit(MPI_Comm comm, MPI_Count v, const char *what, const char *fn)
{
    if (v >= INT_MIN && v <= INT_MAX)
        return MPI_SUCCESS;
    return mpii_err_comm(mpii_comm(comm), MPI_ERR_COUNT, fn,
                         "%s does not fit an int: rmp's persistent collectives take int counts",
                         what);
}

static int pc_fit2(MPI_Comm comm, MPI_Count sendcount, MPI_Count recvcount, const char *fn)
{
    int rc = pc_fit(comm, sendcount, "sendcount", fn);
    return rc != MPI_SUCCESS ? rc : pc_fit(comm, recvcount, "recvcount", fn);
}

int mpii_pcoll_fit_counts(MPI_Comm comm, const MPI_Count *cnt, const char *fn)
{
    mpii_comm_t *c = mpii_comm(comm);
    int rc = MPI_SUCCESS;
    for (int i = 0; cnt && c && i < c->size && rc == MPI_SUCCESS; i++)
        rc = pc_fit(comm, cnt[i], "a count or displacement", fn);
    return rc;
}

/* MPI_Name_init and MPI_Name_init_c, fit the latter's count check (info: no hint applies). */
static int pc_make(int fit, pc_args_t a, MPI_Info info, MPI_Request *request, const char *fn)
{
    (void)info;
    return fit != MPI_SUCCESS ? fit : pc_init(&a, request, fn);
}

/* The count and displacement arrays of a v collective, [0] the send side's and [1] the
 * receive side's: the int form's, kept by reference, or the _c form's (large), which
 * pc_make_v narrows to int copies the request owns (the launch runs the int I-call). */
typedef struct {
    const int *icnt[2], *idsp[2];
    const MPI_Count *cnt[2];
    const MPI_Aint *dsp[2];
    int large;
} pc_v_t;

static pc_v_t pc_int(const int *scnt, const int *sdsp, const int *rcnt, const int *rdsp)
{
    return (pc_v_t){{scnt, rcnt}, {sdsp, rdsp}, {NULL, NULL}, {NULL, NULL}, 0};
}

static pc_v_t pc_big(const MPI_Count *scnt, const MPI_Aint *sdsp, const MPI_Count *rcnt,
                     const MPI_Aint *rdsp)
{
    return (pc_v_t){{NULL, NULL}, {NULL, NULL}, {scnt, rcnt}, {sdsp, rdsp}, 1};
}

/* Ranks a count array has: the remote group's on an intercommunicator. */
static int pc_nranks(MPI_Comm comm)
{
    int inter = 0, n = 0;
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return 0;
    if (PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter &&
        PMPI_Comm_remote_size(comm, &n) == MPI_SUCCESS)
        return n;
    return c->size;
}

/* Are the root-side arrays significant at this process? */
static int pc_is_root(MPI_Comm comm, int root)
{
    mpii_comm_t *c = mpii_comm(comm);
    int inter = 0;
    if (!c)
        return 0;
    PMPI_Comm_test_inter(comm, &inter);
    return inter ? root == MPI_ROOT : root == c->rank;
}

/* v's large arrays (n values each; NULL stays NULL) as int copies in one block (*blk).
 * MPI_SUCCESS, MPI_ERR_COUNT for a value past an int or MPI_ERR_NO_MEM (both reported). */
static int pc_narrow(MPI_Comm comm, int n, pc_v_t *v, int **blk, const char *fn)
{
    const char *what = "a count or displacement";
    int rc = MPI_SUCCESS, *p = *blk = malloc((size_t)(n > 0 ? n : 1) * 4 * sizeof(int));
    if (!p)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_NO_MEM, fn, "out of memory");
    for (int k = 0; k < 2; k++, p += 2 * n) {
        for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
            MPI_Count ci = v->cnt[k] ? v->cnt[k][i] : 0, di = v->dsp[k] ? v->dsp[k][i] : 0;
            if ((rc = pc_fit(comm, ci, what, fn)) == MPI_SUCCESS &&
                (rc = pc_fit(comm, di, what, fn)) == MPI_SUCCESS) {
                p[i] = (int)ci;
                p[n + i] = (int)di;
            }
        }
        v->icnt[k] = v->cnt[k] ? p : NULL;
        v->idsp[k] = v->dsp[k] ? p + n : NULL;
    }
    if (rc != MPI_SUCCESS) {
        free(*blk);
        *blk = NULL;
    }
    return rc;
}

/* pc_make for the v collectives. The _c form's arrays are narrowed where they are
 * significant: the root side's at the root (gatherv, scatterv), the send side's unless in
 * place (alltoallv, alltoallw). */
static int pc_make_v(int fit, pc_args_t a, pc_v_t v, MPI_Info info, MPI_Request *request,
                     const char *fn)
{
    int rc = fit, root_side = a.kind == PC_GATHERV ? 1 : a.kind == PC_SCATTERV ? 0 : -1;
    mpii_comm_t *c = mpii_comm(a.comm);
    if (rc == MPI_SUCCESS && v.large) {
        if (root_side >= 0 && !pc_is_root(a.comm, a.root))
            v.cnt[root_side] = NULL, v.dsp[root_side] = NULL;
        if ((a.kind == PC_ALLTOALLV || a.kind == PC_ALLTOALLW) && a.sbuf == MPI_IN_PLACE)
            v.cnt[0] = NULL, v.dsp[0] = NULL;
        int n = a.kind == PC_REDUCE_SCATTER ? (c ? c->size : 0) : pc_nranks(a.comm);
        rc = pc_narrow(a.comm, n, &v, &a.own, fn);
    }
    a.scounts = v.icnt[0];
    a.sdispls = v.idsp[0];
    a.rcounts = v.icnt[1];
    a.rdispls = v.idsp[1];
    rc = pc_make(rc, a, info, request, fn);
    if (rc != MPI_SUCCESS)
        free(a.own); /* NULL unless pc_init failed after narrowing */
    return rc;
}

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(MPI_SUCCESS, (pc_args_t){.kind = PC_BARRIER, .comm = comm}, info, request,
                   "MPI_Barrier_init");
}
MPII_WEAK(Barrier_init)

MPII_TWINS(Bcast_init, pc_make(TWIN(MPI_SUCCESS, pc_fit(comm, count, "count", FN)),
           (pc_args_t){.kind = PC_BCAST, .rbuf = buffer, .rcount = (int)count, .rtype = datatype,
           .root = root, .comm = comm}, info, request, FN))

MPII_TWINS(Gather_init, pc_make(TWIN(MPI_SUCCESS, pc_fit2(comm, sendcount, recvcount, FN)),
           (pc_args_t){.kind = PC_GATHER, .sbuf = sendbuf, .scount = (int)sendcount,
           .stype = sendtype, .rbuf = recvbuf, .rcount = (int)recvcount, .rtype = recvtype,
           .root = root, .comm = comm}, info, request, FN))

MPII_TWINS(Gatherv_init, pc_make_v(TWIN(MPI_SUCCESS, pc_fit(comm, sendcount, "sendcount", FN)),
           (pc_args_t){.kind = PC_GATHERV, .sbuf = sendbuf, .scount = (int)sendcount,
           .stype = sendtype, .rbuf = recvbuf, .rtype = recvtype, .root = root, .comm = comm},
           TWIN(pc_int, pc_big)(NULL, NULL, recvcounts, displs), info, request, FN))

MPII_TWINS(Scatter_init, pc_make(TWIN(MPI_SUCCESS, pc_fit2(comm, sendcount, recvcount, FN)),
           (pc_args_t){.kind = PC_SCATTER, .sbuf = sendbuf, .scount = (int)sendcount,
           .stype = sendtype, .rbuf = recvbuf, .rcount = (int)recvcount, .rtype = recvtype,
           .root = root, .comm = comm}, info, request, FN))

MPII_TWINS(Scatterv_init, pc_make_v(TWIN(MPI_SUCCESS, pc_fit(comm, recvcount, "recvcount", FN)),
           (pc_args_t){.kind = PC_SCATTERV, .sbuf = sendbuf, .stype = sendtype, .rbuf = recvbuf,
           .rcount = (int)recvcount, .rtype = recvtype, .root = root, .comm = comm},
           TWIN(pc_int, pc_big)(sendcounts, displs, NULL, NULL), info, request, FN))

MPII_TWINS(Allgather_init, pc_make(TWIN(MPI_SUCCESS, pc_fit2(comm, sendcount, recvcount, FN)),
           (pc_args_t){.kind = PC_ALLGATHER, .sbuf = sendbuf, .scount = (int)sendcount,
           .stype = sendtype, .rbuf = recvbuf, .rcount = (int)recvcount, .rtype = recvtype,
           .comm = comm}, info, request, FN))

MPII_TWINS(Allgatherv_init, pc_make_v(TWIN(MPI_SUCCESS, pc_fit(comm, sendcount, "sendcount",
           FN)), (pc_args_t){.kind = PC_ALLGATHERV, .sbuf = sendbuf, .scount = (int)sendcount,
           .stype = sendtype, .rbuf = recvbuf, .rtype = recvtype, .comm = comm},
           TWIN(pc_int, pc_big)(NULL, NULL, recvcounts, displs), info, request, FN))

MPII_TWINS(Alltoall_init, pc_make(TWIN(MPI_SUCCESS, pc_fit2(comm, sendcount, recvcount, FN)),
           (pc_args_t){.kind = PC_ALLTOALL, .sbuf = sendbuf, .scount = (int)sendcount,
           .stype = sendtype, .rbuf = recvbuf, .rcount = (int)recvcount, .rtype = recvtype,
           .comm = comm}, info, request, FN))

MPII_TWINS(Alltoallv_init, pc_make_v(MPI_SUCCESS, (pc_args_t){.kind = PC_ALLTOALLV,
           .sbuf = sendbuf, .stype = sendtype, .rbuf = recvbuf, .rtype = recvtype, .comm = comm},
           TWIN(pc_int, pc_big)(sendcounts, sdispls, recvcounts, rdispls), info, request, FN))

MPII_TWINS(Alltoallw_init, pc_make_v(MPI_SUCCESS, (pc_args_t){.kind = PC_ALLTOALLW,
           .sbuf = sendbuf, .stypes = sendtypes, .rbuf = recvbuf, .rtypes = recvtypes,
           .comm = comm}, TWIN(pc_int, pc_big)(sendcounts, sdispls, recvcounts, rdispls), info,
           request, FN))

MPII_TWINS(Allreduce_init, pc_make(TWIN(MPI_SUCCESS, pc_fit(comm, count, "count", FN)),
           (pc_args_t){.kind = PC_ALLREDUCE, .sbuf = sendbuf, .rbuf = recvbuf,
           .rcount = (int)count, .rtype = datatype, .op = op, .comm = comm}, info, request, FN))

MPII_TWINS(Reduce_scatter_block_init, pc_make(TWIN(MPI_SUCCESS, pc_fit(comm, recvcount, "count",
           FN)), (pc_args_t){.kind = PC_REDUCE_SCATTER_BLOCK, .sbuf = sendbuf, .rbuf = recvbuf,
           .rcount = (int)recvcount, .rtype = datatype, .op = op, .comm = comm}, info, request,
           FN))

MPII_TWINS(Scan_init, pc_make(TWIN(MPI_SUCCESS, pc_fit(comm, count, "count", FN)),
           (pc_args_t){.kind = PC_SCAN, .sbuf = sendbuf, .rbuf = recvbuf, .rcount = (int)count,
           .rtype = datatype, .op = op, .comm = comm}, info, request, FN))

MPII_TWINS(Exscan_init, pc_make(TWIN(MPI_SUCCESS, pc_fit(comm, count, "count", FN)),
           (pc_args_t){.kind = PC_EXSCAN, .sbuf = sendbuf, .rbuf = recvbuf, .rcount = (int)count,
           .rtype = datatype, .op = op, .comm = comm}, info, request, FN))

MPII_TWINS(Reduce_init, pc_make(TWIN(MPI_SUCCESS, pc_fit(comm, count, "count", FN)),
           (pc_args_t){.kind = PC_REDUCE, .sbuf = sendbuf, .rbuf = recvbuf, .rcount = (int)count,
           .rtype = datatype, .op = op, .root = root, .comm = comm}, info, request, FN))

MPII_TWINS(Reduce_scatter_init, pc_make_v(MPI_SUCCESS, (pc_args_t){.kind = PC_REDUCE_SCATTER,
           .sbuf = sendbuf, .rbuf = recvbuf, .rtype = datatype, .op = op, .comm = comm},
           TWIN(pc_int, pc_big)(NULL, NULL, recvcounts, NULL), info, request, FN))

int mpii_pcoll_custom(mpii_comm_t *c, int (*launch)(void *ctx, MPI_Request *q), void *ctx,
                      void (*ctx_free)(void *ctx), MPI_Request *request, const char *fn)
{
    pc_args_t a = {.kind = PC_CUSTOM, .comm = mpii_comm_handle(c), .launch = launch,
                   .ctx_free = ctx_free, .ctx = ctx};
    int rc = pc_init(&a, request, fn);
    if (rc != MPI_SUCCESS)
        ctx_free(ctx);
    return rc;
}

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "coll_persist.twins.h"
