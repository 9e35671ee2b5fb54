/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO shared file pointer: a 64-bit counter of etypes in a locked side file,
 * advanced with a fetch-and-add (independent _shared forms) or once per
 * collective call after an exclusive scan of the ranks' amounts (_ordered forms). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpii.h"
#include "mpii_file.h"
#include "mpii_p2p.h"

/* The counter is 8 bytes in a file rank 0 makes beside the data file (in TMPDIR when
 * that directory is not writable), opened by every rank and unlinked at once, so it
 * lives exactly as long as the descriptors: a crash leaves nothing behind (the open is
 * file_open.c's: the name travels with the data file's open). Updates are serialized
 * by an fcntl write lock on it. */
int mpii_file_shared_make(mpii_file_t *f, int64_t init, char *name, size_t cap)
{
    const char *slash = strrchr(f->path, '/');
    int dl = slash ? (int)(slash - f->path) : 1;
    snprintf(name, cap, "%.*s/.rmpio-shfp-XXXXXX", dl, slash ? f->path : ".");
    f->shfd = mkstemp(name);
    if (f->shfd < 0) {
        const char *t = getenv("TMPDIR");
        snprintf(name, cap, "%s/.rmpio-shfp-XXXXXX", t && *t ? t : "/tmp");
        f->shfd = mkstemp(name);
    }
    if (f->shfd >= 0 && pwrite(f->shfd, &init, sizeof(init), 0) == (ssize_t)sizeof(init))
        return MPI_SUCCESS;
    if (f->shfd >= 0) {
        close(f->shfd);
        unlink(name);
    }
    f->shfd = -1;
    name[0] = '\0';
    return MPI_ERR_IO;
}

int mpii_file_shared_join(mpii_file_t *f, const char *name)
{
    f->shfd = open(name, O_RDWR);
    return f->shfd < 0 ? mpii_file_errno_class(errno) : MPI_SUCCESS;
}

void mpii_file_shared_close(mpii_file_t *f)
{
    mpii_file_async_close(f); /* close waits for the nonblocking accesses still running */
    if (f->shfd >= 0)
        close(f->shfd);
    f->shfd = -1;
}

static int fsh_lock(mpii_file_t *f, short type)
{
    struct flock fk = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 8};
    while (fcntl(f->shfd, F_SETLKW, &fk) != 0)
        if (errno != EINTR)
            return MPI_ERR_IO;
    return MPI_SUCCESS;
}

