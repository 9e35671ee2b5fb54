/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-communicator collective state (comm->coll_priv): the node layout, and what the
 * node-aware algorithms build on first use (the shared segment, the node and leader
 * communicators). The layout comes from rmpi_comm_node_of, whose ids may differ between
 * ranks (a launcher gives some ranks numeric ids, others host-derived ones) but whose
 * partition into nodes is the same everywhere: only the partition is used. */
#include <stdlib.h>

#include "coll_comm.h"
#include "coll_core.h"
#include "coll_shm.h"

static void coll_comm_free(void *p)
{
    coll_comm_t *cc = p;
    coll_shm_free(cc->shm);
    if (cc->node)
        rmpi_comm_destroy(cc->node);
    if (cc->leaders)
        rmpi_comm_destroy(cc->leaders);
    free(cc->node_idx);
    free(cc);
}

static int coll_comm_layout(rmp_comm_t comm, coll_comm_t *cc)
{
    int n = comm->size, nodes = 0, rc = RMP_SUCCESS;
    int *ids = malloc((size_t)n * sizeof(int)); /* node id of node index i */
    cc->node_idx = malloc((size_t)n * sizeof(int));
    if (!ids || !cc->node_idx) {
        rc = RMP_ERR_NOMEM;
        goto out;
    }
    int unknown = 0;
    for (int r = 0; r < n; r++)
        unknown |= rmpi_comm_node_of(comm, r) < 0;
    for (int r = 0; r < n; r++) {
        /* A remote rank whose node the launcher did not tell (negative id) could share a
         * node with another such rank, and another rank's view may differ: then every rank
         * is its own node, which gives the flat algorithms, correct whatever the layout.
         * Each rank of comm has such a peer in this case, so all of them agree. */
        int id = unknown ? r : rmpi_comm_node_of(comm, r), k = 0;
        while (k < nodes && ids[k] != id)
            k++;
        if (k == nodes)
            ids[nodes++] = id;
        cc->node_idx[r] = k;
    }
    cc->nodes = nodes;
out:
    free(ids);
    return rc;
}

coll_comm_t *coll_comm_get(rmp_comm_t comm)
{
    if (RMPI_LIKELY(comm->coll_priv != NULL))
        return comm->coll_priv;
    coll_comm_t *cc = calloc(1, sizeof(*cc));
    if (!cc)
        return NULL;
    if (coll_comm_layout(comm, cc) != RMP_SUCCESS) {
        coll_comm_free(cc);
        return NULL;
    }
    comm->coll_priv = cc;
    comm->coll_priv_free = coll_comm_free;
    return cc;
}

int coll_comm_nodes(rmp_comm_t comm)
{
    coll_comm_t *cc = coll_comm_get(comm);
    return cc ? cc->nodes : comm->size; /* out of memory: as if one rank per node */
}
