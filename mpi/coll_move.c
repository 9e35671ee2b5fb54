/* SPDX-License-Identifier: BSD-3-Clause */
/* The data-moving collectives: gather, scatter, allgather, alltoall, their v and w
 * variants, and reduce_scatter with counts. Blocks travel as bytes: a contiguous type is
 * used in place (displacements in bytes), any other goes through a packed copy (blocks
 * over MPII_COLL_PIECE: piece by piece, mv_pieces). */
#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"

/* ---- Per-rank byte arrays ---- */
typedef struct mv_arr {
    size_t *len, *off;
    size_t stack[128];
} mv_arr_t;

static int arr_init(mv_arr_t *a, int n)
{
    a->len = 2 * (size_t)n <= sizeof(a->stack) / sizeof(size_t)
                 ? a->stack
                 : malloc(2 * (size_t)n * sizeof(size_t));
    a->off = a->len ? a->len + n : NULL;
    return a->len ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static void arr_free(mv_arr_t *a)
{
    if (a->len != a->stack)
        free(a->len);
}

/* Bytes and byte offsets of counts[i] elements of d at displs[i] (element units scaled by
 * unit: d's extent, or 1 for alltoallw). Packed: offsets into the packed copy instead.
 * Total bytes of the packed copy in *total. Negative counts: MPI_ERR_COUNT. */
static int arr_fill(mv_arr_t *a, int n, const MPI_Count *counts, const int *icounts,
                    const MPI_Aint *displs, const int *idispls, const mpii_dtype_t *d,
                    int packed, size_t *total)
{
    size_t acc = 0;
    for (int i = 0; i < n; i++) {
        MPI_Count c = counts ? counts[i] : icounts[i];
        MPI_Aint disp = displs ? displs[i] : idispls[i];
        if (c < 0)
            return MPI_ERR_COUNT;
        a->len[i] = (size_t)c * d->size;
        a->off[i] = packed ? acc : (size_t)(disp * d->extent + d->true_lb);
        acc += a->len[i];
    }
    *total = acc;
    return MPI_SUCCESS;
}

static int mv_done(mpii_comm_t *c, int rc, const char *fn)
{
    return MPII_LIKELY(rc == RMP_SUCCESS) ? MPI_SUCCESS : mpii_coll_err(c, rc, fn);
}

/* ---- Gather, scatter, allgather, alltoall ---- */
typedef enum { MV_GATHER, MV_SCATTER, MV_ALLGATHER, MV_ALLTOALL } mv_kind_t;

/* One side of a collective going piece by piece: d NULL when the side is unused here
 * or in place; nblk blocks of count elements at buf. */
typedef struct mv_piece_side {
    mpii_dtype_t *d;
    char *buf;
    MPI_Count count;
    int nblk;
    int v;       /* the collective takes this side by displacements (else one pointer) */
    char *tmp;   /* non-contiguous: one piece per block */
    mv_arr_t a;  /* per block: the piece's bytes and displacement */
} mv_piece_side_t;

/* Where piece [off, off + len) of each block goes: a contiguous side in place (block i
 * at i * count * extent from buf + true_lb), the scratch otherwise. */
static char *piece_place(mv_piece_side_t *p, size_t off, size_t len)
{
    for (int i = 0; i < p->nblk; i++) {
        p->a.len[i] = len;
        p->a.off[i] = p->tmp ? (size_t)i * len
                             : (size_t)i * (size_t)(p->count * p->d->extent) + off;
    }
    char *at = p->tmp ? p->tmp : (char *)mpii_coll_at(p->buf, p->d->true_lb);
    return p->v ? at : at + p->a.off[0];
}

/* Pack (or unpack) that piece of block `only` (-1: of every block but `skip`) between
 * the buffer and the scratch of a non-contiguous side. */
static void piece_move(mv_piece_side_t *p, size_t off, size_t len, int unpack, int skip,
                       int only)
{
    for (int i = 0; p->tmp && i < p->nblk; i++) {
        char *blk = p->buf + (MPI_Aint)i * p->count * p->d->extent;
        if (i == skip || (only >= 0 && i != only))
            continue;
        if (unpack)
            mpii_dtype_unpack(p->d, blk, p->count, off, p->tmp + p->a.off[i], len);
        else
            mpii_dtype_pack(p->d, blk, p->count, off, p->tmp + p->a.off[i], len);
    }
}

/* The bytes of one block that one piece takes: n blocks share a piece of scratch. */
static size_t mv_step(int n)
{
    size_t step = MPII_COLL_PIECE / (size_t)n;
    return step < MPII_COLL_MIN_SHARE ? MPII_COLL_MIN_SHARE : step;
}

/* Blocks of more than a piece go piece by piece on every rank (only the block size is
 * known to all: the ranks' types may differ): piece k is the same byte range of every
 * block, moved by the v-collective whose displacements pick it out of a contiguous
 * buffer, or out of one piece of scratch per block for a non-contiguous one. s_in_place:
 * the send data is in the receive buffer. */
static int mv_pieces(mv_kind_t kind, mpii_comm_t *c, mv_piece_side_t *s, mv_piece_side_t *r,
                     int s_in_place, int r_in_place, int root, size_t blk)
{
    int n = c->size, rc = RMP_SUCCESS;
    size_t step = mv_step(n);
    mv_piece_side_t *sides[2] = {s, r};
    for (int k = 0; k < 2 && rc == RMP_SUCCESS; k++) {
        mv_piece_side_t *p = sides[k];
        p->tmp = NULL;
        p->a.len = NULL;
        if (arr_init(&p->a, n) != MPI_SUCCESS ||
            (p->d && !p->d->contig && !(p->tmp = malloc(step * (size_t)p->nblk))))
            rc = RMP_ERR_NOMEM;
    }
    for (size_t off = 0, len; off < blk && rc == RMP_SUCCESS; off += len) {
        len = blk - off < step ? blk - off : step;
        char *sp = s->d ? piece_place(s, off, len) : s_in_place ? RMP_IN_PLACE : NULL;
        char *rp = r->d ? piece_place(r, off, len) : r_in_place ? RMP_IN_PLACE : NULL;
        if (s->d)
            piece_move(s, off, len, 0, -1, -1);
        else if (s_in_place && kind != MV_GATHER) /* own block (allgather) or all (alltoall) */
            piece_move(r, off, len, 0, -1, kind == MV_ALLGATHER ? c->rank : -1);
        switch (kind) {
        case MV_GATHER:
            rc = rmp_gatherv(sp, len, rp, r->a.len, r->a.off, root, c->rc);
            break;
        case MV_SCATTER:
            rc = rmp_scatterv(sp, s->a.len, s->a.off, rp, len, root, c->rc);
            break;
        case MV_ALLGATHER: rc = rmp_allgatherv(sp, len, rp, r->a.len, r->a.off, c->rc); break;
        default: rc = rmp_alltoallv(sp, s->a.len, s->a.off, rp, r->a.len, r->a.off, c->rc); break;
        }
        if (rc == RMP_SUCCESS && r->d)
            piece_move(r, off, len, 1, s_in_place && kind != MV_ALLTOALL ? c->rank : -1, -1);
    }
    for (int k = 0; k < 2; k++) {
        free(sides[k]->tmp);
        if (sides[k]->a.len)
            arr_free(&sides[k]->a);
    }
    return rc;
}

/* The side that holds n blocks (gather/allgather/alltoall receive, scatter send) is
 * "big"; the other holds one block (alltoall: n on both sides). */
static int mv_run(mv_kind_t kind, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                  void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                  const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *sd = NULL, *rd = NULL;
    int rc, rooted = kind == MV_GATHER || kind == MV_SCATTER;
    if ((rc = mpii_coll_comm(comm, fn, &c)) != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL))
        return mpii_ic_coll(kind == MV_GATHER    ? MPII_IC_GATHER
                            : kind == MV_SCATTER ? MPII_IC_SCATTER
                            : kind == MV_ALLGATHER ? MPII_IC_ALLGATHER
                                                   : MPII_IC_ALLTOALL,
                            c, MPII_IC_ONE(sbuf, scount, stype), MPII_IC_ONE(rbuf, rcount, rtype),
                            MPI_OP_NULL, root, NULL, fn);
    if (rooted && (rc = mpii_coll_root(c, root, fn)) != MPI_SUCCESS)
        return rc;
    int is_root = !rooted || c->rank == root, n = c->size;
    /* The arguments that matter here (MPI ignores the others). */
    int use_s = kind != MV_SCATTER || is_root, use_r = kind != MV_GATHER || is_root;
    int s_in_place = sbuf == MPI_IN_PLACE && kind != MV_SCATTER;
    int r_in_place = rbuf == MPI_IN_PLACE && kind == MV_SCATTER;
    if (use_s && !s_in_place && (rc = mpii_coll_type(c, stype, scount, fn, &sd)) != MPI_SUCCESS)
        return rc;
    if (use_r && !r_in_place && (rc = mpii_coll_type(c, rtype, rcount, fn, &rd)) != MPI_SUCCESS)
        return rc;
    if (mpii_coll_mv_aliased(kind == MV_SCATTER, c->rank, sbuf, scount, sd, rbuf, rcount, rd))
        return mpii_coll_alias(c, fn);
    MPI_Count snum = kind == MV_SCATTER || kind == MV_ALLTOALL ? scount * n : scount;
    MPI_Count rnum = kind == MV_SCATTER ? rcount : rcount * n;
    mpii_view_t sv = {NULL, 0, NULL}, rv = {NULL, 0, NULL};
    /* The bytes of one block, the same on every rank. */
    size_t blk = use_r && !r_in_place ? (size_t)rcount * rd->size : 0;
    if (use_s && !s_in_place && (!use_r || r_in_place || kind == MV_SCATTER))
        blk = (size_t)scount * sd->size;
    /* Blocks larger than their share of a piece, and any rank's type non-contiguous
     * (types differ between ranks: one int allreduced agrees): piece by piece. */
    int odd = (sd && !sd->contig) || (rd && !rd->contig);
    if (blk > mv_step(n) &&
        (rc = rmp_allreduce(RMP_IN_PLACE, &odd, 1, RMP_INT32, RMP_MAX, c->rc)) != RMP_SUCCESS)
        return mv_done(c, rc, fn);
    if (blk > mv_step(n) && odd) {
        mv_piece_side_t ps = {.d = use_s && !s_in_place ? sd : NULL,
                              .buf = (char *)(uintptr_t)sbuf, .count = scount,
                              .nblk = kind == MV_SCATTER || kind == MV_ALLTOALL ? n : 1,
                              .v = kind == MV_SCATTER || kind == MV_ALLTOALL};
        mv_piece_side_t pr = {.d = use_r && !r_in_place ? rd : NULL, .buf = rbuf,
                              .count = rcount, .nblk = kind == MV_SCATTER ? 1 : n,
                              .v = kind != MV_SCATTER};
        return mv_done(c, mv_pieces(kind, c, &ps, &pr, s_in_place, r_in_place, root, blk), fn);
    }
    if (use_r && !r_in_place) /* in place, rbuf holds this rank's data: pack it all */
        rc = s_in_place ? mpii_view_in(rbuf, rnum, rd, &rv) : mpii_view_out(rbuf, rnum, rd, &rv);
    if (rc == MPI_SUCCESS && use_s && !s_in_place)
        rc = mpii_view_in(sbuf, snum, sd, &sv);
    if (rc != MPI_SUCCESS) {
        mpii_view_done(&rv, NULL, 0, rd);
        return mpii_err_comm(c, rc, fn, "out of memory for a packed copy");
    }
    void *s = s_in_place ? RMP_IN_PLACE : sv.p, *r = r_in_place ? RMP_IN_PLACE : rv.p;
    switch (kind) {
    case MV_GATHER: rc = rmp_gather(s, r, blk, RMP_UINT8, root, c->rc); break;
    case MV_SCATTER: rc = rmp_scatter(s, r, blk, RMP_UINT8, root, c->rc); break;
    case MV_ALLGATHER: rc = rmp_allgather(s, r, blk, RMP_UINT8, c->rc); break;
    default: rc = rmp_alltoall(s, r, blk, RMP_UINT8, c->rc); break;
    }
    mpii_view_done(&sv, NULL, 0, sd);
    mpii_view_done(&rv, rc == RMP_SUCCESS ? rbuf : NULL, rnum, rd);
    return mv_done(c, rc, fn);
}

