/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO nonblocking access (iread/iwrite and their _at, _all, _shared, _c forms).
 * The transfer is done at call time and a generalized request, already complete,
 * carries its status: nothing is left to progress, so the request completes whether
 * or not the caller ever polls MPI. */
#include <stdlib.h>

#include "mpii.h"
#include "mpii_file.h"

static int fnb_query(void *extra, MPI_Status *st)
{
    *st = *(MPI_Status *)extra;
    return MPI_SUCCESS;
}

static int fnb_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int fnb_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static int fnb_start(MPI_File fh, int kind, MPI_Offset off, void *buf, MPI_Count count,
                     MPI_Datatype dt, int write, MPI_Request *req, const char *fn)
{
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (!req)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "request is NULL");
    MPI_Status *st = malloc(sizeof(*st));
    if (!st)
        return mpii_file_err(f, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = mpii_file_rw(fh, kind, off, buf, count, dt, write, st, fn);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Grequest_start(fnb_query, fnb_free, fnb_cancel, st, req);
    if (rc != MPI_SUCCESS) {
        free(st);
        return rc;
    }
    return PMPI_Grequest_complete(*req);
}

int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                    MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_INDIV, 0, buf, count, datatype, 0, request,
                     "MPI_File_iread");
}
MPII_WEAK(File_iread)

int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_INDIV, 0, buf, count, datatype, 0, request,
                     "MPI_File_iread");
}
MPII_WEAK(File_iread_c)

int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                     MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_INDIV, 0, (void *)buf, count, datatype, 1, request,
                     "MPI_File_iwrite");
}
MPII_WEAK(File_iwrite)

int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_INDIV, 0, (void *)buf, count, datatype, 1, request,
                     "MPI_File_iwrite");
}
MPII_WEAK(File_iwrite_c)

int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_AT, offset, buf, count, datatype, 0, request,
                     "MPI_File_iread_at");
}
MPII_WEAK(File_iread_at)

int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_AT, offset, buf, count, datatype, 0, request,
                     "MPI_File_iread_at");
}
MPII_WEAK(File_iread_at_c)

int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_AT, offset, (void *)buf, count, datatype, 1, request,
                     "MPI_File_iwrite_at");
}
MPII_WEAK(File_iwrite_at)

int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_AT, offset, (void *)buf, count, datatype, 1, request,
                     "MPI_File_iwrite_at");
}
MPII_WEAK(File_iwrite_at_c)

int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_INDIV, 0, buf, count, datatype, 0, request,
                     "MPI_File_iread_all");
}
MPII_WEAK(File_iread_all)

int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_INDIV, 0, buf, count, datatype, 0, request,
                     "MPI_File_iread_all");
}
MPII_WEAK(File_iread_all_c)

int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                         MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_INDIV, 0, (void *)buf, count, datatype, 1, request,
                     "MPI_File_iwrite_all");
}
MPII_WEAK(File_iwrite_all)

int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_INDIV, 0, (void *)buf, count, datatype, 1, request,
                     "MPI_File_iwrite_all");
}
MPII_WEAK(File_iwrite_all_c)

int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_AT, offset, buf, count, datatype, 0, request,
                     "MPI_File_iread_at_all");
}
MPII_WEAK(File_iread_at_all)

int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_AT, offset, buf, count, datatype, 0, request,
                     "MPI_File_iread_at_all");
}
MPII_WEAK(File_iread_at_all_c)

int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_AT, offset, (void *)buf, count, datatype, 1, request,
                     "MPI_File_iwrite_at_all");
}
MPII_WEAK(File_iwrite_at_all)

int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_AT, offset, (void *)buf, count, datatype, 1, request,
                     "MPI_File_iwrite_at_all");
}
MPII_WEAK(File_iwrite_at_all_c)

int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_SHARED, 0, buf, count, datatype, 0, request,
                     "MPI_File_iread_shared");
}
MPII_WEAK(File_iread_shared)

int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_SHARED, 0, buf, count, datatype, 0, request,
                     "MPI_File_iread_shared");
}
MPII_WEAK(File_iread_shared_c)

int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_SHARED, 0, (void *)buf, count, datatype, 1, request,
                     "MPI_File_iwrite_shared");
}
MPII_WEAK(File_iwrite_shared)

int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request)
{
    return fnb_start(fh, MPII_FIO_SHARED, 0, (void *)buf, count, datatype, 1, request,
                     "MPI_File_iwrite_shared");
}
MPII_WEAK(File_iwrite_shared_c)

