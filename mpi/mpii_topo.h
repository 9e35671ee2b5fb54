/* SPDX-License-Identifier: BSD-3-Clause */
/* Virtual topologies (topo*.c): the object a communicator carries, shared by the
 * Cartesian, graph and distributed-graph files and the neighbourhood collectives.
 * rmp does not reorder ranks: a new communicator keeps the old order (reorder is
 * accepted and ignored, which the standard allows). */
#ifndef MPII_TOPO_H
#define MPII_TOPO_H

#include <stdlib.h>
#include <string.h>

#include "mpii_base.h"

#define TOPO_MAXDIMS 64

struct mpii_topo {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    int ndims;
    int *dims, *periods;  /* cart: ndims each */
    int nnodes;           /* graph: the whole graph, as given to MPI_Graph_create */
    int *index, *edges;   /* graph: nnodes and index[nnodes - 1] entries */
    int indeg, outdeg;    /* this rank's neighbour lists */
    int *in, *out;        /* cart and graph: in only (out is the same list) */
    int *inw, *outw;      /* dist graph: weights, NULL when unweighted */
};

/* A malloc'd copy of n ints (at least one int allocated); NULL without memory. */
int *mpii_topo_copy(const int *a, int n);
/* Rank at coordinate + disp along dim, MPI_PROC_NULL past an open edge. */
int mpii_topo_shift(const mpii_topo_t *t, int rank, int dim, int disp);
/* The communicator of a topology call, or its error reported (the macros below). */
int mpii_topo_comm(MPI_Comm h, const char *fn, mpii_comm_t **c);

#define TOPO_COMM(h, c, fn)                                                              \
    mpii_comm_t *c;                                                                      \
    do {                                                                                 \
        int rc_ = mpii_topo_comm(h, fn, &c);                                             \
        if (rc_ != MPI_SUCCESS)                                                          \
            return rc_;                                                                  \
    } while (0)

/* The communicator c with a topology of kind k (t its object), else MPI_ERR_TOPOLOGY. */
#define TOPO_KIND(h, c, t, k, what, fn)                                                  \
    TOPO_COMM(h, c, fn);                                                                 \
    const mpii_topo_t *t = c->topo;                                                      \
    if (!t || t->kind != (k))                                                            \
        return mpii_err_comm(c, MPI_ERR_TOPOLOGY, fn, "the communicator has no " what    \
                             " topology");

/* Split comm_old keeping ranks below n (the rest get MPI_COMM_NULL) and attach t to the
 * new communicator (taken either way); the error is reported under fn. */
int mpii_topo_attach(mpii_comm_t *c, MPI_Comm comm_old, int n, mpii_topo_t *t,
                     MPI_Comm *newcomm, const char *fn);

#endif
