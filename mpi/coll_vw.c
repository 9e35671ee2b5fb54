/* SPDX-License-Identifier: BSD-3-Clause */
/* Alltoallv, alltoallw (blocking and nonblocking) and reduce_scatter with counts. */
#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"
#include "mpii_p2p.h"

/* Per-peer bytes and offsets of one side: types[i] (or d for all), counts, displacements
 * (in extents of the type, or in bytes for alltoallw). A non-contiguous type puts the
 * peer's data in a packed copy (tmp) instead. */
typedef struct vw_side {
    size_t *len, *off;
    char *tmp;
    size_t total;
} vw_side_t;

static void vw_free(vw_side_t *s)
{
    free(s->len);
    free(s->tmp);
}

static int vw_prepare(vw_side_t *s, int n, char *buf, const MPI_Count *cnt, const int *icnt,
                      const MPI_Aint *dsp, const int *idsp, mpii_dtype_t *const *types,
                      int bytes_disp, int pack)
{
    s->tmp = NULL;
    s->total = 0;
    if (!(s->len = malloc(2 * (size_t)n * sizeof(size_t) + 1)))
        return MPI_ERR_NO_MEM;
    s->off = s->len + n;
    int contig = 1;
    for (int i = 0; i < n; i++) {
        MPI_Count c = cnt ? cnt[i] : icnt[i];
        if (c < 0)
            return MPI_ERR_COUNT;
        s->len[i] = (size_t)c * types[i]->size;
        contig &= types[i]->contig || c == 0;
        s->total += s->len[i];
    }
    size_t acc = 0;
    for (int i = 0; i < n; i++) {
        MPI_Aint d = dsp ? dsp[i] : idsp[i];
        MPI_Aint at = bytes_disp ? d : d * types[i]->extent;
        s->off[i] = contig ? (size_t)(at + types[i]->true_lb) : acc;
        acc += s->len[i];
    }
    if (contig)
        return MPI_SUCCESS;
    if (!(s->tmp = malloc(s->total + 1)))
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n && pack; i++) {
        MPI_Aint d = dsp ? dsp[i] : idsp[i];
        MPI_Aint at = bytes_disp ? d : d * types[i]->extent;
        MPI_Count c = cnt ? cnt[i] : icnt[i];
        if (c > 0)
            mpii_dtype_pack(types[i], buf + at, c, 0, s->tmp + s->off[i], s->len[i]);
    }
    return MPI_SUCCESS;
}

static void vw_unpack(vw_side_t *s, int n, char *buf, const MPI_Count *cnt, const int *icnt,
                      const MPI_Aint *dsp, const int *idsp, mpii_dtype_t *const *types,
                      int bytes_disp)
{
    for (int i = 0; s->tmp && i < n; i++) {
        MPI_Aint d = dsp ? dsp[i] : idsp[i];
        MPI_Aint at = bytes_disp ? d : d * types[i]->extent;
        MPI_Count c = cnt ? cnt[i] : icnt[i];
        if (c > 0)
            mpii_dtype_unpack(types[i], buf + at, c, 0, s->tmp + s->off[i], s->len[i]);
    }
}

typedef struct vw_args {
    const MPI_Count *cnt;
    const int *icnt;
    const MPI_Aint *dsp;
    const int *idsp;
    const MPI_Datatype *types; /* alltoallw */
    MPI_Datatype type;
} vw_args_t;

/* Resolve the side's types (one for all, or per peer) into t[0..n). */
static int vw_types(mpii_comm_t *c, const vw_args_t *a, mpii_dtype_t **t, const char *fn)
{
    for (int i = 0; i < c->size; i++) {
        t[i] = mpii_dtype(a->types ? a->types[i] : a->type);
        if (!mpii_dtype_ok(t[i]))
            return mpii_err_comm(c, MPI_ERR_TYPE, fn, "invalid datatype (peer %d)", i);
    }
    if ((!a->cnt && !a->icnt) || (!a->dsp && !a->idsp))
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "a count or displacement array is NULL");
    return MPI_SUCCESS;
}

/* A nonblocking alltoallw in flight: the packed sides and the receive arguments, which
 * MPI keeps valid until completion. */
typedef struct vw_nb {
    vw_side_t s, r;
    mpii_dtype_t **t;
    vw_args_t ra;
    char *rbuf;
    int n, w;
} vw_nb_t;

static int vw_nb_fin(mpii_req_t *q)
{
    vw_nb_t *x = q->ctx;
    if (q->err == MPI_SUCCESS)
        vw_unpack(&x->r, x->n, x->rbuf, x->ra.cnt, x->ra.icnt, x->ra.dsp, x->ra.idsp,
                  x->t + x->n, x->w);
    mpii_status_empty(&q->status);
    q->status.MPI_ERROR = q->err;
    return MPI_SUCCESS;
}

