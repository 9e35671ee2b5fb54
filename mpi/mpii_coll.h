/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI collectives, reduction ops and neighbourhood collectives (docs/mpi.md,
 * "Collectives"). Every collective maps onto an rmp collective: contiguous data goes
 * straight through, derived types are packed through mpii_dtype_pack, and reductions are
 * resolved to an (rmp_datatype_t, rmp_op_t) pair, user ops included (rmp_op_create). */
#ifndef MPII_COLL_H
#define MPII_COLL_H

#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"
#include "mpii_dtype.h"

/* The most scratch a blocking collective takes for a non-contiguous buffer: larger
 * messages go through it piece by piece. */
#define MPII_COLL_PIECE ((size_t)1 << 20)
/* ... shared by n blocks, each taking at least this much of a piece. */
#define MPII_COLL_MIN_SHARE ((size_t)64 << 10)

/* buf + off as addresses (MPI_BOTTOM plus absolute displacements is valid MPI). */
static inline void *mpii_coll_at(const void *buf, MPI_Aint off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* ---- Ops (op.c) ---- */
typedef struct mpii_op mpii_op_t;

/* The rmp op made for a user op and one datatype: the callback needs the MPI datatype
 * handle and the type's lower bound. */
typedef struct mpii_op_dt {
    struct mpii_op_dt *next;
    mpii_op_t *op;
    MPI_Datatype dt;
    MPI_Aint lb, extent;
    rmp_op_t rop;
} mpii_op_dt_t;

struct mpii_op {
    uint32_t magic;
    int predefined;
    int commute;
    int rma_only;    /* MPI_REPLACE, MPI_NO_OP */
    rmp_op_t rop;    /* predefined ops */
    MPI_User_function *fn;
    MPI_User_function_c *fn_c;
    mpii_op_dt_t *per_dt;
    int refs;  /* nonblocking reductions in flight that use it (user ops) */
    int freed; /* MPI_Op_free was called while refs > 0: freed by the last release */
};

/* A nonblocking reduction keeps a user op alive until its request is freed: MPI_Op_free
 * only marks it (the standard lets pending operations complete). NULL-safe; predefined
 * ops are not counted. */
void mpii_op_retain(mpii_op_t *o);
void mpii_op_release(mpii_op_t *o);

/* NULL for MPI_OP_NULL, a freed or a garbage handle. */
mpii_op_t *mpii_op(MPI_Op h);
MPI_Op mpii_op_handle(mpii_op_t *o);

/* A reduction of count elements of d in rmp terms: rmp reduces `count` elements of `dt`
 * starting `shift` bytes into the user buffer, or (packed) the packed stream of the
 * buffer, which the caller packs and unpacks. */
typedef struct mpii_red {
    rmp_datatype_t dt;
    rmp_op_t op;
    size_t count;
    MPI_Aint shift;
    int packed;
} mpii_red_t;

/* MPI_SUCCESS, or MPI_ERR_OP / MPI_ERR_TYPE (not reported: the caller names its call). */
int mpii_red_resolve(mpii_op_t *o, mpii_dtype_t *d, MPI_Datatype dh, MPI_Count count,
                     mpii_red_t *r);

/* ---- Typed buffers as contiguous bytes (coll.c) ----
 * A view of count elements of d at buf: p points at the data itself when d is contiguous,
 * else at a packed copy (tmp, freed by mpii_view_done, which unpacks an output view). */
typedef struct mpii_view {
    char *p;
    size_t bytes;
    void *tmp;
} mpii_view_t;

int mpii_view_in(const void *buf, MPI_Count count, mpii_dtype_t *d, mpii_view_t *v);
int mpii_view_out(void *buf, MPI_Count count, mpii_dtype_t *d, mpii_view_t *v);
/* Unpack an output view into buf (when it was packed) and free it; buf NULL: free only. */
void mpii_view_done(mpii_view_t *v, void *buf, MPI_Count count, mpii_dtype_t *d);

/* ---- The blocks of a v-collective as rmp layouts (coll_lay.c) ---- */

/* One side's arguments: counts and displacements as int (icnt/idsp) or large-count
 * (cnt/dsp) arrays; one type (type) or one per block (types); displacements in the
 * type's extents, or in bytes (bytes_disp: alltoallw). */
typedef struct mpii_blocks_args {
    const MPI_Count *cnt;
    const int *icnt;
    const MPI_Aint *dsp;
    const int *idsp;
    mpii_dtype_t *const *types;
    const mpii_dtype_t *type;
    int bytes_disp;
} mpii_blocks_args_t;

typedef struct mpii_blocks {
    rmp_layout_t *lay;   /* n layouts: plain bytes for a contiguous block */
    mpii_typed_t *typed; /* what the layouts point to */
    size_t *bytes;       /* each block's bytes */
} mpii_blocks_t;

/* MPI_SUCCESS, MPI_ERR_COUNT (a negative count) or MPI_ERR_NO_MEM (not reported). */
int mpii_blocks_init(mpii_blocks_t *b, int n, const void *buf, const mpii_blocks_args_t *a);
void mpii_blocks_free(mpii_blocks_t *b);

/* The layouts of a nonblocking collective in flight: kept by its request until the
 * request is freed, with a reference on each of the types they point into. */
typedef struct mpii_lay_req {
    mpii_blocks_t s, r;     /* n-block sides (lay NULL: unused) */
    rmp_layout_t one;       /* a one-block side */
    mpii_typed_t one_t;
    mpii_dtype_t **t;       /* nt types, retained (NULL entries: none) */
    int nt;
    mpii_dtype_t *t_two[2]; /* t's storage for up to 2 types */
} mpii_lay_req_t;
/* NULL without memory. Retains the nt types of t. take: x takes the array t (malloc'd;
 * freed with x, or here when this fails); else t is copied (nt <= 2). */
mpii_lay_req_t *mpii_lay_req_new(mpii_dtype_t **t, int nt, int take);
void mpii_lay_req_free(mpii_lay_req_t *x);
/* The MPI request for rr, holding x (NULL: nothing to keep), or rc reported; takes x
 * either way. */
int mpii_lay_req_wrap(mpii_comm_t *c, int rc, rmp_request_t rr, mpii_lay_req_t *x,
                      MPI_Request *req, const char *fn);
/* count elements of d at buf as one layout (t holds its context). */
void mpii_blocks_one(rmp_layout_t *lay, mpii_typed_t *t, const mpii_dtype_t *d,
                     const void *buf, MPI_Count count);

/* MPI_Ialltoallv in place on a non-contiguous type: through a packed copy (coll_vw.c). */
int mpii_ialltoallv_in_place(void *rbuf, const MPI_Count *cnt, const int *icnt,
                             const MPI_Aint *dsp, const int *idsp, MPI_Datatype rtype,
                             MPI_Comm comm, MPI_Request *req, const char *fn);

/* Argument checks shared by the collectives: MPI_SUCCESS or the reported error class. */
/* (Inline: every collective call runs them; the failures report out of line.) */
int mpii_coll_comm_bad(const char *fn);
static inline int mpii_coll_comm(MPI_Comm comm, const char *fn, mpii_comm_t **c)
{
    if (MPII_LIKELY(mpii_state == 1 && (*c = mpii_comm(comm)) != NULL))
        return MPI_SUCCESS;
    return mpii_coll_comm_bad(fn);
}
int mpii_coll_type_bad(mpii_comm_t *c, const mpii_dtype_t *d, MPI_Count count, const char *fn);
static inline int mpii_coll_type(mpii_comm_t *c, MPI_Datatype dt, MPI_Count count,
                                 const char *fn, mpii_dtype_t **d)
{
    *d = mpii_dtype(dt);
    if (MPII_LIKELY(mpii_dtype_ok(*d) && count >= 0))
        return MPI_SUCCESS;
    return mpii_coll_type_bad(c, *d, count, fn);
}
int mpii_coll_root(mpii_comm_t *c, int root, const char *fn);
/* MPI forbids one buffer as both send and receive buffer without MPI_IN_PLACE. rmp would
 * read data it already overwrote (or, where the error is found by one rank only, leave
 * the others waiting): a pointer compare on the collective entry paths catches the
 * usual mistake before any communication, at the cost of one predicted branch. `mine`
 * is where this rank's own block starts on the side that holds one block per rank
 * (MPI_BOTTOM: absolute addresses in the types, nothing to compare). */
#define MPII_COLL_ALIASED(one, mine)                                                        \
    MPII_UNLIKELY((const void *)(one) == (const void *)(mine) && (one) != MPI_IN_PLACE &&   \
                  (one) != MPI_BOTTOM)
int mpii_coll_alias(mpii_comm_t *c, const char *fn);
/* This rank's count in a count array given as cnt or icnt (0 when both are NULL): the
 * checks compare buffers only when this rank has data (empty buffers may share one
 * address). */
static inline MPI_Count mpii_coll_my_count(const MPI_Count *cnt, const int *icnt, int rank)
{
    return cnt ? cnt[rank] : icnt ? icnt[rank] : 0;
}
/* The v forms: the one-block buffer against the v side's start and this rank's block of
 * it (dsp or idsp: the displacements, in extents of the v side's type). */
static inline int mpii_coll_v_aliased(const void *one, const void *big, const MPI_Aint *dsp,
                                      const int *idsp, int rank, MPI_Aint extent)
{
    if (MPII_COLL_ALIASED(one, big))
        return 1;
    if (big == MPI_BOTTOM || (!dsp && !idsp))
        return 0;
    MPI_Aint d = dsp ? dsp[rank] : idsp[rank];
    return MPII_COLL_ALIASED(one, (const void *)((const char *)big + d * extent));
}
/* Gather, scatter, allgather, alltoall: the side of one block (scatter: the receive side)
 * against this rank's block of the other side, and both sides' starts. sd/rd NULL: that
 * side is MPI_IN_PLACE or unused here. */
static inline int mpii_coll_mv_aliased(int scatter, int rank, const void *sbuf,
                                       MPI_Count scount, const mpii_dtype_t *sd,
                                       const void *rbuf, MPI_Count rcount,
                                       const mpii_dtype_t *rd)
{
    if (!sd || !rd || scount == 0 || rcount == 0)
        return 0;
    const char *mine = scatter ? (const char *)sbuf + (MPI_Aint)rank * scount * sd->extent
                               : (const char *)rbuf + (MPI_Aint)rank * rcount * rd->extent;
    return MPII_COLL_ALIASED(sbuf, rbuf) ||
           (sbuf != MPI_BOTTOM && rbuf != MPI_BOTTOM &&
            MPII_COLL_ALIASED(scatter ? rbuf : sbuf, (const void *)mine));
}
/* Report a failed rmp call. */
int mpii_coll_err(mpii_comm_t *c, int rmp_rc, const char *fn);

#endif
