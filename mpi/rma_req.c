/* SPDX-License-Identifier: BSD-3-Clause */
/* Request-based one-sided operations: Rput, Rget, Raccumulate, Rget_accumulate (and _c).
 * Allowed only inside a passive-target epoch (MPI-4.1 12.3.5: MPI_ERR_RMA_SYNC
 * otherwise). Each runs to completion at the target before it returns (rmp's blocking
 * put/get and the accumulate path), so the request it hands out is already complete:
 * Wait/Test return at once, the origin buffer is reusable and the data is at the target,
 * which is more than the standard asks of the request (local completion). */
#include "mpii_base.h"
#include "mpii_p2p.h"
#include "mpii_rma.h"

/* The epoch check shared by the four: a lock on target, or lock_all. */
static int rreq_epoch(MPI_Win win, int target, const char *fn)
{
    mpii_win_t *w = mpii_win(win);
    if (!w)
        return mpii_err_win(win, NULL, MPI_ERR_WIN, fn, "invalid window");
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (target < 0 || target >= w->size)
        return MPII_WIN_ERR(w, MPI_ERR_RANK, fn, "invalid target rank %d (size %d)", target,
                            w->size);
    if (!w->lock_all && !w->locked[target])
        return MPII_WIN_ERR(w, MPI_ERR_RMA_SYNC, fn,
                            "request-based operations need a passive-target epoch "
                            "(MPI_Win_lock or MPI_Win_lock_all) on rank %d",
                            target);
    return MPI_SUCCESS;
}

/* A complete request carrying the operation's outcome. */
static int rreq_done(MPI_Win win, int err, MPI_Request *request, const char *fn)
{
    mpii_req_t *r = mpii_req_new(NULL, MPII_REQ_DONE);
    if (!r)
        return MPII_WIN_ERR(mpii_win(win), MPI_ERR_NO_MEM, fn, "out of memory");
    r->done = 1;
    r->err = err;
    mpii_status_empty(&r->status);
    r->status.MPI_ERROR = err;
    *request = (MPI_Request)r;
    return err;
}

#define RREQ_START(fn)                                                                     \
    do {                                                                                   \
        if (!request)                                                                      \
            return MPII_WIN_ERR(mpii_win(win), MPI_ERR_ARG, fn, "request is NULL");        \
        *request = MPI_REQUEST_NULL;                                                       \
        int erc_ = rreq_epoch(win, target, fn);                                            \
        if (erc_ != MPI_SUCCESS)                                                           \
            return erc_;                                                                   \
    } while (0)

static int rreq_put(const void *obuf, MPI_Count ocount, MPI_Datatype otype, int target,
                    MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,
                    MPI_Request *request, const char *fn)
{
    RREQ_START(fn);
    int rc = mpii_rma_put(obuf, ocount, otype, target, disp, tcount, ttype, win, 1, fn);
    return rc != MPI_SUCCESS ? rc : rreq_done(win, rc, request, fn);
}

static int rreq_get(void *obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                    MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *request,
                    const char *fn)
{
    RREQ_START(fn);
    int rc = mpii_rma_get(obuf, ocount, otype, target, disp, tcount, ttype, win, 1, fn);
    return rc != MPI_SUCCESS ? rc : rreq_done(win, rc, request, fn);
}

static int rreq_acc(const void *obuf, MPI_Count ocount, MPI_Datatype otype, int target,
                    MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                    MPI_Request *request, const char *fn)
{
    RREQ_START(fn);
    int rc = mpii_rma_acc(obuf, ocount, otype, NULL, 0, MPI_DATATYPE_NULL, NULL, target, disp,
                          tcount, ttype, op, win, fn);
    return rc != MPI_SUCCESS ? rc : rreq_done(win, rc, request, fn);
}

static int rreq_get_acc(const void *obuf, MPI_Count ocount, MPI_Datatype otype, void *rbuf,
                        MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint disp,
                        MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                        MPI_Request *request, const char *fn)
{
    RREQ_START(fn);
    int rc = mpii_rma_acc(obuf, ocount, otype, rbuf, rcount, rtype, NULL, target, disp, tcount,
                          ttype, op, win, fn);
    return rc != MPI_SUCCESS ? rc : rreq_done(win, rc, request, fn);
}

MPII_TWINS(Rput, rreq_put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
           target_count, target_datatype, win, request, FN))

MPII_TWINS(Rget, rreq_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
           target_count, target_datatype, win, request, FN))

MPII_TWINS(Raccumulate, rreq_acc(origin_addr, origin_count, origin_datatype, target_rank,
           target_disp, target_count, target_datatype, op, win, request, FN))

MPII_TWINS(Rget_accumulate, rreq_get_acc(origin_addr, origin_count, origin_datatype, result_addr,
           result_count, result_datatype, target_rank, target_disp, target_count,
           target_datatype, op, win, request, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "rma_req.twins.h"
