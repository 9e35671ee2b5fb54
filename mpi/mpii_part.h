/* SPDX-License-Identifier: BSD-3-Clause */
/* Partitioned communication (part.c, part_pair.c). Its messages travel on two
 * private rmp communicators per pair of processes of an MPI communicator, made at
 * the pair's first partitioned init (rmp_comm_create_group of the two: a handshake,
 * so that first init blocks until the peer makes its own first partitioned init
 * with this process on that communicator), so they never meet user traffic:
 * - ctl: the sender's hello (partitions, bytes, reply tag), tagged with the user's
 *   tag: rmp's matching pairs the k-th Psend_init with the k-th Precv_init of
 *   that source and tag, as MPI does;
 * - data: the receiver's reply (the tags of its partitions' messages) and one
 *   message per send partition, on tags the receiving process allocates. */
#ifndef MPII_PART_H
#define MPII_PART_H

#include "mpii.h"

typedef struct mpii_part_pair {
    struct mpii_part_pair *next;
    int peer;             /* rank in the MPI communicator */
    int prank;            /* the peer's rank in ctl and data */
    rmp_comm_t ctl, data;
    int next_tag;         /* the next data tag this process receives from peer */
} mpii_part_pair_t;

/* The pair of c's ranks (this process, peer), made on first use; NULL and *rc (an rmp
 * status) when it could not be made. */
mpii_part_pair_t *mpii_part_pair(mpii_comm_t *c, int peer, int *rc);
/* n consecutive tags of the pair's data communicator for messages to this process. */
int mpii_part_tags(mpii_part_pair_t *p, int n);

#endif
