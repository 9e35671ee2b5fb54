/* SPDX-License-Identifier: BSD-3-Clause */
/* Schedules for the nonblocking collectives (coll_sched.c).
 * A schedule is a list of rounds; a round is a list of operations run in order when the
 * round starts: local ones (copy, reduce) at once, sends and receives posted. The round
 * ends when all of its sends and receives are done; then the next one starts. So a local
 * operation that consumes a receive goes in the round after it, before the sends that
 * forward its result. Building never fails: an allocation failure is remembered and
 * reported by coll_sched_start. */
#ifndef COLL_SCHED_H
#define COLL_SCHED_H

#include <stddef.h>

#include "rmp.h"

typedef struct coll_sched coll_sched_t;

coll_sched_t *coll_sched_new(rmp_comm_t comm, rmp_datatype_t dt, rmp_op_t op, int tag);
/* Scratch owned by the schedule (freed with it); NULL on failure. */
void *coll_sched_scratch(coll_sched_t *s, size_t bytes);
void coll_sched_send(coll_sched_t *s, const void *buf, size_t bytes, int peer, int sub);
void coll_sched_recv(coll_sched_t *s, void *buf, size_t bytes, int peer, int sub);
/* out = a op b over count elements (out may be exactly a or b). */
/* The same on a layout (rmp_layout_t, which must live until the request completes; NULL
 * callbacks: plain bytes at ctx). */
void coll_sched_send_layout(coll_sched_t *s, const rmp_layout_t *lay, size_t bytes, int peer,
                            int sub);
void coll_sched_recv_layout(coll_sched_t *s, const rmp_layout_t *lay, size_t bytes, int peer,
                            int sub);
void coll_sched_copy_layout(coll_sched_t *s, const rmp_layout_t *dst, const rmp_layout_t *src,
                            size_t bytes);
void coll_sched_reduce3(coll_sched_t *s, void *out, const void *a, const void *b, size_t count);
void coll_sched_copy(coll_sched_t *s, void *dst, const void *src, size_t bytes);
/* End the current round (no-op when it is empty). */
void coll_sched_round(coll_sched_t *s);
/* Hand the schedule to the progress engine as a generic request and run what can run
 * now. On failure the schedule is freed and nothing was posted. */
int coll_sched_start(coll_sched_t *s, rmp_request_t *req);
void coll_sched_free(coll_sched_t *s);

#endif /* COLL_SCHED_H */
