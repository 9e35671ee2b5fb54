/* SPDX-License-Identifier: BSD-3-Clause */
/* Blocking collectives over rmp's: contiguous buffers go straight through (no copy),
 * derived types through a packed copy of at most MPII_COLL_PIECE bytes (larger
 * messages go piece by piece); reductions resolved by mpii_red_resolve. */
#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_dtype.h"
#include "mpii_inter.h"

/* ---- Shared helpers ---- */

int mpii_coll_comm_bad(const char *fn)
{
    mpii_check_init(fn); /* before MPI_Init or after MPI_Finalize: does not return */
    return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator");
}

int mpii_coll_type_bad(mpii_comm_t *c, const mpii_dtype_t *d, MPI_Count count, const char *fn)
{
    if (!mpii_dtype_ok(d))
        return mpii_err_comm(c, MPI_ERR_TYPE, fn, "%s datatype", d ? "uncommitted" : "invalid");
    return mpii_err_comm(c, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
}

int mpii_coll_root(mpii_comm_t *c, int root, const char *fn)
{
    if (MPII_UNLIKELY(root < 0 || root >= c->size))
        return mpii_err_comm(c, MPI_ERR_ROOT, fn, "invalid root %d (size %d)", root, c->size);
    return MPI_SUCCESS;
}

int mpii_coll_alias(mpii_comm_t *c, const char *fn)
{
    return mpii_err_comm(c, MPI_ERR_BUFFER, fn,
                         "the send and receive buffers are the same (use MPI_IN_PLACE)");
}

int mpii_coll_err(mpii_comm_t *c, int rmp_rc, const char *fn)
{
    return mpii_err_comm(c, mpii_err_from_rmp(rmp_rc), fn, "%s", rmp_strerror(rmp_rc));
}

static size_t view_bytes(MPI_Count count, const mpii_dtype_t *d)
{
    return (size_t)count * d->size;
}

int mpii_view_in(const void *buf, MPI_Count count, mpii_dtype_t *d, mpii_view_t *v)
{
    v->bytes = view_bytes(count, d);
    v->tmp = NULL;
    if (d->contig || v->bytes == 0) {
        v->p = mpii_coll_at(buf, d->true_lb);
        return MPI_SUCCESS;
    }
    if (!(v->tmp = malloc(v->bytes)))
        return MPI_ERR_NO_MEM;
    mpii_dtype_pack(d, buf, count, 0, v->tmp, v->bytes);
    v->p = v->tmp;
    return MPI_SUCCESS;
}

int mpii_view_out(void *buf, MPI_Count count, mpii_dtype_t *d, mpii_view_t *v)
{
    v->bytes = view_bytes(count, d);
    v->tmp = NULL;
    if (d->contig || v->bytes == 0) {
        v->p = mpii_coll_at(buf, d->true_lb);
        return MPI_SUCCESS;
    }
    if (!(v->tmp = malloc(v->bytes)))
        return MPI_ERR_NO_MEM;
    v->p = v->tmp;
    return MPI_SUCCESS;
}

void mpii_view_done(mpii_view_t *v, void *buf, MPI_Count count, mpii_dtype_t *d)
{
    if (!v->tmp)
        return;
    if (buf)
        mpii_dtype_unpack(d, buf, count, 0, v->tmp, v->bytes);
    free(v->tmp);
    v->tmp = NULL;
}

static int coll_nomem(mpii_comm_t *c, const char *fn)
{
    return mpii_err_comm(c, MPI_ERR_NO_MEM, fn, "out of memory for a packed copy");
}

/* ---- Barrier, Bcast ---- */

/* A bcast of more than one piece goes piece by piece on every rank (only the byte
 * count is known to all: the ranks' datatypes may differ), so a non-contiguous buffer
 * needs one piece of scratch, never a copy of the whole message; a contiguous one is
 * used in place. */
static int bcast_pieces(mpii_comm_t *c, void *buf, MPI_Count count, mpii_dtype_t *d, int root)
{
    size_t bytes = (size_t)count * d->size;
    char *tmp = NULL, *base = mpii_coll_at(buf, d->true_lb);
    if (!d->contig && !(tmp = malloc(MPII_COLL_PIECE)))
        return coll_nomem(c, "MPI_Bcast");
    int rc = RMP_SUCCESS;
    for (size_t off = 0, len; off < bytes && rc == RMP_SUCCESS; off += len) {
        len = bytes - off < MPII_COLL_PIECE ? bytes - off : MPII_COLL_PIECE;
        if (tmp && c->rank == root)
            mpii_dtype_pack(d, buf, count, off, tmp, len);
        rc = rmp_bcast(tmp ? tmp : base + off, len, RMP_UINT8, root, c->rc);
        if (tmp && c->rank != root && rc == RMP_SUCCESS)
            mpii_dtype_unpack(d, buf, count, off, tmp, len);
    }
    free(tmp);
    return MPII_LIKELY(rc == RMP_SUCCESS) ? MPI_SUCCESS : mpii_coll_err(c, rc, "MPI_Bcast");
}

int PMPI_Barrier(MPI_Comm comm)
{
    mpii_comm_t *c;
    int rc = mpii_coll_comm(comm, "MPI_Barrier", &c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL))
        return mpii_ic_coll(MPII_IC_BARRIER, c, NULL, NULL, MPI_OP_NULL, 0, NULL, "MPI_Barrier");
    rc = rmp_barrier(c->rc);
    return MPII_LIKELY(rc == RMP_SUCCESS) ? MPI_SUCCESS : mpii_coll_err(c, rc, "MPI_Barrier");
}
MPII_WEAK(Barrier)

