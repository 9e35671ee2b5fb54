/* SPDX-License-Identifier: BSD-3-Clause */
/* Nonblocking v collectives (igatherv, iscatterv, iallgatherv, ialltoallv, and their
 * large-count forms) over rmp's schedules. Contiguous data goes as byte counts and
 * displacements; a non-contiguous side goes as layouts (rmp_i*v_layout: core packs and
 * unpacks each block piece by piece as it moves, no packed copy), which live in the
 * request's context with a reference on their types until the request is freed. */
#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"

/* A new context holding a reference on a and b (NULL: none). */
static mpii_lay_req_t *nv_ctx_new(mpii_dtype_t *a, mpii_dtype_t *b)
{
    mpii_dtype_t *t[2] = {a, b};
    return mpii_lay_req_new(t, 2, 0);
}

static int nv_type(mpii_comm_t *c, MPI_Datatype dt, const char *fn, mpii_dtype_t **d)
{
    return mpii_coll_type(c, dt, 0, fn, d);
}

/* Contiguous: len/off (2n entries) in bytes from counts and displacements in elements. */
static int nv_arrays(mpii_comm_t *c, const mpii_blocks_args_t *a, size_t **out, const char *fn)
{
    int n = c->size;
    const mpii_dtype_t *d = a->type;
    size_t *v = malloc(2 * (size_t)n * sizeof(size_t));
    if (!v)
        return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++) {
        MPI_Count k = a->cnt ? a->cnt[i] : a->icnt[i];
        MPI_Aint disp = a->dsp ? a->dsp[i] : a->idsp[i];
        if (k < 0) {
            free(v);
            return mpii_err_comm(c, MPI_ERR_COUNT, fn, "negative count for rank %d", i);
        }
        v[i] = (size_t)k * d->size;
        v[n + i] = (size_t)(disp * d->extent + d->true_lb);
    }
    *out = v;
    return MPI_SUCCESS;
}

static int nv_args_ok(mpii_comm_t *c, const mpii_blocks_args_t *a, const char *fn)
{
    if ((a->cnt || a->icnt) && (a->dsp || a->idsp))
        return MPI_SUCCESS;
    return mpii_err_comm(c, MPI_ERR_ARG, fn, "a count or displacement array is NULL");
}

static int nv_blocks(mpii_comm_t *c, mpii_blocks_t *b, const void *buf,
                     const mpii_blocks_args_t *a, const char *fn)
{
    int rc = mpii_blocks_init(b, c->size, buf, a);
    if (rc != MPI_SUCCESS)
        return mpii_err_comm(c, rc, fn, "%s", rc == MPI_ERR_COUNT ? "negative count" : "out of memory");
    return MPI_SUCCESS;
}

static int nv_begin(MPI_Comm comm, MPI_Request *req, const char *fn, mpii_comm_t **c)
{
    int rc = mpii_coll_comm(comm, fn, c);
    if (rc == MPI_SUCCESS && !req)
        rc = mpii_err_comm(*c, MPI_ERR_ARG, fn, "request is NULL");
    return rc;
}

