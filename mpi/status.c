/* SPDX-License-Identifier: BSD-3-Clause */
/* Status queries and setters: Get_count, Get_elements, the Status_* accessors,
 * Test_cancelled. The byte count lives in MPI_internal (mpii_p2p.h). */
#include "mpii_base.h"
#include "mpii_dtype.h"
#include "mpii_p2p.h"

static int status_args(const MPI_Status *st, MPI_Datatype dt, const void *out, const char *fn,
                       mpii_dtype_t **d)
{
    if (!st || st == MPI_STATUS_IGNORE || !out)
        return mpii_err_comm(NULL, MPI_ERR_ARG, fn, "NULL status or output argument");
    if (!(*d = mpii_dtype(dt)))
        return mpii_err_comm(NULL, MPI_ERR_TYPE, fn, "invalid datatype");
    return MPI_SUCCESS;
}

static int st_count(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count,
                    const char *fn)
{
    mpii_dtype_t *d;
    int rc = status_args(status, datatype, count, fn, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Count bytes = mpii_status_bytes(status);
    if (d->size == 0)
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else
        *count = bytes % (MPI_Count)d->size ? MPI_UNDEFINED : bytes / (MPI_Count)d->size;
    return MPI_SUCCESS;
}

MPII_TWINS(Get_count, st_count(status, datatype, NARROW(count, mpii_int_or_undefined), FN))

static int st_elements(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count,
                       const char *fn)
{
    mpii_dtype_t *d;
    int rc = status_args(status, datatype, count, fn, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Count bytes = mpii_status_bytes(status);
    MPI_Count n = mpii_dtype_elements(d, (size_t)bytes);
    /* Bytes that do not end on a basic element boundary: undefined. */
    *count = d->size && d->basic != MPII_B_NONE && d->dl->nbasic &&
                     bytes % (MPI_Count)(d->size / (size_t)d->dl->nbasic)
                 ? MPI_UNDEFINED
                 : n;
    return MPI_SUCCESS;
}

MPII_TWINS(Get_elements, st_elements(status, datatype, NARROW(count, mpii_int_or_undefined), FN))

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return st_elements(status, datatype, count, "MPI_Get_elements_x");
}
MPII_WEAK(Get_elements_x)

static int st_set_elements(MPI_Status *status, MPI_Datatype datatype, MPI_Count count,
                           const char *fn)
{
    mpii_dtype_t *d;
    int rc = status_args(status, datatype, status, fn, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return mpii_err_comm(NULL, MPI_ERR_COUNT, fn, "negative count");
    MPI_Count nb = d->dl->nbasic ? d->dl->nbasic : 1;
    MPI_Count bytes = (count / nb) * (MPI_Count)d->size + (count % nb) * (MPI_Count)(d->size / (size_t)nb);
    mpii_status_set_bytes(status, bytes);
    return MPI_SUCCESS;
}

MPII_TWINS(Status_set_elements, st_set_elements(status, datatype, count, FN))

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return st_set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}
MPII_WEAK(Status_set_elements_x)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (!status)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Status_set_cancelled", "status is NULL");
    status->MPI_internal[2] = flag ? 1 : 0;
    return MPI_SUCCESS;
}
MPII_WEAK(Status_set_cancelled)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || !flag)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Test_cancelled", "NULL argument");
    *flag = status->MPI_internal[2] != 0;
    return MPI_SUCCESS;
}
MPII_WEAK(Test_cancelled)

int PMPI_Status_get_source(const MPI_Status *status, int *v)
{
    if (!status || !v)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Status_get_source", "NULL argument");
    *v = status->MPI_SOURCE;
    return MPI_SUCCESS;
}
MPII_WEAK(Status_get_source)

int PMPI_Status_set_source(MPI_Status *status, int v)
{
    if (!status)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Status_set_source", "NULL status");
    status->MPI_SOURCE = v;
    return MPI_SUCCESS;
}
MPII_WEAK(Status_set_source)

int PMPI_Status_get_tag(const MPI_Status *status, int *v)
{
    if (!status || !v)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Status_get_tag", "NULL argument");
    *v = status->MPI_TAG;
    return MPI_SUCCESS;
}
MPII_WEAK(Status_get_tag)

int PMPI_Status_set_tag(MPI_Status *status, int v)
{
    if (!status)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Status_set_tag", "NULL status");
    status->MPI_TAG = v;
    return MPI_SUCCESS;
}
MPII_WEAK(Status_set_tag)

int PMPI_Status_get_error(const MPI_Status *status, int *v)
{
    if (!status || !v)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Status_get_error", "NULL argument");
    *v = status->MPI_ERROR;
    return MPI_SUCCESS;
}
MPII_WEAK(Status_get_error)

int PMPI_Status_set_error(MPI_Status *status, int v)
{
    if (!status)
        return mpii_err_comm(NULL, MPI_ERR_ARG, "MPI_Status_set_error", "NULL status");
    status->MPI_ERROR = v;
    return MPI_SUCCESS;
}
MPII_WEAK(Status_set_error)

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "status.twins.h"
