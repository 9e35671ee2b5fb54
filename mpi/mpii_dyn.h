/* SPDX-License-Identifier: BSD-3-Clause */
/* Dynamic processes (docs/mpi.md "Dynamic processes"): shared by dynamic.c and dyn_*.c. */
#ifndef MPII_DYN_H
#define MPII_DYN_H

#include "mpii_base.h"

/* The environment variable through which a spawning root hands its children the port
 * name to connect to (rrun and any PMIx launcher pass an application's environment). */
#define MPII_DYN_PARENT_ENV "RMPI_PARENT_PORT" /* not RMP_: rmp checks those */

/* The intercomm to the parent job (dynamic.c), NULL when none or once freed. */
extern mpii_comm_t *mpii_dyn_parent;

/* MPI_Init of a spawned process: connect to the parent job (collective over the world).
 * MPI_SUCCESS when not spawned. */
int mpii_dyn_parent_init(void);
/* Accept (accept != 0) or connect over port (significant at root) collectively over c:
 * the new intercomm in *out, errors returned as MPI classes (not reported). */
int mpii_dyn_meet(const char *port, int root, mpii_comm_t *c, int accept, mpii_comm_t **out);
/* The checks of a rooted call over an intracommunicator (accept, connect, spawn): an
 * initialised library, comm valid and not an intercomm, root in range, out not NULL
 * (named what in the message). *c: comm's object. MPI_SUCCESS or the reported error. */
int mpii_dyn_check_rooted(MPI_Comm comm, int root, const void *out, const char *what,
                          const char *fn, mpii_comm_t **c);

#endif