/* gatherv (is_gather) or scatterv: `one` is this rank's block, the root's side is big. */
static int nv_gsv(int is_gather, const void *one, MPI_Count one_cnt, MPI_Datatype one_type,
                  const void *big, mpii_blocks_args_t ba, MPI_Datatype big_type, int root,
                  MPI_Comm comm, MPI_Request *req, const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *od = NULL, *bd = NULL;
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc;
    if ((rc = nv_begin(comm, req, fn, &c)) != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL)) {
        mpii_ic_side_t o = {one, one_cnt, NULL, NULL, NULL, NULL, one_type, NULL};
        mpii_ic_side_t b = {big, 0, ba.cnt, ba.icnt, ba.dsp, ba.idsp, big_type, NULL};
        return mpii_ic_coll(is_gather ? MPII_IC_GATHERV : MPII_IC_SCATTERV, c,
                            is_gather ? &o : &b, is_gather ? &b : &o, MPI_OP_NULL, root, req, fn);
    }
    if ((rc = mpii_coll_root(c, root, fn)) != MPI_SUCCESS)
        return rc;
    int is_root = c->rank == root, in_place = is_root && one == MPI_IN_PLACE, n = c->size;
    if ((!in_place && (rc = mpii_coll_type(c, one_type, one_cnt, fn, &od)) != MPI_SUCCESS) ||
        (is_root && ((rc = nv_type(c, big_type, fn, &bd)) != MPI_SUCCESS ||
                     (rc = nv_args_ok(c, &ba, fn)) != MPI_SUCCESS)))
        return rc;
    if (is_root && od && one_cnt > 0 &&
        mpii_coll_v_aliased(one, big, ba.dsp, ba.idsp, c->rank, bd->extent))
        return mpii_coll_alias(c, fn);
    size_t bytes = in_place ? 0 : (size_t)one_cnt * od->size;
    ba.type = bd;
    if ((od && !od->contig) || (bd && !bd->contig)) {
        mpii_lay_req_t *x = nv_ctx_new(od, bd);
        if (!x)
            return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
        if (bd && (rc = nv_blocks(c, &x->r, big, &ba, fn)) != MPI_SUCCESS) {
            mpii_lay_req_free(x);
            return rc;
        }
        if (od)
            mpii_blocks_one(&x->one, &x->one_t, od, one, one_cnt);
        const rmp_layout_t *o = od ? &x->one : NULL;
        rc = is_gather ? rmp_igatherv_layout(o, bytes, x->r.lay, x->r.bytes, root, c->rc, &rr)
                       : rmp_iscatterv_layout(x->r.lay, x->r.bytes, o, bytes, root, c->rc, &rr);
        return mpii_lay_req_wrap(c, rc, rr, x, req, fn);
    }
    size_t *a = NULL;
    if (bd && (rc = nv_arrays(c, &ba, &a, fn)) != MPI_SUCCESS)
        return rc;
    void *p = in_place ? RMP_IN_PLACE : mpii_coll_at(one, od->true_lb);
    rc = is_gather ? rmp_igatherv(p, bytes, (void *)big, a, a ? a + n : NULL, root, c->rc, &rr)
                   : rmp_iscatterv(big, a, a ? a + n : NULL, p, bytes, root, c->rc, &rr);
    free(a);
    return mpii_lay_req_wrap(c, rc, rr, NULL, req, fn);
}

/* One side's arrays: int (MPI_Name) or large-count (MPI_Name_c). */
static mpii_blocks_args_t nv_int(const int *cnt, const int *dsp)
{
    return (mpii_blocks_args_t){NULL, cnt, NULL, dsp, NULL, NULL, 0};
}

static mpii_blocks_args_t nv_big(const MPI_Count *cnt, const MPI_Aint *dsp)
{
    return (mpii_blocks_args_t){cnt, NULL, dsp, NULL, NULL, NULL, 0};
}

MPII_TWINS(Igatherv, nv_gsv(1, sendbuf, sendcount, sendtype, recvbuf,
           TWIN(nv_int, nv_big)(recvcounts, displs), recvtype, root, comm, request, FN))

MPII_TWINS(Iscatterv, nv_gsv(0, recvbuf, recvcount, recvtype, sendbuf,
           TWIN(nv_int, nv_big)(sendcounts, displs), sendtype, root, comm, request, FN))

static int nv_allgatherv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                         mpii_blocks_args_t ra, MPI_Datatype rtype, MPI_Comm comm,
                         MPI_Request *req, const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *sd = NULL, *rd;
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc, in_place = sbuf == MPI_IN_PLACE;
    if ((rc = nv_begin(comm, req, fn, &c)) == MPI_SUCCESS && MPII_UNLIKELY(c->inter != NULL)) {
        mpii_ic_side_t r = {rbuf, 0, ra.cnt, ra.icnt, ra.dsp, ra.idsp, rtype, NULL};
        return mpii_ic_coll(MPII_IC_ALLGATHERV, c, MPII_IC_ONE(sbuf, scount, stype), &r,
                            MPI_OP_NULL, 0, req, fn);
    }
    if (rc != MPI_SUCCESS ||
        (!in_place && (rc = mpii_coll_type(c, stype, scount, fn, &sd)) != MPI_SUCCESS) ||
        (rc = nv_type(c, rtype, fn, &rd)) != MPI_SUCCESS ||
        (rc = nv_args_ok(c, &ra, fn)) != MPI_SUCCESS)
        return rc;
    if (sd && scount > 0 && mpii_coll_v_aliased(sbuf, rbuf, ra.dsp, ra.idsp, c->rank, rd->extent))
        return mpii_coll_alias(c, fn);
    size_t bytes = in_place ? 0 : (size_t)scount * sd->size;
    ra.type = rd;
    if (!rd->contig || (sd && !sd->contig)) {
        mpii_lay_req_t *x = nv_ctx_new(sd, rd);
        if (!x)
            return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
        if ((rc = nv_blocks(c, &x->r, rbuf, &ra, fn)) != MPI_SUCCESS) {
            mpii_lay_req_free(x);
            return rc;
        }
        if (sd)
            mpii_blocks_one(&x->one, &x->one_t, sd, sbuf, scount);
        rc = rmp_iallgatherv_layout(sd ? &x->one : NULL, bytes, x->r.lay, x->r.bytes, c->rc,
                                    &rr);
        return mpii_lay_req_wrap(c, rc, rr, x, req, fn);
    }
    size_t *a;
    if ((rc = nv_arrays(c, &ra, &a, fn)) != MPI_SUCCESS)
        return rc;
    rc = rmp_iallgatherv(in_place ? RMP_IN_PLACE : mpii_coll_at(sbuf, sd->true_lb), bytes, rbuf,
                         a, a + c->size, c->rc, &rr);
    free(a);
    return mpii_lay_req_wrap(c, rc, rr, NULL, req, fn);
}

