/* SPDX-License-Identifier: BSD-3-Clause */
/* Intercommunicators (docs/mpi.md, "Intercommunicators").
 *
 * An intercomm is an mpii_comm_t whose rank/size are those of the local group and
 * whose rc is an rmp communicator over the union of both groups, in world-rank order
 * (a derived one keeps its parent's union order). Point-to-point maps a remote rank to
 * its union rank (the slow path: p2p_slow keeps intercomms off the fast one) and a
 * source back. The collectives run over p2p on a private duplicate of the union
 * (inter->coll), each call under its own tag (seq), so nonblocking ones may overlap. */
#ifndef MPII_INTER_H
#define MPII_INTER_H

#include "mpii_base.h"

#define MPII_P2P_SLOW_INTER 0x80000000u

struct mpii_inter {
    int side;          /* 0 or 1: which of the two groups this one is (both agree) */
    int rsize;         /* remote group size */
    int usize;         /* union size */
    int *l2u;          /* local rank -> union rank */
    int *r2u;          /* remote rank -> union rank */
    int *u2r;          /* union rank -> remote rank, -1 for a local member */
    mpii_comm_t *coll; /* intracomm over the union: the collectives' context */
    unsigned seq;      /* collectives started on this intercomm */
    mpii_group_t *rgroup; /* cached by Comm_remote_group */
};

/* Union rank of remote rank `rank` (MPI_PROC_NULL and MPI_ANY_SOURCE unchanged); the
 * caller has checked rank against the remote size. */
static inline int mpii_inter_peer(const mpii_comm_t *c, int rank)
{
    return rank >= 0 ? c->inter->r2u[rank] : rank;
}

/* MPI_SOURCE of a receive on c from an rmp source (a union rank on an intercomm). */
static inline int mpii_inter_source(const mpii_comm_t *c, int src)
{
    if (MPII_LIKELY(!c || !c->inter) || src < 0 || src >= c->inter->usize)
        return src;
    return c->inter->u2r[src];
}

/* Size p2p ranks are checked against: the remote group's on an intercomm. */
static inline int mpii_p2p_size(const mpii_comm_t *c)
{
    return c->inter ? c->inter->rsize : c->size;
}

void mpii_inter_free(mpii_inter_t *x);
/* Make the intercomm over union communicator urc (taken): each member gives its side (0
 * or 1) and its order (key, key2) in its group; *out NULL when either group is empty;
 * the error handler is parent's. Returns an MPI error class. */
int mpii_inter_build(rmp_comm_t urc, const mpii_comm_t *parent, int side, int key, int key2,
                     mpii_comm_t **out);
/* Dup / split / create over an intercomm (collective over both groups): *out NULL when
 * this process gets MPI_COMM_NULL. Errors are returned, not reported. */
int mpii_inter_dup(mpii_comm_t *c, mpii_comm_t **out);
int mpii_inter_split(mpii_comm_t *c, int color, int key, mpii_comm_t **out);
/* Comm_compare of two communicators at least one of which is an intercomm. */
int mpii_inter_compare(mpii_comm_t *a, mpii_comm_t *b);
/* World rank of local rank `rank` of intercomm c. */
int mpii_inter_world_rank(const mpii_comm_t *c, int rank);

/* ---- Collectives (intercomm_coll.c) ---- */
enum {
    MPII_IC_BARRIER,
    MPII_IC_BCAST,
    MPII_IC_GATHER,
    MPII_IC_GATHERV,
    MPII_IC_SCATTER,
    MPII_IC_SCATTERV,
    MPII_IC_ALLGATHER,
    MPII_IC_ALLGATHERV,
    MPII_IC_ALLTOALL,
    MPII_IC_ALLTOALLV,
    MPII_IC_ALLTOALLW,
    MPII_IC_REDUCE,
    MPII_IC_ALLREDUCE,
    MPII_IC_RS_BLOCK,
    MPII_IC_RS,
    MPII_IC_UNSUPPORTED /* scan, exscan, neighbour collectives: MPI_ERR_COMM */
};

/* One side (send or receive) of a collective as the caller got it: a count (cnt) or per
 * rank counts (cnts or icnts) and displacements (dsps or idsps, in extents; bytes for
 * alltoallw), one type or per rank types. */
typedef struct mpii_ic_side {
    const void *buf;
    MPI_Count cnt;
    const MPI_Count *cnts;
    const int *icnts;
    const MPI_Aint *dsps;
    const int *idsps;
    MPI_Datatype type;
    const MPI_Datatype *types;
} mpii_ic_side_t;

/* A side of one count and type, for the call's arguments. */
#define MPII_IC_ONE(b, n, t) (&(mpii_ic_side_t){(b), (n), NULL, NULL, NULL, NULL, (t), NULL})

/* Run collective `kind` on intercomm c: blocking when req is NULL, else its request in
 * *req. s / r may be NULL for a side the kind has not. Errors are reported on c. */
int mpii_ic_coll(int kind, mpii_comm_t *c, const mpii_ic_side_t *s, const mpii_ic_side_t *r,
                 MPI_Op op, int root, MPI_Request *req, const char *fn);

static inline int mpii_ic_unsupported(mpii_comm_t *c, const char *fn)
{
    return mpii_ic_coll(MPII_IC_UNSUPPORTED, c, NULL, NULL, MPI_OP_NULL, 0, NULL, fn);
}

#endif
