/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO independent access: explicit offsets and the individual file pointer
 * (read, write, their _at and _c forms), seek and position queries; the bounce buffer
 * through which every access without aggregation moves non-contiguous memory. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpii.h"
#include "mpii_file.h"
#include "mpii_p2p.h"

/* Non-contiguous memory moves through a bounce buffer of at most this many bytes. */
#define FIO_CHUNK ((size_t)4 << 20)

int mpii_file_bounce(mpii_dtype_t *d, void *buf, MPI_Count count, int write,
                     mpii_file_xfer_fn xfer, void *ctx, size_t *done)
{
    size_t total = (size_t)count * d->size, moved = 0;
    *done = 0;
    if (total == 0)
        return MPI_SUCCESS;
    if (d->contig)
        return xfer(ctx, 0, (char *)buf + d->true_lb, total, write, done);
    size_t cap = total < FIO_CHUNK ? total : FIO_CHUNK;
    char *tmp = malloc(cap);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    while (moved < total && rc == MPI_SUCCESS) {
        size_t n = total - moved < cap ? total - moved : cap, got = 0;
        if (write)
            mpii_dtype_pack(d, buf, count, moved, tmp, n);
        rc = xfer(ctx, moved, tmp, n, write, &got);
        if (!write) /* what was read only: the rest of buf keeps its bytes */
            mpii_dtype_unpack(d, buf, count, moved, tmp, got);
        moved += got;
        if (got < n) /* end of file, or an error */
            break;
    }
    free(tmp);
    *done = moved;
    return rc;
}

