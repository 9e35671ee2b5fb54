/* SPDX-License-Identifier: BSD-3-Clause */
/* The accumulate family. Each runs under the target's accumulate lock: get the target
 * data (block by block when the target type is not contiguous), combine here, put it
 * back, flush, unlock; so accumulates are atomic with respect to each other, whatever the
 * op, datatype and transport. */
#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_coll.h"
#include "mpii_dtype.h"
#include "mpii_rma.h"

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

/* The predefined pair type of a pair kind (MINLOC/MAXLOC), else NULL: its packed stream
 * (value, int) is not the C struct the reduction takes. */
static mpii_dtype_t *acc_pair(const mpii_dtype_t *td)
{
    if (td->basic < MPII_B_FLOAT_INT || td->basic > MPII_B_LONG_DOUBLE_INT)
        return NULL;
    /* The predefined handles follow the MPII_B_ order. */
    uintptr_t h = (uintptr_t)MPI_FLOAT_INT + (unsigned)(td->basic - MPII_B_FLOAT_INT);
    return mpii_dtype((MPI_Datatype)h);
}

/* old = in op old on packed streams of bytes; pairs through their C structs (tmp: room for
 * two struct arrays). */
static int acc_combine(const char *in, char *old, size_t bytes, const mpii_red_t *r,
                       const mpii_dtype_t *pd, char *tmp)
{
    if (!pd || pd->size == (size_t)pd->extent)
        return rmp_reduce_local(in, old, r->count, r->dt, r->op);
    size_t n = bytes / pd->size, sb = n * (size_t)pd->extent;
    mpii_dtype_unpack(pd, tmp, (MPI_Count)n, 0, in, bytes);
    mpii_dtype_unpack(pd, tmp + sb, (MPI_Count)n, 0, old, bytes);
    int rc = rmp_reduce_local(tmp, tmp + sb, r->count, r->dt, r->op);
    mpii_dtype_pack(pd, tmp + sb, (MPI_Count)n, 0, old, bytes);
    return rc;
}

/* Move the target data to (is_put = 0) or from old, complete at the target. */
static int acc_xfer(mpii_rma_acc_t *a, int is_put, char *old, MPI_Count tcount)
{
    int rc = mpii_rma_blocks(a->w, is_put, old, a->dtarget, a->base, a->td, tcount);
    return rc == RMP_SUCCESS ? rmp_win_flush(a->dtarget, a->w->data) : rc;
}

/* The whole accumulate family: target = origin op target (REPLACE: origin; NO_OP: kept),
 * the old target data to result when result is not NULL, and for compare-and-swap
 * (compare != NULL) origin stored only where target == compare. */
