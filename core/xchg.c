/* SPDX-License-Identifier: BSD-3-Clause */
/* Core's own exchanges among members (core/xchg.h). */
#include <stdlib.h>

#include "coll_id.h"
#include "comm.h"
#include "recv.h"
#include "send.h"
#include "xchg.h"

int rmpi_xchg_allgather_among(rmp_comm_t comm, int n, const int *members, int me, int tag,
                              void *all, size_t bytes)
{
    int rc = RMP_SUCCESS;
    char *entries = all;
    const void *mine = entries + (size_t)me * bytes;
    uint32_t cid = rmpi_cid_coll(comm);
    rmp_request_t *reqs = calloc((size_t)(2 * n), sizeof(*reqs));
    if (!reqs)
        return RMP_ERR_NOMEM;
    int nr = 0;
    for (int i = 0; i < n && rc == RMP_SUCCESS; i++) {
        int r = members ? members[i] : i;
        if (i == me)
            continue;
        rc = rmpi_irecv_cid(entries + (size_t)i * bytes, bytes, r, tag, comm, cid, &reqs[nr]);
        if (rc == RMP_SUCCESS)
            nr++;
        if (rc == RMP_SUCCESS)
            rc = rmpi_isend_cid(mine, bytes, r, tag, comm, cid, &reqs[nr]);
        if (rc == RMP_SUCCESS)
            nr++;
    }
    int wrc = rmp_waitall((size_t)nr, reqs, NULL);
    free(reqs);
    return rc != RMP_SUCCESS ? rc : wrc;
}

int rmpi_xchg_allgather(rmp_comm_t comm, int tag, void *all, size_t bytes)
{
    return rmpi_xchg_allgather_among(comm, comm->size, NULL, comm->rank, tag, all, bytes);
}

int rmpi_xchg_barrier(rmp_comm_t comm)
{
    char *none = calloc((size_t)comm->size, 1);
    if (!none)
        return RMP_ERR_NOMEM;
    int rc = rmpi_xchg_allgather(comm, RMPI_TAG_CORE_SYNC, none, 1);
    free(none);
    return rc;
}
