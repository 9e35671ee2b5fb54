/* SPDX-License-Identifier: BSD-3-Clause */
/* Put, get and the accumulate family. Puts and gets of contiguous data are rmp's
 * nonblocking transfers, completed by the synchronisation call; non-contiguous origin data
 * goes through a packed copy and a blocking transfer. Accumulates run under the target's
 * accumulate lock: get, combine here, put, flush, unlock. */
#include <stdlib.h>
#include <string.h>

#include "mpii.h"

#define RMA_CTL_OFF(word) ((size_t)(word) * sizeof(uint64_t))

int mpii_rma_acc_lock(mpii_win_t *w, int target)
{
    uint64_t old = 1;
    for (;;) {
        int rc = rmp_atomic_cswap(0, 1, &old, target, RMA_CTL_OFF(MPII_CTL_ACC), w->ctl);
        if (rc != RMP_SUCCESS || old == 0)
            return rc;
        rmp_progress();
    }
}

int mpii_rma_acc_unlock(mpii_win_t *w, int target)
{
    uint64_t old;
    return rmp_atomic_cswap(1, 0, &old, target, RMA_CTL_OFF(MPII_CTL_ACC), w->ctl);
}

/* A validated access: the target's byte offset, the bytes, the target type. */
typedef struct rma_acc {
    mpii_win_t *w;
    int target;
    size_t off, bytes;
    mpii_dtype_t *od, *td;
} rma_acc_t;

/* 1: MPI_PROC_NULL (nothing to do), 0: go, else the reported error class (negated). */
static int rma_prepare(MPI_Win win, int target, MPI_Aint disp, const void *obuf,
                       MPI_Count ocount, MPI_Datatype otype, MPI_Count tcount,
                       MPI_Datatype ttype, const char *fn, rma_acc_t *a)
{
    mpii_check_init(fn);
    mpii_win_t *w = a->w = mpii_win(win);
    if (MPII_UNLIKELY(!w))
        return -MPII_WIN_ERR(NULL, MPI_ERR_WIN, fn, "invalid window");
    if (target == MPI_PROC_NULL)
        return 1;
    if (MPII_UNLIKELY(target < 0 || target >= w->size))
        return -MPII_WIN_ERR(w, MPI_ERR_RANK, fn, "invalid target rank %d (size %d)", target,
                             w->size);
    a->target = target;
    a->od = otype == MPI_DATATYPE_NULL && ocount == 0 ? NULL : mpii_dtype(otype);
    a->td = mpii_dtype(ttype);
    if (MPII_UNLIKELY((ocount && !mpii_dtype_ok(a->od)) || !mpii_dtype_ok(a->td)))
        return -MPII_WIN_ERR(w, MPI_ERR_TYPE, fn, "invalid datatype");
    if (MPII_UNLIKELY(ocount < 0 || tcount < 0))
        return -MPII_WIN_ERR(w, MPI_ERR_COUNT, fn, "negative count");
    if (MPII_UNLIKELY(!a->td->contig && tcount > 0))
        return -MPII_WIN_ERR(w, MPI_ERR_TYPE, fn,
                             "non-contiguous target datatypes are not supported by rmp yet");
    a->bytes = (size_t)tcount * a->td->size;
    if (MPII_UNLIKELY(ocount && a->bytes != (size_t)ocount * a->od->size))
        return -MPII_WIN_ERR(w, MPI_ERR_ARG, fn,
                             "origin (%zu bytes) and target (%zu bytes) do not match",
                             (size_t)ocount * a->od->size, a->bytes);
    if (MPII_UNLIKELY(w->flavor == MPI_WIN_FLAVOR_DYNAMIC)) {
        /* disp is an address at the target (MPI_Get_address); the target checks it
         * against its attached regions. */
        a->off = (size_t)disp + (size_t)a->td->true_lb;
        if (MPII_UNLIKELY(a->bytes && !obuf))
            return -MPII_WIN_ERR(w, MPI_ERR_BUFFER, fn, "origin buffer is NULL");
        return 0;
    }
    if (MPII_UNLIKELY(disp < 0))
        return -MPII_WIN_ERR(w, MPI_ERR_DISP, fn, "negative target displacement");
    a->off = (size_t)disp * (size_t)w->units[target] + (size_t)a->td->true_lb;
    if (MPII_UNLIKELY(a->off + a->bytes > (size_t)w->sizes[target]))
        return -MPII_WIN_ERR(w, MPI_ERR_RMA_RANGE, fn,
                             "access of %zu bytes at offset %zu is outside rank %d's window "
                             "of %lld bytes",
                             a->bytes, a->off, target, (long long)w->sizes[target]);
    if (MPII_UNLIKELY(a->bytes && !obuf))
        return -MPII_WIN_ERR(w, MPI_ERR_BUFFER, fn, "origin buffer is NULL");
    return 0;
}

static int rma_fail(mpii_win_t *w, int rc, const char *fn)
{
    return MPII_WIN_ERR(w, mpii_err_from_rmp(rc), fn, "%s", rmp_strerror(rc));
}

