/* SPDX-License-Identifier: BSD-3-Clause */
/* Agreeing on a new communicator's context id (core/cid.c), safe when several threads
 * create communicators at once, on the same or on different parents, and
 * nonblocking: the agreement is a generic request driven by the progress engine.
 *
 * The members exchange proposals in rounds on the parent's collective context.
 * A proposal is this process's next free id, taken while it owns its allocator, so
 * that no other agreement of this process can pick the same id before this one
 * commits; a member that could not take the allocator says so and the round is
 * repeated. Allocators in disjoint id ranges keep that free of deadlock (the scheme
 * of MPICH's eager and main context-id masks): round 0 uses an eager one, the one of
 * 15 the agreement's key hashes to, on a first come basis; its completion proves
 * that every member has started, and from round 1 on the main allocator goes to the
 * waiting agreement with the lowest key (parent context, tag), the same order on
 * every process. */
#ifndef RMPI_CID_H
#define RMPI_CID_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "rmp.h"

typedef struct rmpi_cid_agree rmpi_cid_agree_t;

/* Start agreeing among n members of parent (members: their ranks in parent, NULL for
 * all of parent in order), me the caller's index, with messages tagged tag on the
 * parent's collective context. bytes of caller data (mine) travel along: the other
 * members' are read with rmpi_cid_payload. done, if not NULL, runs in the progress
 * engine when the agreement completed without error (under the engine lock). The
 * request completes with the agreement's error; the agreement is freed by
 * rmpi_cid_free or, once the caller gave it up (free_with_req), with the request. */
int rmpi_cid_start(rmpi_engine_t *e, rmp_comm_t parent, int n, const int *members, int me, int tag,
                   const void *mine, size_t bytes, int (*done)(rmpi_cid_agree_t *a),
                   void *arg, int free_with_req, rmp_request_t *req, rmpi_cid_agree_t **out);
/* The blocking form: start and wait; on success *out is the completed agreement. */
int rmpi_cid_agree(rmp_comm_t parent, int n, const int *members, int me, int tag,
                   const void *mine, size_t bytes, rmpi_cid_agree_t **out);
uint32_t rmpi_cid_value(const rmpi_cid_agree_t *a);
const void *rmpi_cid_payload(const rmpi_cid_agree_t *a, int i);
void *rmpi_cid_arg(const rmpi_cid_agree_t *a);
rmp_comm_t rmpi_cid_parent(const rmpi_cid_agree_t *a);
void rmpi_cid_free(rmpi_engine_t *e, rmpi_cid_agree_t *a);

#endif
