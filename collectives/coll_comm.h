/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-communicator state of the collectives (coll_comm.c), in comm->coll_priv. */
#ifndef COLL_COMM_H
#define COLL_COMM_H

#include "coll_core.h"
#include "coll_tune.h"

typedef struct coll_shm coll_shm_t;
/* The last selection of one kind on a communicator: repeated calls of one size (the
 * common case) skip the table walk. gen: coll_tune_gen when made (0: empty). */
typedef struct coll_memo {
    size_t bytes;
    int algo;
    unsigned gen;
} coll_memo_t;

typedef struct coll_comm {
    coll_memo_t memo[COLL_NKINDS];
    int nodes;      /* nodes the communicator spans */
    int *node_idx;  /* comm rank -> node index, nodes numbered by their lowest comm rank */
    coll_shm_t *shm; /* single-node segment (coll_shm.c); NULL until the first use */
    int shm_state;  /* 0: not tried yet, 1: ready, -1: unavailable (same on every rank),
                     * 2: a wait timed out here (shm->broken): point-to-point from now on */
    int shm_calls;  /* calls that wanted the segment before it was made (coll_shm_setup) */
    int hier_state; /* 0: not tried yet, 1: node/leaders built, -1: failed */
    rmp_comm_t node;    /* hier: the ranks of this rank's node, in comm rank order */
    rmp_comm_t leaders; /* hier: the lowest comm rank of each node; NULL elsewhere */
} coll_comm_t;

static inline int coll_select_comm(coll_kind_t kind, size_t bytes, rmp_comm_t comm, int *algo)
{
    const coll_comm_t *cc = comm->coll_priv;
    if (RMPI_LIKELY(cc && cc->memo[kind].gen == coll_tune_gen && cc->memo[kind].bytes == bytes)) {
        *algo = cc->memo[kind].algo;
        return RMP_SUCCESS;
    }
    return coll_select_comm_slow(kind, bytes, comm, algo);
}

/* The state of comm, created on first use from rmpi_comm_node_of (no communication); NULL
 * when out of memory. */
coll_comm_t *coll_comm_get(rmp_comm_t comm);
/* Nodes comm spans: every rank computes the same value. Out of memory: comm->size (one
 * rank per node, so the flat table, which runs anywhere). */
int coll_comm_nodes(rmp_comm_t comm);

#endif /* COLL_COMM_H */
