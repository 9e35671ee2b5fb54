/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO: opening, closing and deleting files, their size, access mode, group and
 * error handlers (docs/mpi.md, "MPI-IO"). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpii.h"
#include "mpii_file.h"
#include "mpii_p2p.h"

static mpii_pool_t file_pool = MPII_POOL_INIT(mpii_file_t);
/* MPI_FILE_NULL's handler: the one open and delete errors use, and new files inherit
 * (MPI_ERRORS_RETURN until the user sets another, as the standard says). */
static mpii_errh_t *file_null_errh;

static mpii_errh_t *file_default_errh(void)
{
    if (!file_null_errh) {
        file_null_errh = mpii_errh(MPI_ERRORS_RETURN);
        mpii_errh_retain(file_null_errh);
    }
    return file_null_errh;
}

mpii_file_t *mpii_file(MPI_File h)
{
    return mpii_obj_valid(h, MPII_MAGIC_FILE) ? (mpii_file_t *)h : NULL;
}

int mpii_file_err(mpii_file_t *f, int code, const char *fn, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return mpii_err_fileh(f ? (MPI_File)f : MPI_FILE_NULL, f ? f->errh : file_default_errh(),
                          code, fn, msg);
}

int mpii_file_errno_class(int err)
{
    switch (err) {
    case ENOENT:
        return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG:
        return MPI_ERR_NO_SPACE;
    case EDQUOT:
        return MPI_ERR_QUOTA;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP:
        return MPI_ERR_BAD_FILE;
    case ETXTBSY:
    case EBUSY:
        return MPI_ERR_FILE_IN_USE;
    case ENOMEM:
        return MPI_ERR_NO_MEM;
    default:
        return MPI_ERR_IO;
    }
}

/* ROMIO-style "ufs:path" names a file system; the path is what follows. */
static const char *file_path(const char *name)
{
    static const char *const fs[] = {"ufs:", "nfs:", "tmpfs:", "lustre:", "gpfs:", "pvfs2:"};
    for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
        if (strncmp(name, fs[i], strlen(fs[i])) == 0)
            return name + strlen(fs[i]);
    return name;
}

static int file_amode_ok(int amode)
{
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_RDWR) + !!(amode & MPI_MODE_WRONLY);
    if (rw != 1)
        return 0;
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return 0;
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        return 0;
    int known = MPI_MODE_APPEND | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_EXCL |
                MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL | MPI_MODE_UNIQUE_OPEN |
                MPI_MODE_WRONLY;
    return (amode & ~known) == 0;
}

/* Hints (MPI_File_open/set_info/set_view): the ones we know are kept (and shown by
 * get_info), unknown ones ignored. */
static long long file_hint_num(MPI_Info info, const char *key, long long dflt)
{
    char v[64];
    int len = sizeof(v), flag = 0;
    if (PMPI_Info_get_string(info, key, &len, v, &flag) != MPI_SUCCESS || !flag)
        return dflt;
    char *end;
    long long x = strtoll(v, &end, 10);
    return end != v && x > 0 ? x : dflt;
}

static int file_hint_cb(MPI_Info info, const char *key, int dflt)
{
    char v[32];
    int len = sizeof(v), flag = 0;
    if (PMPI_Info_get_string(info, key, &len, v, &flag) != MPI_SUCCESS || !flag)
        return dflt;
    return strcmp(v, "disable") == 0 ? 0 : strcmp(v, "enable") == 0 ? 1 : 2;
}

static void file_hints(mpii_file_t *f, MPI_Info info)
{
    if (info == MPI_INFO_NULL || !mpii_info(info))
        return;
    f->cb_buffer_size = file_hint_num(info, "cb_buffer_size", f->cb_buffer_size);
    f->cb_nodes = (int)file_hint_num(info, "cb_nodes", f->cb_nodes);
    f->cb_read = file_hint_cb(info, "romio_cb_read", f->cb_read);
    f->cb_write = file_hint_cb(info, "romio_cb_write", f->cb_write);
    f->striping_unit = file_hint_num(info, "striping_unit", f->striping_unit);
    f->striping_factor = (int)file_hint_num(info, "striping_factor", f->striping_factor);
    mpii_file_fast_hints(f, info);
}

