/* SPDX-License-Identifier: BSD-3-Clause */
/* Name publishing: MPI_Publish_name / Lookup_name / Unpublish_name over the process
 * manager's name service (rmp_publish & co., PMIx). Errors go to MPI_COMM_WORLD's
 * handler (no communicator is involved). */
#include "mpii_base.h"

static int name_check(const char *service, MPI_Info info, const void *port, const char *fn)
{
    int rc = mpii_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_err_comm(NULL, MPI_ERR_INFO, fn, "invalid info");
    if (!service || !*service)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "no service name");
    if (!port)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "port_name is NULL");
    return MPI_SUCCESS;
}

static int name_fail(int st, int notfound, const char *fn, const char *service)
{
    if (st == RMP_ERR_NOT_SUPPORTED)
        return mpii_err_comm(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                             "the process manager has no name service (run under rrun)");
    if (st == RMP_ERR_ARG)
        return mpii_err_comm(NULL, notfound, fn, "service '%s' %s", service,
                             notfound == MPI_ERR_SERVICE && fn[4] == 'P'
                                 ? "is already published"
                                 : "is not published");
    return mpii_err_comm(NULL, mpii_err_from_rmp(st), fn, "%s", rmp_strerror(st));
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    const char *fn = "MPI_Publish_name";
    int rc = name_check(service_name, info, port_name, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    int st = rmp_publish(service_name, port_name);
    return st == RMP_SUCCESS ? MPI_SUCCESS : name_fail(st, MPI_ERR_SERVICE, fn, service_name);
}
MPII_WEAK(Publish_name)

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    const char *fn = "MPI_Lookup_name";
    int rc = name_check(service_name, info, port_name, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    int st = rmp_lookup(service_name, port_name, MPI_MAX_PORT_NAME);
    return st == RMP_SUCCESS ? MPI_SUCCESS : name_fail(st, MPI_ERR_NAME, fn, service_name);
}
MPII_WEAK(Lookup_name)

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    const char *fn = "MPI_Unpublish_name";
    int rc = name_check(service_name, info, port_name, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    int st = rmp_unpublish(service_name);
    return st == RMP_SUCCESS ? MPI_SUCCESS : name_fail(st, MPI_ERR_SERVICE, fn, service_name);
}
MPII_WEAK(Unpublish_name)