static int bcast_run(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *d;
    mpii_view_t v;
    int rc;
    if ((rc = mpii_coll_comm(comm, fn, &c)) != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL))
        return mpii_ic_coll(MPII_IC_BCAST, c, NULL, MPII_IC_ONE(buf, count, datatype),
                            MPI_OP_NULL, root, NULL, fn);
    if ((rc = mpii_coll_type(c, datatype, count, fn, &d)) != MPI_SUCCESS ||
        (rc = mpii_coll_root(c, root, fn)) != MPI_SUCCESS)
        return rc;
    if (count == 0 || d->size == 0)
        return MPI_SUCCESS;
    if ((size_t)count * d->size > MPII_COLL_PIECE)
        return bcast_pieces(c, buf, count, d, root);
    if ((rc = (c->rank == root ? mpii_view_in(buf, count, d, &v)
                               : mpii_view_out(buf, count, d, &v))) != MPI_SUCCESS)
        return coll_nomem(c, fn);
    rc = rmp_bcast(v.p, v.bytes, RMP_UINT8, root, c->rc);
    mpii_view_done(&v, c->rank == root ? NULL : buf, count, d);
    return MPII_LIKELY(rc == RMP_SUCCESS) ? MPI_SUCCESS : mpii_coll_err(c, rc, fn);
}

MPII_TWINS(Bcast, bcast_run(buffer, count, datatype, root, comm, FN))

/* ---- Reductions ---- */

typedef enum { RED_REDUCE, RED_ALLREDUCE, RED_SCAN, RED_EXSCAN, RED_RS_BLOCK } red_kind_t;

/* Non-contiguous (all ranks: a reduction's datatype is the same everywhere): reduce
 * the packed vector piece by piece in a scratch buffer of at most MPII_COLL_PIECE
 * bytes, in place. Reduce_scatter_block's piece is the same range of each of the n
 * blocks. A piece of the result is written only after that piece of an in-place input
 * has been read. */
static int red_pieces(red_kind_t kind, mpii_comm_t *c, mpii_dtype_t *d, const mpii_red_t *r,
                      const void *sbuf, void *rbuf, MPI_Count count, int root, int is_root,
                      size_t n, const char *fn)
{
    size_t bytes = (size_t)count * d->size, es = bytes / r->count;
    size_t step = MPII_COLL_PIECE / n / es * es;
    if (step == 0)
        step = es;
    if (step > bytes)
        step = bytes;
    char *tmp = malloc(step * n);
    if (!tmp)
        return coll_nomem(c, fn);
    const void *src = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    int rc = RMP_SUCCESS, out = is_root && !(kind == RED_EXSCAN && c->rank == 0);
    for (size_t off = 0, len; off < bytes && rc == RMP_SUCCESS; off += len) {
        len = bytes - off < step ? bytes - off : step;
        size_t cnt = len / es;
        for (size_t i = 0; src && i < n; i++)
            mpii_dtype_pack(d, src, count * (MPI_Count)n, i * bytes + off, tmp + i * len, len);
        switch (kind) {
        case RED_REDUCE:
            rc = rmp_reduce(is_root ? RMP_IN_PLACE : tmp, is_root ? tmp : NULL, cnt, r->dt,
                            r->op, root, c->rc);
            break;
        case RED_ALLREDUCE: rc = rmp_allreduce(RMP_IN_PLACE, tmp, cnt, r->dt, r->op, c->rc); break;
        case RED_SCAN: rc = rmp_scan(RMP_IN_PLACE, tmp, cnt, r->dt, r->op, c->rc); break;
        case RED_EXSCAN: rc = rmp_exscan(RMP_IN_PLACE, tmp, cnt, r->dt, r->op, c->rc); break;
        default: rc = rmp_reduce_scatter(RMP_IN_PLACE, tmp, cnt, r->dt, r->op, c->rc); break;
        }
        if (rc == RMP_SUCCESS && out)
            mpii_dtype_unpack(d, rbuf, count, off, tmp, len);
    }
    free(tmp);
    return rc == RMP_SUCCESS ? MPI_SUCCESS : mpii_coll_err(c, rc, fn);
}