int mpii_file_args(MPI_File fh, MPI_Count count, MPI_Datatype dt, int write, mpii_file_t **f,
                   mpii_dtype_t **d, const char *fn)
{
    if (!(*f = mpii_file(fh)))
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (count < 0)
        return mpii_file_err(*f, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    if (!mpii_dtype_ok(*d = mpii_dtype(dt)))
        return mpii_file_err(*f, MPI_ERR_TYPE, fn, "invalid or uncommitted datatype");
    if (write && ((*f)->amode & MPI_MODE_RDONLY))
        return mpii_file_err(*f, MPI_ERR_READ_ONLY, fn, "file opened read-only");
    if (!write && ((*f)->amode & MPI_MODE_WRONLY))
        return mpii_file_err(*f, MPI_ERR_ACCESS, fn, "file opened write-only");
    if ((*d)->size % (*f)->esize)
        return mpii_file_err(*f, MPI_ERR_TYPE, fn, "datatype is not made of whole etypes");
    return MPI_SUCCESS;
}

/* n packed bytes at stream position pos: a non-contiguous view through data sieving
 * (file_sieve.c), a contiguous one through O_DIRECT when it is open; atomic mode
 * through the view's own path, which locks the whole range. */
static int fio_view(mpii_file_t *f, MPI_Offset pos, char *pk, size_t n, int write, size_t *done)
{
    int contig = f->nseg == 1 && f->seg[0].len == f->ftext;
    if (f->atomic || f->ftsize == 0 || (contig && f->dfd < 0))
        return mpii_file_view_io(f, pos, pk, n, write, done);
    if (contig)
        return mpii_file_direct_io(f, f->disp + f->seg[0].off + pos, pk, n, write, done);
    return mpii_file_sieve_io(f, pos, pk, n, write, done);
}

/* The stream position of an access, for fio_at. */
typedef struct {
    mpii_file_t *f;
    MPI_Offset pos;
} fio_at_t;

static int fio_at(void *ctx, size_t at, char *pk, size_t n, int write, size_t *got)
{
    fio_at_t *a = ctx;
    return fio_view(a->f, a->pos + (MPI_Offset)at, pk, n, write, got);
}

int mpii_file_rw_pos(mpii_file_t *f, MPI_Offset pos, void *buf, MPI_Count count,
                     mpii_dtype_t *d, int write, MPI_Count *bytes, const char *fn)
{
    size_t total = (size_t)count * d->size, done = 0;
    int rc = MPI_SUCCESS;
    *bytes = 0;
    if (total == 0)
        return MPI_SUCCESS;
    if (f->drep) {
        if (!mpii_file_datarep_ok(f->drep, d))
            return mpii_file_err(f, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                                 "datarep %s of a type whose file extent is not native",
                                 f->datarep);
        rc = mpii_file_datarep_io(f, pos, buf, count, d, write, &done);
    } else {
        fio_at_t at = {f, pos};
        rc = mpii_file_bounce(d, buf, count, write, fio_at, &at, &done);
    }
    *bytes = (MPI_Count)done;
    if (rc == MPI_ERR_NO_MEM)
        return mpii_file_err(f, rc, fn, "out of memory");
    return rc ? mpii_file_err(f, rc, fn, "%s failed", write ? "write" : "read") : MPI_SUCCESS;
}

int mpii_file_rw(MPI_File fh, int kind, MPI_Offset off, void *buf, MPI_Count count,
                 MPI_Datatype dt, int write, MPI_Status *st, const char *fn)
{
    mpii_file_t *f;
    mpii_dtype_t *d;
    int rc = mpii_file_args(fh, count, dt, write, &f, &d, fn);
    if (rc)
        return rc;
    if (kind != MPII_FIO_SHARED && (f->amode & MPI_MODE_SEQUENTIAL))
        return mpii_file_err(f, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                             "a sequential file has only the shared pointer");
    if (kind == MPII_FIO_AT && off < 0)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "negative offset %lld", (long long)off);
    MPI_Offset es = (MPI_Offset)f->esize, pos;
    if (kind == MPII_FIO_AT) {
        pos = off * es;
    } else if (kind == MPII_FIO_INDIV) {
        pos = f->ptr * es;
    } else {
        int64_t old = 0;
        rc = mpii_file_shared_fetch_add(f, (int64_t)((MPI_Offset)count * (MPI_Offset)d->size / es),
                                        &old);
        if (rc)
            return mpii_file_err(f, rc, fn, "cannot update the shared file pointer");
        pos = old * es;
    }
    MPI_Count bytes = 0;
    rc = mpii_file_rw_pos(f, pos, buf, count, d, write, &bytes, fn);
    if (kind == MPII_FIO_INDIV)
        f->ptr += bytes / es;
    if (st != MPI_STATUS_IGNORE)
        mpii_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, rc, bytes);
    return rc;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    const char *fn = "MPI_File_seek";
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return mpii_file_err(f, MPI_ERR_UNSUPPORTED_OPERATION, fn, "sequential file");
    MPI_Offset base;
    if (whence == MPI_SEEK_SET) {
        base = 0;
    } else if (whence == MPI_SEEK_CUR) {
        base = f->ptr;
    } else if (whence == MPI_SEEK_END) {
        struct stat sb;
        if (fstat(f->fd, &sb) != 0)
            return mpii_file_err(f, MPI_ERR_IO, fn, "fstat failed");
        if (mpii_file_is_x32(f)) {
            int rc = mpii_file_x32_end_of(f, (MPI_Offset)sb.st_size, &base);
            if (rc)
                return mpii_file_err(f, rc, fn, "the external32 layout of the view");
        } else {
            base = mpii_file_pos_of(f, (MPI_Offset)sb.st_size) / (MPI_Offset)f->esize;
        }
    } else {
        return mpii_file_err(f, MPI_ERR_ARG, fn, "invalid whence %d", whence);
    }
    if (base + offset < 0)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "seek before the start of the view");
    f->ptr = base + offset;
    return MPI_SUCCESS;
}
MPII_WEAK(File_seek)

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    const char *fn = "MPI_File_get_position";
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (!offset)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "offset is NULL");
    *offset = f->ptr;
    return MPI_SUCCESS;
}
MPII_WEAK(File_get_position)

MPII_TWINS(File_read, mpii_file_rw(fh, MPII_FIO_INDIV, 0, buf, count, datatype, 0, status, FN))

MPII_TWINS(File_write, mpii_file_rw(fh, MPII_FIO_INDIV, 0, (void *)buf, count, datatype, 1,
           status, FN))

MPII_TWINS(File_read_at, mpii_file_rw(fh, MPII_FIO_AT, offset, buf, count, datatype, 0, status,
           FN))

MPII_TWINS(File_write_at, mpii_file_rw(fh, MPII_FIO_AT, offset, (void *)buf, count, datatype, 1,
           status, FN))

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "file_io.twins.h"