int mpii_rma_put(const void *obuf, MPI_Count ocount, MPI_Datatype otype, int target,
                 MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,
                 int blocking, const char *fn)
{
    rma_acc_t a;
    int rc = rma_prepare(win, target, disp, obuf, ocount, otype, tcount, ttype, fn, &a);
    if (rc)
        return rc > 0 ? MPI_SUCCESS : -rc;
    if (a.bytes == 0)
        return MPI_SUCCESS;
    if (MPII_LIKELY(a.od->contig)) {
        const void *p = mpii_coll_at(obuf, a.od->true_lb);
        rc = blocking ? rmp_put(p, a.bytes, target, a.off, a.w->data)
                      : rmp_put_nbi(p, a.bytes, target, a.off, a.w->data);
    } else {
        mpii_view_t v;
        if (mpii_view_in(obuf, ocount, a.od, &v) != MPI_SUCCESS)
            return MPII_WIN_ERR(a.w, MPI_ERR_NO_MEM, fn, "out of memory");
        rc = rmp_put(v.p, a.bytes, target, a.off, a.w->data);
        mpii_view_done(&v, NULL, 0, a.od);
    }
    return MPII_LIKELY(rc == RMP_SUCCESS) ? MPI_SUCCESS : rma_fail(a.w, rc, fn);
}

int mpii_rma_get(void *obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                 MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, int blocking,
                 const char *fn)
{
    rma_acc_t a;
    int rc = rma_prepare(win, target, disp, obuf, ocount, otype, tcount, ttype, fn, &a);
    if (rc)
        return rc > 0 ? MPI_SUCCESS : -rc;
    if (a.bytes == 0)
        return MPI_SUCCESS;
    if (MPII_LIKELY(a.od->contig)) {
        void *p = mpii_coll_at(obuf, a.od->true_lb);
        rc = blocking ? rmp_get(p, a.bytes, target, a.off, a.w->data)
                      : rmp_get_nbi(p, a.bytes, target, a.off, a.w->data);
    } else {
        mpii_view_t v;
        if (mpii_view_out(obuf, ocount, a.od, &v) != MPI_SUCCESS)
            return MPII_WIN_ERR(a.w, MPI_ERR_NO_MEM, fn, "out of memory");
        rc = rmp_get(v.p, a.bytes, target, a.off, a.w->data);
        mpii_view_done(&v, rc == RMP_SUCCESS ? obuf : NULL, ocount, a.od);
    }
    return MPII_LIKELY(rc == RMP_SUCCESS) ? MPI_SUCCESS : rma_fail(a.w, rc, fn);
}

int PMPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
             int tcount, MPI_Datatype ttype, MPI_Win win)
{
    return mpii_rma_put(obuf, ocount, otype, target, disp, tcount, ttype, win, 0, "MPI_Put");
}
MPII_WEAK(Put)

int PMPI_Put_c(const void *obuf, MPI_Count ocount, MPI_Datatype otype, int target,
               MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)
{
    return mpii_rma_put(obuf, ocount, otype, target, disp, tcount, ttype, win, 0, "MPI_Put");
}
MPII_WEAK(Put_c)

int PMPI_Get(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint disp,
             int tcount, MPI_Datatype ttype, MPI_Win win)
{
    return mpii_rma_get(obuf, ocount, otype, target, disp, tcount, ttype, win, 0, "MPI_Get");
}
MPII_WEAK(Get)

int PMPI_Get_c(void *obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
               MPI_Count tcount, MPI_Datatype ttype, MPI_Win win)
{
    return mpii_rma_get(obuf, ocount, otype, target, disp, tcount, ttype, win, 0, "MPI_Get");
}
MPII_WEAK(Get_c)

/* ---- Accumulates ---- */

/* The whole accumulate family: target = origin op target (REPLACE: origin; NO_OP: kept),
 * the old target data to result when result is not NULL, and for compare-and-swap
 * (compare != NULL) origin stored only where target == compare. */