static void file_destroy(mpii_file_t *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->dfd >= 0)
        close(f->dfd);
    mpii_file_aggr_free(f);
    mpii_file_shared_close(f);
    if (f->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&f->comm);
    mpii_file_view_free(f);
    if (f->errh)
        mpii_errh_release(f->errh);
    free(f->path);
    mpii_obj_free(&file_pool, f);
}

/* What rank 0 tells the others after its open: its error (or that reading was denied,
 * probe), and the shared pointer's side file, whose name travels here when it fits. */
typedef struct {
    int err, denied, len;
    char name[244];
} file_hello_t;

/* One attempt at opening path with flags on every rank, and the shared pointer's side
 * file: rank 0 first (it alone creates, so MPI_MODE_EXCL fails only when the file existed
 * before the call), then the others; one bcast and one allreduce. probe: a failure to
 * read (EACCES) is not an error but *denied, and nothing is left open (the caller then
 * opens write-only). 0 or an MPI class, the same on every rank. */
static int file_open_try(mpii_file_t *f, int flags, int amode, int probe, int *denied)
{
    file_hello_t h = {0, 0, 0, ""};
    char name[PATH_MAX] = "";
    MPI_Offset end = 0;
    struct stat sb;
    *denied = 0;
    if (f->rank == 0) {
        int cf = flags | (amode & MPI_MODE_CREATE ? O_CREAT : 0) |
                 (amode & MPI_MODE_EXCL ? O_EXCL : 0);
        f->fd = open(f->path, cf, 0666);
        h.denied = probe && f->fd < 0 && errno == EACCES;
        h.err = f->fd < 0 && !h.denied ? mpii_file_errno_class(errno) : 0;
        if (f->fd >= 0 && (amode & MPI_MODE_APPEND))
            end = fstat(f->fd, &sb) == 0 ? (MPI_Offset)sb.st_size : 0;
        if (f->fd >= 0)
            h.err = mpii_file_shared_make(f, end, name, sizeof(name));
        h.len = (int)strlen(name);
        if (h.len < (int)sizeof(h.name))
            memcpy(h.name, name, (size_t)h.len + 1);
    }
    PMPI_Bcast(&h, (int)sizeof(h), MPI_BYTE, 0, f->comm);
    if (h.err || h.denied) {
        *denied = h.denied;
        return h.err;
    }
    if (h.len >= (int)sizeof(h.name)) /* a long directory: the name on its own */
        PMPI_Bcast(name, h.len + 1, MPI_CHAR, 0, f->comm);
    else
        memcpy(name, h.name, (size_t)h.len + 1);
    int st[2] = {0, 0}; /* error, denied */
    if (f->rank != 0) {
        f->fd = open(f->path, flags);
        st[1] = probe && f->fd < 0 && errno == EACCES;
        st[0] = f->fd < 0 && !st[1] ? mpii_file_errno_class(errno) : 0;
        if (f->fd >= 0)
            st[0] = mpii_file_shared_join(f, name);
    }
    PMPI_Allreduce(MPI_IN_PLACE, st, 2, MPI_INT, MPI_MAX, f->comm);
    if (f->rank == 0) /* every rank has it open, or gave up */
        unlink(name);
    if (st[1] && !st[0]) {
        *denied = 1;
        if (f->fd >= 0)
            close(f->fd);
        f->fd = -1;
        mpii_file_shared_close(f);
    }
    return st[0];
}

/* Write sieving reads before it writes: write-only is opened read-write when it may
 * sieve (the access mode checks stay MPI's); sieving is off where some rank may not
 * read. */
