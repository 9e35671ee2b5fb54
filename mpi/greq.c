/* SPDX-License-Identifier: BSD-3-Clause */
/* Generalized requests (MPI_Grequest_start/complete): the user's operation completes
 * when it says so; Wait/Test (request.c) then call its query function's result. */
#include "mpii.h"
#include "mpii_p2p.h"

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    if (!request || !query_fn)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Grequest_start", "NULL argument");
    mpii_req_t *r = mpii_req_new(&mpii_comm_world, MPII_REQ_GREQ);
    if (!r)
        return mpii_err_comm(NULL, MPI_ERR_NO_MEM, "MPI_Grequest_start", "out of memory");
    r->query_fn = query_fn;
    r->free_fn = free_fn;
    r->cancel_fn = cancel_fn;
    r->extra_state = extra_state;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}
MPII_WEAK(Grequest_start)

int PMPI_Grequest_complete(MPI_Request request)
{
    mpii_req_t *r = mpii_req(request);
    if (!r || r->kind != MPII_REQ_GREQ)
        return mpii_err_comm(NULL, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                             "invalid generalized request handle %p", (void *)request);
    mpii_status_empty(&r->status);
    int rc = r->query_fn(r->extra_state, &r->status);
    r->err = rc == MPI_SUCCESS ? r->status.MPI_ERROR : rc;
    r->done = 1;
    return MPI_SUCCESS;
}
MPII_WEAK(Grequest_complete)