MPII_TWINS(Gather, mv_run(MV_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
           root, comm, FN))

MPII_TWINS(Scatter, mv_run(MV_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
           root, comm, FN))

MPII_TWINS(Allgather, mv_run(MV_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
           recvtype, 0, comm, FN))

MPII_TWINS(Alltoall, mv_run(MV_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount,
           recvtype, 0, comm, FN))

/* ---- The v variants ---- */

/* counts/displs of one side, as int (icnt/idsp) or large-count (cnt/dsp) arrays. */
typedef struct mv_side {
    const MPI_Count *cnt;
    const int *icnt;
    const MPI_Aint *dsp;
    const int *idsp;
} mv_side_t;

static int vside_fill(mpii_comm_t *c, const mv_side_t *v, mpii_dtype_t *d, mv_arr_t *a,
                      size_t *total, const char *fn)
{
    int n = c->size, rc;
    if ((!v->cnt && !v->icnt) || (!v->dsp && !v->idsp))
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "a count or displacement array is NULL");
    if ((rc = arr_init(a, n)) != MPI_SUCCESS)
        return mpii_err_comm(c, rc, fn, "out of memory");
    if ((rc = arr_fill(a, n, v->cnt, v->icnt, v->dsp, v->idsp, d, !d->contig, total)) !=
        MPI_SUCCESS) {
        arr_free(a);
        return mpii_err_comm(c, rc, fn, "negative count");
    }
    return MPI_SUCCESS;
}

