/* SPDX-License-Identifier: BSD-3-Clause */
/* The communicator object as the layers above the engine see it (collectives/ through
 * core/api/coll_core.h, core itself through core/comm.h): its shape, its checks and its
 * holds. Its context ids and collective tags: core/api/coll_id.h. */
#ifndef RMPI_COMM_OBJ_H
#define RMPI_COMM_OBJ_H

#include <stdint.h>

#include "rmpi.h"

struct rmp_comm {
    uint32_t cid;  /* point-to-point context, even (collectives: core/api/coll_id.h) */
    int rank;
    int size;
    int *world;    /* comm rank -> world rank; NULL for the world communicator */
    uint32_t coll_seq;      /* collectives started on this comm */
    void *coll_priv;        /* owned by collectives/ */
    void (*coll_priv_free)(void *);
    int node_leader;        /* topology cache, filled by collectives on demand */
    /* A communicator built for the steps of another's collectives (hierarchical: a node's
     * ranks, the leaders): a failed member of that one dooms collectives on this one too,
     * or a rank waiting on its node for a leader whose step failed would wait forever. */
    struct rmp_comm *fail_scope;
    void *user; /* rmp_comm_set_user */
    /* Holders besides its owner (rmpi_comm_retain): a schedule still running on a
     * communicator its owner freed (MPI_Comm_free after MPI_Request_free) keeps it. */
    int holds;
    /* The engine's count of failed peers (core/failure.c), read by every collective's
     * entry check (rmpi_comm_lost_member): set by rmpi_comm_new. */
    const int *peers_failed;
};

static inline int rmpi_comm_world_rank(const struct rmp_comm *c, int r)
{
    return c->world ? c->world[r] : r;
}

/* Node id of comm rank r, as the launcher told it (negative: a remote rank
 * whose node is unknown). Ids may differ between ranks; the partition does not. */
int rmpi_comm_node_of(const struct rmp_comm *c, int r);

/* Validate a user communicator handle for an operation: also RMP_ERR_REVOKED once it
 * was revoked (core/ulfm.c clears rmpi_tls_main then, so the fast test costs nothing). */
int rmpi_comm_check_slow(rmp_comm_t comm);
static inline int rmpi_comm_check(rmp_comm_t comm)
{
    if (RMPI_LIKELY(rmpi_tls_main) && RMPI_LIKELY(comm != NULL))
        return RMP_SUCCESS;
    return rmpi_comm_check_slow(comm);
}
/* The same for what stays allowed on a revoked communicator (rank, size, free, the
 * fault-tolerance calls). */
static inline int rmpi_comm_check_local(rmp_comm_t comm)
{
    int rc = rmpi_check_state();
    if (RMPI_UNLIKELY(rc != RMP_SUCCESS))
        return rc;
    return RMPI_LIKELY(comm != NULL) ? RMP_SUCCESS : RMP_ERR_ARG;
}
/* Free a communicator and its collective state, without communication (also after
 * rmp_finalize has started: collectives/ frees the communicators it made itself).
 * While someone holds it (rmpi_comm_retain), that happens at the last release. */
void rmpi_comm_destroy(struct rmp_comm *c);
/* Keep c alive past its owner's rmpi_comm_destroy until rmpi_comm_release. */
void rmpi_comm_retain(struct rmp_comm *c);
void rmpi_comm_release(struct rmp_comm *c);
/* Has a member of comm (or of its fail_scope) failed? Collectives on such a
 * communicator fail. Every collective call asks: no call while no peer has failed
 * (the scan: core/failure.c). */
int rmpi_comm_scan_lost(rmp_comm_t comm);
static inline int rmpi_comm_lost_member(rmp_comm_t comm)
{
    return comm && RMPI_UNLIKELY(__atomic_load_n(comm->peers_failed, __ATOMIC_RELAXED) != 0)
               ? rmpi_comm_scan_lost(comm)
               : 0;
}

#endif
