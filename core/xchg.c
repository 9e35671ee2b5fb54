/* SPDX-License-Identifier: BSD-3-Clause */
/* Core's own exchanges among members (core/xchg.h). */
#include <stdlib.h>

#include "coll_id.h"
#include "comm.h"
#include "recv.h"
#include "send.h"
#include "xchg.h"

int rmpi_xchg_allgather(rmp_comm_t comm, int tag, void *all, size_t bytes)
{
    int n = comm->size, rc = RMP_SUCCESS;
    char *entries = all;
    const void *mine = entries + (size_t)comm->rank * bytes;
    uint32_t cid = rmpi_cid_coll(comm);
    rmp_request_t *reqs = calloc((size_t)(2 * n), sizeof(*reqs));
    if (!reqs)
        return RMP_ERR_NOMEM;
    int nr = 0;
    for (int r = 0; r < n && rc == RMP_SUCCESS; r++) {
        if (r == comm->rank)
            continue;
        rc = rmpi_irecv_cid(entries + (size_t)r * bytes, bytes, r, tag, comm, cid, &reqs[nr]);
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

int rmpi_xchg_barrier(rmp_comm_t comm)
{
    char *none = calloc((size_t)comm->size, 1);
    if (!none)
        return RMP_ERR_NOMEM;
    int rc = rmpi_xchg_allgather(comm, RMPI_TAG_CORE_SYNC, none, 1);
    free(none);
    return rc;
}
