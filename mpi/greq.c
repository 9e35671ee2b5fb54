/* SPDX-License-Identifier: BSD-3-Clause */
/* Generalized requests (MPI_Grequest_start/complete): the user's operation completes
 * when it says so. The completion calls (request.c) then ask its query_fn for the
 * status (each time one is returned, as the standard has it) and call free_fn once,
 * when the request is freed: by the completion, or by Grequest_complete after a
 * MPI_Request_free (query_fn is not called then). */
#include "mpii_base.h"
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
    mpii_status_empty(&r->status);
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}
MPII_WEAK(Grequest_start)

int mpii_greq_query(mpii_req_t *r)
{
    mpii_status_empty(&r->status);
    int rc = r->query_fn(r->extra_state, &r->status);
    r->err = rc;
    r->status.MPI_ERROR = rc;
    return rc;
}

int mpii_greq_free_fn(mpii_req_t *r)
{
    MPI_Grequest_free_function *fn = r->free_fn;
    r->free_fn = NULL;
    return fn ? fn(r->extra_state) : MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request)
{
    mpii_req_t *r = mpii_req(request);
    if (!r || r->kind != MPII_REQ_GREQ || r->done)
        return mpii_err_comm(NULL, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                             "invalid or already complete generalized request %p",
                             (void *)request);
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE); /* another thread may be waiting */
    if (r->freed)
        mpii_req_reap(); /* freed by the user already: free_fn now */
    return MPI_SUCCESS;
}
MPII_WEAK(Grequest_complete)
