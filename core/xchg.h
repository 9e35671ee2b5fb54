/* SPDX-License-Identifier: BSD-3-Clause */
/* Exchanges among the members of a communicator that core itself needs
 * (communicator split and create_group, window creation): point-to-point on the communicator's
 * collective context with core's own tags (core/api/coll_id.h), never the public
 * collectives, which sit above core. Linear (every member sends its entry to
 * every other): for set-up paths, not for data. */
#ifndef RMPI_XCHG_H
#define RMPI_XCHG_H

#include <stddef.h>

#include "rmp.h"

/* all holds comm->size entries of bytes each; this rank's, at index
 * comm->rank, is sent to every other member and theirs fill the rest. */
int rmpi_xchg_allgather(rmp_comm_t comm, int tag, void *all, size_t bytes);
/* The same among n members of comm: members[i] is a comm rank (NULL: rank i), me the
 * caller's index; all holds n entries, in members' order. */
int rmpi_xchg_allgather_among(rmp_comm_t comm, int n, const int *members, int me, int tag,
                              void *all, size_t bytes);
/* Returns once every member of comm has called it. */
int rmpi_xchg_barrier(rmp_comm_t comm);

#endif