/* One body for the reductions whose send and receive vectors have the same shape (the
 * receive vector of reduce_scatter_block is one block of it). */
static int red_run(red_kind_t kind, const void *sbuf, void *rbuf, MPI_Count count,
                   MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, const char *fn)
{
    mpii_comm_t *c;
    mpii_dtype_t *d;
    mpii_red_t r;
    int rc;
    if ((rc = mpii_coll_comm(comm, fn, &c)) != MPI_SUCCESS)
        return rc;
    if (MPII_UNLIKELY(c->inter != NULL))
        return mpii_ic_coll(kind == RED_REDUCE      ? MPII_IC_REDUCE
                            : kind == RED_ALLREDUCE ? MPII_IC_ALLREDUCE
                            : kind == RED_RS_BLOCK  ? MPII_IC_RS_BLOCK
                                                    : MPII_IC_UNSUPPORTED,
                            c, MPII_IC_ONE(sbuf, count, datatype),
                            MPII_IC_ONE(rbuf, count, datatype), op, root, NULL, fn);
    if ((rc = mpii_coll_type(c, datatype, count, fn, &d)) != MPI_SUCCESS ||
        (kind == RED_REDUCE && (rc = mpii_coll_root(c, root, fn)) != MPI_SUCCESS))
        return rc;
    if (MPII_UNLIKELY((rc = mpii_red_resolve(mpii_op(op), d, datatype, count, &r)) !=
                      MPI_SUCCESS))
        return mpii_err_comm(c, rc, fn, "%s",
                             rc == MPI_ERR_OP ? "invalid op, or op not defined on the datatype"
                                              : "datatype not usable in this reduction");
    if (count == 0)
        return MPI_SUCCESS;
    int is_root = kind != RED_REDUCE || c->rank == root;
    if (is_root && MPII_COLL_ALIASED(sbuf, rbuf))
        return mpii_coll_alias(c, fn);
    size_t n = kind == RED_RS_BLOCK ? (size_t)c->size : 1; /* send vector: n blocks */
    if (MPII_UNLIKELY(sbuf == MPI_IN_PLACE && !is_root))
        sbuf = NULL; /* MPI: IN_PLACE at the root only; a non-root's is ignored by rmp */
    if (MPII_LIKELY(!r.packed)) {
        const void *s = sbuf == MPI_IN_PLACE ? RMP_IN_PLACE : mpii_coll_at(sbuf, r.shift);
        void *out = is_root ? mpii_coll_at(rbuf, r.shift) : NULL;
        switch (kind) {
        case RED_REDUCE: rc = rmp_reduce(s, out, r.count, r.dt, r.op, root, c->rc); break;
        case RED_ALLREDUCE: rc = rmp_allreduce(s, out, r.count, r.dt, r.op, c->rc); break;
        case RED_SCAN: rc = rmp_scan(s, out, r.count, r.dt, r.op, c->rc); break;
        case RED_EXSCAN: rc = rmp_exscan(s, out, r.count, r.dt, r.op, c->rc); break;
        default:
            if (sbuf == MPI_IN_PLACE) /* the vector is in rbuf; the block goes to its start */
                s = RMP_IN_PLACE;
            rc = rmp_reduce_scatter(s, out, r.count, r.dt, r.op, c->rc);
            break;
        }
        return MPII_LIKELY(rc == RMP_SUCCESS) ? MPI_SUCCESS : mpii_coll_err(c, rc, fn);
    }
    return red_pieces(kind, c, d, &r, sbuf, rbuf, count, root, is_root, n, fn);
}

MPII_TWINS(Reduce, red_run(RED_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, FN))

MPII_TWINS(Allreduce, red_run(RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, FN))

MPII_TWINS(Scan, red_run(RED_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, FN))

MPII_TWINS(Exscan, red_run(RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, FN))

MPII_TWINS(Reduce_scatter_block, red_run(RED_RS_BLOCK, sendbuf, recvbuf, recvcount, datatype, op,
           0, comm, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "coll.twins.h"
