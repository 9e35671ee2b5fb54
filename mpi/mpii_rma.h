/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI one-sided communication (docs/mpi.md, "One-sided"). An MPI window is an rmp window
 * over the user's memory plus a small control window per rank holding the words the
 * synchronisation uses (an accumulate lock, a reader-writer lock for passive target,
 * PSCW counters), driven with rmp's atomics, which are CPU atomics at the target on every
 * transport. Accumulates take the target's accumulate lock, read, combine, write and
 * flush: element-wise atomic with respect to each other on every transport. */
#ifndef MPII_RMA_H
#define MPII_RMA_H

#include "mpii_base.h"
#include "mpii_dtype.h"

/* Control words of each rank (uint64_t each). */
enum {
    MPII_CTL_ACC = 0,      /* accumulate lock: 0 free, 1 held */
    MPII_CTL_LOCK = 1,     /* passive target: MPII_LOCK_EXCL, or the count of shared holders */
    MPII_CTL_COMPLETE = 2, /* PSCW: origins that completed an access epoch to this rank */
    MPII_CTL_POST = 3      /* PSCW: word MPII_CTL_POST + r counts posts from rank r */
};
#define MPII_LOCK_EXCL (1ULL << 40)

typedef struct mpii_win {
    uint32_t magic;
    rmp_comm_t rc;      /* a duplicate of the creating communicator */
    int *world;         /* comm rank -> world rank (Win_get_group) */
    rmp_win_t data;
    rmp_win_t ctl;
    uint64_t *ctl_base; /* this rank's control words */
    int rank, size;
    void *base;
    MPI_Aint win_size;
    int disp_unit;
    int flavor, model;
    MPI_Aint *sizes;  /* per rank: window bytes (shared_query) */
    MPI_Aint *shoff;  /* contiguous shared window: rank r's bytes at shoff[r] in rank 0's
                       * rmp segment (the only one); else NULL */
    int *units;       /* per rank: disp_unit */
    mpii_errh_t *errh;
    unsigned char *locked; /* per target: 0, MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE (by us) */
    int lock_all;
    int nlocked; /* targets in locked[] that are locked */
    /* The access epochs open here (MPII_EPOCH_*): RMA calls check only that one is open,
     * a load and a predicted branch. */
    unsigned epoch;
    int *start_grp, nstart; /* PSCW access epoch: comm ranks of the targets */
    int npost;              /* PSCW exposure epoch: origins to wait for */
    int posted;
    char name[MPI_MAX_OBJECT_NAME];
    mpii_attr_t *attrs; /* user attributes (attr_obj.c) */
} mpii_win_t;

enum {
    MPII_EPOCH_FENCE = 1,   /* after a fence without MPI_MODE_NOSUCCEED */
    MPII_EPOCH_LOCK = 2,    /* nlocked > 0 */
    MPII_EPOCH_LOCK_ALL = 4,
    MPII_EPOCH_START = 8    /* PSCW access epoch */
};

/* NULL for MPI_WIN_NULL, a freed or a garbage handle. */
mpii_win_t *mpii_win(MPI_Win h);

/* Report an error on a window (its handler; NULL: world's). */
static inline MPI_Win mpii_win_handle(const mpii_win_t *w)
{
    return w ? (MPI_Win)(uintptr_t)w : MPI_WIN_NULL;
}
static inline mpii_errh_t *mpii_win_errh(const mpii_win_t *w)
{
    return w ? w->errh : NULL;
}
#define MPII_WIN_ERR(w, cls, fn, ...)                                                       \
    mpii_err_win(mpii_win_handle(w), mpii_win_errh(w), cls, fn, __VA_ARGS__)

/* User attributes of windows (attr_obj.c): Win_get_attr's non-predefined keyvals, and
 * their deletion at Win_free. */
int mpii_win_attr_get(mpii_win_t *w, int keyval, void *attribute_val, int *flag);
int mpii_win_attr_delete_all(mpii_win_t *w, const char *fn);

/* The rank of the rmp data window holding target's bytes, and their offset there. */
static inline int mpii_win_dtarget(const mpii_win_t *w, int target)
{
    return w->shoff ? 0 : target;
}
static inline size_t mpii_win_doff(const mpii_win_t *w, int target)
{
    return w->shoff ? (size_t)w->shoff[target] : 0;
}

/* Spin until a control word of this rank satisfies pred, driving progress. */
uint64_t mpii_rma_ctl_load(mpii_win_t *w, int word);

/* The operations behind Put/Get/Accumulate and their request-based forms (rma.c);
 * blocking: complete at the target before returning (otherwise at the next flush). */
int mpii_rma_put(const void *obuf, MPI_Count ocount, MPI_Datatype otype, int target,
                 MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Win win,
                 int blocking, const char *fn);
int mpii_rma_get(void *obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint disp,
                 MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, int blocking,
                 const char *fn);
int mpii_rma_acc(const void *obuf, MPI_Count ocount, MPI_Datatype otype, void *rbuf,
                 MPI_Count rcount, MPI_Datatype rtype, const void *compare, int target,
                 MPI_Aint disp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                 const char *fn);

/* A validated access (rma.c): the target's byte offset of element 0 (base) and of its
 * first byte (off = base + true_lb), the packed bytes, the types. */
typedef struct mpii_rma_acc {
    mpii_win_t *w;
    int target, dtarget; /* MPI target; rank of the data window (mpii_win_dtarget) */
    size_t base, off, bytes;
    mpii_dtype_t *od, *td;
} mpii_rma_acc_t;
/* 1: MPI_PROC_NULL (nothing to do), 0: go, else the reported error class (negated).
 * obuf MPII_RMA_NO_ORIGIN: no origin data (MPI_NO_OP), else its bytes must be the target's. */
#define MPII_RMA_NO_ORIGIN ((const void *)1)
int mpii_rma_prepare(MPI_Win win, int target, MPI_Aint disp, const void *obuf,
                     MPI_Count ocount, MPI_Datatype otype, MPI_Count tcount,
                     MPI_Datatype ttype, const char *fn, mpii_rma_acc_t *a);
/* Report a failed rmp call on w. */
int mpii_rma_fail(mpii_win_t *w, int rc, const char *fn);

/* Non-contiguous target types (rma_layout.c): one nonblocking rmp transfer per contiguous
 * block of tcount elements of td at target offset base, to or from the packed stream
 * packed; complete after a flush of target. The bytes [lo, hi) relative to base that
 * tcount elements of td span. */
int mpii_rma_blocks(mpii_win_t *w, int is_put, void *packed, int target, size_t base,
                    const mpii_dtype_t *td, MPI_Count tcount);
void mpii_rma_span(const mpii_dtype_t *td, MPI_Count tcount, MPI_Aint *lo, MPI_Aint *hi);

/* Accumulate lock of target (rma_acc.c). */
int mpii_rma_acc_lock(mpii_win_t *w, int target);
int mpii_rma_acc_unlock(mpii_win_t *w, int target);

#endif
