/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbourhood collectives (neighbor*.c): every form is one plan, an
 * rmp_ineighbor_alltoallv over the communicator's neighbour lists. */
#ifndef MPII_NBR_H
#define MPII_NBR_H

#include "mpii_base.h"
#include "mpii_dtype.h"

/* One side's arguments: count (one block, or one per neighbour: cnt or icnt), the
 * block's place (consecutive blocks of count, or displacements dsp/idsp in extents,
 * or in bytes when bytes_disp), one type or one per neighbour. same: every neighbour
 * gets the one block at buf (allgather's send side). vec: the count and displacement
 * arrays must be there (v and w forms; 2: the types array too). */
typedef struct nbr_args {
    const void *buf;
    MPI_Count count;
    const MPI_Count *cnt;
    const int *icnt;
    const MPI_Aint *dsp;
    const int *idsp;
    MPI_Datatype type;
    const MPI_Datatype *types;
    int bytes_disp, same, vec;
} nbr_args_t;

typedef struct nbr_plan nbr_plan_t;

/* A plan for the neighbours of comm (arguments checked, errors reported under fn). */
int mpii_nbr_plan(MPI_Comm comm, const nbr_args_t *s, const nbr_args_t *r, const char *fn,
                  nbr_plan_t **out);
void mpii_nbr_plan_free(nbr_plan_t *p);
/* Run a plan: blocking (req NULL), or as a new request; own: the request frees the plan
 * (else the plan outlives it: persistent). */
int mpii_nbr_run(nbr_plan_t *p, MPI_Request *req, int own, const char *fn);
/* The communicator of a plan. */
mpii_comm_t *mpii_nbr_comm(const nbr_plan_t *p);

enum { MPII_NBR_BLOCKING, MPII_NBR_NONBLOCKING, MPII_NBR_PERSISTENT };
/* A whole call: plan, then run it (blocking, nonblocking) or make the persistent
 * request (info checked). */
int mpii_nbr_go(MPI_Comm comm, const nbr_args_t *s, const nbr_args_t *r, int mode,
                MPI_Info info, MPI_Request *req, const char *fn);
/* The persistent request of a plan, which it takes (neighbor_persist.c). */
int mpii_nbr_persist(nbr_plan_t *p, MPI_Request *req, const char *fn);

#endif
