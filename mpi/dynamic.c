/* SPDX-License-Identifier: BSD-3-Clause */
/* The parent of a spawned process and MPI_Comm_disconnect. A process started by
 * MPI_Comm_spawn finds its parent's port name in its environment (MPII_DYN_PARENT_ENV)
 * and connects to it in MPI_Init, collectively over its world: MPI_Comm_get_parent then
 * returns that intercomm (MPI_COMM_NULL for a process not spawned, or once it was
 * disconnected or freed). Disconnect is a collective free that first lets pending
 * communication end. */
#include <stdio.h>
#include <stdlib.h>

#include "mpii_dyn.h"
#include "mpii_inter.h"

mpii_comm_t *mpii_dyn_parent;

int mpii_dyn_parent_init(void)
{
    const char *port = getenv(MPII_DYN_PARENT_ENV);
    if (!port || !*port)
        return MPI_SUCCESS;
    mpii_comm_t *n = NULL;
    int err = mpii_dyn_meet(port, 0, &mpii_comm_world, 0, &n);
    /* Not for this process's own children, which get their own port. */
    unsetenv(MPII_DYN_PARENT_ENV);
    if (err == MPI_SUCCESS && !n)
        err = MPI_ERR_INTERN;
    if (err != MPI_SUCCESS)
        return mpii_err_comm(NULL, err, "MPI_Init", "cannot connect to the parent job");
    snprintf(n->name, sizeof(n->name), "MPI_COMM_PARENT");
    mpii_dyn_parent = n;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    int rc = mpii_check_init("MPI_Comm_get_parent");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!parent)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Comm_get_parent", "parent is NULL");
    *parent = mpii_dyn_parent ? mpii_comm_handle(mpii_dyn_parent) : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_get_parent)

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    const char *fn = "MPI_Comm_disconnect";
    int rc = mpii_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    mpii_comm_t *c = comm ? mpii_comm(*comm) : NULL;
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (c == &mpii_comm_world || c == &mpii_comm_self)
        return mpii_err_comm(c, MPI_ERR_COMM, fn,
                             "MPI_COMM_WORLD and MPI_COMM_SELF cannot be disconnected");
    /* Collective: every member has reached the call, so the messages the members sent
     * each other on comm before it have been matched or are in their queues. */
    if ((rc = PMPI_Barrier(*comm)) != MPI_SUCCESS)
        return rc;
    return PMPI_Comm_free(comm);
}
MPII_WEAK(Comm_disconnect)