static int file_open_fd(mpii_file_t *f, int amode)
{
    int flags = amode & MPI_MODE_RDONLY ? O_RDONLY : amode & MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
    int denied = 0;
    if (flags == O_WRONLY && f->ds_write) {
        int rc = file_open_try(f, O_RDWR, amode, 1, &denied);
        if (!denied)
            return rc;
        f->ds_write = 0;
        if (f->rank == 0 && (amode & MPI_MODE_EXCL)) /* it may have created the file */
            amode &= ~MPI_MODE_EXCL;
    }
    return file_open_try(f, flags, amode, 0, &denied);
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    const char *fn = "MPI_File_open";
    mpii_check_init(fn);
    mpii_comm_t *c = mpii_comm(comm);
    if (!c)
        return mpii_err_comm(NULL, MPI_ERR_COMM, fn, "invalid communicator");
    if (c->inter)
        return mpii_err_comm(c, MPI_ERR_COMM, fn, "an intercommunicator");
    if (!fh || !filename)
        return mpii_file_err(NULL, MPI_ERR_ARG, fn, "%s is NULL", fh ? "filename" : "fh");
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_file_err(NULL, MPI_ERR_INFO, fn, "invalid info");
    if (!file_amode_ok(amode))
        return mpii_file_err(NULL, MPI_ERR_AMODE, fn, "invalid access mode %#x", amode);
    mpii_file_t *f = mpii_obj_new(&file_pool, MPII_MAGIC_FILE);
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    f->fd = -1;
    f->comm = MPI_COMM_NULL;
    f->shfd = -1;
    mpii_file_fast_defaults(f);
    f->amode = amode;
    f->errh = file_default_errh();
    mpii_errh_retain(f->errh);
    f->cb_buffer_size = 16777216;
    f->cb_read = f->cb_write = 2;
    f->path = strdup(file_path(filename));
    int rc = PMPI_Comm_dup(comm, &f->comm);
    if (rc != MPI_SUCCESS) {
        f->comm = MPI_COMM_NULL;
        file_destroy(f);
        return mpii_file_err(NULL, rc, fn, "cannot duplicate the communicator");
    }
    PMPI_Comm_rank(f->comm, &f->rank);
    PMPI_Comm_size(f->comm, &f->size);
    /* one aggregator per node unless the hint says otherwise */
    int err = mpii_file_aggr_alloc(f);
    f->cb_nodes = 0;
    file_hints(f, info);
    if (!err)
        err = f->path ? mpii_file_view_default(f) : MPI_ERR_NO_MEM;
    int any = 0;
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, f->comm);
    if (!any) {
        mpii_file_aggr_layout(f);
        f->cb_nodes = f->cb_nodes > 0 ? f->cb_nodes : f->nodes;
    }
    err = any ? any : file_open_fd(f, amode);
    MPI_Offset end = 0;
    struct stat sb;
    if (!err && (amode & MPI_MODE_APPEND))
        end = fstat(f->fd, &sb) == 0 ? (MPI_Offset)sb.st_size : 0;
    if (!err)
        mpii_file_direct_open(f);
    if (err) {
        file_destroy(f);
        return mpii_file_err(NULL, err, fn, "cannot open %s: %s", filename, mpii_err_name(err));
    }
    f->ptr = end; /* the allreduce of file_open_try: every rank has opened */
    *fh = (MPI_File)f;
    return MPI_SUCCESS;
}
MPII_WEAK(File_open)

int PMPI_File_close(MPI_File *fh)
{
    const char *fn = "MPI_File_close";
    mpii_file_t *f = fh ? mpii_file(*fh) : NULL;
    if (!f)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    int err = 0;
    mpii_file_async_drain(f); /* queued accesses land before the others may reopen */
    if (f->fd >= 0 && close(f->fd) != 0)
        err = mpii_file_errno_class(errno);
    f->fd = -1;
    /* the name goes before any rank returns (the others' open descriptors keep the data
     * until they close them, in this call) */
    if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->rank == 0)
        unlink(f->path);
    PMPI_Barrier(f->comm);
    file_destroy(f);
    *fh = MPI_FILE_NULL;
    return err ? mpii_file_err(NULL, err, fn, "close failed") : MPI_SUCCESS;
}
MPII_WEAK(File_close)

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    const char *fn = "MPI_File_delete";
    mpii_check_init(fn);
    (void)info;
    if (!filename)
        return mpii_file_err(NULL, MPI_ERR_ARG, fn, "filename is NULL");
    if (unlink(file_path(filename)) != 0)
        return mpii_file_err(NULL, mpii_file_errno_class(errno), fn, "cannot delete %s",
                             filename);
    return MPI_SUCCESS;
}
MPII_WEAK(File_delete)