int mpii_rma_acc(const void *obuf, MPI_Count ocount, MPI_Datatype otype, void *rbuf,
                 MPI_Count rcount, MPI_Datatype rtype, const void *compare, int target,
                 MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                 const char *fn)
{
    mpii_rma_acc_t a;
    mpii_op_t *o = mpii_op(op);
    int no_op = o && op == MPI_NO_OP;
    if (no_op)
        ocount = 0; /* the origin is ignored */
    int rc = mpii_rma_prepare(win, target, disp, no_op ? MPII_RMA_NO_ORIGIN : obuf, ocount, otype,
                              tcount, ttype, fn, &a);
    if (rc)
        return rc > 0 ? MPI_SUCCESS : -rc;
    mpii_win_t *w = a.w;
    mpii_red_t r = {RMP_UINT8, RMP_SUM, 0, 0, 0};
    if (!o)
        return MPII_WIN_ERR(w, MPI_ERR_OP, fn, "invalid op");
    mpii_dtype_t *pd = compare || o->rma_only ? NULL : acc_pair(a.td);
    if (!compare && !o->rma_only &&
        ((!o->predefined) ||
         (pd ? mpii_red_resolve(o, pd, mpii_dtype_handle(pd),
                                (MPI_Count)(a.bytes / pd->size), &r)
             : mpii_red_resolve(o, a.td, ttype, tcount, &r)) != MPI_SUCCESS))
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
    size_t at = (a.bytes + 15) & ~(size_t)15; /* the pairs' structs, aligned */
    size_t need = at + (pd ? 2 * (a.bytes / pd->size) * (size_t)pd->extent : 0);
    _Alignas(16) char stack[256];
    char *old = need <= sizeof(stack) ? stack : malloc(need);
    if (!old || (ocount && mpii_view_in(obuf, ocount, a.od, &ov) != MPI_SUCCESS) ||
        (rbuf && mpii_view_out(rbuf, rcount, rd, &rv) != MPI_SUCCESS)) {
        mpii_view_done(&ov, NULL, 0, a.od);
        if (old != stack)
            free(old);
        return MPII_WIN_ERR(w, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    if ((rc = mpii_rma_acc_lock(w, target)) == RMP_SUCCESS) {
        int write = !no_op;
        rc = acc_xfer(&a, 0, old, tcount);
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
            rc = acc_combine(ov.p, old, a.bytes, &r, pd, old + at); /* origin op target */
        }
        if (rc == RMP_SUCCESS && write)
            rc = acc_xfer(&a, 1, old, tcount);
        int urc = mpii_rma_acc_unlock(w, target);
        rc = rc != RMP_SUCCESS ? rc : urc;
    }
    mpii_view_done(&ov, NULL, 0, a.od);
    mpii_view_done(&rv, rc == RMP_SUCCESS ? rbuf : NULL, rcount, rd);
    if (old != stack)
        free(old);
    return rc == RMP_SUCCESS ? MPI_SUCCESS : mpii_rma_fail(w, rc, fn);
}

MPII_TWINS(Accumulate, mpii_rma_acc(origin_addr, origin_count, origin_datatype, NULL, 0,
           MPI_DATATYPE_NULL, NULL, target_rank, target_disp, target_count, target_datatype, op,
           win, FN))

MPII_TWINS(Get_accumulate, mpii_rma_acc(origin_addr, origin_count, origin_datatype, result_addr,
           result_count, result_datatype, NULL, target_rank, target_disp, target_count,
           target_datatype, op, win, FN))

int PMPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype dt, int target,
                      MPI_Aint disp, MPI_Op op, MPI_Win win)
{
    return mpii_rma_acc(obuf, 1, dt, rbuf, 1, dt, NULL, target, disp, 1, dt, op, win,
                        "MPI_Fetch_and_op");
}
MPII_WEAK(Fetch_and_op)

/* MPI-4.1 12.3.4: one predefined element of an integer, logical, byte (or, as MPICH and
 * Open MPI accept, character) type; compared bit for bit, so never a float. */
static int cas_type_ok(const mpii_dtype_t *d)
{
    if (!d || !d->predefined)
        return 0;
    switch (d->basic) {
    case MPII_B_INT8: case MPII_B_UINT8: case MPII_B_INT16: case MPII_B_UINT16:
    case MPII_B_INT32: case MPII_B_UINT32: case MPII_B_INT64: case MPII_B_UINT64:
    case MPII_B_BOOL: case MPII_B_CHAR: case MPII_B_BYTE: case MPII_B_INT128:
    case MPII_B_FLOG1: case MPII_B_FLOG2: case MPII_B_FLOG4: case MPII_B_FLOG8:
    case MPII_B_FLOG16:
        return 1;
    default:
        return 0;
    }
}

int PMPI_Compare_and_swap(const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype dt,
                          int target, MPI_Aint disp, MPI_Win win)
{
    if (!cbuf)
        return MPII_WIN_ERR(mpii_win(win), MPI_ERR_BUFFER, "MPI_Compare_and_swap",
                            "compare buffer is NULL");
    if (!cas_type_ok(mpii_dtype(dt)))
        return MPII_WIN_ERR(mpii_win(win), MPI_ERR_TYPE, "MPI_Compare_and_swap",
                            "the datatype is not a predefined integer, logical, byte or "
                            "character type");
    return mpii_rma_acc(obuf, 1, dt, rbuf, 1, dt, cbuf, target, disp, 1, dt, MPI_REPLACE, win,
                        "MPI_Compare_and_swap");
}
MPII_WEAK(Compare_and_swap)

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "rma_acc.twins.h"