static void vw_nb_release(mpii_req_t *q)
{
    vw_nb_t *x = q->ctx;
    if (!x)
        return;
    vw_free(&x->s);
    vw_free(&x->r);
    for (int i = 0; i < 2 * x->n; i++)
        if (x->t[i])
            mpii_dtype_release(x->t[i]);
    free(x->t);
    free(x);
    q->ctx = NULL;
}

/* The blocking call (req NULL) or the nonblocking one, which owns s, r and t from here. */
static int vw_exchange(mpii_comm_t *c, const char *sb, vw_side_t *s, vw_side_t *r, char *rbuf,
                       const vw_args_t *ra, mpii_dtype_t **t, int w, MPI_Request *req,
                       const char *fn)
{
    int n = c->size;
    char *rb = r->tmp ? r->tmp : rbuf;
    if (!req) {
        int rc = rmp_alltoallv(sb, s->len, s->off, rb, r->len, r->off, c->rc);
        if (rc == RMP_SUCCESS)
            vw_unpack(r, n, rbuf, ra->cnt, ra->icnt, ra->dsp, ra->idsp, t + n, w);
        return rc == RMP_SUCCESS ? MPI_SUCCESS : mpii_coll_err(c, rc, fn);
    }
    vw_nb_t *x = calloc(1, sizeof(*x));
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc = x ? rmp_ialltoallv(sb, s->len, s->off, rb, r->len, r->off, c->rc, &rr)
               : RMP_ERR_NOMEM;
    if (rc != RMP_SUCCESS) {
        free(x);
        return mpii_coll_err(c, rc, fn);
    }
    *x = (vw_nb_t){*s, *r, t, *ra, rbuf, n, w};
    for (int i = 0; i < 2 * n; i++) /* unpacked with at completion */
        if (t[i])
            mpii_dtype_retain(t[i]);
    *s = (vw_side_t){NULL, NULL, NULL, 0};
    *r = (vw_side_t){NULL, NULL, NULL, 0};
    mpii_req_t *q = mpii_req_new_rmp(c, rr, vw_nb_fin);
    if (!q) {
        rmp_wait(&rr, NULL);
        mpii_req_t fake = {.ctx = x};
        vw_nb_release(&fake);
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    q->ctx = x;
    q->release = vw_nb_release;
    *req = (MPI_Request)q;
    return MPI_SUCCESS;
}

static int vw_contig(const vw_args_t *a, mpii_dtype_t *const *t, int n)
{
    for (int i = 0; i < n; i++)
        if (!t[i]->contig && (a->cnt ? a->cnt[i] : a->icnt[i]) != 0)
            return 0;
    return 1;
}

/* Not in place, a non-contiguous side: every block as a layout (no packed copy of the
 * whole message). Takes t. */
static int vw_layouts(mpii_comm_t *c, const void *sbuf, const vw_args_t *sa, void *rbuf,
                      const vw_args_t *ra, mpii_dtype_t **t, int w, MPI_Request *req,
                      const char *fn)
{
    int n = c->size, rc;
    mpii_lay_req_t *x = mpii_lay_req_new(t, 2 * n, 1);
    if (!x)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    mpii_blocks_args_t a = {sa->cnt, sa->icnt, sa->dsp, sa->idsp, t, NULL, w};
    mpii_blocks_args_t b = {ra->cnt, ra->icnt, ra->dsp, ra->idsp, t + n, NULL, w};
    if ((rc = mpii_blocks_init(&x->s, n, sbuf, &a)) != MPI_SUCCESS ||
        (rc = mpii_blocks_init(&x->r, n, rbuf, &b)) != MPI_SUCCESS) {
        mpii_lay_req_free(x);
        return mpii_err_comm(c, rc, fn, "%s",
                             rc == MPI_ERR_COUNT ? "negative count" : "out of memory");
    }
    if (!req) {
        rc = rmp_alltoallv_layout(x->s.lay, x->s.bytes, x->r.lay, x->r.bytes, c->rc);
        mpii_lay_req_free(x);
        return rc == RMP_SUCCESS ? MPI_SUCCESS : mpii_coll_err(c, rc, fn);
    }
    rmp_request_t rr = RMP_REQUEST_NULL;
    rc = rmp_ialltoallv_layout(x->s.lay, x->s.bytes, x->r.lay, x->r.bytes, c->rc, &rr);
    return mpii_lay_req_wrap(c, rc, rr, x, req, fn);
}

static int alltoallvw_run(const void *sbuf, vw_args_t sa, void *rbuf, vw_args_t ra,
                          MPI_Comm comm, int w, MPI_Request *req, const char *fn)
{
    mpii_comm_t *c;
    int rc, in_place = sbuf == MPI_IN_PLACE;
    if ((rc = mpii_coll_comm(comm, fn, &c)) != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL)) {
        mpii_ic_side_t s = {sbuf, 0, sa.cnt, sa.icnt, sa.dsp, sa.idsp, sa.type, sa.types};
        mpii_ic_side_t r = {rbuf, 0, ra.cnt, ra.icnt, ra.dsp, ra.idsp, ra.type, ra.types};
        return mpii_ic_coll(w ? MPII_IC_ALLTOALLW : MPII_IC_ALLTOALLV, c, &s, &r, MPI_OP_NULL,
                            0, req, fn);
    }
    if (MPII_COLL_ALIASED(sbuf, rbuf) && mpii_coll_my_count(sa.cnt, sa.icnt, c->rank) > 0)
        return mpii_coll_alias(c, fn);
    int n = c->size;
    mpii_dtype_t **t = calloc(2 * (size_t)n, sizeof(*t)); /* in place: send half NULL */
    vw_side_t s = {NULL, NULL, NULL, 0}, r = {NULL, NULL, NULL, 0};
    if (!t)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    if ((rc = vw_types(c, &ra, t + n, fn)) != MPI_SUCCESS ||
        (!in_place && (rc = vw_types(c, &sa, t, fn)) != MPI_SUCCESS)) {
        free(t);
        return rc;
    }
    if (!in_place && (!vw_contig(&sa, t, n) || !vw_contig(&ra, t + n, n)))
        return vw_layouts(c, sbuf, &sa, rbuf, &ra, t, w, req, fn);
    /* In place the data to send is in rbuf, laid out as the receive side. */
    rc = vw_prepare(&r, n, rbuf, ra.cnt, ra.icnt, ra.dsp, ra.idsp, t + n, w, in_place);
    if (rc == MPI_SUCCESS && !in_place)
        rc = vw_prepare(&s, n, (char *)sbuf, sa.cnt, sa.icnt, sa.dsp, sa.idsp, t, w, 1);
    if (rc == MPI_SUCCESS) {
        const char *sb = in_place ? RMP_IN_PLACE : s.tmp ? s.tmp : sbuf;
        rc = vw_exchange(c, sb, &s, &r, rbuf, &ra, t, w, req, fn);
        if (req && rc == MPI_SUCCESS)
            t = NULL; /* the request owns it */
    } else {
        rc = mpii_err_comm(c, rc, fn, "%s", rc == MPI_ERR_COUNT ? "negative count" : "out of memory");
    }
    vw_free(&s);
    vw_free(&r);
    free(t);
    return rc;
}