static int file_get(MPI_File fh, const void *out, const char *fn, mpii_file_t **f)
{
    if (!(*f = mpii_file(fh)))
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (!out)
        return mpii_file_err(*f, MPI_ERR_ARG, fn, "output argument is NULL");
    return MPI_SUCCESS;
}

/* The checks set_size and preallocate share: a writable, non-sequential file. */
static int file_resize_check(MPI_File fh, MPI_Offset size, const char *fn, mpii_file_t **fp)
{
    int rc = file_get(fh, fh, fn, fp);
    if (rc)
        return rc;
    mpii_file_t *f = *fp;
    if (size < 0)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "negative size");
    if (f->amode & MPI_MODE_RDONLY)
        return mpii_file_err(f, MPI_ERR_READ_ONLY, fn, "file opened read-only");
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return mpii_file_err(f, MPI_ERR_UNSUPPORTED_OPERATION, fn, "sequential file");
    return MPI_SUCCESS;
}

/* Collective size changes: rank 0 truncates, every rank returns its error class. */
int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    const char *fn = "MPI_File_set_size";
    mpii_file_t *f;
    int rc = file_resize_check(fh, size, fn, &f);
    if (rc)
        return rc;
    int err = 0, any = 0;
    if (f->rank == 0 && ftruncate(f->fd, (off_t)size) != 0)
        err = mpii_file_errno_class(errno);
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, f->comm);
    return any ? mpii_file_err(f, any, fn, "ftruncate failed") : MPI_SUCCESS;
}
MPII_WEAK(File_set_size)

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    const char *fn = "MPI_File_preallocate";
    mpii_file_t *f;
    int rc = file_resize_check(fh, size, fn, &f);
    if (rc)
        return rc;
    int err = 0, any = 0;
    struct stat sb;
    if (f->rank == 0 && size > 0 && fstat(f->fd, &sb) == 0 && (MPI_Offset)sb.st_size < size) {
        /* posix_fallocate may be unsupported (EOPNOTSUPP): extend by truncation then */
        int e = posix_fallocate(f->fd, 0, (off_t)size);
        if (e && ftruncate(f->fd, (off_t)size) != 0)
            err = mpii_file_errno_class(errno);
    }
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, f->comm);
    return any ? mpii_file_err(f, any, fn, "preallocation failed") : MPI_SUCCESS;
}
MPII_WEAK(File_preallocate)

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    const char *fn = "MPI_File_get_size";
    mpii_file_t *f;
    int rc = file_get(fh, size, fn, &f);
    if (rc)
        return rc;
    struct stat sb;
    if (fstat(f->fd, &sb) != 0)
        return mpii_file_err(f, mpii_file_errno_class(errno), fn, "fstat failed");
    *size = (MPI_Offset)sb.st_size;
    return MPI_SUCCESS;
}
MPII_WEAK(File_get_size)

int PMPI_File_sync(MPI_File fh)
{
    const char *fn = "MPI_File_sync";
    mpii_file_t *f;
    int rc = file_get(fh, fh, fn, &f);
    if (rc)
        return rc;
    int err = 0, any = 0;
    mpii_file_async_drain(f); /* erroneous with accesses pending: made harmless */
    if (!(f->amode & MPI_MODE_RDONLY) && fsync(f->fd) != 0 && errno != EINVAL)
        err = mpii_file_errno_class(errno);
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, f->comm);
    return any ? mpii_file_err(f, any, fn, "fsync failed") : MPI_SUCCESS;
}
MPII_WEAK(File_sync)

