/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO nonblocking access (iread/iwrite and their _at, _all, _shared, _c forms).
 * Independent accesses in the native representation go to the I/O thread
 * (file_async.c): the call checks its arguments, reserves its place (moves the
 * individual pointer, or the shared one by a fetch-and-add) and returns; the request
 * completes when the thread has done the transfer, whether or not the caller polls
 * MPI. The collective forms, and accesses converted to another representation, do the
 * transfer at call time and return a generalized request already complete. */
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

/* An independent access: to the I/O thread when it moves native bytes, else at once. */
static int fnb_async(MPI_File fh, int kind, MPI_Offset off, void *buf, MPI_Count count,
                     MPI_Datatype dt, int write, MPI_Request *req, const char *fn)
{
    mpii_file_t *f;
    mpii_dtype_t *d;
    int rc = mpii_file_args(fh, count, dt, write, &f, &d, fn);
    if (rc)
        return rc;
    if (f->drep || count == 0 || d->size == 0)
        return fnb_start(fh, kind, off, buf, count, dt, write, req, fn);
    if (!req)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "request is NULL");
    if (kind != MPII_FIO_SHARED && (f->amode & MPI_MODE_SEQUENTIAL))
        return mpii_file_err(f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                             "a sequential file has only the shared pointer");
    if (kind == MPII_FIO_AT && off < 0)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "negative offset %lld", (long long)off);
    MPI_Offset es = (MPI_Offset)f->esize, n = count * (MPI_Offset)d->size / es, pos;
    if (kind == MPII_FIO_AT) {
        pos = off * es;
    } else if (kind == MPII_FIO_INDIV) {
        pos = f->ptr * es;
    } else {
        int64_t old = 0;
        if ((rc = mpii_file_shared_fetch_add(f, (int64_t)n, &old)))
            return mpii_file_err(f, rc, fn, "cannot update the shared file pointer");
        pos = old * es;
    }
    rc = mpii_file_async_start(f, pos, buf, count, d, write, req);
    if (rc)
        return mpii_file_err(f, rc, fn, "cannot start the %s", write ? "write" : "read");
    if (kind == MPII_FIO_INDIV)
        f->ptr += n; /* by the amount requested, as the standard says */
    return MPI_SUCCESS;
}

MPII_TWINS(File_iread, fnb_async(fh, MPII_FIO_INDIV, 0, buf, count, datatype, 0, request, FN))

MPII_TWINS(File_iwrite, fnb_async(fh, MPII_FIO_INDIV, 0, (void *)buf, count, datatype, 1,
           request, FN))

MPII_TWINS(File_iread_at, fnb_async(fh, MPII_FIO_AT, offset, buf, count, datatype, 0, request,
           FN))

MPII_TWINS(File_iwrite_at, fnb_async(fh, MPII_FIO_AT, offset, (void *)buf, count, datatype, 1,
           request, FN))

MPII_TWINS(File_iread_all, fnb_start(fh, MPII_FIO_INDIV, 0, buf, count, datatype, 0, request, FN))

MPII_TWINS(File_iwrite_all, fnb_start(fh, MPII_FIO_INDIV, 0, (void *)buf, count, datatype, 1,
           request, FN))

MPII_TWINS(File_iread_at_all, fnb_start(fh, MPII_FIO_AT, offset, buf, count, datatype, 0,
           request, FN))

MPII_TWINS(File_iwrite_at_all, fnb_start(fh, MPII_FIO_AT, offset, (void *)buf, count, datatype,
           1, request, FN))

MPII_TWINS(File_iread_shared, fnb_async(fh, MPII_FIO_SHARED, 0, buf, count, datatype, 0, request,
           FN))

MPII_TWINS(File_iwrite_shared, fnb_async(fh, MPII_FIO_SHARED, 0, (void *)buf, count, datatype, 1,
           request, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "file_nb.twins.h"
