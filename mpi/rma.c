/* SPDX-License-Identifier: BSD-3-Clause */
/* Put and get. Contiguous data are rmp's nonblocking transfers, completed by the
 * synchronisation call; a non-contiguous target is one transfer per block (rma_layout.c),
 * a non-contiguous origin goes through a packed copy, flushed before it is freed.
 * Accumulates: rma_acc.c. */
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_dtype.h"
#include "mpii_rma.h"

int mpii_rma_prepare(MPI_Win win, int target, MPI_Aint disp, const void *obuf,
                     MPI_Count ocount, MPI_Datatype otype, MPI_Count tcount,
                     MPI_Datatype ttype, const char *fn, mpii_rma_acc_t *a)
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
    a->dtarget = mpii_win_dtarget(w, target);
    a->od = otype == MPI_DATATYPE_NULL && ocount == 0 ? NULL : mpii_dtype(otype);
    a->td = mpii_dtype(ttype);
    if (MPII_UNLIKELY((ocount && !mpii_dtype_ok(a->od)) || !mpii_dtype_ok(a->td)))
        return -MPII_WIN_ERR(w, MPI_ERR_TYPE, fn, "invalid datatype");
    if (MPII_UNLIKELY(ocount < 0 || tcount < 0))
        return -MPII_WIN_ERR(w, MPI_ERR_COUNT, fn, "negative count");
    a->bytes = (size_t)tcount * a->td->size;
    size_t obytes = ocount ? (size_t)ocount * a->od->size : 0;
    if (MPII_UNLIKELY(obuf != MPII_RMA_NO_ORIGIN && a->bytes != obytes))
        return -MPII_WIN_ERR(w, MPI_ERR_ARG, fn,
                             "origin (%zu bytes) and target (%zu bytes) do not match", obytes,
                             a->bytes);
    /* after the arguments: their errors come first, as MPICH reports them */
    if (MPII_UNLIKELY(!w->epoch))
        return -MPII_WIN_ERR(w, MPI_ERR_RMA_SYNC, fn,
                             "no access epoch is open (MPI_Win_fence, _lock, _lock_all or "
                             "_start first)");
    if (MPII_UNLIKELY(w->flavor == MPI_WIN_FLAVOR_DYNAMIC)) {
        /* disp is an address at the target (MPI_Get_address); the target checks it
         * against its attached regions. */
        a->base = (size_t)disp;
        a->off = a->base + (size_t)a->td->true_lb;
        if (MPII_UNLIKELY(a->bytes && !obuf && a->od->true_lb == 0))
            return -MPII_WIN_ERR(w, MPI_ERR_BUFFER, fn, "origin buffer is NULL");
        return 0;
    }
    if (MPII_UNLIKELY(disp < 0))
        return -MPII_WIN_ERR(w, MPI_ERR_DISP, fn, "negative target displacement");
    a->base = (size_t)disp * (size_t)w->units[target];
    a->off = a->base + (size_t)a->td->true_lb;
    /* The bytes the target type spans (its holes included). */
    MPI_Aint lo, hi;
    mpii_rma_span(a->td, tcount, &lo, &hi);
    if (MPII_UNLIKELY(a->bytes &&
                      ((MPI_Aint)a->base + lo < 0 || (MPI_Aint)a->base + hi > w->sizes[target])))
        return -MPII_WIN_ERR(w, MPI_ERR_RMA_RANGE, fn,
                             "access of bytes [%lld, %lld) is outside rank %d's window "
                             "of %lld bytes",
                             (long long)((MPI_Aint)a->base + lo),
                             (long long)((MPI_Aint)a->base + hi), target,
                             (long long)w->sizes[target]);
    /* NULL is MPI_BOTTOM: fine with a type of absolute addresses. */
    if (MPII_UNLIKELY(a->bytes && !obuf && a->od->true_lb == 0))
        return -MPII_WIN_ERR(w, MPI_ERR_BUFFER, fn, "origin buffer is NULL");
    a->base += mpii_win_doff(w, target);
    a->off += mpii_win_doff(w, target);
    return 0;
}

int mpii_rma_fail(mpii_win_t *w, int rc, const char *fn)
{
    return MPII_WIN_ERR(w, mpii_err_from_rmp(rc), fn, "%s", rmp_strerror(rc));
}

int mpii_rma_put(const void *obuf, MPI_Count ocount, MPI_Datatype otype, int target,
                 MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,
                 int blocking, const char *fn)
{
    mpii_rma_acc_t a;
    int rc = mpii_rma_prepare(win, target, disp, obuf, ocount, otype, tcount, ttype, fn, &a);
    if (rc)
        return rc > 0 ? MPI_SUCCESS : -rc;
    if (a.bytes == 0)
        return MPI_SUCCESS;
    if (MPII_LIKELY(a.od->contig && a.td->contig)) {
        const void *p = mpii_coll_at(obuf, a.od->true_lb);
        rc = blocking ? rmp_put(p, a.bytes, a.dtarget, a.off, a.w->data)
                      : rmp_put_nbi(p, a.bytes, a.dtarget, a.off, a.w->data);
    } else {
        /* Origin packed when it is not contiguous (that copy must outlive the transfers:
         * flushed here), target cut into its blocks. */
        mpii_view_t v;
        if (mpii_view_in(obuf, ocount, a.od, &v) != MPI_SUCCESS)
            return MPII_WIN_ERR(a.w, MPI_ERR_NO_MEM, fn, "out of memory");
        rc = mpii_rma_blocks(a.w, 1, v.p, a.dtarget, a.base, a.td, tcount);
        if (rc == RMP_SUCCESS && (blocking || v.tmp))
            rc = rmp_win_flush(a.dtarget, a.w->data);
        mpii_view_done(&v, NULL, 0, a.od);
    }
    return MPII_LIKELY(rc == RMP_SUCCESS) ? MPI_SUCCESS : mpii_rma_fail(a.w, rc, fn);
}

int mpii_rma_get(void *obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                 MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, int blocking,
                 const char *fn)
{
    mpii_rma_acc_t a;
    int rc = mpii_rma_prepare(win, target, disp, obuf, ocount, otype, tcount, ttype, fn, &a);
    if (rc)
        return rc > 0 ? MPI_SUCCESS : -rc;
    if (a.bytes == 0)
        return MPI_SUCCESS;
    if (MPII_LIKELY(a.od->contig && a.td->contig)) {
        void *p = mpii_coll_at(obuf, a.od->true_lb);
        rc = blocking ? rmp_get(p, a.bytes, a.dtarget, a.off, a.w->data)
                      : rmp_get_nbi(p, a.bytes, a.dtarget, a.off, a.w->data);
    } else {
        mpii_view_t v;
        if (mpii_view_out(obuf, ocount, a.od, &v) != MPI_SUCCESS)
            return MPII_WIN_ERR(a.w, MPI_ERR_NO_MEM, fn, "out of memory");
        rc = mpii_rma_blocks(a.w, 0, v.p, a.dtarget, a.base, a.td, tcount);
        if (rc == RMP_SUCCESS && (blocking || v.tmp))
            rc = rmp_win_flush(a.dtarget, a.w->data);
        mpii_view_done(&v, rc == RMP_SUCCESS ? obuf : NULL, ocount, a.od);
    }
    return MPII_LIKELY(rc == RMP_SUCCESS) ? MPI_SUCCESS : mpii_rma_fail(a.w, rc, fn);
}

MPII_TWINS(Put, mpii_rma_put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
           target_count, target_datatype, win, 0, FN))

MPII_TWINS(Get, mpii_rma_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
           target_count, target_datatype, win, 0, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "rma.twins.h"
