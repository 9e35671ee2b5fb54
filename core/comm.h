/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicators: a group of world ranks and a context id for matching. The object and
 * what the layers above use of it: core/api/comm_obj.h; here what only core uses. */
#ifndef RMPI_COMM_H
#define RMPI_COMM_H

#include "engine.h"
#include "comm_obj.h"
#include "rmpi.h"

/* A communicator of context cid, n members, this rank's rank; with_world: its world[]
 * array (n entries, to fill), else none (the world communicator). */
int rmpi_comm_new(rmpi_engine_t *e, uint32_t cid, int n, int rank, int with_world,
                  struct rmp_comm **out);
/* The next free context id, and: contexts below cid are taken (rmp_comm_shrink). */
uint32_t rmpi_comm_next_cid(rmpi_engine_t *e);
void rmpi_comm_cid_taken(rmpi_engine_t *e, uint32_t cid);
int rmpi_comm_world_init(rmpi_engine_t *e);
void rmpi_comm_world_fini(rmpi_engine_t *e);

#endif
