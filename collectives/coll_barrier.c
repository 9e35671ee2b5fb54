/* SPDX-License-Identifier: BSD-3-Clause */
/* Barrier. Dissemination (Hensgen, Finkel, Manber): in round k every rank signals rank
 * + 2^k and waits for rank - 2^k; after ceil(log2 n) rounds every rank has heard,
 * transitively, from every other; any n, no extra step. Direct: every rank signals every
 * other and waits for all, one round of n - 1 messages: fewer scheduling rounds when the
 * ranks outnumber the cores, for small n. Hier: coll_hier.c. */
#include "coll_algo.h"
#include "coll_check.h"
#include "coll_comm.h"
#include "coll_core.h"
#include "coll_hier.h"
#include "coll_p2p.h"
#include "coll_shm.h"
#include "coll_tune.h"

int coll_barrier_run(rmp_comm_t comm, int algo)
{
    if (algo == COLL_BARRIER_HIER && comm->size > 1)
        return coll_hier_barrier(comm);
    if (algo == COLL_BARRIER_SHM || algo == COLL_BARRIER_HIER) {
        if (coll_shm_ready(comm)) /* the same answer on every rank */
            return coll_shm_barrier(comm);
        algo = coll_select_flat(COLL_BARRIER, 0, comm->size);
    }
    int n = comm->size, rank = comm->rank, tag = coll_next_tag(comm), rc = RMP_SUCCESS;
    static char dummy;
    if (algo == COLL_BARRIER_DIRECT)
        return coll_exchange_all(&dummy, 0, 0, &dummy, 0, 0, comm, tag);
    for (int k = 1, round = 0; k < n && rc == RMP_SUCCESS; k <<= 1, round++) {
        rmp_request_t reqs[2];
        rc = rmpi_irecv_cid(&dummy, 0, (rank - k + n) % n, tag + round, comm, coll_cid(comm),
                            &reqs[0]);
        if (rc != RMP_SUCCESS)
            return rc;
        rc = rmpi_isend_cid(&dummy, 0, (rank + k) % n, tag + round, comm, coll_cid(comm),
                            &reqs[1]);
        int wrc = coll_waitn(reqs, rc == RMP_SUCCESS ? 2 : 1);
        if (rc == RMP_SUCCESS)
            rc = wrc;
    }
    return rc;
}

RMP_EXPORT int rmp_barrier(rmp_comm_t comm)
{
    int rc = coll_check_comm(comm, "rmp_barrier"), algo;
    if (rc == RMP_SUCCESS)
        rc = coll_check_call(comm, "barrier", -1, 0, RMP_UINT8, -1);
    if (rc != RMP_SUCCESS ||
        (rc = coll_select_comm(COLL_BARRIER, 0, comm, &algo)) !=
            RMP_SUCCESS)
        return rc;
    return coll_barrier_run(comm, algo);
}