/* gatherv or scatterv with a non-contiguous side: every block as a layout. */
static int gsv_layout(mpii_comm_t *c, int is_gather, const void *one_buf, MPI_Count one_cnt,
                      const mpii_dtype_t *od, const mv_side_t *v, const void *big,
                      const mpii_dtype_t *bd, int root, const char *fn)
{
    rmp_layout_t one_lay, *one = NULL;
    mpii_typed_t one_t;
    size_t one_bytes = 0;
    mpii_blocks_t b = {NULL, NULL, NULL};
    int rc;
    if (od) { /* NULL at a root in place */
        mpii_blocks_one(&one_lay, &one_t, od, one_buf, one_cnt);
        one = &one_lay;
        one_bytes = (size_t)one_cnt * od->size;
    }
    if (bd) {
        mpii_blocks_args_t a = {v->cnt, v->icnt, v->dsp, v->idsp, NULL, bd, 0};
        if ((rc = mpii_blocks_init(&b, c->size, big, &a)) != MPI_SUCCESS)
            return mpii_err_comm(c, rc, fn, "%s",
                                 rc == MPI_ERR_COUNT ? "negative count" : "out of memory");
    }
    rc = is_gather ? rmp_gatherv_layout(one, one_bytes, b.lay, b.bytes, root, c->rc)
                   : rmp_scatterv_layout(b.lay, b.bytes, one, one_bytes, root, c->rc);
    mpii_blocks_free(&b);
    return mv_done(c, rc, fn);
}