int mpii_rma_acc(const void *obuf, MPI_Count ocount, MPI_Datatype otype, void *rbuf,
                 MPI_Count rcount, MPI_Datatype rtype, const void *compare, int target,
                 MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                 const char *fn)
{
    rma_acc_t a;
    mpii_op_t *o = mpii_op(op);
    int no_op = o && op == MPI_NO_OP;
    if (no_op)
        ocount = 0; /* the origin is ignored */
    int rc = rma_prepare(win, target, disp, no_op ? (void *)1 : obuf, ocount, otype, tcount,
                         ttype, fn, &a);
    if (rc)
        return rc > 0 ? MPI_SUCCESS : -rc;
    mpii_win_t *w = a.w;
    mpii_red_t r = {RMP_UINT8, RMP_SUM, 0, 0, 0};
    if (!o)
        return MPII_WIN_ERR(w, MPI_ERR_OP, fn, "invalid op");
    if (!compare && !o->rma_only &&
        ((!o->predefined) ||
         mpii_red_resolve(o, a.td, ttype, tcount, &r) != MPI_SUCCESS))
        return MPII_WIN_ERR(w, MPI_ERR_OP, fn, "%s",
                            o->predefined ? "op not defined on the target datatype"
                                          : "user-defined ops are not allowed in one-sided "
                                            "accumulates");
    mpii_dtype_t *rd = NULL;
    if (rbuf && (!(rd = mpii_dtype(rtype)) || !mpii_dtype_ok(rd) ||
                 (size_t)rcount * rd->size != a.bytes))
        return MPII_WIN_ERR(w, MPI_ERR_TYPE, fn, "result datatype invalid or of another size");
    if (a.bytes == 0)
        return MPI_SUCCESS;
    mpii_view_t ov = {NULL, 0, NULL}, rv = {NULL, 0, NULL};
    char stack[256], *old = a.bytes <= sizeof(stack) ? stack : malloc(a.bytes);
    if (!old || (ocount && mpii_view_in(obuf, ocount, a.od, &ov) != MPI_SUCCESS) ||
        (rbuf && mpii_view_out(rbuf, rcount, rd, &rv) != MPI_SUCCESS)) {
        mpii_view_done(&ov, NULL, 0, a.od);
        if (old != stack)
            free(old);
        return MPII_WIN_ERR(w, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    if ((rc = mpii_rma_acc_lock(w, target)) == RMP_SUCCESS) {
        int write = !no_op;
        rc = rmp_get(old, a.bytes, target, a.off, w->data);
        if (rc == RMP_SUCCESS && rbuf)
            memcpy(rv.p, old, a.bytes);
        if (rc == RMP_SUCCESS && compare) {
            const char *cmp = mpii_coll_at(compare, a.td->true_lb);
            write = memcmp(old, cmp, a.bytes) == 0;
            if (write)
                memcpy(old, ov.p, a.bytes);
        } else if (rc == RMP_SUCCESS && write && o->rma_only) { /* REPLACE */
            memcpy(old, ov.p, a.bytes);
        } else if (rc == RMP_SUCCESS && write) {
            rc = rmp_reduce_local(ov.p, old, r.count, r.dt, r.op); /* origin op target */
        }
        if (rc == RMP_SUCCESS && write)
            rc = rmp_put(old, a.bytes, target, a.off, w->data);
        if (rc == RMP_SUCCESS && write)
            rc = rmp_win_flush(target, w->data);
        int urc = mpii_rma_acc_unlock(w, target);
        rc = rc != RMP_SUCCESS ? rc : urc;
    }
    mpii_view_done(&ov, NULL, 0, a.od);
    mpii_view_done(&rv, rc == RMP_SUCCESS ? rbuf : NULL, rcount, rd);
    if (old != stack)
        free(old);
    return rc == RMP_SUCCESS ? MPI_SUCCESS : rma_fail(w, rc, fn);
}

int PMPI_Accumulate(const void *obuf, int ocount, MPI_Datatype otype, int target,
                    MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    return mpii_rma_acc(obuf, ocount, otype, NULL, 0, MPI_DATATYPE_NULL, NULL, target, disp,
                        tcount, ttype, op, win, "MPI_Accumulate");
}
MPII_WEAK(Accumulate)

int PMPI_Accumulate_c(const void *obuf, MPI_Count ocount, MPI_Datatype otype, int target,
                      MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op,
                      MPI_Win win)
{
    return mpii_rma_acc(obuf, ocount, otype, NULL, 0, MPI_DATATYPE_NULL, NULL, target, disp,
                        tcount, ttype, op, win, "MPI_Accumulate");
}
MPII_WEAK(Accumulate_c)

int PMPI_Get_accumulate(const void *obuf, int ocount, MPI_Datatype otype, void *rbuf,
                        int rcount, MPI_Datatype rtype, int target, MPI_Aint disp, int tcount,
                        MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    return mpii_rma_acc(obuf, ocount, otype, rbuf, rcount, rtype, NULL, target, disp, tcount,
                        ttype, op, win, "MPI_Get_accumulate");
}
MPII_WEAK(Get_accumulate)

int PMPI_Get_accumulate_c(const void *obuf, MPI_Count ocount, MPI_Datatype otype, void *rbuf,
                          MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint disp,
                          MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    return mpii_rma_acc(obuf, ocount, otype, rbuf, rcount, rtype, NULL, target, disp, tcount,
                        ttype, op, win, "MPI_Get_accumulate");
}
MPII_WEAK(Get_accumulate_c)

int PMPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype dt, int target,
                      MPI_Aint disp, MPI_Op op, MPI_Win win)
{
    return mpii_rma_acc(obuf, 1, dt, rbuf, 1, dt, NULL, target, disp, 1, dt, op, win,
                        "MPI_Fetch_and_op");
}
MPII_WEAK(Fetch_and_op)

int PMPI_Compare_and_swap(const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype dt,
                          int target, MPI_Aint disp, MPI_Win win)
{
    if (!cbuf)
        return MPII_WIN_ERR(mpii_win(win), MPI_ERR_BUFFER, "MPI_Compare_and_swap",
                            "compare buffer is NULL");
    return mpii_rma_acc(obuf, 1, dt, rbuf, 1, dt, cbuf, target, disp, 1, dt, MPI_REPLACE, win,
                        "MPI_Compare_and_swap");
}
MPII_WEAK(Compare_and_swap)
