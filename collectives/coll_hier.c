/* SPDX-License-Identifier: BSD-3-Clause */
/* Hierarchical collectives for communicators spanning several nodes: a step among the
 * ranks of each node (shared memory), a step among one leader per node (the network),
 * and a step within each node again. The leader of a node is its lowest comm rank; the
 * node communicator orders a node's ranks by comm rank, so the leader is its rank 0, and
 * the leader communicator orders the leaders by comm rank, so node index i (coll_comm_t)
 * is leader rank i. Any layout works: uneven nodes, a node of one rank, any node count.
 *
 * The sub-communicators are made by rmp_comm_split on the first call (every rank of comm
 * makes the call at the same point) and live as long as comm. The steps use the flat
 * table on them, never an RMP_*_ALGO override (which would recurse) and never hier again:
 * a node communicator spans one node, the leaders one rank per node.
 *
 * Allreduce is bitwise identical on every rank: each node's partial result comes from one
 * algorithm on identical inputs, the leaders' allreduce is bitwise identical, and the
 * result is then copied. The combination order differs from the flat algorithms', within
 * the same error bound (a tree of depth < n). */
#include "coll_algo.h"
#include "coll_comm.h"
#include "coll_core.h"
#include "coll_hier.h"
#include "coll_op.h"
#include "coll_shm.h"
#include "coll_tune.h"
#include "log.h"

static int hier_setup(rmp_comm_t comm, coll_comm_t **out)
{
    coll_comm_t *cc = coll_comm_get(comm);
    if (!cc)
        return RMP_ERR_NOMEM;
    if (cc->hier_state == 0) {
        int me = comm->rank, node = cc->node_idx[me], leader = 1;
        for (int r = 0; r < me && leader; r++)
            leader = cc->node_idx[r] != node;
        int rc = rmp_comm_split(comm, node, me, &cc->node);
        if (rc == RMP_SUCCESS)
            rc = rmp_comm_split(comm, leader ? 0 : RMP_UNDEFINED, me, &cc->leaders);
        cc->hier_state = rc == RMP_SUCCESS ? 1 : -1;
        if (rc == RMP_SUCCESS) {
            cc->node->fail_scope = comm;
            if (cc->leaders)
                cc->leaders->fail_scope = comm;
        }
        if (rc != RMP_SUCCESS) {
            rmpi_error("hierarchical collectives: cannot build the node communicators: %s",
                       rmp_strerror(rc));
            return rc;
        }
        rmpi_info("hier: %d-rank communicator on %d node(s); %d rank(s) on this node%s",
                  comm->size, cc->nodes, cc->node->size, leader ? ", its leader" : "");
    }
    *out = cc;
    return cc->hier_state > 0 ? RMP_SUCCESS : RMP_ERR_NOMEM;
}

int coll_hier_allreduce(const void *src, void *rbuf, size_t count, rmp_datatype_t dt,
                        rmp_op_t op, rmp_comm_t comm)
{
    coll_comm_t *cc;
    int rc = hier_setup(comm, &cc);
    if (rc != RMP_SUCCESS)
        return rc;
    size_t bytes = count * coll_dt_size(dt);
    rmp_comm_t node = cc->node, lead = cc->leaders;
    /* Every rank of the node gets the node's partial result (shared memory); then only the
     * leader needs it, but the segment round is as cheap as a reduce. */
    int algo = coll_shm_ready(node) ? COLL_ALLREDUCE_SHM
                                    : coll_select_flat(COLL_ALLREDUCE, bytes, node->size);
    rc = coll_allreduce_run(src, rbuf, count, dt, op, node, algo);
    if (rc == RMP_SUCCESS && lead && lead->size > 1)
        rc = coll_allreduce_run(RMP_IN_PLACE, rbuf, count, dt, op, lead,
                                coll_select_flat(COLL_ALLREDUCE, bytes, lead->size));
    if (rc == RMP_SUCCESS && node->size > 1)
        rc = coll_bcast_run(rbuf, bytes, 0, node, coll_select_flat(COLL_BCAST, bytes, node->size));
    return rc;
}

int coll_hier_bcast(void *buf, size_t bytes, int root, rmp_comm_t comm)
{
    coll_comm_t *cc;
    int rc = hier_setup(comm, &cc);
    if (rc != RMP_SUCCESS)
        return rc;
    rmp_comm_t node = cc->node, lead = cc->leaders;
    int root_node = cc->node_idx[root], mine = cc->node_idx[comm->rank] == root_node;
    int balgo = coll_select_flat(COLL_BCAST, bytes, node->size);
    /* The root's node first (its leader needs the data), then the leaders, then the other
     * nodes from their leaders. */
    if (mine && node->size > 1) {
        int nroot = 0;
        for (int r = 0; r < root; r++)
            nroot += cc->node_idx[r] == root_node;
        rc = coll_bcast_run(buf, bytes, nroot, node, balgo);
    }
    if (rc == RMP_SUCCESS && lead && lead->size > 1)
        rc = coll_bcast_run(buf, bytes, root_node, lead,
                            coll_select_flat(COLL_BCAST, bytes, lead->size));
    if (rc == RMP_SUCCESS && !mine && node->size > 1)
        rc = coll_bcast_run(buf, bytes, 0, node, balgo);
    return rc;
}

int coll_hier_barrier(rmp_comm_t comm)
{
    coll_comm_t *cc;
    int rc = hier_setup(comm, &cc);
    if (rc != RMP_SUCCESS)
        return rc;
    rmp_comm_t node = cc->node, lead = cc->leaders;
    int nalgo = coll_select_flat(COLL_BARRIER, 0, node->size);
    /* In: every rank of a node has arrived when its leader leaves the first node barrier.
     * Out: a leader enters the second one only after the leaders' barrier. */
    if (node->size > 1)
        rc = coll_barrier_run(node, nalgo);
    if (rc == RMP_SUCCESS && lead && lead->size > 1)
        rc = coll_barrier_run(lead, coll_select_flat(COLL_BARRIER, 0, lead->size));
    if (rc == RMP_SUCCESS && node->size > 1)
        rc = coll_barrier_run(node, nalgo);
    return rc;
}