/* gatherv (is_gather) or scatterv: the root's side is v, the other one block. Contiguous
 * data goes in place; a non-contiguous side as layouts (gsv_layout). */
static int gsv_run(int is_gather, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                   mv_side_t sv, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, mv_side_t rv,
                   int root, MPI_Comm comm, const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *bd = NULL, *od = NULL;
    int rc;
    if ((rc = mpii_coll_comm(comm, fn, &c)) != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL)) {
        mpii_ic_side_t s = {sbuf, scount, sv.cnt, sv.icnt, sv.dsp, sv.idsp, stype, NULL};
        mpii_ic_side_t r = {rbuf, rcount, rv.cnt, rv.icnt, rv.dsp, rv.idsp, rtype, NULL};
        return mpii_ic_coll(is_gather ? MPII_IC_GATHERV : MPII_IC_SCATTERV, c, &s, &r,
                            MPI_OP_NULL, root, NULL, fn);
    }
    if ((rc = mpii_coll_root(c, root, fn)) != MPI_SUCCESS)
        return rc;
    int is_root = c->rank == root;
    const void *one_buf = is_gather ? sbuf : rbuf;
    MPI_Count one_cnt = is_gather ? scount : rcount;
    int in_place = is_root && one_buf == MPI_IN_PLACE;
    const mv_side_t *v = is_gather ? &rv : &sv;
    char *big = is_gather ? rbuf : (char *)sbuf;
    if ((!in_place &&
         (rc = mpii_coll_type(c, is_gather ? stype : rtype, one_cnt, fn, &od)) != MPI_SUCCESS) ||
        (is_root && (rc = mpii_coll_type(c, is_gather ? rtype : stype, 0, fn, &bd)) != MPI_SUCCESS))
        return rc;
    if (is_root && ((!v->cnt && !v->icnt) || (!v->dsp && !v->idsp)))
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "a count or displacement array is NULL");
    if (is_root && od && one_cnt > 0 && mpii_coll_v_aliased(one_buf, big, v->dsp, v->idsp, c->rank, bd->extent))
        return mpii_coll_alias(c, fn);
    if ((od && !od->contig) || (bd && !bd->contig))
        return gsv_layout(c, is_gather, one_buf, one_cnt, od, v, big, bd, root, fn);
    void *one = in_place ? RMP_IN_PLACE : mpii_coll_at(one_buf, od->true_lb);
    size_t one_bytes = in_place ? 0 : (size_t)one_cnt * od->size;
    if (!is_root) {
        rc = is_gather ? rmp_gatherv(one, one_bytes, NULL, NULL, NULL, root, c->rc)
                       : rmp_scatterv(NULL, NULL, NULL, one, one_bytes, root, c->rc);
        return mv_done(c, rc, fn);
    }
    mv_arr_t a;
    size_t total;
    if ((rc = vside_fill(c, v, bd, &a, &total, fn)) != MPI_SUCCESS)
        return rc;
    rc = is_gather ? rmp_gatherv(one, one_bytes, big, a.len, a.off, root, c->rc)
                   : rmp_scatterv(big, a.len, a.off, one, one_bytes, root, c->rc);
    arr_free(&a);
    return mv_done(c, rc, fn);
}

