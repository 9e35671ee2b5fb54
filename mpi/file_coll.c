/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO collective access (the _all forms) and split collectives (begin/end).
 * Interleaved accesses go two-phase (file_twophase.c), which on one node with large
 * pieces lets every rank move its own (file_own.c); otherwise, and in atomic mode,
 * with external32, or when the romio_cb_read/write hint disables it, each rank does
 * its own part independently. */
#include <string.h>

#include "mpii.h"
#include "mpii_file.h"
#include "mpii_p2p.h"

static int fio_rw_all(MPI_File fh, int kind, MPI_Offset off, void *buf, MPI_Count count,
                      MPI_Datatype dt, int write, MPI_Status *st, const char *fn)
{
    mpii_file_t *f;
    mpii_dtype_t *d;
    int rc = mpii_file_args(fh, count, dt, write, &f, &d, fn);
    if (rc)
        return rc;
    int cb = write ? f->cb_write : f->cb_read;
    if (cb == 0 || f->atomic || f->drep || f->size == 1 || (f->amode & MPI_MODE_SEQUENTIAL) ||
        (kind == MPII_FIO_AT && off < 0))
        return mpii_file_rw(fh, kind, off, buf, count, dt, write, st, fn);
    MPI_Offset es = (MPI_Offset)f->esize;
    MPI_Offset pos = kind == MPII_FIO_AT ? off * es : f->ptr * es;
    MPI_Count bytes = 0;
    int done = 0;
    rc = mpii_file_twophase(f, pos, buf, count, d, write, &bytes, &done, fn);
    if (!done)
        return mpii_file_rw(fh, kind, off, buf, count, dt, write, st, fn);
    if (kind == MPII_FIO_INDIV)
        f->ptr += bytes / es;
    if (st != MPI_STATUS_IGNORE)
        mpii_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, rc, bytes);
    return rc;
}

/* A split collective does the access at begin and hands its status to end; one may
 * be active per file. */
static int fio_begin(MPI_File fh, int kind, MPI_Offset off, void *buf, MPI_Count count,
                     MPI_Datatype dt, int write, const char *fn)
{
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (f->split.active)
        return mpii_file_err(f, MPI_ERR_OTHER, fn, "a split collective is already active");
    int rc = mpii_file_rw(fh, kind, off, buf, count, dt, write, &f->split.st, fn);
    if (rc == MPI_SUCCESS)
        f->split.active = 1;
    return rc;
}

int mpii_file_split_end(MPI_File fh, MPI_Status *st, const char *fn)
{
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (!f->split.active)
        return mpii_file_err(f, MPI_ERR_OTHER, fn, "no split collective is active");
    f->split.active = 0;
    if (st != MPI_STATUS_IGNORE)
        *st = f->split.st;
    return MPI_SUCCESS;
}

MPII_TWINS(File_read_all, fio_rw_all(fh, MPII_FIO_INDIV, 0, buf, count, datatype, 0, status, FN))

MPII_TWINS(File_write_all, fio_rw_all(fh, MPII_FIO_INDIV, 0, (void *)buf, count, datatype, 1,
           status, FN))

MPII_TWINS(File_read_at_all, fio_rw_all(fh, MPII_FIO_AT, offset, buf, count, datatype, 0, status,
           FN))

MPII_TWINS(File_write_at_all, fio_rw_all(fh, MPII_FIO_AT, offset, (void *)buf, count, datatype,
           1, status, FN))

MPII_TWINS(File_read_all_begin, fio_begin(fh, MPII_FIO_INDIV, 0, buf, count, datatype, 0, FN))

int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return mpii_file_split_end(fh, status, "MPI_File_read_all_end");
}
MPII_WEAK(File_read_all_end)

MPII_TWINS(File_write_all_begin, fio_begin(fh, MPII_FIO_INDIV, 0, (void *)buf, count, datatype,
           1, FN))

int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return mpii_file_split_end(fh, status, "MPI_File_write_all_end");
}
MPII_WEAK(File_write_all_end)

MPII_TWINS(File_read_at_all_begin, fio_begin(fh, MPII_FIO_AT, offset, buf, count, datatype, 0,
           FN))

int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return mpii_file_split_end(fh, status, "MPI_File_read_at_all_end");
}
MPII_WEAK(File_read_at_all_end)

MPII_TWINS(File_write_at_all_begin, fio_begin(fh, MPII_FIO_AT, offset, (void *)buf, count,
           datatype, 1, FN))

int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return mpii_file_split_end(fh, status, "MPI_File_write_at_all_end");
}
MPII_WEAK(File_write_at_all_end)

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "file_coll.twins.h"