int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    mpii_file_t *f;
    int rc = file_get(fh, amode, "MPI_File_get_amode", &f);
    if (rc)
        return rc;
    *amode = f->amode;
    return MPI_SUCCESS;
}
MPII_WEAK(File_get_amode)

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    mpii_file_t *f;
    int rc = file_get(fh, group, "MPI_File_get_group", &f);
    if (rc)
        return rc;
    return PMPI_Comm_group(f->comm, group);
}
MPII_WEAK(File_get_group)

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    const char *fn = "MPI_File_set_info";
    mpii_file_t *f;
    int rc = file_get(fh, fh, fn, &f);
    if (rc)
        return rc;
    if (info != MPI_INFO_NULL && !mpii_info(info))
        return mpii_file_err(f, MPI_ERR_INFO, fn, "invalid info");
    file_hints(f, info);
    return MPI_SUCCESS;
}
MPII_WEAK(File_set_info)

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    const char *fn = "MPI_File_get_info";
    mpii_file_t *f;
    int rc = file_get(fh, info_used, fn, &f);
    if (rc)
        return rc;
    static const char *const cb[] = {"disable", "enable", "automatic"};
    char v[32];
    MPI_Info in;
    if ((rc = PMPI_Info_create(&in)) != MPI_SUCCESS)
        return mpii_file_err(f, rc, fn, "cannot create an info");
    snprintf(v, sizeof(v), "%lld", (long long)f->cb_buffer_size);
    PMPI_Info_set(in, "cb_buffer_size", v);
    snprintf(v, sizeof(v), "%d", f->cb_nodes < f->size ? f->cb_nodes : f->size);
    PMPI_Info_set(in, "cb_nodes", v);
    PMPI_Info_set(in, "romio_cb_read", cb[f->cb_read]);
    PMPI_Info_set(in, "romio_cb_write", cb[f->cb_write]);
    if (f->striping_unit) {
        snprintf(v, sizeof(v), "%lld", (long long)f->striping_unit);
        PMPI_Info_set(in, "striping_unit", v);
    }
    if (f->striping_factor) {
        snprintf(v, sizeof(v), "%d", f->striping_factor);
        PMPI_Info_set(in, "striping_factor", v);
    }
    mpii_file_fast_info(f, in);
    *info_used = in;
    return MPI_SUCCESS;
}
MPII_WEAK(File_get_info)

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_File_set_errhandler";
    mpii_file_t *f = mpii_file(file);
    if (!f && file != MPI_FILE_NULL)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    mpii_errh_t *e = mpii_errh(errhandler);
    if (!e || (e->kind == MPII_ERRH_USER && e->obj != MPII_OBJ_FILE))
        return mpii_file_err(f, MPI_ERR_ERRHANDLER, fn, "invalid error handler for a file");
    mpii_errh_t **slot = f ? &f->errh : &file_null_errh;
    file_default_errh();
    mpii_errh_retain(e);
    mpii_errh_release(*slot);
    *slot = e;
    return MPI_SUCCESS;
}
MPII_WEAK(File_set_errhandler)

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_File_get_errhandler";
    mpii_file_t *f = mpii_file(file);
    if (!f && file != MPI_FILE_NULL)
        return mpii_file_err(NULL, MPI_ERR_FILE, fn, "invalid file");
    if (!errhandler)
        return mpii_file_err(f, MPI_ERR_ARG, fn, "errhandler is NULL");
    mpii_errh_t *e = f ? f->errh : file_default_errh();
    mpii_errh_retain(e);
    *errhandler = mpii_errh_handle(e);
    return MPI_SUCCESS;
}
MPII_WEAK(File_get_errhandler)

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    mpii_file_t *f = mpii_file(fh);
    if (!f && fh != MPI_FILE_NULL)
        return mpii_file_err(NULL, MPI_ERR_FILE, "MPI_File_call_errhandler", "invalid file");
    mpii_file_err(f, errorcode, "MPI_File_call_errhandler",
                  "error raised by MPI_File_call_errhandler");
    return MPI_SUCCESS;
}
MPII_WEAK(File_call_errhandler)

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    mpii_file_t *f;
    int rc = file_get(fh, fh, "MPI_File_set_atomicity", &f);
    if (rc)
        return rc;
    f->atomic = !!flag;
    return PMPI_Barrier(f->comm);
}
MPII_WEAK(File_set_atomicity)

int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    mpii_file_t *f;
    int rc = file_get(fh, flag, "MPI_File_get_atomicity", &f);
    if (rc)
        return rc;
    *flag = f->atomic;
    return MPI_SUCCESS;
}
MPII_WEAK(File_get_atomicity)