/* One side's arrays: int (MPI_Name) or large-count (MPI_Name_c); none: the side has one. */
static mv_side_t mv_int(const int *cnt, const int *dsp)
{
    return (mv_side_t){NULL, cnt, NULL, dsp};
}

static mv_side_t mv_big(const MPI_Count *cnt, const MPI_Aint *dsp)
{
    return (mv_side_t){cnt, NULL, dsp, NULL};
}

static const mv_side_t mv_none;

MPII_TWINS(Gatherv, gsv_run(1, sendbuf, sendcount, sendtype, mv_none, recvbuf, 0, recvtype,
           TWIN(mv_int, mv_big)(recvcounts, displs), root, comm, FN))

MPII_TWINS(Scatterv, gsv_run(0, sendbuf, 0, sendtype, TWIN(mv_int, mv_big)(sendcounts, displs),
           recvbuf, recvcount, recvtype, mv_none, root, comm, FN))

/* A non-contiguous side goes as layouts (rmp_allgatherv_layout): no packed copy. */
static int allgatherv_run(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                          mv_side_t rv, MPI_Datatype rtype, MPI_Comm comm, const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *sd = NULL, *rd;
    int rc, in_place = sbuf == MPI_IN_PLACE;
    if ((rc = mpii_coll_comm(comm, fn, &c)) == MPI_SUCCESS && MPII_UNLIKELY(c->inter != NULL)) {
        mpii_ic_side_t r = {rbuf, 0, rv.cnt, rv.icnt, rv.dsp, rv.idsp, rtype, NULL};
        return mpii_ic_coll(MPII_IC_ALLGATHERV, c, MPII_IC_ONE(sbuf, scount, stype), &r,
                            MPI_OP_NULL, 0, NULL, fn);
    }
    if (rc != MPI_SUCCESS ||
        (!in_place && (rc = mpii_coll_type(c, stype, scount, fn, &sd)) != MPI_SUCCESS) ||
        (rc = mpii_coll_type(c, rtype, 0, fn, &rd)) != MPI_SUCCESS)
        return rc;
    if ((!rv.cnt && !rv.icnt) || (!rv.dsp && !rv.idsp))
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "a count or displacement array is NULL");
    if (sd && scount > 0 && mpii_coll_v_aliased(sbuf, rbuf, rv.dsp, rv.idsp, c->rank, rd->extent))
        return mpii_coll_alias(c, fn);
    if (rd->contig && (!sd || sd->contig)) {
        mv_arr_t a;
        size_t total;
        if ((rc = vside_fill(c, &rv, rd, &a, &total, fn)) != MPI_SUCCESS)
            return rc;
        rc = rmp_allgatherv(in_place ? RMP_IN_PLACE : mpii_coll_at(sbuf, sd->true_lb),
                            in_place ? 0 : (size_t)scount * sd->size, rbuf, a.len, a.off, c->rc);
        arr_free(&a);
        return mv_done(c, rc, fn);
    }
    rmp_layout_t one;
    mpii_typed_t one_t;
    mpii_blocks_t b;
    mpii_blocks_args_t args = {rv.cnt, rv.icnt, rv.dsp, rv.idsp, NULL, rd, 0};
    if ((rc = mpii_blocks_init(&b, c->size, rbuf, &args)) != MPI_SUCCESS)
        return mpii_err_comm(c, rc, fn, "%s", rc == MPI_ERR_COUNT ? "negative count" : "out of memory");
    if (!in_place)
        mpii_blocks_one(&one, &one_t, sd, sbuf, scount);
    rc = rmp_allgatherv_layout(in_place ? NULL : &one, in_place ? 0 : (size_t)scount * sd->size,
                               b.lay, b.bytes, c->rc);
    mpii_blocks_free(&b);
    return mv_done(c, rc, fn);
}

MPII_TWINS(Allgatherv, allgatherv_run(sendbuf, sendcount, sendtype, recvbuf,
           TWIN(mv_int, mv_big)(recvcounts, displs), recvtype, comm, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "coll_move.twins.h"