int mpii_file_shared_fetch_add(mpii_file_t *f, int64_t n, int64_t *old)
{
    int rc = fsh_lock(f, F_WRLCK);
    if (rc)
        return rc;
    int64_t v = 0;
    if (pread(f->shfd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
        rc = MPI_ERR_IO;
    *old = v;
    v += n;
    if (rc == MPI_SUCCESS && n && pwrite(f->shfd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
        rc = MPI_ERR_IO;
    fsh_lock(f, F_UNLCK);
    return rc;
}

int mpii_file_shared_set(mpii_file_t *f, int64_t v)
{
    int rc = fsh_lock(f, F_WRLCK);
    if (rc)
        return rc;
    if (pwrite(f->shfd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
        rc = MPI_ERR_IO;
    fsh_lock(f, F_UNLCK);
    return rc;
}

/* Collective: the ranks' data lands in rank order from the shared pointer, which
 * moves past all of it. */
static int fsh_ordered(MPI_File fh, int kind, MPI_Offset off, void *buf, MPI_Count count,
                       MPI_Datatype dt, int write, MPI_Status *st, const char *fn)
{
    (void)kind;
    (void)off;
    mpii_file_t *f;
    mpii_dtype_t *d;
    int rc = mpii_file_args(fh, count, dt, write, &f, &d, fn);
    if (rc)
        return rc;
    int64_t mine = (int64_t)((MPI_Offset)count * (MPI_Offset)d->size / (MPI_Offset)f->esize);
    int64_t pre = 0, total = 0, base = 0;
    PMPI_Exscan(&mine, &pre, 1, MPI_INT64_T, MPI_SUM, f->comm);
    if (f->rank == 0)
        pre = 0;
    PMPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, f->comm);
    if (f->rank == 0)
        rc = mpii_file_shared_fetch_add(f, total, &base);
    PMPI_Bcast(&base, 1, MPI_INT64_T, 0, f->comm);
    if (rc)
        return mpii_file_err(f, rc, fn, "cannot update the shared file pointer");
    MPI_Count bytes = 0;
    rc = mpii_file_rw_pos(f, (base + pre) * (MPI_Offset)f->esize, buf, count, d, write, &bytes,
                          fn);
    if (st != MPI_STATUS_IGNORE)
        mpii_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, rc, bytes);
    return rc;
}

static int fsh_begin(MPI_File fh, int kind, MPI_Offset off, void *buf, MPI_Count count,
                     MPI_Datatype dt, int write, const char *fn)
{
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (f->split.active)
        return mpii_file_err(f, MPI_ERR_OTHER, fn, "a split collective is already active");
    int rc = fsh_ordered(fh, kind, off, buf, count, dt, write, &f->split.st, fn);
    if (rc == MPI_SUCCESS)
        f->split.active = 1;
    return rc;
}

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    const char *fn = "MPI_File_seek_shared";
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    int rc = MPI_SUCCESS;
    int64_t cur = 0;
    MPI_Offset np = offset;
    PMPI_Barrier(f->comm); /* every rank is done with the pointer before it moves */
    if (f->rank == 0) {
        if (whence == MPI_SEEK_CUR) {
            rc = mpii_file_shared_fetch_add(f, 0, &cur);
            np = cur + offset;
        } else if (whence == MPI_SEEK_END) {
            struct stat sb;
            rc = fstat(f->fd, &sb) == 0 ? MPI_SUCCESS : MPI_ERR_IO;
            if (rc == MPI_SUCCESS && mpii_file_is_x32(f))
                rc = mpii_file_x32_end_of(f, (MPI_Offset)sb.st_size, &np);
            else if (rc == MPI_SUCCESS)
                np = mpii_file_pos_of(f, (MPI_Offset)sb.st_size) / (MPI_Offset)f->esize;
            np += offset;
        } else if (whence != MPI_SEEK_SET) {
            rc = MPI_ERR_ARG;
        }
        if (rc == MPI_SUCCESS && np < 0)
            rc = MPI_ERR_ARG;
        if (rc == MPI_SUCCESS)
            rc = mpii_file_shared_set(f, (int64_t)np);
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, f->comm);
    PMPI_Barrier(f->comm); /* nobody uses the pointer before it moved */
    return rc ? mpii_file_err(f, rc, fn, "cannot seek the shared file pointer") : MPI_SUCCESS;
}
MPII_WEAK(File_seek_shared)

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    const char *fn = "MPI_File_get_position_shared";
    mpii_file_t *f = mpii_file(fh);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (!offset)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "offset is NULL");
    int64_t cur = 0;
    int rc = mpii_file_shared_fetch_add(f, 0, &cur);
    if (rc)
        return mpii_file_err(f, rc, fn, "cannot read the shared file pointer");
    *offset = cur;
    return MPI_SUCCESS;
}
MPII_WEAK(File_get_position_shared)

MPII_TWINS(File_read_shared, mpii_file_rw(fh, MPII_FIO_SHARED, 0, buf, count, datatype, 0,
           status, FN))

MPII_TWINS(File_write_shared, mpii_file_rw(fh, MPII_FIO_SHARED, 0, (void *)buf, count, datatype,
           1, status, FN))

MPII_TWINS(File_read_ordered, fsh_ordered(fh, MPII_FIO_ORDERED, 0, buf, count, datatype, 0,
           status, FN))

MPII_TWINS(File_read_ordered_begin, fsh_begin(fh, MPII_FIO_ORDERED, 0, buf, count, datatype, 0,
           FN))

int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return mpii_file_split_end(fh, status, "MPI_File_read_ordered_end");
}
MPII_WEAK(File_read_ordered_end)

MPII_TWINS(File_write_ordered, fsh_ordered(fh, MPII_FIO_ORDERED, 0, (void *)buf, count, datatype,
           1, status, FN))

MPII_TWINS(File_write_ordered_begin, fsh_begin(fh, MPII_FIO_ORDERED, 0, (void *)buf, count,
           datatype, 1, FN))

int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return mpii_file_split_end(fh, status, "MPI_File_write_ordered_end");
}
MPII_WEAK(File_write_ordered_end)

/* the MPII_TWINS above, written out by mpi/gen_twins.py */
#include "file_shared.twins.h"
