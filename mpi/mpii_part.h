/* SPDX-License-Identifier: BSD-3-Clause */
/* Partitioned communication (part.c, part_match.c). Its messages travel on one
 * private rmp communicator over all processes (a dup of world made at MPI_Init), so
 * they never meet user traffic, and no init blocks:
 * - tag 0: the sender's hello (its communicator's id, the user's tag, partitions,
 *   bytes, reply tag), taken by one wildcard receive per process; hellos are matched
 *   to Precv_inits by (source, communicator, tag) in arrival order, which is the
 *   senders' init order (rmp does not overtake), as MPI matches partitioned inits;
 * - other tags, allocated by the receiving process: the receiver's reply (the tags
 *   of its messages) and one message per send partition.
 * A communicator's id is the same on all its members without communication: its
 * members' world ranks hashed, with how many communicators of those members this
 * process made before (members make them in the same order: each creation is a
 * blocking collective among them). */
#ifndef MPII_PART_H
#define MPII_PART_H

#include "mpii_base.h"

/* A hello: what a Psend_init tells its receiver. */
typedef struct mpii_part_hello {
    uint64_t comm_id;
    int64_t tag, parts, bytes, reply_tag;
} mpii_part_hello_t;

/* A Precv_init waiting for its hello (part.c's request). */
typedef struct mpii_part_wait {
    struct mpii_part_wait *next;
    uint64_t comm_id;
    int src, tag; /* world rank, user tag */
    int matched;
    mpii_part_hello_t hello;
} mpii_part_wait_t;

/* The private communicator; RMP_COMM_NULL when it could not be made. */
extern rmp_comm_t mpii_part_comm;
/* n consecutive tags for messages to this process. */
int mpii_part_tags(int n);
/* Receive the hellos that arrived, hand them to waiting receives. */
void mpii_part_progress(void);
/* Wait for a hello (w->matched once handed); unlist a waiting one. */
void mpii_part_wait_add(mpii_part_wait_t *w);
void mpii_part_wait_remove(mpii_part_wait_t *w);
/* c's id (see above). */
uint64_t mpii_part_id(const mpii_comm_t *c);

#endif