int mpii_ialltoallv_in_place(void *rbuf, const MPI_Count *cnt, const int *icnt,
                             const MPI_Aint *dsp, const int *idsp, MPI_Datatype rtype,
                             MPI_Comm comm, MPI_Request *req, const char *fn)
{
    vw_args_t s = {NULL, NULL, NULL, NULL, NULL, MPI_DATATYPE_NULL};
    vw_args_t r = {cnt, icnt, dsp, idsp, NULL, rtype};
    return alltoallvw_run(MPI_IN_PLACE, s, rbuf, r, comm, 0, req, fn);
}

/* One side's arrays: int (MPI_Name) or large-count (MPI_Name_c). */
static vw_args_t vw_int(const int *cnt, const int *dsp, const MPI_Datatype *types,
                        MPI_Datatype type)
{
    return (vw_args_t){NULL, cnt, NULL, dsp, types, type};
}

static vw_args_t vw_big(const MPI_Count *cnt, const MPI_Aint *dsp, const MPI_Datatype *types,
                        MPI_Datatype type)
{
    return (vw_args_t){cnt, NULL, dsp, NULL, types, type};
}

/* Alltoallw, blocking or not (nb: a request is asked for). */
static int alltoallw_run(const void *sbuf, vw_args_t s, void *rbuf, vw_args_t r, MPI_Comm comm,
                         int nb, MPI_Request *req, const char *fn)
{
    if (nb && !req)
        return mpii_err_comm(mpii_comm(comm), MPI_ERR_ARG, fn, "request is NULL");
    if (!r.types || (sbuf != MPI_IN_PLACE && !s.types))
        s.types = r.types = NULL; /* reported as invalid datatypes */
    return alltoallvw_run(sbuf, s, rbuf, r, comm, 1, req, fn);
}

