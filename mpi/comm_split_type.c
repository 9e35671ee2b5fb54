/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Comm_split_type and MPI_Get_hw_resource_info. rmp knows one level of the hardware
 * without hwloc: the node, whose ranks share memory (rmp_node_id). So:
 * - MPI_COMM_TYPE_SHARED splits by node;
 * - MPI_COMM_TYPE_HW_GUIDED / RESOURCE_GUIDED read the info key "mpi_hw_resource_type":
 *   "mpi_shared_memory" and hwloc's name of the node level ("machine", any case) split by
 *   node; any other resource is one rmp cannot see (socket, core, caches, ...), so the
 *   caller gets MPI_COMM_NULL, as the standard asks of an unknown or unavailable type,
 *   and so does a caller that gives no such key;
 * - MPI_COMM_TYPE_HW_UNGUIDED splits by node when that makes strict subsets of comm (it
 *   spans several nodes) and then sets "mpi_hw_resource_type" = "mpi_shared_memory" in
 *   info; within one node there is no finer level rmp knows: MPI_COMM_NULL. */
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "mpii_base.h"

#define ST_KEY "mpi_hw_resource_type"
#define ST_SHM "mpi_shared_memory"

/* Whether the info names the node level. */
static int st_guided_node(MPI_Info info)
{
    char v[64];
    int flag = 0;
    if (info == MPI_INFO_NULL ||
        PMPI_Info_get_string(info, ST_KEY, &(int){sizeof(v)}, v, &flag) != MPI_SUCCESS || !flag)
        return 0;
    return strcmp(v, ST_SHM) == 0 || strcasecmp(v, "machine") == 0;
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split_type";
    int rc = mpii_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (!newcomm)
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "newcomm is NULL");
    if (c->inter)
        return mpii_err_comm(c, MPI_ERR_COMM, fn, "not supported on an intercommunicator");
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_err_comm(c, MPI_ERR_INFO, fn, "invalid info");
    int color, node = rmp_node_id();
    switch (split_type) {
    case MPI_UNDEFINED: color = MPI_UNDEFINED; break;
    case MPI_COMM_TYPE_SHARED:
    case MPI_COMM_TYPE_HW_UNGUIDED: color = node; break;
    case MPI_COMM_TYPE_HW_GUIDED:
    case MPI_COMM_TYPE_RESOURCE_GUIDED: color = st_guided_node(info) ? node : MPI_UNDEFINED; break;
    default:
        return mpii_err_comm(c, MPI_ERR_ARG, fn, "unknown split type %d", split_type);
    }
    if ((rc = PMPI_Comm_split(comm, color, key, newcomm)) != MPI_SUCCESS)
        return rc;
    if (split_type != MPI_COMM_TYPE_HW_UNGUIDED || *newcomm == MPI_COMM_NULL)
        return MPI_SUCCESS;
    /* every node's part is smaller than comm, or (one node) none is: all agree */
    if (mpii_comm(*newcomm)->size == c->size)
        return PMPI_Comm_free(newcomm);
    if (info != MPI_INFO_NULL && (rc = PMPI_Info_set(info, ST_KEY, ST_SHM)) != MPI_SUCCESS) {
        PMPI_Comm_free(newcomm);
        return rc;
    }
    return MPI_SUCCESS;
}
MPII_WEAK(Comm_split_type)

/* What this process runs on, as far as rmp knows: the resource types MPI_Comm_split_type
 * understands, and (rmp's own keys) its node's id and host name. */
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    const char *fn = "MPI_Get_hw_resource_info";
    int rc = mpii_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!hw_info)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "hw_info is NULL");
    char node[32], host[256] = "";
    snprintf(node, sizeof(node), "%d", rmp_node_id());
    gethostname(host, sizeof(host) - 1);
    if ((rc = PMPI_Info_create(hw_info)) != MPI_SUCCESS)
        return rc;
    if ((rc = PMPI_Info_set(*hw_info, ST_KEY, ST_SHM ",machine")) != MPI_SUCCESS ||
        (rc = PMPI_Info_set(*hw_info, "rmp_node_id", node)) != MPI_SUCCESS ||
        (host[0] && (rc = PMPI_Info_set(*hw_info, "rmp_host", host)) != MPI_SUCCESS))
        PMPI_Info_free(hw_info);
    return rc;
}
MPII_WEAK(Get_hw_resource_info)
