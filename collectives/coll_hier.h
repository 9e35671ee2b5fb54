/* SPDX-License-Identifier: BSD-3-Clause */
/* Hierarchical collectives (coll_hier.c): within each node, across one leader per
 * node, within each node again. Any layout (uneven nodes, one rank per node). */
#ifndef COLL_HIER_H
#define COLL_HIER_H

#include "rmp.h"

int coll_hier_allreduce(const void *src, void *rbuf, size_t count, rmp_datatype_t dt,
                        rmp_op_t op, rmp_comm_t comm);
int coll_hier_bcast(void *buf, size_t bytes, int root, rmp_comm_t comm);
int coll_hier_barrier(rmp_comm_t comm);

#endif /* COLL_HIER_H */