MPII_TWINS(Alltoallv, alltoallvw_run(sendbuf, TWIN(vw_int, vw_big)(sendcounts, sdispls, NULL,
           sendtype), recvbuf, TWIN(vw_int, vw_big)(recvcounts, rdispls, NULL, recvtype), comm,
           0, NULL, FN))

MPII_TWINS(Alltoallw, alltoallw_run(sendbuf, TWIN(vw_int, vw_big)(sendcounts, sdispls, sendtypes,
           MPI_DATATYPE_NULL), recvbuf, TWIN(vw_int, vw_big)(recvcounts, rdispls, recvtypes,
           MPI_DATATYPE_NULL), comm, 0, NULL, FN))

MPII_TWINS(Ialltoallw, alltoallw_run(sendbuf, TWIN(vw_int, vw_big)(sendcounts, sdispls,
           sendtypes, MPI_DATATYPE_NULL), recvbuf, TWIN(vw_int, vw_big)(recvcounts, rdispls,
           recvtypes, MPI_DATATYPE_NULL), comm, 1, request, FN))

/* ---- Reduce_scatter with counts ---- */
static int rsv_run(const void *sbuf, void *rbuf, const MPI_Count *cnt, const int *icnt,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *d;
    mpii_red_t r;
    int rc;
    if ((rc = mpii_coll_comm(comm, fn, &c)) == MPI_SUCCESS && MPII_UNLIKELY(c->inter != NULL)) {
        mpii_ic_side_t r = {rbuf, 0, cnt, icnt, NULL, NULL, datatype, NULL};
        return mpii_ic_coll(MPII_IC_RS, c, MPII_IC_ONE(sbuf, 0, datatype), &r, op, 0, NULL, fn);
    }
    if (rc != MPI_SUCCESS || (rc = mpii_coll_type(c, datatype, 0, fn, &d)) != MPI_SUCCESS)
        return rc;
    if (!cnt && !icnt)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "recvcounts is NULL");
    if (MPII_COLL_ALIASED(sbuf, rbuf) && mpii_coll_my_count(cnt, icnt, c->rank) > 0)
        return mpii_coll_alias(c, fn);
    int n = c->size;
    MPI_Count total = 0;
    for (int i = 0; i < n; i++) {
        MPI_Count k = cnt ? cnt[i] : icnt[i];
        if (k < 0)
            return mpii_err_comm(c, MPI_ERR_COUNT, fn, "negative count for rank %d", i);
        total += k;
    }
    if ((rc = mpii_red_resolve(mpii_op(op), d, datatype, total > 0 ? total : 1, &r)) !=
        MPI_SUCCESS)
        return mpii_err_comm(c, rc, fn, "%s",
                             rc == MPI_ERR_OP ? "invalid op, or op not defined on the datatype"
                                              : "datatype not usable in this reduction");
    size_t per = total > 0 ? r.count / (size_t)total : 1; /* rmp elements per element */
    size_t *counts = malloc((size_t)n * sizeof(size_t));
    char *tmp = NULL;
    if (!counts)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++)
        counts[i] = (size_t)(cnt ? cnt[i] : icnt[i]) * per;
    MPI_Count mine = cnt ? cnt[c->rank] : icnt[c->rank];
    if (!r.packed) {
        rc = rmp_reduce_scatter_v(sbuf == MPI_IN_PLACE ? RMP_IN_PLACE : mpii_coll_at(sbuf, r.shift),
                                  mpii_coll_at(rbuf, r.shift), counts, r.dt, r.op, c->rc);
    } else if (!(tmp = malloc((size_t)total * d->size + 1))) {
        rc = RMP_ERR_NOMEM;
    } else {
        mpii_dtype_pack(d, sbuf == MPI_IN_PLACE ? rbuf : sbuf, total, 0, tmp,
                        (size_t)total * d->size);
        rc = rmp_reduce_scatter_v(RMP_IN_PLACE, tmp, counts, r.dt, r.op, c->rc);
        if (rc == RMP_SUCCESS)
            mpii_dtype_unpack(d, rbuf, mine, 0, tmp, (size_t)mine * d->size);
    }
    free(tmp);
    free(counts);
    return rc == RMP_SUCCESS ? MPI_SUCCESS : mpii_coll_err(c, rc, fn);
}

MPII_TWINS(Reduce_scatter, rsv_run(sendbuf, recvbuf, TWIN(NULL, recvcounts), TWIN(recvcounts,
           NULL), datatype, op, comm, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "coll_vw.twins.h"
