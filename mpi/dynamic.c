/* SPDX-License-Identifier: BSD-3-Clause */
/* The parts of the dynamic-process chapter that need no process manager: the parent of
 * a process rmp started (none: rmp does not spawn yet, so MPI_COMM_NULL, the standard's
 * answer for a process not started by MPI_Comm_spawn) and MPI_Comm_disconnect (on the
 * communicators rmp has, a collective free that first lets pending communication end).
 * Spawn, ports, name publishing and join are issue 26's work left (docs/mpi.md). */
#include "mpii_base.h"

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    int rc = mpii_check_init("MPI_Comm_get_parent");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!parent)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Comm_get_parent", "parent is NULL");
    *parent = MPI_COMM_NULL;
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