MPII_TWINS(Iallgatherv, nv_allgatherv(sendbuf, sendcount, sendtype, recvbuf,
           TWIN(nv_int, nv_big)(recvcounts, displs), recvtype, comm, request, FN))

/* In place with a non-contiguous type goes through coll_vw.c's packed copy (the data to
 * send must be copied out of rbuf before anything lands there). */
static int nv_alltoallv(const void *sbuf, mpii_blocks_args_t sa, MPI_Datatype stype, void *rbuf,
                        mpii_blocks_args_t ra, MPI_Datatype rtype, MPI_Comm comm,
                        MPI_Request *req, const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *sd = NULL, *rd;
    size_t *s_arr = NULL, *r_arr;
    rmp_request_t rr = RMP_REQUEST_NULL;
    int rc, in_place = sbuf == MPI_IN_PLACE, n;
    if ((rc = nv_begin(comm, req, fn, &c)) == MPI_SUCCESS && MPII_UNLIKELY(c->inter != NULL)) {
        mpii_ic_side_t s = {sbuf, 0, sa.cnt, sa.icnt, sa.dsp, sa.idsp, stype, NULL};
        mpii_ic_side_t r = {rbuf, 0, ra.cnt, ra.icnt, ra.dsp, ra.idsp, rtype, NULL};
        return mpii_ic_coll(MPII_IC_ALLTOALLV, c, &s, &r, MPI_OP_NULL, 0, req, fn);
    }
    if (rc != MPI_SUCCESS ||
        (rc = nv_type(c, rtype, fn, &rd)) != MPI_SUCCESS ||
        (rc = nv_args_ok(c, &ra, fn)) != MPI_SUCCESS ||
        (!in_place && ((rc = nv_type(c, stype, fn, &sd)) != MPI_SUCCESS ||
                       (rc = nv_args_ok(c, &sa, fn)) != MPI_SUCCESS)))
        return rc;
    if (MPII_COLL_ALIASED(sbuf, rbuf) && mpii_coll_my_count(sa.cnt, sa.icnt, c->rank) > 0)
        return mpii_coll_alias(c, fn);
    n = c->size;
    ra.type = rd;
    sa.type = sd;
    if (!in_place && (!rd->contig || !sd->contig)) {
        mpii_lay_req_t *x = nv_ctx_new(sd, rd);
        if (!x)
            return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory");
        if ((rc = nv_blocks(c, &x->s, sbuf, &sa, fn)) != MPI_SUCCESS ||
            (rc = nv_blocks(c, &x->r, rbuf, &ra, fn)) != MPI_SUCCESS) {
            mpii_lay_req_free(x);
            return rc;
        }
        rc = rmp_ialltoallv_layout(x->s.lay, x->s.bytes, x->r.lay, x->r.bytes, c->rc, &rr);
        return mpii_lay_req_wrap(c, rc, rr, x, req, fn);
    }
    if (in_place && !rd->contig)
        return mpii_ialltoallv_in_place(rbuf, ra.cnt, ra.icnt, ra.dsp, ra.idsp, rtype, comm,
                                        req, fn);
    if ((rc = nv_arrays(c, &ra, &r_arr, fn)) != MPI_SUCCESS)
        return rc;
    if (!in_place && (rc = nv_arrays(c, &sa, &s_arr, fn)) != MPI_SUCCESS) {
        free(r_arr);
        return rc;
    }
    rc = rmp_ialltoallv(in_place ? RMP_IN_PLACE : sbuf, s_arr, s_arr ? s_arr + n : NULL, rbuf,
                        r_arr, r_arr + n, c->rc, &rr);
    free(s_arr);
    free(r_arr);
    return mpii_lay_req_wrap(c, rc, rr, NULL, req, fn);
}

MPII_TWINS(Ialltoallv, nv_alltoallv(sendbuf, TWIN(nv_int, nv_big)(sendcounts, sdispls), sendtype,
           recvbuf, TWIN(nv_int, nv_big)(recvcounts, rdispls), recvtype, comm, request, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "nbc_v.twins.h"
